import { installPageHooks } from '../src/content/main/hooks';

// MAIN world, every frame (about:blank and srcdoc frames too), before any page script: wraps the page's
// request APIs. Left out of the build when AF_NO_MAIN_HOOKS=1 (see wxt.config.ts), to prove that every
// security claim holds by the network floor alone.
export default defineContentScript({
  matches: ['<all_urls>'],
  world: 'MAIN',
  runAt: 'document_start',
  allFrames: true,
  matchAboutBlank: true,
  matchOriginAsFallback: true,
  globalName: false,
  main() {
    installPageHooks(window);
  },
});
