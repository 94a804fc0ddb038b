import { describe, expect, it } from 'vitest';
import { domainMatches, hostOf, registrableDomain } from '../../src/core/domains';

describe('registrableDomain', () => {
  it.each([
    ['https://www.example.co.uk/path?q=1', 'example.co.uk'],
    ['http://user:pw@www.Example.COM:8443/', 'example.com'],
    ['www.example.com', 'example.com'],
    ['example.com:8080', 'example.com'],
    ['example.com.', 'example.com'],
    ['//cdn.example.net/app.js', 'example.net'],
    ['wss://chat.example.org/socket', 'example.org'],
    ['alice.github.io', 'alice.github.io'],
    ['https://bob.github.io/x', 'bob.github.io'],
    ['http://127.0.0.1:3000/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://[::1]:8080/', '::1'],
    ['https://bücher.de/x', 'xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
    ['localhost', 'localhost'],
    ['http://localhost:5173/', 'localhost'],
    ['http://mail.localhost:8080/inbox', 'mail.localhost'],
    ['bank.localhost', 'bank.localhost'],
    ['bank.test', 'bank.test'],
    ['https://www.bank.test/login', 'bank.test'],
    ['http://evil.test@bank.test/', 'bank.test'],
  ])('%s → %s', (input, expected) => {
    expect(registrableDomain(input)).toBe(expected);
  });

  it.each(['', '   ', 'data:text/html,hi', 'blob:https://x.com/abc', 'javascript:alert(1)', 'mailto:a@b.com', 'file:///etc/passwd', 'about:blank', 'chrome://settings', 'http://', 'not a url'])(
    'has no domain: %j',
    (input) => {
      expect(registrableDomain(input)).toBeNull();
    },
  );

  it('keeps distinct *.localhost and *.test sites distinct', () => {
    expect(registrableDomain('mail.localhost')).not.toBe(registrableDomain('bank.localhost'));
    expect(registrableDomain('shop.test')).not.toBe(registrableDomain('bank.test'));
  });
});

describe('hostOf', () => {
  it('returns the normalised host', () => {
    expect(hostOf('https://WWW.Example.com:443/a')).toBe('www.example.com');
    expect(hostOf('http://[2001:db8::1]/')).toBe('2001:db8::1');
    expect(hostOf('https://bücher.de')).toBe('xn--bcher-kva.de');
    expect(hostOf('data:text/plain,x')).toBeNull();
  });
});

describe('domainMatches', () => {
  it('matches exact registrable domains, through subdomains and URLs', () => {
    expect(domainMatches('https://mail.example.com/x', ['example.com'])).toBe(true);
    expect(domainMatches('example.com', ['https://www.example.com/'])).toBe(true);
    expect(domainMatches('bücher.de', ['xn--bcher-kva.de'])).toBe(true);
  });

  it('never matches by substring or suffix', () => {
    expect(domainMatches('notexample.com', ['example.com'])).toBe(false);
    expect(domainMatches('example.com.evil.test', ['example.com'])).toBe(false);
    expect(domainMatches('example.co', ['example.com'])).toBe(false);
    expect(domainMatches('alice.github.io', ['bob.github.io'])).toBe(false);
    expect(domainMatches('alice.github.io', ['github.io'])).toBe(false);
    expect(domainMatches('mail.localhost', ['localhost'])).toBe(false);
    expect(domainMatches('data:text/html,x', ['example.com'])).toBe(false);
    expect(domainMatches('example.com', [])).toBe(false);
  });
});
