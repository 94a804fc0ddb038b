import { installPageHooks } from '../src/content/main/hooks';

// MAIN world, every frame (about:blank and srcdoc frames too), before any page script: wraps the page's
// request APIs. Registered only while a task runs, after the ISOLATED script (src/background/floor/registration.ts).
// Left out of the build when AF_NO_MAIN_HOOKS=1 (see wxt.config.ts), to prove that every security claim
// holds by the network floor alone.
export default defineUnlistedScript({
  // No global the page could see.
  globalName: false,
  main() {
    installPageHooks(window);
  },
});
