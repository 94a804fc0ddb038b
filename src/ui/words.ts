import type { RiskClass } from '../core/risk';
import type { ClassifierLayer, Targets } from '../core/classification';
import { CLASSIFIER_LAYER_WORDS, ruleWords } from '../core/explain';
import { parseRuleRef } from '../core/ruleRef';
import { amountWords } from '../core/amounts';

/** Risk classes as a person would say them ("may …", "wants to …"). */
export const CLASS_WORDS: Record<RiskClass, string> = {
  READ: 'read pages',
  LOCAL_WRITE: 'save files on this computer',
  EXTERNAL_WRITE: 'change data on websites',
  COMMUNICATION: 'send messages',
  DELETE: 'delete things',
  PERMISSION_CHANGE: 'change permissions or account settings',
  FINANCIAL: 'pay or buy',
  EXECUTION: 'run programs',
  UNKNOWN: 'do something of an unknown kind',
};

/** "a, b and c"; empty list → the fallback. */
export function listWords(items: readonly string[], fallback = 'none'): string {
  if (items.length === 0) return fallback;
  if (items.length === 1) return items[0] ?? fallback;
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Targets in words, e.g. "to bob@x.com on mail.test"; empty when there are none. */
export function targetWords(t: Targets): string {
  const parts: string[] = [];
  if (t.recipients.length > 0) parts.push(`to ${listWords(t.recipients)}`);
  if (t.domains.length > 0) parts.push(`on ${listWords(t.domains)}`);
  if (t.paths.length > 0) parts.push(`with files ${listWords(t.paths)}`);
  if (t.items.length > 0) parts.push(`for ${listWords(t.items)}`);
  if (t.amounts !== undefined && t.amounts.length > 0) parts.push(`of ${listWords(t.amounts.map(amountWords))}`);
  if (t.quantities !== undefined && t.quantities.length > 0) parts.push(`in quantity ${listWords(t.quantities)}`);
  return parts.join(' ');
}

const SHORT_BASIS = 100;

/** What the classifier read the action as, short: "carries a card-number field (the web heuristics)". */
export function basisWords(basis: string | undefined, layer: ClassifierLayer | undefined): string | undefined {
  if (basis === undefined) return undefined;
  const short = basis.length > SHORT_BASIS ? `${basis.slice(0, SHORT_BASIS - 1)}…` : basis;
  return layer === undefined ? short : `${short} (${CLASSIFIER_LAYER_WORDS[layer]})`;
}

/** A ruleRef with what it names: "domains (the task’s site list)". */
export function ruleRefWords(ref: string | undefined): string | undefined {
  if (ref === undefined) return undefined;
  const rule = parseRuleRef(ref);
  return rule === null ? ref : `${ref} (${ruleWords(rule)})`;
}

/** Bytes for a person: 512 B, 4 KB, 1.5 MB. */
export function byteWords(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
}

/** Seconds left until `deadline`, never negative. */
export function secondsLeft(deadline: number, now: number): number {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
