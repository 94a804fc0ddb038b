import { showBlockedPage } from '../../src/background/floor/blockedPage';

showBlockedPage(document, location.href);
