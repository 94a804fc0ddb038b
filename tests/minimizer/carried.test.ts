import { describe, expect, it } from 'vitest';
import { carriedValues, minimizeCall } from '../../src/minimizer/carried';
import { detectConfidential } from '../../src/minimizer/detect';

const ctx = { userWords: 'Reply to bob@corp.test that I will attend.', recipients: ['bob@corp.test'] };

describe('what an action carries, and the action without the flagged data', () => {
  it('reads form fields with their types, body leaves and query values', () => {
    const form = { tool: 'browser.form_submit', args: { url: 'https://mail.test/send?draft=1', method: 'POST', fields: { to: 'bob@corp.test', body: 'hi', pw: 'x' }, fieldTypes: { pw: 'password' } } };
    expect(carriedValues(form).map((v) => v.path)).toEqual(['fields.to', 'fields.body', 'fields.pw', 'query.draft']);
    expect(carriedValues(form).find((v) => v.path === 'fields.pw')?.fieldType).toBe('password');
    const req = { tool: 'browser.request', args: { url: 'https://mail.test/api', method: 'POST', body: { to: ['bob@corp.test'], message: { text: 'hi' } } } };
    expect(carriedValues(req).map((v) => v.path)).toEqual(['body.to[0]', 'body.message.text']);
  });

  it('removes exactly the flagged spans from a JSON body and leaves the rest', () => {
    const call = { tool: 'browser.request', args: { url: 'https://mail.test/api/send', method: 'POST', body: { to: 'bob@corp.test', text: 'I will attend. My sign-in code is 483920.' } } };
    const findings = detectConfidential(carriedValues(call), ctx);
    const minimized = minimizeCall(call, findings);
    expect(minimized?.rewrite.body).toEqual({ to: 'bob@corp.test', text: 'I will attend. My sign-in code is.' });
    expect(detectConfidential(carriedValues(minimized!.call), ctx)).toEqual([]);
  });

  it('rewrites form fields and query values in place', () => {
    const call = { tool: 'browser.form_submit', args: { url: 'https://bank.test/pay?memo=IBAN%20DE89370400440532013000', method: 'POST', fields: { note: 'card 4111 1111 1111 1111', amount: '45' } } };
    const minimized = minimizeCall(call, detectConfidential(carriedValues(call), ctx));
    expect(minimized?.rewrite.fields).toEqual({ note: 'card', amount: '45' });
    expect(new URL(minimized!.rewrite.url!).searchParams.get('memo')).toBe('IBAN');
  });

  it('offers no rewrite for a body it saw only in part', () => {
    const call = { tool: 'browser.request', args: { url: 'https://mail.test/api', method: 'POST', body: 'code 483920', bodyBytes: 100_000 } };
    const findings = detectConfidential(carriedValues(call), ctx);
    expect(findings).toHaveLength(1);
    expect(minimizeCall(call, findings)).toBeNull();
  });

  // Adaptive review (data lane), 2026-12-01: each of these left unread before.
  const send = (body: unknown, url = 'https://mail.test/api/send') => ({ tool: 'browser.request', args: { url, method: 'POST', body } });
  const kindsOf = (call: { tool: string; args: Record<string, unknown> }) => detectConfidential(carriedValues(call), ctx).map((f) => `${f.kind}@${f.path}`);

  it('reads a datum nested deeper than eight objects, and cuts it out there', () => {
    let nested: unknown = { text: 'card 4111 1111 1111 1111' };
    for (let i = 0; i < 12; i++) nested = { inner: nested };
    const call = send({ to: 'bob@corp.test', nested });
    expect(kindsOf(call)).toEqual([`card_number@body.nested${'.inner'.repeat(12)}.text`]);
    const minimized = minimizeCall(call, detectConfidential(carriedValues(call), ctx));
    expect(JSON.stringify(minimized?.rewrite.body)).not.toContain('4111');
    expect(JSON.stringify(minimized?.rewrite.body)).toContain('"text":"card"');
  });

  it('reads a datum after five hundred padding values', () => {
    expect(kindsOf(send({ pad: Array<string>(600).fill(''), to: 'bob@corp.test', text: 'card 4111 1111 1111 1111' }))).toEqual(['card_number@body.text']);
  });

  it('reads data written into names (JSON keys, form field names, query parameter names); they are asked about, never rebuilt', () => {
    const key = send({ to: 'bob@corp.test', text: 'hi', meta: { '4111 1111 1111 1111': true } });
    expect(kindsOf(key)).toEqual(['card_number@body.meta.⟨name⟩']);
    expect(minimizeCall(key, detectConfidential(carriedValues(key), ctx))).toBeNull();
    const field = { tool: 'browser.form_submit', args: { url: 'https://mail.test/send', method: 'POST', fields: { to: 'bob@corp.test', 'DE89 3704 0044 0532 0130 00': '' } } };
    expect(kindsOf(field)).toEqual(['iban@fields.⟨name⟩']);
    expect(kindsOf(send({ to: 'bob@corp.test' }, 'https://mail.test/api/send?sk-live-Zx81Lq02Vb77Np3Ta9Ke4Ru6=1'))).toEqual(['api_key@query.⟨name⟩']);
    // The path shown to the person never holds the name itself.
    expect(JSON.stringify(detectConfidential(carriedValues(key), ctx))).not.toContain('4111');
  });

  it('ordinary names carry nothing: ids, timestamps, addresses and identifiers as keys are no finding', () => {
    expect(kindsOf(send({ entities: { '1701234567890': { ok: true }, '1701234567.123456': 1, '9007199254740993': 2 }, permissions: { 'alice@corp.test': 'viewer' }, __RequestVerificationToken: 'x', 'g-recaptcha-response': '', 'data[0][name]': 'Ann', '+49 30 1234567': 'x' }))).toEqual([]);
    expect(carriedValues(send({ to: 'bob@corp.test', message: { text: 'hi' } })).map((v) => v.path)).toEqual(['body.to', 'body.message.text']);
  });
});
