import { compileFollowUp, compileTask, type CompileOptions, type CompileResult as CoreCompileResult } from '../../compiler';
import { classifyWeb } from '../../core/classifier';
import { pastedDetailsOf } from '../../minimizer/pasted';
import type { PastedDetail } from '../../minimizer/detect';
import type { CompileRequestOptions, CompileResult, TaskCompiler } from './compile';

/**
 * The compiler (src/compiler) as the background calls it: `taskCompiler` adapts the extension's options
 * (backend names, API key) and the compiler's report with the time the compile took. The API key goes
 * to the compiler only. The report also carries the private details of what the words paste (for the
 * Minimizer), found here so the name finder is loaded with a compile, never with a decision.
 */
function coreOptions(opts: CompileRequestOptions): CompileOptions {
  // The extension proposes only browser actions: a policy naming another agent's tool lists nothing it could match.
  if (opts.backend === 'rules') return { backend: 'rules', now: opts.now, taskId: opts.taskId, classify: classifyWeb };
  return { backend: 'openai', baseUrl: opts.baseUrl, model: opts.model, apiKey: opts.apiKey, now: opts.now, taskId: opts.taskId, classify: classifyWeb };
}

function timedReport(result: CoreCompileResult, durationMs: number, pasted: PastedDetail[]): CompileResult {
  const { report } = result;
  return {
    policy: result.policy,
    report: {
      ...report,
      backend: report.fallbackReason !== null ? `${result.policy.source} (asked ${report.backend})` : report.backend,
      durationMs: Math.max(0, durationMs),
      pasted,
    },
  };
}

export const taskCompiler: TaskCompiler = {
  async compileTask(request, opts) {
    const started = performance.now();
    const result = await compileTask(request, coreOptions(opts));
    const pasted = await pastedDetailsOf(request);
    return timedReport(result, performance.now() - started, pasted);
  },
  async compileFollowUp(previous, text, opts) {
    const started = performance.now();
    const result = await compileFollowUp(previous, text, coreOptions(opts));
    const pasted = await pastedDetailsOf(text);
    return timedReport(result, performance.now() - started, pasted);
  },
};
