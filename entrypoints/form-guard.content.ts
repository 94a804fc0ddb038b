import { browser } from 'wxt/browser';
import { installBridge, installFormGuard, waitingNotice, type SendProposal } from '../src/content/isolated';

// ISOLATED world, every frame, before any page script: holds form submissions and relays the MAIN-world
// hooks' proposals to the background.
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
    // A held action says it is waiting for the user (the agent reads the page console).
    if (window === window.top) {
      browser.runtime.onMessage.addListener((message: unknown) => {
        const line = waitingNotice(message);
        if (line !== null) console.info(line);
      });
    }
  },
});
