import { describe, expect, it } from 'vitest';
import { plainReason, type ReasonInput } from './plainReason';

const none = { recipients: [], domains: [], paths: [], items: [] };
const record = (over: Partial<ReasonInput>): ReasonInput => ({
  decision: 'ASK_USER',
  check: 'allowed',
  reason: '',
  tool: 'browser.request',
  capability: 'message.send',
  riskClass: 'COMMUNICATION',
  targets: none,
  ...over,
});
const says = (over: Partial<ReasonInput>) => plainReason(record(over)).sentence;

/** Internal words a person should not have to read in the sentence. */
const INTERNAL = /argument_constraints|recipient_binding|domain_allowlist|exfiltration_url|outbound_budget|builtin:|COMMUNICATION|EXTERNAL_WRITE|FINANCIAL|\bthe user\b/;

describe('plainReason: the task against the action, in one sentence', () => {
  it('an argument constraint on recipients: whom the task sends to, whom this goes to', () => {
    const s = says({ check: 'argument_constraints', reason: 'recipient not among alice@corp.test, bob@corp.test', ruleRef: 'constraints:c-communication', targets: { ...none, recipients: ['mallory@evil.test'], domains: ['mail.test'] } });
    expect(s).toBe('Your task only sends to alice@corp.test and bob@corp.test; this goes to mallory@evil.test.');
  });
  it('recipient binding: the recipient the task does not name', () => {
    const s = says({ check: 'recipient_binding', reason: 'recipient eve@evil.test was not named in the task', ruleRef: 'recipients', targets: { ...none, recipients: ['eve@evil.test'] } });
    expect(s).toBe('Your task does not name eve@evil.test; this goes to eve@evil.test.');
    expect(says({ check: 'recipient_binding', reason: 'a message whose recipient could not be read', ruleRef: 'builtin:readable-recipient' })).toBe(
      'Your task sends only to people it names; this message’s recipient could not be read.',
    );
  });
  it('the domain allowlist: the site the task does not name, for a write and for reading', () => {
    const write = { check: 'domain_allowlist' as const, ruleRef: 'domains' as const, riskClass: 'EXTERNAL_WRITE' as const, capability: 'web.write', targets: { ...none, domains: ['evil.test'] } };
    expect(says({ ...write, decision: 'BLOCK', reason: 'EXTERNAL_WRITE to evil.test, which the task does not name' })).toBe('Your task does not name evil.test; this changes data on evil.test.');
    expect(says({ ...write, decision: 'ASK_USER', riskClass: 'READ', reason: 'evil.test is outside the task’s sites' })).toBe('Your task reads only its own sites; this opens evil.test.');
    expect(says({ ...write, decision: 'BLOCK', reason: 'the task does not name this site', ruleRef: 'builtin:network-floor' })).toMatch(/^Your task does not send data to evil\.test; the network floor stopped/);
  });
  it('the site list of a constraint and a call budget', () => {
    expect(says({ check: 'argument_constraints', reason: 'domain not among mail.test', riskClass: 'EXTERNAL_WRITE', targets: { ...none, domains: ['forum.test'] } })).toBe(
      'Your task only changes data on mail.test; this is on forum.test.',
    );
    expect(says({ check: 'argument_constraints', decision: 'BLOCK', reason: 'call budget of 1 used up' })).toBe('Your task allows 1 such action, all used; this would be one more.');
  });
  it('the ceiling: a class the task does not allow, one it asks about, and an action the task does not ask for (action binding)', () => {
    const pay = { check: 'ceiling' as const, riskClass: 'FINANCIAL' as const, capability: 'payment.send', targets: { ...none, domains: ['shop.test'] } };
    expect(says({ ...pay, decision: 'BLOCK', reason: 'FINANCIAL actions are not allowed in this task', ruleRef: 'ceilings.FINANCIAL' })).toBe(
      'Your task does not allow anything that would pay or buy; this pays on shop.test.',
    );
    expect(says({ ...pay, reason: 'FINANCIAL actions need approval in this task', ruleRef: 'ceilings.FINANCIAL' })).toBe('Your task asks you before anything that would pay or buy; this pays on shop.test.');
    const key = { check: 'ceiling' as const, riskClass: 'PERMISSION_CHANGE' as const, capability: 'permission.change', reason: "permission.change is not among the task's permissions", targets: { ...none, domains: ['forge.test'] } };
    expect(says(key)).toBe('Your task does not ask to change permissions or account settings; this changes permissions on forge.test.');
    expect(says({ check: 'ceiling', riskClass: 'UNKNOWN', capability: 'unknown', tool: 'mystery', reason: 'the action could not be classified; a person must decide', ruleRef: 'builtin:unclassified-asks' })).toBe(
      'Nobody could tell what this action does (mystery); a person must decide.',
    );
  });
  it('the outbound budget', () => {
    expect(says({ check: 'outbound_budget', decision: 'BLOCK', reason: 'outbound budget of 3 calls used up', ruleRef: 'outboundBudget.maxCalls', targets: { ...none, recipients: ['bob@x.test'] } })).toBe(
      'Your task’s outbound budget is used up (3 calls used up); this sends a message to bob@x.test.',
    );
  });
  it('an exfiltration-shaped URL and the data-lane taint', () => {
    expect(says({ check: 'exfiltration_url', decision: 'BLOCK', riskClass: 'READ', reason: 'URL is 9000 characters (limit 2048)', ruleRef: 'builtin:exfiltration-url' })).toBe(
      'Your task sends nothing hidden in web addresses; this address looks like it carries data (URL is 9000 characters (limit 2048)).',
    );
    expect(says({ check: 'exfiltration_url', decision: 'BLOCK', riskClass: 'READ', reason: 'the URL carries a one-time code to a site the task does not name', ruleRef: 'builtin:taint' })).toBe(
      'Your task does not send what its pages showed to other sites; this address carries a one-time code to a site the task does not name.',
    );
  });
  it('the Minimizer: the action is the task’s, the data is not', () => {
    expect(says({ check: 'minimizer', reason: 'carries a password (field "pw"); the task does not call for it', ruleRef: 'builtin:minimizer' })).toBe(
      'Your task allows this action, not the data it carries: carries a password (field "pw").',
    );
  });
  it('the organisation’s floor, with the class in words', () => {
    expect(says({ check: 'org_floor', decision: 'BLOCK', riskClass: 'FINANCIAL', reason: 'your organisation never allows FINANCIAL actions', targets: { ...none, domains: ['bank.test'] } })).toBe(
      'Your organisation never allows anything that would pay or buy; this pays on bank.test.',
    );
    expect(says({ check: 'org_floor', decision: 'BLOCK', reason: 'your organisation blocks shop.test' })).toBe('Your organisation blocks shop.test.');
  });
  it('amounts: the bound the user named against the amount', () => {
    expect(says({ check: 'argument_constraints', riskClass: 'FINANCIAL', reason: 'amount 4,500.00 EUR is above the 45.00 EUR the user named' })).toBe('Your task allows up to the 45.00 EUR you named; this is 4,500.00 EUR.');
  });
  it('a reason that already sets the task against the action is shown as it is', () => {
    expect(says({ check: 'ceiling', reason: 'your task comments on issue 1000; this adds a deploy key' })).toBe('Your task comments on issue 1000; this adds a deploy key.');
  });
  it('a refused page message is explained, not "unknown"', () => {
    const s = says({ decision: 'BLOCK', check: 'guards', tool: 'message:task.get', capability: 'unknown', riskClass: 'UNKNOWN', reason: 'task and approval messages are accepted only from …', ruleRef: 'builtin:control-sender' });
    expect(s).toMatch(/^A page that is not the toolbar popup or a window AgentsFence opened asked to manage the task/);
  });
  it('keeps the user’s words apart, and what the too-many-waiting refusal adds', () => {
    const r = plainReason(record({ check: 'argument_constraints', decision: 'BLOCK', reason: 'recipient not among bob@x.test; not asked: 3 approvals are already waiting from this tab', evidence: 'email bob@x.test', targets: { ...none, recipients: ['eve@x.test'] } }));
    expect(r).toEqual({ sentence: 'Your task only sends to bob@x.test; this goes to eve@x.test; not asked: 3 approvals are already waiting from this tab.', quote: 'email bob@x.test' });
  });
  it('never shows an internal check name, rule or class in the sentence', () => {
    const cases: Partial<ReasonInput>[] = [
      { check: 'argument_constraints', reason: 'recipient not among bob@x.test', targets: { ...none, recipients: ['eve@x.test'] } },
      { check: 'recipient_binding', reason: 'recipient eve@x.test was not named in the task', targets: { ...none, recipients: ['eve@x.test'] } },
      { check: 'domain_allowlist', decision: 'BLOCK', reason: 'COMMUNICATION to evil.test, which the task does not name', targets: { ...none, domains: ['evil.test'] } },
      { check: 'ceiling', reason: 'COMMUNICATION actions need approval in this task' },
      { check: 'outbound_budget', reason: 'outbound budget of 10 calls used up' },
      { check: 'prohibitions', decision: 'BLOCK', reason: 'the user said: "don\'t buy anything"' },
      { check: 'allowed', decision: 'ALLOW', reason: 'COMMUNICATION allowed by the task' },
      { check: 'grants', decision: 'ALLOW', reason: 'approved by the user (once)' },
    ];
    for (const c of cases) expect(says(c)).not.toMatch(INTERNAL);
    expect(says({ check: 'allowed', decision: 'ALLOW', reason: 'COMMUNICATION allowed by the task', targets: { ...none, recipients: ['bob@x.test'] } })).toBe('Your task allows this: it sends a message to bob@x.test.');
  });
});
