import { describe, expect, it } from 'vitest';
import { privateHostOf } from '../../src/core/addresses';
import { schemeOf } from '../../src/core/schemes';

describe('privateHostOf: the host the browser connects to, in every spelling it accepts', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1', 'loopback'],
    ['http://0x7f000001/', '127.0.0.1', 'loopback'],
    ['http://0x7f.1/', '127.0.0.1', 'loopback'],
    ['http://0177.0.0.1/', '127.0.0.1', 'loopback'],
    ['http://017700000001/', '127.0.0.1', 'loopback'],
    ['http://127.1/', '127.0.0.1', 'loopback'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1', 'loopback'],
    ['http://127\u30020\u30020\u30021/', '127.0.0.1', 'loopback'],
    ['http://0/', '0.0.0.0', 'unspecified'],
    ['http://[::1]:8080/', '::1', 'loopback'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1', 'loopback, IPv4 127.0.0.1 inside IPv6'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1', 'loopback, IPv4 127.0.0.1 inside IPv6'],
    ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe', 'link-local, IPv4 169.254.169.254 inside IPv6'],
    ['http://[64:ff9b:1:c0a8:1:1:808:808]/', '64:ff9b:1:c0a8:1:1:808:808', 'local-use NAT64'],
    ['http://[2002:c0a8:101::]/', '2002:c0a8:101::', 'private, IPv4 192.168.1.1 inside IPv6'],
    ['http://[fe80::1]/', 'fe80::1', 'link-local'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 'unique local, cloud metadata'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local, cloud metadata'],
    ['http://100.127.255.255/', '100.127.255.255', 'carrier-grade NAT'],
    ['http://172.16.0.1/', '172.16.0.1', 'private'],
    ['HTTP://LocalHost.:8080/', 'localhost', 'localhost'],
    ['http://\uff41dmin.localhost/', 'admin.localhost', 'localhost'],
    ['http://printer.local/', 'printer.local', '.local name'],
    ['http://metadata.google.internal/', 'metadata.google.internal', '.internal name'],
    ['http://nas.home.arpa/', 'nas.home.arpa', '.home.arpa name'],
    ['http://router/', 'router', 'single-label intranet name'],
    ['localhost:3000', 'localhost', 'localhost'],
    ['::1', '::1', 'loopback'],
  ])('%s is %s (%s)', (url, host, range) => {
    expect(privateHostOf(url)).toEqual({ host, range });
  });

  it.each([
    'http://8.8.8.8/',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://[2606:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[2002:808:808::]/',
    'http://127.0.0.1.nip.io/',
    'http://10.example.com/',
    'http://127.0.0.1:80@evil.test/',
    'http://news.test/',
    'data:text/html,<p>127.0.0.1</p>',
    'brave://settings',
    'not a url',
  ])('%s is not private by its address or name', (url) => {
    expect(privateHostOf(url)).toBeNull();
  });
});

it('a single-label name is private inside a URL, and left alone as a bare host when asked to (ssh aliases)', () => {
  expect(privateHostOf('http://router/')?.range).toBe('single-label intranet name');
  expect(privateHostOf('router', { singleLabel: false })).toBeNull();
  expect(privateHostOf('localhost', { singleLabel: false })?.range).toBe('localhost');
  expect(privateHostOf('10.1.2.3', { singleLabel: false })?.range).toBe('private');
});

describe('schemeOf: one allowlist, read as the WHATWG parser reads a scheme', () => {
  it.each([
    ['https://a.test/', 'https:', 'network'],
    ['WSS://a.test/', 'wss:', 'network'],
    ['/relative/path', null, 'network'],
    ['about:blank', 'about:', 'empty'],
    ['about:srcdoc', 'about:', 'empty'],
    ['about:config', 'about:', 'forbidden'],
    ['data:text/plain,x', 'data:', 'local'],
    ['blob:http://a.test/x', 'blob:', 'local'],
    ['\tjavascript:alert(1)', 'javascript:', 'execution'],
    ['java\nscript:alert(1)', 'javascript:', 'execution'],
    ['  BRAVE://settings', 'brave:', 'forbidden'],
    ['intent://x#Intent;end', 'intent:', 'forbidden'],
    ['ftp://a.test/', 'ftp:', 'forbidden'],
    ['view-source:https://a.test/', 'view-source:', 'forbidden'],
  ])('%j → %s %s', (url, scheme, use) => {
    expect(schemeOf(url)).toEqual({ scheme, use });
  });
});
