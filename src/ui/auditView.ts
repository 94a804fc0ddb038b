import type { AuditEntry } from '../messages/protocol';
import type { Decision } from '../core/decision';
import { basisWords, ruleRefWords, targetWords } from './words';

export interface AuditFilter {
  decision: Decision | 'any';
  check: string | 'any';
}

/** Newest first, then filtered by decision and check. Does not change the input. */
export function filterAudit(entries: readonly AuditEntry[], filter: AuditFilter): AuditEntry[] {
  return [...entries]
    .sort((a, b) => b.at - a.at)
    .filter((e) => (filter.decision === 'any' || e.record.decision === filter.decision) && (filter.check === 'any' || e.record.check === filter.check));
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

/** The row's diagnostics, short: "[allowed · allow.classes:COMMUNICATION] names a recipient". */
export function auditDiagnostics(e: AuditEntry): { rule: string; basis: string | undefined } {
  const r = e.record;
  return { rule: r.ruleRef === undefined ? r.check : `${r.check} · ${r.ruleRef}`, basis: basisWords(r.basis, undefined) };
}

/** One line per row: "ALLOW email.send to bob@x.com (you allowed once)". */
export function auditSummary(e: AuditEntry): string {
  const targets = targetWords(e.record.targets);
  const answer = e.answer === undefined ? '' : ` (${ANSWER_WORDS[e.answer]})`;
  return `${e.record.decision} ${e.record.capability}${targets === '' ? '' : ` ${targets}`}${answer}`;
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
