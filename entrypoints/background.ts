import { startBackground } from '../src/background';
import { openHarnessChannel } from '../src/background/harness-channel';
import { startupMark } from '../src/background/startup-marks';

export default defineBackground(() => {
  // Every module of background.js has been evaluated by now.
  startupMark('evaluated');
  const handle = startBackground();
  // Compile-time constant (wxt.config.ts): true only in the harness builds; the production bundle
  // contains neither this call nor the module it imports.
  if (__AF_HARNESS__) openHarnessChannel(handle);
});
