import type { Rule } from './dnr';

/** JSON with every object's keys sorted: the browser hands rules back in its own key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** What a rule means to the browser: everything but its id. */
export function ruleKey(rule: Rule): string {
  const { id: _id, ...meaning } = rule;
  return canonicalJson(meaning);
}

export interface RuleUpdate {
  removeRuleIds: number[];
  addRules: Rule[];
  /** The session rules once the update is applied. */
  after: Rule[];
}

/**
 * The smallest `updateSessionRules` that turns `installed` into `wanted`, ids aside: a rule present in
 * both keeps its id, a rule gone is removed, a new one gets the lowest id no kept rule uses (the browser
 * removes before it adds). Every taint report rebuilds the floor, and the whole set (hundreds of rules,
 * ~100 KB once pages were read) used to cross into the browser each time; now only what changed does, and
 * an unchanged floor makes no call at all.
 */
export function ruleUpdate(installed: readonly Rule[], wanted: readonly Rule[]): RuleUpdate {
  const have = new Map<string, Rule>();
  const removeRuleIds: number[] = [];
  for (const rule of installed) {
    const key = ruleKey(rule);
    if (have.has(key)) removeRuleIds.push(rule.id);
    else have.set(key, rule);
  }
  const kept = new Map<string, Rule>();
  const fresh = new Map<string, Rule>();
  for (const rule of wanted) {
    const key = ruleKey(rule);
    const present = have.get(key);
    if (present !== undefined) kept.set(key, present);
    else if (!fresh.has(key)) fresh.set(key, rule);
  }
  for (const [key, rule] of have) if (!kept.has(key)) removeRuleIds.push(rule.id);
  const used = new Set([...kept.values()].map((r) => r.id));
  let next = 1;
  const addRules = [...fresh.values()].map((rule) => {
    while (used.has(next)) next++;
    used.add(next);
    return { ...rule, id: next };
  });
  return { removeRuleIds, addRules, after: [...kept.values(), ...addRules] };
}
