import type { Rule } from './dnr';

/** JSON with every object's keys sorted (the browser hands rules back in its own key order). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const fields: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) fields.push(`${JSON.stringify(key)}:${canonicalJson(field)}`);
  }
  return `{${fields.join(',')}}`;
}

export type RuleKey = (rule: Rule) => string;

const meaningOf = ({ id: _id, ...meaning }: Rule) => meaning;

/** A rule's meaning (everything but its id) for rules the browser handed back, in its own key order. */
export const canonicalKey: RuleKey = (rule) => canonicalJson(meaningOf(rule));

const builtKeys = new WeakMap<Rule, string>();
/**
 * The same for rules built here, which always write their keys in the same order: the plain JSON text,
 * computed once per rule (keying every rule in canonical form was most of a floor rebuild's time).
 */
export const builtKey: RuleKey = (rule) => {
  let key = builtKeys.get(rule);
  if (key === undefined) {
    key = JSON.stringify(meaningOf(rule));
    builtKeys.set(rule, key);
  }
  return key;
};

export interface RuleUpdate {
  removeRuleIds: number[];
  addRules: Rule[];
  /** The session rules once the update is applied. */
  after: Rule[];
}

/**
 * The smallest `updateSessionRules` that turns `installed` into `wanted`, ids aside: a rule present in
 * both keeps its id, a rule gone is removed, a new one gets the lowest id no kept rule uses (the browser
 * removes before it adds). `after` holds the wanted rules themselves, so once reconciled with what the
 * browser handed back (canonicalKey), later updates compare rules built here (builtKey). Every taint report rebuilds the floor, and the whole set (hundreds of rules,
 * ~100 KB once pages were read) used to cross into the browser each time; now only what changed does, and
 * an unchanged floor makes no call at all.
 */
export function ruleUpdate(installed: readonly Rule[], wanted: readonly Rule[], keyOf: RuleKey = canonicalKey): RuleUpdate {
  const have = new Map<string, Rule>();
  const removeRuleIds: number[] = [];
  for (const rule of installed) {
    const key = keyOf(rule);
    if (have.has(key)) removeRuleIds.push(rule.id);
    else have.set(key, rule);
  }
  /** Wanted rules already installed, with the installed rule's id. */
  const kept = new Map<string, { rule: Rule; id: number }>();
  const fresh = new Map<string, Rule>();
  for (const rule of wanted) {
    const key = keyOf(rule);
    const present = have.get(key);
    if (present !== undefined) kept.set(key, { rule, id: present.id });
    else if (!fresh.has(key)) fresh.set(key, rule);
  }
  for (const [key, rule] of have) if (!kept.has(key)) removeRuleIds.push(rule.id);
  const used = new Set([...kept.values()].map((k) => k.id));
  let next = 1;
  const withId = (key: string, rule: Rule, id: number): Rule => {
    const placed = rule.id === id ? rule : { ...rule, id };
    if (keyOf === builtKey) builtKeys.set(placed, key);
    return placed;
  };
  const addRules = [...fresh].map(([key, rule]) => {
    while (used.has(next)) next++;
    used.add(next);
    return withId(key, rule, next);
  });
  const keptRules = [...kept].map(([key, { rule, id }]) => withId(key, rule, id));
  return { removeRuleIds, addRules, after: [...keptRules, ...addRules] };
}
