import * as names from '../src/minimizer/names';
import { lazyScript } from '../src/lazy/script';

// The Minimizer's name finder (compromise): a lazy script (src/lazy/scripts.ts), evaluated only when a
// compile first finds pasted content (src/minimizer/pasted.ts).
export default defineUnlistedScript(lazyScript('names', names));
