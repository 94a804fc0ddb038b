import { describe, expect, it } from 'vitest';
import { DecisionRecordSchema } from '../../src/core/decision';
import { explain } from '../../src/core/explain';
import { parseRuleRef } from '../../src/core/ruleRef';

describe('ruleRef grammar', () => {
  it.each([
    ['expiresAt', { kind: 'expiry' }],
    ['prohibition:p-1', { kind: 'prohibition', id: 'p-1' }],
    ['allow.classes:COMMUNICATION', { kind: 'listing', list: 'allow', by: 'classes', value: 'COMMUNICATION' }],
    ['deny.tools:send_email', { kind: 'listing', list: 'deny', by: 'tools', value: 'send_email' }],
    ['requireApproval.capabilities:payment.send', { kind: 'listing', list: 'requireApproval', by: 'capabilities', value: 'payment.send' }],
    ['grant:t1:once:["send_email"]', { kind: 'grant', id: 't1:once:["send_email"]' }],
    ['constraints:c-communication', { kind: 'constraint', id: 'c-communication' }],
    ['ceilings.FINANCIAL', { kind: 'ceiling', riskClass: 'FINANCIAL' }],
    ['domains', { kind: 'allowlist', list: 'domains' }],
    ['outboundBudget.maxBytes', { kind: 'outbound_budget', limit: 'maxBytes' }],
    ['builtin:exfiltration-url', { kind: 'builtin', rule: 'exfiltration-url' }],
    ['sanitizer:hidden-instruction', { kind: 'sanitizer', rule: 'hidden-instruction' }],
    // Audit entries stored before built-in rules had a prefix.
    ['taint', { kind: 'builtin', rule: 'taint' }],
  ])('reads %s', (ref, parsed) => {
    expect(parseRuleRef(ref)).toEqual(parsed);
  });

  it.each(['', 'allow', 'allow.classes:NOPE', 'ceilings.NOPE', 'builtin:nope', 'builtin:toString', 'grant:', 'policy:x', 'allow.things:x'])('rejects %j', (ref) => {
    expect(parseRuleRef(ref)).toBeNull();
  });

  it('a record whose ruleRef names no rule does not parse; explain() puts a rule in words', () => {
    const record = { decision: 'BLOCK', check: 'exfiltration_url', reason: 'URL is 3000 characters (limit 2048)', tool: 'browser.navigate', capability: 'web.read', riskClass: 'READ', targets: { recipients: [], domains: ['a.test'], paths: [], items: [] } };
    expect(DecisionRecordSchema.safeParse({ ...record, ruleRef: 'whatever' }).success).toBe(false);
    const parsed = DecisionRecordSchema.parse({ ...record, ruleRef: 'builtin:exfiltration-url', classifierLayer: 'web', basis: 'navigation reads a page' });
    expect(explain(parsed)).toContain('Rule: builtin:exfiltration-url (built-in rule: an exfiltration-shaped URL is blocked).');
    expect(explain(parsed)).toContain('Read by the web heuristics: navigation reads a page.');
    expect(explain({ ...parsed, targets: { ...parsed.targets, items: ['usb-c-cable'] } }).split('\n')[0]).toContain('acting on usb-c-cable');
  });
});
