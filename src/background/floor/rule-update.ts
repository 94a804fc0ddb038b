import type { Rule } from './dnr';
import type { RuleSpec } from '../../taint/rules';

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

export type RuleKey = (rule: RuleSpec) => string;

/** What a rule means to the browser: everything but its id. */
const meaningOf = (rule: RuleSpec | Rule): RuleSpec => {
  if (!('id' in rule)) return rule;
  const { id: _id, ...meaning } = rule;
  return meaning;
};

/** A rule's meaning in canonical form, for rules the browser handed back in its own key order. */
export const canonicalKey: RuleKey = (rule) => canonicalJson(meaningOf(rule));

const builtKeys = new WeakMap<RuleSpec, string>();
/**
 * The same for rules built here, which always write their keys in the same order: the plain JSON text,
 * computed once per rule object (the taint's rules are the same objects from one rebuild to the next).
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
  /** The rules once the update is applied, in the form built here. */
  after: Rule[];
}

/**
 * The smallest `updateSessionRules`/`updateDynamicRules` that turns `installed` into `wanted`, ids aside:
 * a rule present in both keeps its id, a rule gone is removed, a new one gets the lowest id no kept rule
 * uses (the browser removes before it adds). Reconciling with what the browser handed back (canonicalKey),
 * `after` holds the wanted rules themselves under the installed ids, so later updates compare rules
 * built here (builtKey). Every taint report rebuilds the floor: only what changed crosses into the
 * browser, and an unchanged set makes no call.
 */
export function ruleUpdate(installed: readonly Rule[], wanted: readonly RuleSpec[], keyOf: RuleKey = canonicalKey): RuleUpdate {
  const have = new Map<string, Rule>();
  const removeRuleIds: number[] = [];
  for (const rule of installed) {
    const key = keyOf(rule);
    if (have.has(key)) removeRuleIds.push(rule.id);
    else have.set(key, rule);
  }
  const after: Rule[] = [];
  const kept = new Set<string>();
  const fresh = new Map<string, RuleSpec>();
  const placed = (spec: RuleSpec, id: number): Rule => {
    const rule = { ...meaningOf(spec), id };
    builtKeys.set(rule, builtKey(spec));
    return rule;
  };
  for (const spec of wanted) {
    const key = keyOf(spec);
    if (kept.has(key)) continue;
    const present = have.get(key);
    if (present === undefined) {
      if (!fresh.has(key)) fresh.set(key, spec);
      continue;
    }
    kept.add(key);
    have.delete(key);
    after.push(keyOf === builtKey ? present : placed(spec, present.id));
  }
  for (const rule of have.values()) removeRuleIds.push(rule.id);
  const used = new Set(after.map((r) => r.id));
  let next = 1;
  const addRules = [...fresh.values()].map((spec) => {
    while (used.has(next)) next++;
    used.add(next);
    return placed(spec, next);
  });
  after.push(...addRules);
  return { removeRuleIds, addRules, after };
}
