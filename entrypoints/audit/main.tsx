import { render } from 'preact';
import { browser } from 'wxt/browser';
import { AuditPage } from '../../src/ui/AuditPage';
import '../../src/ui/styles.css';

const app = document.getElementById('app');
if (app !== null) render(<AuditPage transport={(message) => browser.runtime.sendMessage(message)} />, app);
