import { describe, expect, it } from 'vitest';
import { privateEndpointOf, privateHostOf, siteKeyOf, siteKeysOf } from '../../src/core/addresses';
import { classifyWeb } from '../../src/core/classifier';
import { grantFor } from '../../src/core/grants';
import { evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';
import { makePolicy } from '../support/policy';
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

describe('exact targets: a private host is one host and one port', () => {
  it.each([
    ['http://localhost:3000/build', 'localhost', 3000, 'localhost:3000'],
    ['ws://localhost:3000/_hmr', 'localhost', 3000, 'localhost:3000'],
    ['https://LOCALHOST.:3000/', 'localhost', 3000, 'localhost:3000'],
    ['http://localhost:03000/', 'localhost', 3000, 'localhost:3000'],
    ['http://localhost/', 'localhost', 80, 'localhost:80'],
    ['https://localhost/', 'localhost', 443, 'localhost:443'],
    ['wss://router.lan/', 'router.lan', 443, 'router.lan:443'],
    ['http://2130706433:9222/json', '127.0.0.1', 9222, '127.0.0.1:9222'],
    ['http://0x7f.1/', '127.0.0.1', 80, '127.0.0.1:80'],
    ['http://[::1]:3000/', '::1', 3000, '[::1]:3000'],
    ['http://[::ffff:127.0.0.1]:3000/', '::ffff:7f00:1', 3000, '[::ffff:7f00:1]:3000'],
    ['http://admin.localhost:3000/', 'admin.localhost', 3000, 'admin.localhost:3000'],
    ['http://router:8080/', 'router', 8080, 'router:8080'],
    ['localhost:3000', 'localhost', 3000, 'localhost:3000'],
    ['localhost:80', 'localhost', 80, 'localhost:80'],
    ['[::1]:443', '::1', 443, '[::1]:443'],
    ['nas.lan', 'nas.lan', null, 'nas.lan'],
  ])('%s is %s port %s (%s)', (url, host, port, key) => {
    expect(privateEndpointOf(url)).toEqual({ host, port });
    expect(siteKeyOf(url)).toBe(key);
  });

  it('a public host keeps its registrable domain, port or not', () => {
    expect(privateEndpointOf('http://www.news.test:8080/')).toBeNull();
    expect(siteKeyOf('http://www.news.test:8080/')).toBe('news.test');
    expect(siteKeysOf('news.test')).toEqual(['news.test']);
  });

  it('an entry without a port names the default ports (and the bare host), never another port or name', () => {
    expect(siteKeysOf('localhost')).toEqual(['localhost', 'localhost:80', 'localhost:443']);
    expect(siteKeysOf('::1')).toEqual(['::1', '[::1]:80', '[::1]:443']);
    expect(siteKeysOf('http://localhost:3000/x')).toEqual(['localhost:3000']);
    expect(siteKeysOf('https://localhost')).toEqual(['localhost:443']);
  });

  it('an approval of one private host and port grants that host and port only', () => {
    const policy = makePolicy({ domains: null });
    const read = (url: string) => ({ tool: 'browser.navigate', args: { url } });
    const asked = evaluate(policy, initialState(), read('http://localhost:9222/json/version'), 1).record;
    expect(asked).toMatchObject({ decision: 'ASK_USER', check: 'private_network', targets: { domains: ['localhost:9222'] } });
    const granted = makePolicy({ domains: null, grants: [grantFor('task-1', asked.tool, asked, 'task', 1)] });
    const decide = (url: string) => evaluate(granted, initialState(), read(url), 2).record.decision;
    expect(decide('http://localhost:9222/json/list')).toBe('ALLOW');
    // A read of the port is not a WebSocket to it (another tool, another class).
    expect(evaluate(granted, initialState(), { tool: 'browser.request', args: { method: 'GET', url: 'ws://localhost:9222/devtools/browser/x', kind: 'websocket' } }, 2).record.decision).toBe('BLOCK');
    for (const url of ['http://localhost:5432/', 'http://localhost/', 'http://127.0.0.1:9222/', 'http://[::1]:9222/', 'http://admin.localhost:9222/']) expect(decide(url), url).toBe('ASK_USER');
    expect(classifyWeb({ tool: 'browser.navigate', args: { url: 'http://localhost:9222/' } }).targets.domains).toEqual(['localhost:9222']);
  });
});
