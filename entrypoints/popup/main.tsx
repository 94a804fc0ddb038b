import { render } from 'preact';
import { browser } from 'wxt/browser';
import { Popup } from '../../src/ui/Popup';
import '../../src/ui/styles.css';

const app = document.getElementById('app');
if (app !== null) render(<Popup transport={(message) => browser.runtime.sendMessage(message)} />, app);
