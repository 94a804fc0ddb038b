// First: marks when this bundle's own code began (harness builds only; src/background/platform/startup-marks.ts)
// and issues the open of the worker's IndexedDB database (src/background/task/store-open.ts).
import '../src/background/platform/script-start';
import { startBackground } from '../src/background';
import { openHarnessChannel } from '../src/background/platform/harness-channel';
import { startupMark } from '../src/background/platform/startup-marks';
import { importOnInstall } from '../src/lazy/load-extension';

export default defineBackground(() => {
  // Every module of background.js has been evaluated by now.
  startupMark('evaluated');
  // The lazy scripts (src/lazy/scripts.ts, named here by the build); this is their only install listener.
  importOnInstall(__AF_LAZY_SCRIPTS__);
  const handle = startBackground();
  // Compile-time constant (wxt.config.ts): true only in the harness builds; the production bundle
  // contains neither this call nor the module it imports.
  if (__AF_HARNESS__) openHarnessChannel(handle);
});
