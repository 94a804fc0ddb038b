import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/background/floor/dnr';
import { builtKey, canonicalKey, ruleUpdate } from '../../src/background/floor/rule-update';

/** What updateSessionRules does: remove first, then add (ids must stay unique). */
function applied(installed: readonly Rule[], update: { removeRuleIds: number[]; addRules: Rule[] }): Rule[] {
  const gone = new Set(update.removeRuleIds);
  const rules = [...installed.filter((r) => !gone.has(r.id)), ...update.addRules];
  const ids = rules.map((r) => r.id);
  if (new Set(ids).size !== ids.length) throw new Error(`duplicate rule id in ${ids.join(',')}`);
  return rules;
}

const meanings = (rules: readonly Rule[]) => new Set(rules.map(canonicalKey));

const ruleArb = fc.record({
  priority: fc.integer({ min: 1, max: 4 }),
  action: fc.constantFrom<Rule['action']>({ type: 'block' }, { type: 'allow' }),
  condition: fc.record({ urlFilter: fc.constantFrom('abc', 'def', 'ghi', 'jkl', 'mno'), tabIds: fc.constantFrom<number[]>([1], [1, 2], [-1]) }),
});
/** A rule list with any ids, as the browser might hold it (duplicates of meaning included). */
const installedArb = fc.array(ruleArb, { maxLength: 12 }).map((specs) => specs.map((spec, i) => ({ ...spec, id: i * 3 + 1 }) as Rule));
const wantedArb = fc.array(ruleArb, { maxLength: 12 }).map((specs) => specs.map((spec, i) => ({ ...spec, id: i + 1 }) as Rule));

describe('ruleUpdate: the smallest session-rule update', () => {
  it('applied to what is installed, it gives exactly the wanted rules, with unique ids (either key)', () => {
    fc.assert(
      fc.property(installedArb, wantedArb, fc.constantFrom(canonicalKey, builtKey), (installed, wanted, keyOf) => {
        const update = ruleUpdate(installed, wanted, keyOf);
        const after = applied(installed, update);
        expect(meanings(after)).toEqual(meanings(wanted));
        expect(after).toHaveLength(meanings(wanted).size);
        expect(meanings(update.after)).toEqual(meanings(after));
      }),
    );
  });

  it('an unchanged floor makes no update; a rule that stays keeps its id', () => {
    fc.assert(
      fc.property(wantedArb, wantedArb, (base, extra) => {
        const installed = ruleUpdate([], base).after;
        expect(ruleUpdate(installed, base)).toMatchObject({ removeRuleIds: [], addRules: [] });
        const update = ruleUpdate(installed, [...base, ...extra]);
        expect(update.removeRuleIds).toEqual([]);
        for (const rule of installed) expect(update.after).toContainEqual(rule);
      }),
    );
  });

  it('compares meaning, not key order (the browser returns rules in its own order)', () => {
    const ours: Rule = { id: 5, priority: 2, action: { type: 'block' }, condition: { urlFilter: 'abc', resourceTypes: ['script'] } };
    const browsers = { condition: { resourceTypes: ['script'], urlFilter: 'abc' }, action: { type: 'block' }, priority: 2, id: 9 } as Rule;
    expect(ruleUpdate([browsers], [ours])).toMatchObject({ removeRuleIds: [], addRules: [] });
    const widened: Rule = { ...ours, condition: { ...ours.condition, resourceTypes: ['image', 'script'] } };
    expect(ruleUpdate([browsers], [widened])).toMatchObject({ removeRuleIds: [9], addRules: [{ ...widened, id: 1 }] });
  });

  it('once reconciled with what the browser holds, rules built here are compared by their own text', () => {
    const browsers = { condition: { resourceTypes: ['script'], urlFilter: 'abc' }, action: { type: 'block' }, priority: 2, id: 9 } as Rule;
    const build = (): Rule[] => [{ id: 1, priority: 2, action: { type: 'block' }, condition: { urlFilter: 'abc', resourceTypes: ['script'] } }];
    const first = ruleUpdate([browsers], build(), canonicalKey);
    expect(first).toMatchObject({ removeRuleIds: [], addRules: [], after: [{ ...build()[0], id: 9 }] });
    expect(ruleUpdate(first.after, build(), builtKey)).toMatchObject({ removeRuleIds: [], addRules: [] });
  });
});
