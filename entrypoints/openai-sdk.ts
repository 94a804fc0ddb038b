import * as openai from 'openai';
import { OPENAI_SDK_GLOBAL } from '../src/llm/sdk-script';

// The openai SDK as a script of its own, imported by the worker only when a model is asked
// (src/llm/sdk-extension.ts): background.js does not carry it.
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[OPENAI_SDK_GLOBAL] = openai;
});
