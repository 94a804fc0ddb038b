import * as modelModes from '../src/llm/model-modes';
import { lazyScript } from '../src/lazy/script';

// The Minimizer's and the Sanitizer's model modes: a lazy script (src/lazy/scripts.ts).
export default defineUnlistedScript(lazyScript('model-modes', modelModes));
