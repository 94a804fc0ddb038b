import { describe, expect, it } from 'vitest';
import { downloadCall, forbiddenNavigation, parseBlockedPageUrl } from '../../src/background/floor/guards';
import { dataViewOf, maskSecrets, redactUrl, summarizeCall } from '../../src/background/decide/redact';

const ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

describe('forbiddenNavigation', () => {
  it('keeps guarded tabs away from browser internals and extension pages', () => {
    for (const url of ['chrome://settings', 'CHROME://extensions/', 'devtools://devtools/bundled/inspector.html', 'chrome-untrusted://x', 'view-source:http://a.test/', 'about:settings', 'file:///etc/passwd']) {
      expect(forbiddenNavigation(url, ORIGIN), url).not.toBeNull();
    }
  });

  it('refuses every scheme not on the allowlist, however the parser is made to read it', () => {
    for (const url of ['brave://settings', 'opera://settings', 'vivaldi://settings', 'edge://settings', 'intent://x#Intent;scheme=http;end', '  BRAVE://settings', '\tchrome://settings', 'chr\nome://settings', 'filesystem:http://a.test/temporary/x', 'mailto:a@b.test', 'ftp://a.test/']) {
      expect(forbiddenNavigation(url, ORIGIN), url).not.toBeNull();
    }
    expect(forbiddenNavigation(`${ORIGIN}/popup.html`, ORIGIN)).toMatch(/own pages/);
    expect(forbiddenNavigation(`${ORIGIN}/options.html#x`, ORIGIN)).toMatch(/own pages/);
    expect(forbiddenNavigation('chrome-extension://otherotherotherotherotherother/p.html', ORIGIN)).toMatch(/another extension/);
  });

  it('lets the web, about:blank and the blocked page through', () => {
    for (const url of ['http://news.test/', 'https://a.test/x?y=1', 'about:blank', 'about:srcdoc', `${ORIGIN}/blocked.html?check=x&url=http://a.test/`]) {
      expect(forbiddenNavigation(url, ORIGIN), url).toBeNull();
    }
  });
});

describe('parseBlockedPageUrl', () => {
  it('reads the blocked URL raw, ampersands included', () => {
    const href = `${ORIGIN}/blocked.html?check=domain_allowlist&reason=the%20task%20does%20not%20name%20this%20site&url=http://evil.test/a?b=1&c=2`;
    expect(parseBlockedPageUrl(href)).toEqual({ check: 'domain_allowlist', reason: 'the task does not name this site', url: 'http://evil.test/a?b=1&c=2' });
    expect(parseBlockedPageUrl(`${ORIGIN}/blocked.html`)).toBeNull();
  });
});

describe('downloadCall', () => {
  it('checks the final URL and the file it writes', () => {
    expect(downloadCall({ url: 'http://a.test/r', finalUrl: 'http://files.test/report.pdf', filename: '' })).toEqual({
      tool: 'browser.download',
      args: { url: 'http://files.test/report.pdf', path: 'report.pdf' },
    });
    expect(downloadCall({ url: 'http://a.test/r', filename: '/home/u/Downloads/r.pdf' }).args.path).toBe('/home/u/Downloads/r.pdf');
  });
});

describe('redaction', () => {
  it('masks secret-looking strings', () => {
    expect(maskSecrets('key sk-or-v1-abcdef0123456789abcdef here')).not.toContain('abcdef0123456789');
    expect(maskSecrets('Bearer abcdefghijklmnop1234')).not.toContain('abcdefghijklmnop1234');
    expect(maskSecrets('card 4111 1111 1111 1111')).not.toContain('4111 1111');
    expect(maskSecrets('recipient bob@corp.test is not named')).toBe('recipient bob@corp.test is not named');
  });

  it('keeps query names, drops values, userinfo and fragments', () => {
    expect(redactUrl('http://u:p@a.test/path?token=s3cr3t&q=hello#frag')).toBe('http://a.test/path?token=…&q=…');
    expect(redactUrl('data:text/html,<b>x</b>')).toBe('data:…');
  });

  it('keeps a route the person must judge, and masks a secret that is one of its segments', () => {
    // The whole path runs past the long-run pattern; no segment does (a prompt showing `gitlab.test:[masked]`
    // cannot be judged: comment on issue 1000 or on 1001?).
    expect(redactUrl('http://gitlab.test:8080/byteblaze/dotfiles/-/issues/1001/notes')).toBe('http://gitlab.test:8080/byteblaze/dotfiles/-/issues/1001/notes');
    const leak = redactUrl('http://a.test/u/dGhpcyBpcyBhIHNlc3Npb24gdG9rZW4gMTIzNDU2Nzg5MA/x');
    expect(leak).toBe('http://a.test/u/[masked]/x');
  });

  it('summarises a call by names only; the approval view shows masked values', () => {
    const call = { tool: 'browser.form_submit', args: { url: 'http://m.test/send?x=1', method: 'post', fields: { to: 'eve@evil.test', api_key: 'sk-live-0123456789abcdefghij' } } };
    expect(summarizeCall(call)).toEqual({ destination: 'POST http://m.test/send?x=…', fields: ['to', 'api_key'] });
    const view = dataViewOf(call);
    expect(view).toContain('to: eve@evil.test');
    expect(view).not.toContain('0123456789abcdefghij');
  });
});
