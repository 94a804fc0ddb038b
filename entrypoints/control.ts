import * as control from '../src/background/control';
import { CONTROL_GLOBAL } from '../src/background/control-script';

// The popup's and options page's requests that no decision needs (src/background/control.ts) as a script
// of its own, imported by the worker only when such a request arrives (src/background/router.ts).
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[CONTROL_GLOBAL] = control;
});
