import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ALL_TYPES,
  buildSessionRules,
  buildTaintRules,
  DEPENDENCY_HOST_PATTERNS,
  EXFIL_PATTERNS,
  GUARDED_PERMISSIONS_POLICY,
  PRIORITY_HEADERS,
  REPORTING_HEADERS,
  navigationSites,
  PRIORITY_DATA_BLOCK,
  PRIORITY_GRANT,
  PRIORITY_OUT_OF_SCOPE,
  PRIORITY_TAINT,
  TAINT_BUDGET,
  writeSites,
  type Rule,
} from '../../src/background/floor/dnr';
import { makePolicy } from '../support/policy';
import type { RuleSpec } from '../../src/taint/rules';

const EXT = 'abcdefghijklmnopabcdefghijklmnop';
/** Guard scope task-tabs with tab 8 outside the task (and tab 3 a control window's). */
const TABS = { excludedTabIds: [-1, 3, 8] };

const readOnly = makePolicy({ domains: ['news.test', 'www.Wiki.Test'] });
const writer = makePolicy({
  domains: ['mail.test'],
  ceilings: { COMMUNICATION: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
  constraints: [{ id: 'k1', tool: 'browser.request', domains: ['api.test'], maxCalls: 3 }],
});

/** The rules for the guarded tabs, and those for their workers' requests (tab id -1); not the out-of-scope allows. */
const scoped = (rules: Rule[]) => rules.filter((r) => r.priority !== PRIORITY_OUT_OF_SCOPE);
const tabRules = (rules: Rule[]) => scoped(rules).filter((r) => !r.condition.tabIds?.includes(-1));
const workerRules = (rules: Rule[]) => scoped(rules).filter((r) => r.condition.tabIds?.includes(-1));
const byAction = (rules: Rule[], type: string) => tabRules(rules).filter((r) => r.action.type === type);
const mainFrameBlocks = (rules: Rule[]) => byAction(rules, 'block').filter((r) => r.condition.resourceTypes?.includes('main_frame'));

describe('buildSessionRules', () => {
  it('scopes every rule to every tab but the excluded ones, with unique ids; the excluded tabs are allowed through', () => {
    const rules = buildSessionRules({ policy: writer }, TABS, EXT);
    expect(rules.length).toBeGreaterThan(5);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    // Every rule but the private network's navigation blocks, which hold in every tab (private-network-rules.test.ts).
    const everyTab = tabRules(rules).filter((r) => r.condition.excludedTabIds === undefined);
    for (const r of everyTab) expect([r.action.type, r.condition.resourceTypes, r.condition.tabIds]).toEqual(['block', ['main_frame'], undefined]);
    for (const r of tabRules(rules).filter((r) => !everyTab.includes(r))) expect(r.condition.excludedTabIds).toEqual([-1, 3, 8]);
    expect(rules.filter((r) => r.priority === PRIORITY_OUT_OF_SCOPE && r.condition.tabIds?.join() === '3,8')).toHaveLength(1);
  });

  it('blocks downloads by their response headers unless the task allows LOCAL_WRITE', () => {
    const downloads = (rules: Rule[]) => rules.filter((r) => r.condition.responseHeaders !== undefined);
    const blocked = downloads(tabRules(buildSessionRules({ policy: readOnly }, TABS, EXT)));
    expect(blocked.map((r) => r.condition.responseHeaders?.[0]?.header)).toEqual(['content-disposition', 'content-type']);
    for (const r of blocked) expect(r.action.type).toBe('block');
    const saving = makePolicy({ domains: ['news.test'], ceilings: { LOCAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['LOCAL_WRITE'] } });
    expect(downloads(buildSessionRules({ policy: saving }, TABS, EXT))).toEqual([]);
  });

  it('blocks navigations off the domain list (page.goto rejects; the background then shows the blocked page), sites normalised', () => {
    const rules = buildSessionRules({ policy: readOnly }, TABS, EXT);
    const nav = mainFrameBlocks(rules).find((r) => r.condition.requestMethods === undefined && r.condition.regexFilter === '^.+$');
    expect(nav?.condition.excludedRequestDomains).toEqual(['news.test', 'wiki.test']);
    expect(byAction(rules, 'redirect')).toEqual([]);
    // Frames are dependencies now (a video embed): the scripted reads are what stays refused off the list.
    const reads = byAction(rules, 'block').find((r) => r.condition.resourceTypes?.includes('xmlhttprequest') && r.condition.requestMethods === undefined && r.condition.regexFilter === undefined);
    expect(reads?.condition.excludedRequestDomains).toEqual(['news.test', 'wiki.test']);
    expect(reads?.condition.resourceTypes).not.toContain('sub_frame');
  });

  it('does not limit navigation when the policy reads the open web', () => {
    const rules = buildSessionRules({ policy: makePolicy({ domains: null }) }, TABS, EXT);
    expect(navigationSites({ policy: makePolicy({ domains: null }) })).toBeNull();
    expect(rules.some((r) => r.condition.regexFilter === '^.+$' && r.condition.requestMethods === undefined && r.condition.requestDomains === undefined)).toBe(false);
    // …but data-bearing requests still go nowhere.
    const writes = byAction(rules, 'block').find((r) => r.condition.requestMethods?.includes('post'));
    expect(writes?.condition.excludedRequestDomains).toBeUndefined();
  });

  it('lets writes reach only write sites: constraint domains, the list of a writing policy, evaluator-allowed sites', () => {
    expect(writeSites({ policy: readOnly })).toEqual([]);
    expect(writeSites({ policy: writer })).toEqual(['api.test', 'mail.test']);
    expect(writeSites({ policy: readOnly, floorWriteDomains: ['cdn.news.test'] })).toEqual(['cdn.news.test']);
    // Asking before each send makes no write site: an approval's grant opens the site while it has uses left.
    const asksFirst = makePolicy({ domains: ['mail.test'], requireApproval: { tools: [], capabilities: [], classes: ['COMMUNICATION'] } });
    expect(writeSites({ policy: asksFirst })).toEqual([]);
    const rules = buildSessionRules({ policy: writer }, TABS, EXT);
    const post = byAction(rules, 'block').find((r) => r.condition.requestMethods?.includes('post'));
    expect(post?.condition.requestMethods).toEqual(['post', 'put', 'patch', 'delete']);
    expect(post?.condition.excludedRequestDomains).toEqual(['api.test', 'mail.test']);
    const channels = byAction(rules, 'block').find((r) => r.condition.resourceTypes?.includes('ping'));
    expect(channels?.condition.resourceTypes).toEqual(expect.arrayContaining(['ping', 'websocket']));
    expect(channels?.condition.excludedRequestDomains).toEqual(['api.test', 'mail.test']);
  });

  it('adds allow rules for exactly the granted domains, above every block', () => {
    const grant = (id: string, riskClass: 'READ' | 'EXTERNAL_WRITE', domains: string[]) => ({
      id,
      tool: 'browser.request',
      capability: 'web.write',
      riskClass,
      recipients: [],
      domains,
      paths: [],
      maxCalls: 1,
      issuedAt: 0,
    });
    const policy = makePolicy({ domains: ['news.test'], grants: [grant('g1', 'EXTERNAL_WRITE', ['forms.test']), grant('g2', 'READ', ['www.blog.test']), grant('g3', 'READ', [])] });
    const allows = byAction(buildSessionRules({ policy }, TABS, EXT), 'allow').filter((r) => r.priority === PRIORITY_GRANT);
    expect(allows).toHaveLength(2);
    expect(allows.map((r) => r.condition.requestDomains)).toEqual([['forms.test'], ['blog.test']]);
    expect(allows[0]!.condition.requestMethods).toBeUndefined();
    expect(allows[1]!.condition.requestMethods).toEqual(['get', 'head', 'options']);
    for (const r of allows) expect(r.priority).toBe(PRIORITY_GRANT);
  });

  it('turns off, in every guarded document, the APIs whose requests the browser makes out of the floor\'s sight (payment manifests, FedCM), above every allow', () => {
    for (const policy of [readOnly, writer, makePolicy({ domains: null })]) {
      const rules = buildSessionRules({ policy }, TABS, EXT);
      const headers = rules.filter((r) => r.action.type === 'modifyHeaders' && r.action.responseHeaders?.some((h) => h.header === 'permissions-policy'));
      expect(headers).toHaveLength(1);
      const [rule] = headers;
      expect(rule!.action.responseHeaders).toEqual([
        { header: 'permissions-policy', operation: 'append', value: GUARDED_PERMISSIONS_POLICY },
        { header: 'feature-policy', operation: 'set', value: "payment 'none'; identity-credentials-get 'none'" },
      ]);
      expect(GUARDED_PERMISSIONS_POLICY).toBe('payment=(), identity-credentials-get=()');
      expect(rule!.condition).toEqual({ resourceTypes: ['main_frame', 'sub_frame'], excludedTabIds: TABS.excludedTabIds });
      expect(rule!.priority).toBeGreaterThan(Math.max(...rules.filter((r) => r.action.type === 'allow').map((r) => r.priority ?? 1)));
    }
  });
});

describe('the Reporting API', () => {
  it('removes Reporting-Endpoints, Report-To and NEL from every response in the guarded tabs and their workers, above every allow', () => {
    for (const policy of [readOnly, writer, makePolicy({ domains: null })]) {
      const rules = buildSessionRules({ policy }, TABS, EXT);
      const removals = rules.filter((r) => r.action.type === 'modifyHeaders' && r.action.responseHeaders?.some((h) => h.header === 'reporting-endpoints'));
      expect(removals.map((r) => (r.condition.tabIds === undefined ? 'tabs' : 'workers'))).toEqual(['tabs', 'workers']);
      for (const r of removals) {
        expect(r.action.responseHeaders).toEqual(REPORTING_HEADERS.map((header) => ({ header, operation: 'remove' })));
        expect(r.condition.resourceTypes).toEqual(ALL_TYPES);
        expect(r.condition.excludedRequestDomains).toBeUndefined();
        expect(r.priority).toBe(PRIORITY_HEADERS);
      }
      expect([...REPORTING_HEADERS]).toEqual(['reporting-endpoints', 'report-to', 'nel']);
      expect(PRIORITY_HEADERS).toBeGreaterThan(Math.max(...rules.filter((r) => r.action.type === 'allow').map((r) => r.priority ?? 1)));
    }
  });
});

describe('the Referer header', () => {
  const refererRemovals = (rules: Rule[]) => rules.filter((r) => r.action.type === 'modifyHeaders' && r.action.requestHeaders?.some((h) => h.header === 'referer' && h.operation === 'remove'));

  it('is removed from every request to a site the task does not name, in the guarded tabs and their workers, above every allow', () => {
    const grant = { id: 'g1', tool: 'browser.request', capability: 'web.write', riskClass: 'EXTERNAL_WRITE' as const, recipients: [], domains: ['forms.test'], paths: [], items: [], maxCalls: null, issuedAt: 0 };
    const rules = buildSessionRules({ policy: { ...writer, grants: [grant] }, floorWriteDomains: ['www.shop.test'] }, TABS, EXT);
    const removals = refererRemovals(rules);
    expect(removals.map((r) => (r.condition.tabIds === undefined ? 'tabs' : 'workers'))).toEqual(['tabs', 'workers']);
    for (const r of removals) {
      expect(r.priority).toBe(PRIORITY_HEADERS);
      expect(r.condition.resourceTypes).toContain('main_frame');
      expect(r.condition.resourceTypes).toContain('image');
      // The named sites (reading list, constraint and write sites) and granted sites keep it.
      expect(r.condition.excludedRequestDomains).toEqual(['api.test', 'forms.test', 'mail.test', 'shop.test']);
    }
    expect(PRIORITY_HEADERS).toBeGreaterThan(Math.max(...rules.filter((r) => r.action.type === 'allow').map((r) => r.priority ?? 1)));
  });

  it('is removed on a site a user granted only a read: a read grant gives a site, not what the pages showed', () => {
    const read = { id: 'g2', tool: 'browser.request', capability: 'web.read', riskClass: 'READ' as const, recipients: [], domains: ['attacker.test'], paths: [], items: [], maxCalls: null, issuedAt: 0 };
    const [rule] = tabRules(refererRemovals(buildSessionRules({ policy: { ...writer, grants: [read] } }, TABS, EXT)));
    expect(rule!.condition.excludedRequestDomains).not.toContain('attacker.test');
  });

  it('is removed from every request to a site that is not a write site when reading is open', () => {
    const [rule] = tabRules(refererRemovals(buildSessionRules({ policy: makePolicy({ domains: null }) }, TABS, EXT)));
    expect(rule!.condition.excludedRequestDomains).toBeUndefined();
  });
});

describe('EXFIL_PATTERNS (RE2 subset, checked here with JS RegExp)', () => {
  const shaped = (url: string) => EXFIL_PATTERNS.filter((p) => new RegExp(p.regex, 'i').test(url)).map((p) => p.name);
  const secret = 'QUtJQUlPU0ZPRE5ON0VYQU1QTEV3SmFsclhVdG5GRU1JL0s3TURFTkcvYlB4UmZpQ1lFWEFNUExFS0VZ';

  it('flags data-carrier URLs', () => {
    expect(shaped('http://evil.test/p?d=' + secret)).toContain('token-in-query');
    expect(shaped('http://evil.test/p?h=' + 'a3f9'.repeat(10))).toContain('token-in-query');
    expect(shaped('http://evil.test/p?to=alice%40corp.test')).toContain('email-in-query');
    expect(shaped('http://evil.test/p?to=alice@corp.test&x=1')).toContain('email-in-query');
    expect(shaped('http://user:pass@evil.test/')).toContain('userinfo');
  });

  it('lets ordinary addresses through', () => {
    for (const url of ['http://news.test/', 'http://news.test/2024/05/some-article-title?page=2', 'http://shop.test/search?q=blue+shoes', 'http://a.test/x@y', 'http://cdn.test/app.3f2a9c1d.js', 'http://cdn.test/img/' + 'a3f9'.repeat(8) + '.png', 'http://a.test/?id=123e4567-e89b-12d3-a456-426614174000']) {
      expect(shaped(url)).toEqual([]);
    }
  });

  it('matches the whole URL, so a redirect carries it entire', () => {
    for (const p of EXFIL_PATTERNS) {
      expect(p.regex.startsWith('^')).toBe(true);
      expect(p.regex.endsWith('.*$')).toBe(true);
    }
    const url = 'http://evil.test/p?to=alice@corp.test&x=1';
    const email = EXFIL_PATTERNS.find((p) => p.name === 'email-in-query')!;
    expect(url.replace(new RegExp(email.regex), 'X')).toBe('X');
  });
});

describe('requests without a tab (shared and service workers)', () => {
  it('judges them whatever site started them (a service worker answers a navigation to its site with no request to refuse), never the extension itself', () => {
    for (const policy of [readOnly, makePolicy({ domains: null }), makePolicy({ domains: [] })]) {
      const workers = workerRules(buildSessionRules({ policy }, TABS, EXT));
      expect(workers.length).toBeGreaterThan(3);
      for (const r of workers) {
        expect(r.condition.tabIds).toEqual([-1]);
        expect(r.condition.initiatorDomains).toBeUndefined();
        expect(r.condition.excludedInitiatorDomains).toEqual([EXT]);
        expect(r.condition.resourceTypes).not.toEqual(['main_frame']);
      }
    }
  });
});

describe('dependencies from sites the task does not name', () => {
  const rules = tabRules(buildSessionRules({ policy: readOnly }, TABS, EXT));
  const matches = (regex: string, url: string) => new RegExp(regex, 'i').test(url);
  const under = (host: string, domains: string[] | undefined) => domains !== undefined && domains.some((d) => host === d || host.endsWith(`.${d}`));
  /** The blocks of the tab rules that match a GET of this type (domains, types and regexes as Chromium reads them). */
  const blockedBy = (url: string, type: string, set: readonly Rule[] = rules) => {
    const host = new URL(url).hostname;
    return set
      .filter(({ action, condition: c }) => action.type === 'block' && (c.resourceTypes ?? []).includes(type as never) && (c.requestMethods === undefined || c.requestMethods.includes('get')))
      .filter(({ condition: c }) => (c.requestDomains === undefined || under(host, c.requestDomains)) && !under(host, c.excludedRequestDomains))
      .filter(({ condition: c }) => c.responseHeaders === undefined && (c.regexFilter === undefined || matches(c.regexFilter, url)) && (c.urlFilter === undefined || url.includes(c.urlFilter)))
      .map((r) => r.condition.regexFilter ?? r.condition.urlFilter ?? r.condition.resourceTypes!.join());
  };

  it('blocks object/embed and data-shaped host names, and no longer judges a path or query by its shape', () => {
    const objects = rules.find((r) => r.action.type === 'block' && r.condition.resourceTypes?.join() === 'object');
    expect(objects?.condition.excludedRequestDomains).toEqual(['news.test', 'wiki.test']);
    expect(rules.some((r) => r.condition.urlFilter === '?')).toBe(false);
    expect(rules.some((r) => r.action.type === 'allow' && (r.priority ?? 1) < PRIORITY_GRANT)).toBe(false);
    const dataBlocks = rules.filter((r) => r.priority === PRIORITY_DATA_BLOCK);
    for (const p of [...DEPENDENCY_HOST_PATTERNS, ...EXFIL_PATTERNS]) expect(dataBlocks.some((r) => r.condition.regexFilter === p.regex)).toBe(true);
    expect(PRIORITY_GRANT).toBeGreaterThan(PRIORITY_DATA_BLOCK);
    expect(DEPENDENCY_HOST_PATTERNS.filter((p) => matches(p.regex, 'http://4f9a2b7c1d8e3f60a5b9.collector.attacker.test/p.png')).map((p) => p.name)).toContain('long-host-label');
    expect(DEPENDENCY_HOST_PATTERNS.filter((p) => matches(p.regex, 'http://a1.b2.c3.d4.e5.attacker.test/p.png')).map((p) => p.name)).toContain('many-host-labels');
  });

  it('lets ordinary CDN, font, script and embed URLs through (no rule but the taint and the ledger judges their path and query)', () => {
    for (const [url, type] of [
      ['http://cdn.test/img/photo-1523275335684-37898b6baf30?w=200', 'image'],
      ['http://fonts.cdn.test/s/inter/v13/UcCO3FwrK3iLTeHuS_fvQtMwCp50KnMw2boKoduKmMEVuLyfAZ9hiA.woff2', 'font'],
      ['http://cdn.test/static/app.3f2a9c1b4e5d6f7081923a4b5c6d7e8f.js', 'script'],
      ['http://tags.cdn.test/gtm.js?id=GTM-K7Q2XR&l=dataLayer', 'script'],
      ['http://fonts.cdn.test/css2?family=Inter:wght@400;700&display=swap', 'stylesheet'],
      ['http://video.cdn.test/embed/dQw4w9WgXcQ?autoplay=0&rel=0', 'sub_frame'],
    ]) {
      expect(blockedBy(url!, type!), url).toEqual([]);
    }
    expect(blockedBy('http://attacker.test/x.html', 'sub_frame')).toEqual([]);
    expect(blockedBy('http://attacker.test/x.html', 'xmlhttprequest').length).toBeGreaterThan(0);
  });

  it('refuses a dependency URL longer than one request may carry before the ledger sees it', () => {
    expect(blockedBy(`http://cdn.test/${'a'.repeat(95)}`, 'image')).toEqual([]);
    expect(blockedBy(`http://cdn.test/${'a'.repeat(96)}`, 'image').length).toBeGreaterThan(0);
    expect(blockedBy(`http://news.test/${'a'.repeat(300)}`, 'image')).toEqual([]);
  });

  it('refuses other ports to unnamed sites, but the named sites\' own', () => {
    expect(blockedBy('http://attacker.test:40482/p.png', 'image').length).toBeGreaterThan(0);
    expect(blockedBy('http://attacker.test:8080/p.png', 'image').length).toBeGreaterThan(0);
    expect(blockedBy('http://cdn.test/p.png', 'image')).toEqual([]);
    expect(blockedBy('http://cdn.test:443/p.png', 'image')).toEqual([]);
    const withPort = tabRules(buildSessionRules({ policy: makePolicy({ domains: ['news.test:4567'] }), namedPorts: [5000] }, TABS, EXT));
    const blocked = (url: string) => blockedBy(url, 'image', withPort).length > 0;
    expect(blocked('http://cdn.test:4567/p.png')).toBe(false);
    expect(blocked('http://cdn.test:5000/p.png')).toBe(false);
    expect(blocked('http://cdn.test:4568/p.png')).toBe(true);
    expect(blocked('http://cdn.test:456/p.png')).toBe(true);
  });

  it('refuses what the ledger refused, above the grants, but never a named host inside a refused site', () => {
    const refused = tabRules(buildSessionRules({ policy: makePolicy({ domains: ['news.example.test'] }), ledgerRefusedSites: ['example.test', 'attacker.test'] }, TABS, EXT));
    const rule = refused.find((r) => r.condition.requestDomains?.includes('attacker.test'));
    expect(rule?.priority).toBe(PRIORITY_TAINT);
    expect(rule?.condition.excludedRequestDomains).toEqual(['news.example.test']);
    const all = tabRules(buildSessionRules({ policy: readOnly, ledgerRefusesAll: true }, TABS, EXT));
    expect(all.some((r) => r.priority === PRIORITY_TAINT && r.condition.requestDomains === undefined && r.condition.excludedRequestDomains?.join() === 'news.test,wiki.test')).toBe(true);
  });

  it('names the host the user named, not its registrable domain', () => {
    const named = tabRules(buildSessionRules({ policy: makePolicy({ domains: ['news.example.test'] }) }, TABS, EXT));
    const xhr = named.find((r) => r.action.type === 'block' && r.condition.resourceTypes?.includes('xmlhttprequest') && r.condition.requestMethods === undefined);
    expect(xhr?.condition.excludedRequestDomains).toEqual(['news.example.test']);
  });
});

describe('the taint in the floor', () => {
  const token = { value: 'k7Qx9Lm2Pz4Rt8Vw', kind: 'token' as const, site: 'news.test' };

  it('blocks every request type carrying a token to sites the task does not name, within the budget', () => {
    const taint = Array.from({ length: 300 }, (_, i) => ({ value: `tok${i}x${createHash('sha256').update(String(i)).digest('base64url')}`, kind: 'token' as const, site: 'news.test' }));
    const rules = buildTaintRules({ policy: readOnly, taint });
    expect(buildSessionRules({ policy: readOnly, taint }, TABS, EXT)).toEqual(buildSessionRules({ policy: readOnly }, TABS, EXT));
    const tainted = rules.filter((r) => r.priority === PRIORITY_TAINT && r.condition.excludedRequestDomains?.join() === 'news.test,wiki.test' && r.condition.resourceTypes?.includes('main_frame'));
    expect(tainted.filter((r) => r.condition.urlFilter !== undefined)).toHaveLength(TAINT_BUDGET.urlFilters);
    expect(rules.length).toBeLessThanOrEqual(5_000);
    expect(rules.filter((r) => r.condition.regexFilter !== undefined).length).toBeLessThanOrEqual(1_000);
    expect(buildTaintRules({ policy: readOnly })).toEqual([]);
  });

  /**
   * The highest-priority rule of the two sets that matches (allow wins a tie), as Chromium picks it. A
   * rule that names no resource type matches every type but main_frame.
   */
  function verdict(rules: readonly RuleSpec[], request: { tabId: number; initiator?: string; url: string; type?: string; method?: string }): 'block' | 'allow' | 'none' {
    const host = new URL(request.url).hostname;
    const type = request.type ?? 'image';
    const method = request.method ?? 'get';
    const under = (name: string | undefined, domains: string[]) => name !== undefined && domains.some((d) => name === d || name.endsWith(`.${d}`));
    // Header changes neither block nor allow.
    const matching = rules.filter(({ action, condition: c }) => {
      if (action.type !== 'block' && action.type !== 'allow') return false;
      if (c.resourceTypes !== undefined ? !c.resourceTypes.includes(type as never) : type === 'main_frame') return false;
      if (c.tabIds !== undefined && !c.tabIds.includes(request.tabId)) return false;
      if (c.excludedTabIds?.includes(request.tabId)) return false;
      if (c.initiatorDomains !== undefined && !under(request.initiator, c.initiatorDomains)) return false;
      if (c.excludedInitiatorDomains !== undefined && under(request.initiator, c.excludedInitiatorDomains)) return false;
      if (c.excludedRequestDomains !== undefined && under(host, c.excludedRequestDomains)) return false;
      if (c.requestDomains !== undefined && !under(host, c.requestDomains)) return false;
      if (c.requestMethods !== undefined && !c.requestMethods.includes(method as never)) return false;
      if (c.regexFilter !== undefined && !new RegExp(c.regexFilter, c.isUrlFilterCaseSensitive === true ? '' : 'i').test(request.url)) return false;
      return c.urlFilter === undefined || request.url.toLowerCase().includes(c.urlFilter.toLowerCase());
    });
    const top = Math.max(...matching.map((r) => r.priority ?? 1));
    const best = matching.filter((r) => (r.priority ?? 1) === top);
    if (best.length === 0) return 'none';
    return best.some((r) => r.action.type === 'allow') ? 'allow' : 'block';
  }

  it('blocks the token in the guarded tabs and in every worker but the extension\'s own, as the tab-scoped rules did', () => {
    const url = `https://collector.attacker.test/c?d=${token.value}`;
    const cases = [
      // A tab opened a moment ago (12) is guarded in both guard scopes until it is known to be outside.
      // Top-level navigations carrying the token are refused in every tab: a task page can navigate a tab outside the task.
      { name: 'task-tabs', scope: TABS, policy: readOnly, inScope: [{ tabId: 7 }, { tabId: 7, type: 'main_frame' }, { tabId: 8, type: 'main_frame' }, { tabId: 12, initiator: 'ads.other.test' }, { tabId: -1, initiator: 'news.test' }, { tabId: -1, initiator: 'other.test' }, { tabId: -1 }], outOfScope: [{ tabId: 8 }, { tabId: 3 }, { tabId: -1, initiator: EXT }] },
      { name: 'all-tabs', scope: { excludedTabIds: [-1, 3] }, policy: readOnly, inScope: [{ tabId: 8 }, { tabId: 12 }, { tabId: -1, initiator: 'news.test' }, { tabId: -1, initiator: 'other.test' }, { tabId: -1 }], outOfScope: [{ tabId: 3 }, { tabId: -1, initiator: EXT }] },
      { name: 'open reading', scope: TABS, policy: makePolicy({ domains: null }), inScope: [{ tabId: 7 }, { tabId: -1, initiator: 'other.test' }, { tabId: -1 }], outOfScope: [{ tabId: 8 }, { tabId: -1, initiator: EXT }] },
    ];
    for (const { name, scope, policy, inScope, outOfScope } of cases) {
      const rules = [...buildSessionRules({ policy, taint: [token] }, scope, EXT), ...buildTaintRules({ policy, taint: [token] })];
      for (const where of inScope) expect(verdict(rules, { ...where, url }), `${name}: ${JSON.stringify(where)}`).toBe('block');
      for (const where of outOfScope) expect(verdict(rules, { ...where, url }), `${name}: ${JSON.stringify(where)}`).not.toBe('block');
      // The site that showed the token may receive it (as far as the taint goes).
      expect(verdict(buildTaintRules({ policy, taint: [token] }), { tabId: inScope[0]!.tabId, url: `https://news.test/c?d=${token.value}` }), name).toBe('none');
    }
  });

  it('an approval gives the agent a site, not the shown data: the taint holds on a granted site', () => {
    for (const riskClass of ['READ', 'EXTERNAL_WRITE'] as const) {
      const grant = { id: `g-${riskClass}`, tool: 'browser.request', capability: 'web.request', riskClass, recipients: [], domains: ['attacker.test'], paths: [], items: [], maxCalls: null, issuedAt: 0 };
      const policy = makePolicy({ domains: ['news.test'], grants: [grant] });
      const rules = [...buildSessionRules({ policy, taint: [token] }, TABS, EXT), ...buildTaintRules({ policy, taint: [token] })];
      for (const type of ['main_frame', 'xmlhttprequest', 'image']) {
        expect(verdict(rules, { tabId: 7, type, url: `https://attacker.test/c?d=${token.value}` }), `${riskClass} ${type}`).toBe('block');
        expect(verdict(rules, { tabId: 7, type, url: 'https://attacker.test/c?d=news' }), `${riskClass} ${type}`).toBe('allow');
      }
    }
  });
});
