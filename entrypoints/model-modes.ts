import * as modelModes from '../src/llm/model-modes';
import { MODEL_MODES_GLOBAL } from '../src/llm/model-modes-script';

// The Minimizer's and the Sanitizer's model modes (src/llm/model-modes.ts) as a script of their own,
// imported by the worker only when a model mode is first asked (src/llm/model-modes-on-demand.ts).
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[MODEL_MODES_GLOBAL] = modelModes;
});
