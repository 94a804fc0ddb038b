import type { TaskPolicy } from '../core/policy';
import type { CompileReport, Options } from '../messages/protocol';
import { loadTaskCompiler } from './compiler-load';

/**
 * The background's view of the compiler (src/compiler), injected into the monitor so tests can play any
 * compiler. The compiler itself (./task-compiler.ts) is loaded on the first compile: in the extension it
 * is a script of its own (compiler.js, ./compiler-load-extension.ts), so deciding never waits for it. A
 * compiler that does not load is a failed compile: no task is installed and the person is told why.
 */
export interface CompileRequestOptions extends Pick<Options, 'backend' | 'baseUrl' | 'model' | 'apiKey'> {
  now: number;
  taskId: string;
}

export interface CompileResult {
  policy: TaskPolicy;
  report: CompileReport;
}

export interface TaskCompiler {
  compileTask(request: string, opts: CompileRequestOptions): Promise<CompileResult>;
  /** A follow-up turn merged into the current policy (newer explicit statement wins). */
  compileFollowUp(previous: TaskPolicy, text: string, opts: CompileRequestOptions): Promise<CompileResult>;
}

export const extensionCompiler: TaskCompiler = {
  async compileTask(request, opts) {
    return (await loadTaskCompiler()).compileTask(request, opts);
  },
  async compileFollowUp(previous, text, opts) {
    return (await loadTaskCompiler()).compileFollowUp(previous, text, opts);
  },
};
