import * as control from '../src/background/task/control';
import { lazyScript } from '../src/lazy/script';

// The popup's and options page's requests that no decision needs: a lazy script (src/lazy/scripts.ts).
export default defineUnlistedScript(lazyScript('control', control));
