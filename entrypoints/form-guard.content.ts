import { browser } from 'wxt/browser';
import { installBridge, installFormGuard, type SendProposal } from '../src/content/isolated';
import { installTaintCollector } from '../src/content/taint';

// ISOLATED world, every frame, before any page script: holds form submissions and relays the MAIN-world
// hooks' proposals to the background; records the data-lane taint (session data the page shows or the
// agent types) for the network floor.
export default defineContentScript({
  matches: ['<all_urls>'],
  runAt: 'document_start',
  allFrames: true,
  matchAboutBlank: true,
  matchOriginAsFallback: true,
  noScriptStartedPostMessage: true,
  main() {
    const send: SendProposal = (message) => browser.runtime.sendMessage(message);
    installBridge(window, send);
    installFormGuard(window, send);
    installTaintCollector(window, (report) => browser.runtime.sendMessage(report));
  },
});
