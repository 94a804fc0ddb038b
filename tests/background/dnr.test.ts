import { describe, expect, it } from 'vitest';
import { buildSessionRules, EXFIL_PATTERNS, navigationSites, PRIORITY_GRANT, writeSites, type Rule } from '../../src/background/dnr';
import { makePolicy } from '../support/policy';

const TABS = { tabIds: [7, 9] };

const readOnly = makePolicy({ domains: ['news.test', 'www.Wiki.Test'] });
const writer = makePolicy({
  domains: ['mail.test'],
  ceilings: { COMMUNICATION: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
  constraints: [{ id: 'k1', tool: 'browser.request', domains: ['api.test'], maxCalls: 3 }],
});

const byAction = (rules: Rule[], type: string) => rules.filter((r) => r.action.type === type);
const mainFrameBlocks = (rules: Rule[]) => byAction(rules, 'block').filter((r) => r.condition.resourceTypes?.includes('main_frame'));

describe('buildSessionRules', () => {
  it('scopes every rule to the guarded tabs, with unique ids', () => {
    const rules = buildSessionRules({ policy: writer }, TABS);
    expect(rules.length).toBeGreaterThan(5);
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    for (const r of rules) expect(r.condition.tabIds).toEqual([7, 9]);
    const all = buildSessionRules({ policy: writer }, { excludedTabIds: [-1, 3] });
    for (const r of all) expect(r.condition.excludedTabIds).toEqual([-1, 3]);
  });

  it('blocks downloads by their response headers unless the task allows LOCAL_WRITE', () => {
    const downloads = (rules: Rule[]) => rules.filter((r) => r.condition.responseHeaders !== undefined);
    const blocked = downloads(buildSessionRules({ policy: readOnly }, TABS));
    expect(blocked.map((r) => r.condition.responseHeaders?.[0]?.header)).toEqual(['content-disposition', 'content-type']);
    for (const r of blocked) expect(r.action.type).toBe('block');
    const saving = makePolicy({ domains: ['news.test'], ceilings: { LOCAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['LOCAL_WRITE'] } });
    expect(downloads(buildSessionRules({ policy: saving }, TABS))).toEqual([]);
  });

  it('guards nothing when no tab is in scope', () => {
    expect(buildSessionRules({ policy: writer }, { tabIds: [] })).toEqual([]);
  });

  it('blocks navigations off the domain list (page.goto rejects; the background then shows the blocked page), sites normalised', () => {
    const rules = buildSessionRules({ policy: readOnly }, TABS);
    const nav = mainFrameBlocks(rules).find((r) => r.condition.requestMethods === undefined && r.condition.regexFilter === '^.+$');
    expect(nav?.condition.excludedRequestDomains).toEqual(['news.test', 'wiki.test']);
    expect(byAction(rules, 'redirect')).toEqual([]);
    const frames = byAction(rules, 'block').find((r) => r.condition.resourceTypes?.includes('sub_frame') && r.condition.requestMethods === undefined && r.condition.regexFilter === undefined);
    expect(frames?.condition.excludedRequestDomains).toEqual(['news.test', 'wiki.test']);
  });

  it('does not limit navigation when the policy reads the open web', () => {
    const rules = buildSessionRules({ policy: makePolicy({ domains: null }) }, TABS);
    expect(navigationSites({ policy: makePolicy({ domains: null }) })).toBeNull();
    expect(rules.some((r) => r.condition.regexFilter === '^.+$' && r.condition.requestMethods === undefined && r.condition.requestDomains === undefined)).toBe(false);
    // …but data-bearing requests still go nowhere.
    const writes = byAction(rules, 'block').find((r) => r.condition.requestMethods?.includes('post'));
    expect(writes?.condition.excludedRequestDomains).toBeUndefined();
  });

  it('lets writes reach only write sites: constraint domains, the list of a writing policy, evaluator-allowed sites', () => {
    expect(writeSites({ policy: readOnly })).toEqual([]);
    expect(writeSites({ policy: writer })).toEqual(['api.test', 'mail.test']);
    expect(writeSites({ policy: readOnly, floorWriteDomains: ['cdn.news.test'] })).toEqual(['news.test']);
    const rules = buildSessionRules({ policy: writer }, TABS);
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
    const allows = byAction(buildSessionRules({ policy }, TABS), 'allow');
    expect(allows).toHaveLength(2);
    expect(allows.map((r) => r.condition.requestDomains)).toEqual([['forms.test'], ['blog.test']]);
    expect(allows[0]!.condition.requestMethods).toBeUndefined();
    expect(allows[1]!.condition.requestMethods).toEqual(['get', 'head', 'options']);
    for (const r of allows) expect(r.priority).toBe(PRIORITY_GRANT);
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
