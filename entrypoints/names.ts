import * as names from '../src/minimizer/names';
import { NAMES_GLOBAL } from '../src/minimizer/names-script';

// The Minimizer's name finder (compromise, src/minimizer/names.ts) as a script of its own, imported by the
// worker only when a compile first finds pasted content (src/minimizer/pasted.ts).
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[NAMES_GLOBAL] = names;
});
