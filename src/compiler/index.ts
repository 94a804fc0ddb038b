import type { Classifier } from '../core/classifier';
import type { TaskPolicy } from '../core/policy';
import { analyzeInstruction } from './clauses';
import { emptyDraft, type PolicyDraft } from './draft';
import { followUpMayChangeAuthority, isCorrection, mergePolicies } from './followup';
import { harden } from './harden';
import type { CompilerReport, Removal } from './report';
import { isolateInput } from './isolate';
import { DEFAULT_MODEL, llmDraft } from './llm';
import { extractProhibitions } from './prohibitions';
import { rulesDraft } from './rules';

/**
 * The intent compiler: the user's current message → a hardened TaskPolicy. Pipeline: isolate input →
 * deterministic prohibitions → draft (offline rules, or an LLM through the openai SDK) → validate
 * (retry once, else a read-only fallback that keeps the prohibitions) → harden. The raw request is
 * never stored: the policy keeps only evidence quotes.
 */
export interface CompileOptions {
  backend: 'rules' | 'openai';
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  now: number;
  taskId: string;
  fetch?: typeof fetch;
  /** Reads the tool names a policy lists (see HardenOptions.classify). */
  classify: Classifier;
}

export interface CompileResult {
  policy: TaskPolicy;
  report: CompilerReport;
}

export const FALLBACK_SOURCE = 'fallback:read-only';

/** Reading only, on the sites the words name; every consequential action asks. */
function readOnlyDraft(rules: PolicyDraft): PolicyDraft {
  return { ...emptyDraft(), readDomains: rules.readDomains, openWeb: rules.openWeb };
}

function describeProhibitions(policy: TaskPolicy): string[] {
  return policy.prohibitions.map((p) => {
    const except = p.exceptRecipients.length > 0 ? ` (except ${p.exceptRecipients.join(', ')})` : '';
    return `${p.classes.join(', ')}${except}: "${p.quote}"`;
  });
}

export async function compileTask(request: string, opts: CompileOptions): Promise<CompileResult> {
  const { text, quoted } = isolateInput(request);
  const analysis = analyzeInstruction(text);
  const prohibitions = extractProhibitions(text, analysis);
  const rules = rulesDraft(text, analysis);
  const backend = opts.backend === 'rules' ? 'rules' : `openai:${opts.model ?? DEFAULT_MODEL}`;
  const removed: Removal[] = [];
  let draft: PolicyDraft;
  let source = backend;
  let modelCalls = 0;
  let fallbackReason: string | null = null;
  if (text === '') {
    draft = emptyDraft();
    fallbackReason = 'empty instruction';
  } else if (opts.backend === 'rules') {
    draft = rules;
  } else {
    const result = await llmDraft(text, opts);
    modelCalls = result.modelCalls;
    if (result.draft !== null) draft = result.draft;
    else {
      draft = readOnlyDraft(rules);
      fallbackReason = result.error ?? 'no draft';
    }
  }
  if (fallbackReason !== null) {
    source = FALLBACK_SOURCE;
    removed.push({ ref: 'draft', why: `fallback: ${fallbackReason}` });
  }
  const hardened = harden(draft, text, { taskId: opts.taskId, now: opts.now, source, prohibitions, classify: opts.classify, quoted }, analysis);
  return {
    policy: hardened.policy,
    report: { backend, modelCalls, fallbackReason, removed: [...removed, ...hardened.removed], prohibitions: describeProhibitions(hardened.policy) },
  };
}

/** A later turn: skipped when it cannot change authority, else compiled alone and merged. */
export async function compileFollowUp(current: TaskPolicy, text: string, opts: CompileOptions): Promise<CompileResult> {
  const backend = opts.backend === 'rules' ? 'rules' : `openai:${opts.model ?? DEFAULT_MODEL}`;
  if (!followUpMayChangeAuthority(text)) {
    return { policy: current, report: { backend, modelCalls: 0, fallbackReason: null, removed: [], prohibitions: [] } };
  }
  const turn = await compileTask(text, { ...opts, taskId: current.taskId });
  const merged = mergePolicies(current, turn.policy, { replace: isCorrection(isolateInput(text).text), classify: opts.classify });
  return {
    policy: merged.policy,
    report: { ...turn.report, removed: [...turn.report.removed, ...merged.removed], prohibitions: turn.report.prohibitions },
  };
}

export { isolateInput } from './isolate';
export { extractProhibitions } from './prohibitions';
export { rulesDraft } from './rules';
export { validateDraft } from './validate';
export { harden, wordsBound } from './harden';
export { mergePolicies, followUpMayChangeAuthority, isCorrection } from './followup';
export { analyzeInstruction } from './clauses';
export { PolicyDraftSchema, policyDraftJsonSchema, type PolicyDraft, type PermissionDraft } from './draft';
export { DEFAULT_BASE_URL, DEFAULT_MODEL } from './llm';
export { CompileReportSchema, RemovalSchema, type CompileReport, type CompilerReport, type Removal } from './report';
