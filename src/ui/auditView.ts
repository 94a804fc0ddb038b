import type { AuditEntry } from '../messages/protocol';
import type { Decision } from '../core/decision';
import { plainReason } from './plainReason';
import { basisWords, CLASS_WORDS, ruleRefWords, targetWords } from './words';

/** The audit view's filter: a decision, and free text every word of which the row's reason, site or action contains. */
export interface AuditFilter {
  decision: Decision | 'any';
  text: string;
}

export const NO_FILTER: AuditFilter = { decision: 'any', text: '' };

/** What a row is searched by: its plain reason and the evaluator's, the sites and destination, the action and its targets. */
function searchable(e: AuditEntry): string {
  const r = e.record;
  const t = r.targets;
  return [auditReason(e), r.reason, auditAction(e), auditOutcome(e), r.tool, r.capability, e.destination ?? '', ...t.domains, ...t.recipients, ...t.paths, ...t.items]
    .join('\n')
    .toLowerCase();
}

/** Newest first, then filtered by decision and by the words of `text` (all of them, in any order, any case). Does not change the input. */
export function filterAudit(entries: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter((w) => w !== '');
  return [...entries]
    .sort((a, b) => b.at - a.at)
    .filter((e) => filter.decision === 'any' || e.record.decision === filter.decision)
    .filter((e) => {
      if (words.length === 0) return true;
      const text = searchable(e);
      return words.every((w) => text.includes(w));
    });
}

const ANSWER_WORDS: Record<NonNullable<AuditEntry['answer']>, string> = {
  once: 'you allowed once',
  task: 'you allowed for this task',
  deny: 'you denied',
  timeout: 'no answer in time',
  'send-without': 'you sent it without the flagged data',
  'send-as-is': 'you sent it as is',
  minimized: 'sent without the flagged data',
};

export const DECISION_WORDS: Record<Decision, string> = { ALLOW: 'Allowed', BLOCK: 'Blocked', ASK_USER: 'Asked you' };

/** The row's outcome: "Blocked"; the person's answer, if any, is its reason (auditReason). */
export function auditOutcome(e: AuditEntry): string {
  return DECISION_WORDS[e.record.decision];
}

/** What was attempted, in words: "Send messages to bob@x.test on mail.test"; a refused page message says so. */
export function auditAction(e: AuditEntry): string {
  const r = e.record;
  if (r.tool.startsWith('message:')) return `Manage the task (${r.tool.slice('message:'.length)})`;
  if (r.tool === '(malformed)') return 'A malformed message';
  if (r.tool === '(internal)') return 'An internal step';
  const targets = targetWords(r.targets);
  const what = CLASS_WORDS[r.riskClass];
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}${targets === '' ? '' : ` ${targets}`}`;
}

/** The site a row concerns: its domains, else the host of its destination; empty when it has neither. */
export function auditSite(e: AuditEntry): string {
  if (e.record.targets.domains.length > 0) return e.record.targets.domains.join(', ');
  const url = /^(?:[A-Z]+ )?(\S+)/.exec(e.destination ?? '')?.[1];
  if (url === undefined) return '';
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * Why, in one plain sentence: the person's answer when they gave one (the row names the action already),
 * else the decision's own (plainReason).
 */
export function auditReason(e: AuditEntry): string {
  switch (e.answer) {
    case 'once':
      return 'You allowed it once.';
    case 'task':
      return 'You allowed it for this task.';
    case 'deny':
      return 'You denied it.';
    case 'timeout':
      return 'Nobody answered in time, so it was blocked.';
    case 'send-without':
    case 'minimized':
      return 'Sent without the data the task does not call for.';
    case 'send-as-is':
      return 'You sent it as is, with the data the Minimizer flagged.';
    case undefined:
      return plainReason(e.record).sentence;
  }
}

const LAYER_WORDS: Record<NonNullable<AuditEntry['layer']>, string> = {
  isolated: 'form guard',
  main: 'page hooks',
  network: 'network floor',
  guard: 'browser guard',
  page: 'extension page',
};

/** An expanded audit row as labelled fields (what decided, why, on what), never raw JSON. Empty fields are left out. */
export function auditFacts(e: AuditEntry): { label: string; value: string }[] {
  const r = e.record;
  const t = r.targets;
  const rows: [string, string | undefined][] = [
    ['Time', new Date(e.at).toLocaleString()],
    ['Decision', r.decision],
    ['Check', r.check],
    ['Reason', r.reason],
    ['Answer', e.answer === undefined ? undefined : ANSWER_WORDS[e.answer]],
    ['Action', `${r.tool} (${r.capability}, ${r.riskClass})`],
    ['Destination', e.destination],
    ['Recipients', t.recipients.join(', ')],
    ['Sites', t.domains.join(', ')],
    ['Paths', t.paths.join(', ')],
    ['Items', t.items.join(', ')],
    ['Rule', ruleRefWords(r.ruleRef)],
    ['Read as', basisWords(r.basis, r.classifierLayer)],
    ['Your words', r.evidence === undefined ? undefined : `“${r.evidence}”`],
    ['Seen by', e.layer === undefined ? undefined : LAYER_WORDS[e.layer]],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '').map(([label, value]) => ({ label, value }));
}

export type ExportFormat = 'json' | 'jsonl';

/** The audit log as a file. Entries are already redacted by the background; nothing is added here. */
export function exportAudit(entries: readonly AuditEntry[], format: ExportFormat): { filename: string; mime: string; text: string } {
  if (format === 'json') return { filename: 'agentsfence-audit.json', mime: 'application/json', text: `${JSON.stringify(entries, null, 2)}\n` };
  return { filename: 'agentsfence-audit.jsonl', mime: 'application/x-ndjson', text: entries.map((e) => `${JSON.stringify(e)}\n`).join('') };
}
