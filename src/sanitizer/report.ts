import type { SanitizerRule } from './text';

/**
 * The words of a removal in the audit log and the popup. One audit entry per rule and report; the count
 * and character total are in the reason ("removed 3 hidden instructions (412 characters)"), and the
 * popup reads them back with `parseRemovalReason`, so both sides use this one format.
 */

const RULE_WORDS: Record<SanitizerRule, [one: string, many: string]> = {
  'invisible-chars': ['run of invisible characters', 'runs of invisible characters'],
  'addressed-to-agent': ['instruction addressed to the agent', 'instructions addressed to the agent'],
  'hidden-instruction': ['hidden instruction', 'hidden instructions'],
  braille: ['Braille-encoded text', 'Braille-encoded texts'],
  comment: ['HTML comment carrying an instruction', 'HTML comments carrying instructions'],
  attribute: ['instruction in an attribute (alt, title, aria-label)', 'instructions in attributes (alt, title, aria-label)'],
  'generated-content': ['instruction in CSS generated content (::before, ::after)', 'instructions in CSS generated content (::before, ::after)'],
  model: ['instruction found by the model', 'instructions found by the model'],
  'unreadable-text': ['text too small, faint or clipped to read', 'texts too small, faint or clipped to read'],
};

export function removalReason(rule: SanitizerRule, count: number, chars: number): string {
  return `removed ${count} ${RULE_WORDS[rule][count === 1 ? 0 : 1]} (${chars} characters)`;
}

/** The count back from a reason written by `removalReason` (0 when it is not one). */
export function parseRemovalReason(reason: string): number {
  const m = /^removed (\d+) /.exec(reason);
  return m === null ? 0 : Number(m[1]);
}

/** Instructions (not invisible characters) per site, for the popup: "3 instructions removed on mail.test". */
export function removalsBySite(entries: ReadonlyArray<{ ruleRef?: string; reason: string; site: string }>): Array<{ site: string; instructions: number; invisible: number }> {
  const by = new Map<string, { site: string; instructions: number; invisible: number }>();
  for (const e of entries) {
    if (e.ruleRef === undefined || !e.ruleRef.startsWith('sanitizer:')) continue;
    const row = by.get(e.site) ?? { site: e.site, instructions: 0, invisible: 0 };
    const n = parseRemovalReason(e.reason);
    if (e.ruleRef === 'sanitizer:invisible-chars') row.invisible += n;
    else row.instructions += n;
    by.set(e.site, row);
  }
  return [...by.values()].sort((a, b) => b.instructions - a.instructions || a.site.localeCompare(b.site));
}
