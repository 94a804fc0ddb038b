import { render } from 'preact';
import { browser } from 'wxt/browser';
import { OptionsPage } from '../../src/ui/OptionsPage';
import '../../src/ui/styles.css';

const app = document.getElementById('app');
if (app !== null) render(<OptionsPage transport={(message) => browser.runtime.sendMessage(message)} />, app);
