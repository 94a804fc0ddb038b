import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/tools';
import { evaluate } from '../../src/tools';
import { grantFor } from '../../src/core/grants';
import { itemsCovered } from '../../src/core/items';
import { initialState, type EvalState, type TaskPolicy } from '../../src/core/policy';
import { RISK_CLASSES } from '../../src/core/risk';
import type { ToolCall } from '../../src/core/call';
import { callArb, grantArb, NUM_RUNS, policyArb } from '../support/arbitraries';
import { makePolicy } from '../support/policy';

const NOW = 1_000;
const params = { numRuns: NUM_RUNS };
const decide = (p: TaskPolicy, call: unknown, s: EvalState = initialState()) => evaluate(p, s, call, NOW).record;

describe('theorems of the evaluator', () => {
  it('totality: every input gets a decision; nothing throws', () => {
    fc.assert(
      fc.property(policyArb, fc.oneof(callArb, fc.anything()), (p, call) => {
        const r = decide(p, call);
        expect(['ALLOW', 'BLOCK', 'ASK_USER']).toContain(r.decision);
        expect(r.reason.length).toBeGreaterThan(0);
      }),
      params,
    );
  });

  it('UNKNOWN is never allowed', () => {
    fc.assert(
      fc.property(policyArb, callArb, (p, call) => {
        const r = decide(p, call);
        if (r.riskClass === 'UNKNOWN') expect(r.decision).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a prohibition beats every grant', () => {
    fc.assert(
      fc.property(policyArb, callArb, fc.array(grantArb, { maxLength: 3 }), (p, call, extra) => {
        const c = classify(call as ToolCall);
        const exact = grantFor(p.taskId, call.tool, c, 'task', 0);
        const banned: TaskPolicy = {
          ...p,
          grants: [...p.grants, ...extra, exact],
          prohibitions: [{ id: 'ban', classes: [c.riskClass], capabilities: [], tools: [], exceptRecipients: [], quote: 'never do that' }],
        };
        const r = decide(banned, call);
        if (r.check !== 'expiry' && r.check !== 'guards' && r.check !== 'schema') expect(r).toMatchObject({ decision: 'BLOCK', check: 'prohibitions' });
        else expect(r.decision).toBe('BLOCK');
      }),
      params,
    );
  });

  it('the deny list beats the allow list', () => {
    fc.assert(
      fc.property(policyArb, callArb, (p, call) => {
        const denied: TaskPolicy = {
          ...p,
          prohibitions: [],
          allow: { ...p.allow, tools: [...p.allow.tools, call.tool] },
          deny: { ...p.deny, tools: [call.tool] },
        };
        expect(decide(denied, call).decision).toBe('BLOCK');
      }),
      params,
    );
  });

  it('determinism: the same policy, state and call give the same record and state', () => {
    fc.assert(
      fc.property(policyArb, callArb, (p, call) => {
        expect(evaluate(p, initialState(), call, NOW)).toEqual(evaluate(structuredClone(p), initialState(), structuredClone(call), NOW));
      }),
      params,
    );
  });

  it('monotonicity: removing an allowance never turns a non-ALLOW into ALLOW', () => {
    const narrowings: Array<(p: TaskPolicy) => TaskPolicy> = [
      (p) => ({ ...p, allow: { tools: [], capabilities: [], classes: [] } }),
      (p) => ({ ...p, recipients: p.recipients.slice(1) }),
      (p) => ({ ...p, domains: p.domains === null ? [] : p.domains.slice(1) }),
      (p) => ({ ...p, paths: [] }),
      (p) => ({ ...p, grants: p.grants.slice(1) }),
      (p) => ({ ...p, ceilings: Object.fromEntries(RISK_CLASSES.map((c) => [c, p.ceilings[c] === 'allow' ? 'ask' : p.ceilings[c] ?? (c === 'READ' ? 'allow' : 'ask')])) }),
    ];
    fc.assert(
      fc.property(policyArb, callArb, fc.constantFrom(...narrowings.keys()), (p, call, which) => {
        const before = decide(p, call);
        const after = decide(narrowings[which]!(p), call);
        if (before.decision !== 'ALLOW') expect(after.decision).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('k = max_calls sequential calls give exactly k ALLOWs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), (k, extra) => {
        const p = makePolicy({
          ceilings: { COMMUNICATION: 'allow' },
          allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
          recipients: ['bob@corp.test'],
          constraints: [{ id: 'k', capability: 'email.send', maxCalls: k }],
        });
        let s = initialState();
        let allowed = 0;
        for (let i = 0; i < k + extra; i++) {
          const r = evaluate(p, s, { tool: 'send_email', args: { to: 'bob@corp.test', body: `n${i}` } }, NOW);
          s = r.state;
          if (r.record.decision === 'ALLOW') allowed++;
        }
        expect(allowed).toBe(k);
      }),
      params,
    );
  });

  it('an item binding holds: no ALLOW under a constraint with items acts on an item the user did not name', () => {
    fc.assert(
      fc.property(policyArb, callArb, (p, call) => {
        const c = classify(call as ToolCall);
        const r = decide(p, call);
        if (r.decision !== 'ALLOW' || r.check === 'grants') return;
        const bound = p.constraints.filter((k) => k.items !== undefined && (k.riskClass === undefined || k.riskClass === c.riskClass) && k.tool === undefined && k.capability === undefined);
        for (const k of bound) expect(itemsCovered(c.targets.items, k.items!)).toBe(true);
      }),
      params,
    );
  });

  it('page text never changes a decision: the data lane is ignored', () => {
    fc.assert(
      fc.property(policyArb, callArb, fc.anything(), (p, call, data) => {
        expect(decide(p, { ...call, data })).toEqual(decide(p, call));
      }),
      params,
    );
  });
});
