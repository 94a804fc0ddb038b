import type { ToolCall } from '../../core/call';
import type { DecisionRecord } from '../../core/decision';
import { registrableDomain } from '../../core/domains';
import { isConsequential } from '../../core/risk';
import type { Rewrite } from '../../messages/protocol';
import { carriedValues, minimizeCall } from '../../minimizer/carried';
import { describeFindings, detectConfidential, detectPasted, detectShownElsewhere, mergeFindings, type Finding } from '../../minimizer/detect';
import type { ModelAction } from '../../minimizer/model';
import type { ActiveTask } from '../task/store';

/**
 * The Minimizer at the background's decision point: an action the evaluator allowed, that carries data
 * (a consequential form submission or request), is screened for confidential data the user's request
 * does not call for, and for private details that only the text the user pasted holds (the compile report's
 * `pasted`). Authority is untouched: the Minimizer can only hold an allowed action or send it
 * with less data, never allow more.
 */

/** The person's answer to an action the Minimizer held. */
export type MinimizerAnswer = 'send-without' | 'send-as-is';

export interface Screened {
  findings: Finding[];
  /** "a one-time code and an IBAN in fields.body": what was found and where, never the data. */
  description: string;
  /** The action without the flagged data, or null when it cannot be rebuilt exactly. */
  minimized: { call: ToolCall; rewrite: Rewrite } | null;
}

const SCREENED_TOOLS: ReadonlySet<string> = new Set(['browser.form_submit', 'browser.request']);

/** Whether the Minimizer looks at this action once the evaluator allows it. */
export function isScreened(call: ToolCall, record: Pick<DecisionRecord, 'riskClass'>): boolean {
  return SCREENED_TOOLS.has(call.tool) && isConsequential(record.riskClass);
}

/** The user's own words: the trusted task the Minimizer measures need against. */
export function userWordsOf(task: ActiveTask): string {
  return [task.request, ...task.followUps].join('\n');
}

/** What the model mode sends to the endpoint about an action. */
export function modelActionOf(call: ToolCall, record: DecisionRecord): ModelAction {
  return { site: record.targets.domains.join(', ') || '(unknown site)', capability: record.capability, values: carriedValues(call) };
}

/** `extra`: spans the model mode named (already checked to be exact substrings of the values). */
export function screenAllowed(task: ActiveTask, call: ToolCall, record: DecisionRecord, extra: readonly Finding[] = []): Screened | null {
  if (!isScreened(call, record)) return null;
  const recipients = [...task.policy.recipients, ...task.policy.constraints.flatMap((k) => k.recipients ?? [])];
  const values = carriedValues(call);
  const ctx = { userWords: userWordsOf(task), recipients };
  // The taint records the site that showed a value (its registrable domain); a private host's target is its
  // endpoint (`localhost:3000`), so compare sites: the dev server's own value going back to it is not foreign.
  const destinations = record.targets.domains.map((d) => registrableDomain(d) ?? d);
  const shownElsewhere = detectShownElsewhere(values, task.taint ?? [], destinations, ctx);
  // Pasted is not the same as asked: private details only the pasted part of the words holds (the compile found them).
  const pasted = detectPasted(values, task.report.pasted ?? []);
  const findings = mergeFindings(mergeFindings(mergeFindings(detectConfidential(values, ctx), shownElsewhere), pasted), extra);
  if (findings.length === 0) return null;
  return { findings, description: describeFindings(findings), minimized: minimizeCall(call, findings) };
}
