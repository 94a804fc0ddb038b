import type { OrgFloor } from '../core/org';
import { evaluateWith, type EvalResult } from '../core/evaluator';
import type { EvalState, TaskPolicy } from '../core/policy';
import { classify } from './classify';

/**
 * Any agent's tool calls, not only the browser's: the shell classifier and parser, the patch parser and
 * the tool-name tables. The CLI (`agentsfence evaluate`), the CDP proxy and the compiler (which reads the
 * tool names a policy lists) use this module; the extension's entrypoints never import it
 * (tests/architecture/bundle.test.ts), so the worker loads only the browser-action classifier.
 */
export { classify } from './classify';
export { classifyShell } from './shell';
export { classifyPatch } from './patch';

/** E(P, σ, t, a) for any agent's tool call. */
export function evaluate(policy: TaskPolicy, state: EvalState, rawCall: unknown, now: number, org: OrgFloor | null = null): EvalResult {
  return evaluateWith(classify, policy, state, rawCall, now, org);
}
