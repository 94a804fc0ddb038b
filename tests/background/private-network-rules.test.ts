import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ALL_TYPES, buildSessionRules, DEPENDENCY_TYPES, MAX_PRIVATE_HOSTS, MAX_PRIVATE_PORTS, PRIVATE_HOST_PATTERNS, portsOutside, privateNetworkRules, type Rule } from '../../src/background/floor/dnr';
import { everyTypeReachesUnnamedSites, rebindingRecord, rebindingTypes } from '../../src/background/floor/rebinding';
import { NUM_RUNS } from '../support/arbitraries';
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

  it('leaves out exactly the private hosts the task names (IPv6 in brackets as DNR writes them), not their sites', () => {
    const named = makePolicy({ domains: ['127.0.0.1:8080', 'localhost:3000', 'news.test'], constraints: [{ id: 'k', riskClass: 'EXTERNAL_WRITE', domains: ['[::1]:3000'] }] });
    const general = privateNetworkRules({ policy: named, floorWriteDomains: ['wiki.corp.internal:80'] }).filter((c) => c.regexFilter === '^.+$' || PRIVATE_HOST_PATTERNS.includes(c.regexFilter ?? ''));
    expect(general).toHaveLength(2 * (PRIVATE_HOST_PATTERNS.length + 1));
    for (const condition of general) expect(condition.excludedRequestDomains).toEqual(['127.0.0.1', '[::1]', 'localhost', 'wiki.corp.internal']);
  });

  it(`keeps within Chromium's regex rules: past ${MAX_PRIVATE_HOSTS} hosts or ${MAX_PRIVATE_PORTS} ports a host, the rest is refused (narrower)`, () => {
    const many = Array.from({ length: 40 }, (_, i) => `nas${String(i).padStart(2, '0')}.lan:${8000 + i}`);
    const ports = Array.from({ length: 40 }, (_, i) => `localhost:${10000 + i * 7}`);
    const rules = buildSessionRules({ policy: makePolicy({ domains: null, constraints: [{ id: 'k', riskClass: 'EXTERNAL_WRITE', domains: [...many, ...ports] }] }) }, TABS, EXT);
    expect(rules.filter((r) => r.condition.regexFilter !== undefined).length).toBeLessThan(700);
    expect(floorAllows(rules, 'http://nas00.lan:8000/', 'xmlhttprequest')).toBe(true);
    expect(floorAllows(rules, 'http://nas39.lan:8039/', 'xmlhttprequest')).toBe(false);
    expect(floorAllows(rules, 'http://localhost:10000/', 'xmlhttprequest')).toBe(true);
    expect(floorAllows(rules, 'http://localhost:10273/', 'xmlhttprequest')).toBe(false);
    expect(floorAllows(rules, 'http://localhost:10001/', 'xmlhttprequest')).toBe(false);
  });
});

/**
 * declarativeNetRequest as Chromium applies it, for the rules of the guarded tabs: the highest-priority
 * matching rule decides, an allow winning a tie; `requestDomains` match a host and its subdomains; regexes
 * are case-insensitive and read the canonical URL. What the floor does with the page hooks removed.
 */
function floorAllows(rules: Rule[], url: string, type: string, method = 'get'): boolean {
  const href = new URL(url).href;
  const host = new URL(url).hostname;
  const onDomain = (list: string[] | undefined) => list !== undefined && list.some((d) => host === d || host.endsWith(`.${d}`));
  const matching = rules.filter((r) => {
    const c = r.condition;
    if (c.tabIds?.includes(-1)) return false;
    if (c.resourceTypes !== undefined && !c.resourceTypes.includes(type as never)) return false;
    if (c.requestMethods !== undefined && !c.requestMethods.includes(method as never)) return false;
    if (c.requestDomains !== undefined && !onDomain(c.requestDomains)) return false;
    if (onDomain(c.excludedRequestDomains)) return false;
    if (c.responseHeaders !== undefined) return false;
    if (c.urlFilter !== undefined && !href.includes(c.urlFilter)) return false;
    return c.regexFilter === undefined || new RegExp(c.regexFilter, 'i').test(href);
  });
  const decisive = matching.filter((r) => r.action.type === 'allow' || r.action.type === 'block').sort((a, b) => b.priority! - a.priority! || (a.action.type === 'allow' ? -1 : 1));
  return decisive[0]?.action.type !== 'block';
}

describe('a private host the task names opens that host and port only (the floor, hooks removed)', () => {
  const WRITES = { ceilings: { EXTERNAL_WRITE: 'allow' as const }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE' as const] } };
  const dev = buildSessionRules({ policy: makePolicy({ domains: ['localhost:3000'], ...WRITES }) }, TABS, EXT);

  it.each([
    ['http://localhost:3000/build/status', 'xmlhttprequest'],
    ['http://localhost:3000/', 'main_frame'],
    ['https://localhost:3000/', 'xmlhttprequest'],
    ['ws://localhost:3000/_hmr', 'websocket'],
    ['http://LOCALHOST:3000/x', 'script'],
  ])('lets %s (%s) through', (url, type) => {
    expect(floorAllows(dev, url, type)).toBe(true);
  });

  it.each([
    ['http://localhost:9222/json/version', 'xmlhttprequest'],
    ['ws://localhost:9222/devtools/browser/x', 'websocket'],
    ['http://localhost:5432/', 'main_frame'],
    ['http://localhost/', 'main_frame'],
    ['https://localhost/', 'xmlhttprequest'],
    ['http://localhost:30000/', 'xmlhttprequest'],
    ['http://localhost:300/', 'xmlhttprequest'],
    ['http://localhost:3001/', 'image'],
    ['http://localhost.:9222/json', 'xmlhttprequest'],
    ['http://user@localhost:9222/json', 'xmlhttprequest'],
    ['http://admin.localhost:3000/', 'main_frame'],
    ['http://admin.localhost/', 'xmlhttprequest'],
    ['http://a.b.localhost:3000/', 'sub_frame'],
    ['http://127.0.0.1:3000/', 'xmlhttprequest'],
    ['http://127.0.0.1:8080/', 'main_frame'],
    ['http://2130706433:3000/', 'xmlhttprequest'],
    ['http://0x7f.1:9222/', 'xmlhttprequest'],
    ['http://[::1]:3000/', 'xmlhttprequest'],
    ['http://[::ffff:127.0.0.1]:3000/', 'xmlhttprequest'],
  ])('refuses %s (%s)', (url, type) => {
    expect(floorAllows(dev, url, type)).toBe(false);
  });

  it('names each host with its own ports: several hosts, subdomains named apart, IPv6, a host without a port', () => {
    const named = ['localhost:3000', 'localhost:5173', 'api.localhost:8080', '[::1]:4000', '192.168.1.1'];
    const rules = buildSessionRules({ policy: makePolicy({ domains: null, constraints: [{ id: 'k', riskClass: 'EXTERNAL_WRITE', domains: named }] }) }, TABS, EXT);
    for (const url of ['http://localhost:3000/', 'http://localhost:5173/', 'http://api.localhost:8080/', 'http://[::1]:4000/', 'http://192.168.1.1/', 'https://192.168.1.1/']) expect(floorAllows(rules, url, 'main_frame'), url).toBe(true);
    for (const url of ['http://localhost:8080/', 'http://api.localhost:3000/', 'http://x.api.localhost:8080/', 'http://[::1]:3000/', 'http://192.168.1.1:8080/', 'http://192.168.1.2/', 'http://localhost/']) expect(floorAllows(rules, url, 'main_frame'), url).toBe(false);
  });

  it('a task that reads from a list reaches the IPv6 literal it names (DNR writes it in brackets), at that port only', () => {
    const rules = buildSessionRules({ policy: makePolicy({ domains: ['[::1]:3000', 'news.test'] }) }, TABS, EXT);
    for (const type of ['main_frame', 'xmlhttprequest']) {
      expect(floorAllows(rules, 'http://[::1]:3000/', type), type).toBe(true);
      expect(floorAllows(rules, 'http://[::1]:3001/', type), type).toBe(false);
    }
  });

  it('a user grant for a private host lifts the floor for that host and port only', () => {
    const grant = { id: 'g', tool: 'browser.request', capability: 'web.read', riskClass: 'READ' as const, domains: ['localhost:3000'], maxCalls: null, issuedAt: 0 };
    const rules = buildSessionRules({ policy: makePolicy({ domains: null, grants: [grant] }) }, TABS, EXT);
    expect(floorAllows(rules, 'http://localhost:3000/status', 'xmlhttprequest')).toBe(true);
    for (const url of ['http://localhost:9222/json', 'http://admin.localhost:3000/', 'http://127.0.0.1:3000/', 'http://localhost/']) expect(floorAllows(rules, url, 'xmlhttprequest'), url).toBe(false);
    // A grant stored before ports were kept (`localhost`) covers the default ports only.
    const legacy = buildSessionRules({ policy: makePolicy({ domains: null, grants: [{ ...grant, domains: ['localhost'] }] }) }, TABS, EXT);
    expect(floorAllows(legacy, 'http://localhost/', 'xmlhttprequest')).toBe(true);
    expect(floorAllows(legacy, 'https://localhost/', 'xmlhttprequest')).toBe(true);
    for (const url of ['http://localhost:9222/json', 'http://admin.localhost/']) expect(floorAllows(legacy, url, 'xmlhttprequest'), url).toBe(false);
  });
});

describe('portsOutside (RE2 without lookahead, checked with JS RegExp)', () => {
  it('matches a port and the path after it (a canonical URL always has one) exactly when the port is not listed', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 99999 }), fc.constantFrom('/', '/x', '/?q', '/#f'), (ports, candidate, after) => {
        const re = new RegExp(`^:(?:${portsOutside(ports.map(String)).join('|')})`);
        const probes = [candidate, ...ports, ...ports.map((p) => p * 10 + 1), ...ports.map((p) => Math.floor(p / 10)), ...ports.map((p) => p + 1)].filter((p) => p > 0).map(String);
        for (const probe of probes) expect(re.test(`:${probe}${after}`), `${probe}${after} vs ${ports.join()}`).toBe(!ports.map(String).includes(probe));
      }),
      { numRuns: NUM_RUNS },
    );
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
    expect(rebindingTypes(chromium)).toEqual({ dependencies: ['sub_frame', 'stylesheet', 'script', 'image', 'font', 'media'], others: ['main_frame', 'object', 'xmlhttprequest', 'ping', 'csp_report', 'websocket', 'webbundle', 'other'] });
    expect(rebindingTypes([...chromium, 'imageset', 'beacon']).dependencies).toContain('imageset');
    expect(rebindingTypes([])).toEqual({ dependencies: DEPENDENCY_TYPES, others: null });
  });
});
