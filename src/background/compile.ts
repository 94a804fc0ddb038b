import type { TaskPolicy } from '../core/policy';
import { CONSEQUENTIAL_CLASSES } from '../core/risk';
import type { CompileReport, Options } from '../messages/protocol';

/**
 * The background's view of the compiler (src/compiler). Injected into the monitor so tests can play
 * any compiler. TEMPORARY: until src/compiler/index.ts lands, `stubCompiler` yields the read-only
 * fallback policy; it is replaced by the real `compileTask` in the wiring.
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

function readOnlyPolicy(taskId: string, now: number): TaskPolicy {
  return {
    version: 1,
    taskId,
    issuedAt: now,
    expiresAt: null,
    ceilings: Object.fromEntries(CONSEQUENTIAL_CLASSES.map((c) => [c, 'block'])),
    allow: { tools: [], capabilities: [], classes: ['READ'] },
    deny: { tools: [], capabilities: [], classes: [] },
    constraints: [],
    recipients: [],
    domains: null,
    paths: [],
    outboundBudget: { maxCalls: null, maxBytes: null },
    prohibitions: [],
    grants: [],
    requireApproval: { tools: [], capabilities: [], classes: [] },
    evidence: [],
    source: 'fallback:read-only',
  };
}

export const stubCompiler: TaskCompiler = {
  async compileTask(_request, opts) {
    return {
      policy: readOnlyPolicy(opts.taskId, opts.now),
      report: { backend: 'fallback:read-only', durationMs: 0, removed: [], fallbackReason: 'the compiler is not wired in yet' },
    };
  },
  async compileFollowUp(previous) {
    return { policy: previous, report: { backend: 'fallback:unchanged', durationMs: 0, removed: [], fallbackReason: 'the compiler is not wired in yet' } };
  },
};
