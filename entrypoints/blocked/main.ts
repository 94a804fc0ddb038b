import { showBlockedPage } from '../../src/background/blockedPage';

showBlockedPage(document, location.href);
