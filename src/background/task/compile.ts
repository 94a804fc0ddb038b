import type { TaskPolicy } from '../../core/policy';
import type { CompileReport, Options } from '../../messages/protocol';
import { lazy } from '../../lazy/load';

/**
 * The background's view of the compiler (src/compiler), injected into the monitor so tests can play any
 * compiler. The compiler itself (./task-compiler.ts) is loaded on the first compile: in the extension it
 * is a lazy script of its own (compiler.js, src/lazy/scripts.ts), so deciding never waits for it. A
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
    return (await lazy('compiler')).taskCompiler.compileTask(request, opts);
  },
  async compileFollowUp(previous, text, opts) {
    return (await lazy('compiler')).taskCompiler.compileFollowUp(previous, text, opts);
  },
};
