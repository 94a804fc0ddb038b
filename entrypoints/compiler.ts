import * as taskCompiler from '../src/background/task/task-compiler';
import { lazyScript } from '../src/lazy/script';

// The rules compiler (src/compiler, and zod's JSON-schema generator the model compiler uses): a lazy script (src/lazy/scripts.ts).
export default defineUnlistedScript(lazyScript('compiler', taskCompiler));
