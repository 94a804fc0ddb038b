import type { TaskCompiler } from './compile';
import { taskCompiler } from './task-compiler';

/** The compiler in the same bundle (Node: the tests). The extension's build swaps in ./compiler-load-extension.ts. */
export function loadTaskCompiler(): Promise<TaskCompiler> {
  return Promise.resolve(taskCompiler);
}
