import { analyzeInstruction } from '../../src/compiler/clauses';
import { emptyDraft, type PermissionDraft, type PolicyDraft } from '../../src/compiler/draft';
import { harden, type Hardened } from '../../src/compiler/harden';
import { isolateInput } from '../../src/compiler/isolate';
import { extractProhibitions } from '../../src/compiler/prohibitions';
import { rulesDraft } from '../../src/compiler/rules';
import type { Classifier } from '../../src/core/classifier';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { classify, evaluate } from '../../src/tools';

export const NOW = 1_700_000_000_000;

/** The whole offline pipeline, synchronously: isolate → prohibitions → draft → harden. */
export function compileWith(request: string, draftOf: (instruction: string) => PolicyDraft = rulesDraft, classifyTools: Classifier = classify): Hardened {
  const { text, quoted } = isolateInput(request);
  const analysis = analyzeInstruction(text);
  return harden(draftOf(text), text, { taskId: 't1', now: NOW, source: 'test', prohibitions: extractProhibitions(text, analysis), classify: classifyTools, quoted }, analysis);
}

export function rules(request: string): TaskPolicy {
  return compileWith(request).policy;
}

/** The decisions of `calls`, in turn (counters carried), under the rules compiler's policy for `request`. */
export function decisions(request: string, calls: unknown[]): string[] {
  const policy = rules(request);
  let state = initialState();
  return calls.map((call) => {
    const r = evaluate(policy, state, call, NOW + 1);
    state = r.state;
    return r.record.decision;
  });
}

export function permission(p: Partial<PermissionDraft> & Pick<PermissionDraft, 'riskClass' | 'quote'>): PermissionDraft {
  return { capability: null, tool: null, recipients: [], domains: [], paths: [], maxCalls: null, ...p };
}

export function draftOf(...permissions: PermissionDraft[]): PolicyDraft {
  return { ...emptyDraft(), permissions };
}

/** Consequential classes the policy lets through (ceiling allow). */
export function allowedClasses(policy: TaskPolicy): string[] {
  return Object.entries(policy.ceilings)
    .filter(([, c]) => c === 'allow')
    .map(([k]) => k)
    .sort();
}

export function recipientsOf(policy: TaskPolicy, riskClass?: string): string[] {
  return [...new Set(policy.constraints.filter((k) => riskClass === undefined || k.riskClass === riskClass).flatMap((k) => k.recipients ?? []).concat(policy.recipients))].sort();
}
