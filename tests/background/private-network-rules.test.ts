import { describe, expect, it } from 'vitest';
import { ALL_TYPES, buildSessionRules, DEPENDENCY_TYPES, PRIVATE_HOST_PATTERNS, privateNetworkRules, type Rule } from '../../src/background/dnr';
import { everyTypeReachesUnnamedSites, rebindingRecord, rebindingTypes } from '../../src/background/rebinding';
import { makePolicy } from '../support/policy';

const EXT = 'abcdefghijklmnopabcdefghijklmnop';
const TABS = { excludedTabIds: [-1] };
const openWeb = makePolicy({ domains: null });

/** The tab-scope private-network rules (the same rules also judge the tabs' workers, tab id -1). */
const privateRules = (rules: Rule[]) =>
  rules.filter((r) => !r.condition.tabIds?.includes(-1)).filter((r) => r.condition.requestDomains?.includes('localhost') || PRIVATE_HOST_PATTERNS.includes(r.condition.regexFilter ?? ''));

/** What the address rules' RE2 patterns say about a URL as Chromium canonicalises it (JS RegExp reads this subset alike). */
function addressRuleMatches(url: string): boolean {
  return PRIVATE_HOST_PATTERNS.some((regex) => new RegExp(regex, 'i').test(new URL(url).href));
}

describe('privateNetworkRules', () => {
  it('guards the private network in an open-web task: navigations and every other request are blocked', () => {
    const rules = privateRules(buildSessionRules({ policy: openWeb }, TABS, EXT));
    expect(rules).toHaveLength(2 * (PRIVATE_HOST_PATTERNS.length + 1));
    for (const r of rules) expect(r.action.type).toBe('block');
    expect(rules.filter((r) => r.condition.resourceTypes?.includes('main_frame'))).toHaveLength(PRIVATE_HOST_PATTERNS.length + 1);
    for (const r of rules.filter((r) => r.condition.resourceTypes?.includes('main_frame'))) expect(r.condition.resourceTypes).toEqual(['main_frame']);
    // Navigations in every tab (a task page can navigate a tab outside the task: its opener); the rest in the guarded tabs.
    for (const r of rules) expect(r.condition.excludedTabIds).toEqual(r.condition.resourceTypes?.includes('main_frame') ? undefined : [-1]);
    expect(rules.find((r) => r.condition.requestDomains !== undefined)?.condition.requestDomains).toEqual(expect.arrayContaining(['localhost', 'local', 'internal', 'lan', 'home.arpa']));
  });

  it('refuses navigations to the private network in the tabs outside the guard\'s scope too; a grant lifts it in the guarded tabs', () => {
    const rules = buildSessionRules({ policy: openWeb }, { excludedTabIds: [-1, 3, 8] }, EXT);
    const navigation = rules.filter((r) => r.action.type === 'block' && r.condition.resourceTypes?.join() === 'main_frame' && (r.condition.requestDomains?.includes('localhost') || PRIVATE_HOST_PATTERNS.includes(r.condition.regexFilter ?? '')));
    expect(navigation).toHaveLength(PRIVATE_HOST_PATTERNS.length + 1);
    for (const r of navigation) expect([r.condition.tabIds, r.condition.excludedTabIds]).toEqual([undefined, undefined]);
    // The out-of-scope allows leave main_frame out, so nothing lifts these in tabs 3 and 8.
    for (const r of rules.filter((r) => r.action.type === 'allow' && r.condition.tabIds?.join() === '3,8')) expect(r.condition.resourceTypes).toBeUndefined();
  });

  it.each([
    'http://2130706433:8080/admin',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://[::1]:3000/',
    'http://[::ffff:127.0.0.1]/',
    'http://192.168.1.1/admin',
    'http://172.20.0.1/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.100/',
    'http://0/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'ws://127.0.0.1:9222/devtools/browser',
    'http://user:pw@127.0.0.1/',
    'http://router/',
    'http://router./',
    'http://router.:8080/admin',
    'http://_gateway./',
  ])('the address rule matches %s', (url) => {
    expect(addressRuleMatches(url)).toBe(true);
  });

  it.each(['http://news.test/', 'http://10.example.com/', 'http://127.0.0.1.nip.io/', 'http://127.0.0.1:80@evil.test/', 'http://8.8.8.8/', 'http://172.32.0.1/', 'http://[2606:4700::1111]/'])(
    'the address rule leaves %s alone',
    (url) => {
      expect(addressRuleMatches(url)).toBe(false);
    },
  );

  it('excludes the hosts the task names, IPv6 in brackets as DNR writes them', () => {
    const named = makePolicy({ domains: ['127.0.0.1', 'localhost'], constraints: [{ id: 'k', riskClass: 'EXTERNAL_WRITE', domains: ['::1'] }] });
    for (const condition of privateNetworkRules({ policy: named, floorWriteDomains: ['wiki.corp.internal'] })) {
      expect(condition.excludedRequestDomains).toEqual(['127.0.0.1', '[::1]', 'corp.internal', 'localhost']);
    }
  });
});

describe('rebindingRecord (DNS rebinding, recorded after the fact)', () => {
  it('records an ordinary name that reached a private address', () => {
    const record = rebindingRecord({ url: 'http://www.evil.test/x?q=1', ip: '127.0.0.1' }, openWeb);
    expect(record).toMatchObject({ check: 'private_network', targets: { domains: ['evil.test'] } });
    expect(record?.reason).toMatch(/evil\.test resolved to 127\.0\.0\.1 \(loopback\)/);
    expect(rebindingRecord({ url: 'http://rebind.example/', ip: '::ffff:10.0.0.1' }, openWeb)?.reason).toMatch(/private, IPv4 10\.0\.0\.1/);
  });

  it('says nothing for public addresses, names the task names, private names and IP literals', () => {
    expect(rebindingRecord({ url: 'http://news.test/', ip: '93.184.216.34' }, openWeb)).toBeNull();
    expect(rebindingRecord({ url: 'http://news.test/' }, openWeb)).toBeNull();
    expect(rebindingRecord({ url: 'http://www.news.test/', ip: '127.0.0.1' }, makePolicy({ domains: ['news.test'] }))).toBeNull();
    expect(rebindingRecord({ url: 'http://api.test/', ip: '127.0.0.1' }, makePolicy({ domains: null, constraints: [{ id: 'k', riskClass: 'EXTERNAL_WRITE', domains: ['api.test'] }] }))).toBeNull();
    expect(rebindingRecord({ url: 'http://localhost:8080/', ip: '127.0.0.1' }, openWeb)).toBeNull();
    expect(rebindingRecord({ url: 'http://127.0.0.1:8080/', ip: '127.0.0.1' }, openWeb)).toBeNull();
  });
});

describe('which request types the rebinding listener asks the browser for', () => {
  it('only dependencies when the task reads from a list and grants nothing: the floor blocks every other type to an unnamed site', () => {
    const listed = makePolicy({ domains: ['news.test'] });
    expect(everyTypeReachesUnnamedSites(listed)).toBe(false);
    // The claim the narrow listener rests on: for an unnamed site, every type but the dependencies has a
    // tab-scope block rule that does not exclude it.
    const blocks = buildSessionRules({ policy: listed }, TABS, EXT).filter((r) => r.action.type === 'block' && !r.condition.tabIds?.includes(-1));
    const plain = blocks.filter((r) => r.condition.regexFilter === undefined && r.condition.urlFilter === undefined && r.condition.requestMethods === undefined && r.condition.responseHeaders === undefined);
    const blockedTypes = new Set(plain.filter((r) => !r.condition.excludedRequestDomains?.includes('evil.test')).flatMap((r) => r.condition.resourceTypes ?? []));
    const mainFrame = blocks.some((r) => r.condition.regexFilter === '^.+$' && r.condition.requestMethods === undefined && r.condition.resourceTypes?.includes('main_frame') && !r.condition.excludedRequestDomains?.includes('evil.test'));
    expect(mainFrame).toBe(true);
    for (const type of ALL_TYPES.filter((t) => t !== 'main_frame' && !DEPENDENCY_TYPES.includes(t))) expect(blockedTypes.has(type), type).toBe(true);
  });

  it('every type when reading is open or a grant lifts the floor for a site', () => {
    expect(everyTypeReachesUnnamedSites(openWeb)).toBe(true);
    const granted = makePolicy({ domains: ['news.test'], grants: [{ id: 'g', tool: 'browser.navigate', capability: 'web.navigate', riskClass: 'READ', domains: ['evil.test'], maxCalls: null, issuedAt: 0 }] });
    expect(everyTypeReachesUnnamedSites(granted)).toBe(true);
  });

  it("names the types in the browser's own vocabulary", () => {
    const chromium = ['main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'font', 'object', 'xmlhttprequest', 'ping', 'csp_report', 'media', 'websocket', 'webbundle', 'other'];
    expect(rebindingTypes(chromium)).toEqual({ dependencies: ['stylesheet', 'script', 'image', 'font', 'media'], others: ['main_frame', 'sub_frame', 'object', 'xmlhttprequest', 'ping', 'csp_report', 'websocket', 'webbundle', 'other'] });
    expect(rebindingTypes([...chromium, 'imageset', 'beacon']).dependencies).toContain('imageset');
    expect(rebindingTypes([])).toEqual({ dependencies: DEPENDENCY_TYPES, others: null });
  });
});
