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
});
