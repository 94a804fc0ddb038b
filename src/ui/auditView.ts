import type { AuditEntry } from '../messages/protocol';
import type { Decision } from '../core/decision';
import { targetWords } from './words';

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

/** One line per row: "ALLOW email.send to bob@x.com (you allowed once)". */
export function auditSummary(e: AuditEntry): string {
  const targets = targetWords(e.record.targets);
  const answer = e.answer === undefined ? '' : ` (${ANSWER_WORDS[e.answer]})`;
  return `${e.record.decision} ${e.record.capability}${targets === '' ? '' : ` ${targets}`}${answer}`;
}

export type ExportFormat = 'json' | 'jsonl';

/** The audit log as a file. Entries are already redacted by the background; nothing is added here. */
export function exportAudit(entries: readonly AuditEntry[], format: ExportFormat): { filename: string; mime: string; text: string } {
  if (format === 'json') return { filename: 'agentsfence-audit.json', mime: 'application/json', text: `${JSON.stringify(entries, null, 2)}\n` };
  return { filename: 'agentsfence-audit.jsonl', mime: 'application/x-ndjson', text: entries.map((e) => `${JSON.stringify(e)}\n`).join('') };
}
