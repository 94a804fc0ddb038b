import { COMPILER_GLOBAL } from '../src/background/compiler-script';
import { taskCompiler } from '../src/background/task-compiler';

// The rules compiler (src/compiler, and zod's JSON-schema generator the model compiler uses) as a script
// of its own, imported by the worker only when a task is compiled (src/background/compile.ts).
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[COMPILER_GLOBAL] = taskCompiler;
});
