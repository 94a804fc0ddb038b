import { browser } from 'wxt/browser';
import { installSanitizer } from '../src/sanitizer/install';

// ISOLATED world, every frame, before any page script: rewrites the DOM (shared by both worlds) so what
// the agent reads is what a person sees. Runs only when the background says the tab is guarded.
export default defineContentScript({
  matches: ['<all_urls>'],
  runAt: 'document_start',
  allFrames: true,
  matchAboutBlank: true,
  matchOriginAsFallback: true,
  // WXT's start-up window message would reach the page and the form guard's bridge listener.
  noScriptStartedPostMessage: true,
  main() {
    installSanitizer(document, (message) => browser.runtime.sendMessage(message), (globalThis as { chrome?: Parameters<typeof installSanitizer>[2] }).chrome);
  },
});
