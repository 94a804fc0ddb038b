import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/core/call';
import { classify } from '../../src/core/classifier';
import { hostOf } from '../../src/core/domains';
import { evaluate } from '../../src/core/evaluator';
import { grantFor } from '../../src/core/grants';
import { OrgFloorSchema, type OrgFloor } from '../../src/core/org';
import { initialState, type EvalState, type TaskPolicy } from '../../src/core/policy';
import { RISK_CLASSES } from '../../src/core/risk';
import { parseRuleRef } from '../../src/core/ruleRef';
import { callArb, domainArb, grantArb, NUM_RUNS, policyArb } from '../support/arbitraries';

const NOW = 1_000;
const params = { numRuns: NUM_RUNS };
const decide = (p: TaskPolicy, call: unknown, org: OrgFloor | null, s: EvalState = initialState()) => evaluate(p, s, call, NOW, org).record;

/** The policy under test, plus every approval a person could give for exactly this call, plus arbitrary others. */
function approvedEverything(p: TaskPolicy, call: ToolCall, extra: TaskPolicy['grants']): TaskPolicy {
  const c = classify(call);
  return { ...p, grants: [...p.grants, ...extra, grantFor(p.taskId, call.tool, c, 'task', 0), grantFor(p.taskId, call.tool, c, 'once', 0)] };
}

/** A host the call acts on (URL host, domain target or recipient domain), when it has one. */
function aHostOf(call: ToolCall): string | null {
  const c = classify(call);
  const url = c.urls.map((u) => hostOf(u)).find((h) => h !== null);
  return url ?? c.targets.domains[0] ?? c.targets.recipients.find((r) => r.includes('@'))?.split('@')[1] ?? null;
}

const orgArb = fc.record({
  blockedSites: fc.subarray(['mail.test', 'bank.test', 'shop.test', 'attacker.test', 'news.test']),
  askSites: fc.subarray(['mail.test', 'bank.test', 'shop.test', 'attacker.test', 'news.test']),
  neverAllow: fc.subarray([...RISK_CLASSES]),
}).map((o) => OrgFloorSchema.parse(o));

describe('theorems of the organisation floor', () => {
  it('a site the organisation blocks stays blocked, whatever the policy, grants, approvals or follow-ups', () => {
    fc.assert(
      fc.property(policyArb, callArb, fc.array(grantArb, { maxLength: 3 }), (p, call, extra) => {
        const host = aHostOf(call as ToolCall);
        fc.pre(host !== null);
        const r = decide(approvedEverything(p, call as ToolCall, extra), call, OrgFloorSchema.parse({ blockedSites: [host] }));
        expect(r.decision).toBe('BLOCK');
        if (!['expiry', 'guards'].includes(r.check)) expect(r).toMatchObject({ check: 'org_floor', ruleRef: expect.stringMatching(/^org\.blockedSites:/) });
      }),
      params,
    );
  });

  it('a class the organisation never allows is never allowed, whatever the policy, grants or approvals', () => {
    fc.assert(
      fc.property(policyArb, callArb, fc.array(grantArb, { maxLength: 3 }), (p, call, extra) => {
        const cls = classify(call as ToolCall).riskClass;
        const r = decide(approvedEverything(p, call as ToolCall, extra), call, OrgFloorSchema.parse({ neverAllow: [cls] }));
        expect(r.decision).toBe('BLOCK');
        if (r.check === 'org_floor') expect(parseRuleRef(r.ruleRef ?? '')).toEqual({ kind: 'org', rule: 'neverAllow', value: cls });
      }),
      params,
    );
  });

  it('on a site the organisation always asks about, only a single-use approval of exactly this action allows it', () => {
    fc.assert(
      fc.property(policyArb, callArb, fc.array(grantArb, { maxLength: 3 }), domainArb, (p, call, extra, site) => {
        const withGrants = { ...p, grants: [...p.grants, ...extra, grantFor(p.taskId, call.tool, classify(call as ToolCall), 'task', 0)] };
        const r = decide(withGrants, call, OrgFloorSchema.parse({ askSites: [site] }));
        const onSite = classify(call as ToolCall).urls.some((u) => hostOf(u) === site);
        if (r.check === 'org_floor') expect(parseRuleRef(r.ruleRef ?? '')).toEqual({ kind: 'org', rule: 'askSites', value: site });
        if (onSite && r.decision === 'ALLOW') {
          expect(r.check).toBe('grants');
          expect(withGrants.grants.find((g) => `grant:${g.id}` === r.ruleRef)?.maxCalls).not.toBeNull();
        }
      }),
      params,
    );
  });

  it('the floor only narrows: what it allows, the task alone allows too, and an ask it adds counts nothing', () => {
    fc.assert(
      fc.property(policyArb, callArb, orgArb, (p, call, org) => {
        const under = evaluate(p, initialState(), call, NOW, org);
        const alone = evaluate(p, initialState(), call, NOW);
        if (under.record.decision === 'ALLOW') expect(alone.record.decision).toBe('ALLOW');
        if (under.record.decision !== 'ALLOW') expect(under.state).toEqual(initialState());
      }),
      params,
    );
  });
});
