import { startBackground } from '../src/background';
import { openHarnessChannel } from '../src/background/harness-channel';

export default defineBackground(() => {
  const handle = startBackground();
  // Compile-time constant (wxt.config.ts): true only in the harness builds; the production bundle
  // contains neither this call nor the module it imports.
  if (__AF_HARNESS__) openHarnessChannel(handle);
});
