import { describe, expect, it } from 'vitest';
import { ALL_TYPES, buildSessionRules, rulesForBrowser, type DnrSupport, type Rule } from '../../src/background/floor/dnr';
import { isBlockedByExtension } from '../../src/background/floor/guards';
import { makePolicy } from '../support/policy';

/** `declarativeNetRequest.ResourceType` values of firefox-esr 153 (read from the browser, e2e/firefox.spec.ts). */
const FIREFOX_153: DnrSupport = {
  resourceTypes: new Set(['main_frame', 'sub_frame', 'stylesheet', 'script', 'image', 'object', 'object_subrequest', 'xmlhttprequest', 'xslt', 'ping', 'beacon', 'xml_dtd', 'font', 'media', 'websocket', 'csp_report', 'imageset', 'web_manifest', 'speculative', 'json', 'other']),
  responseHeaders: false,
};
const CHROMIUM: DnrSupport = { resourceTypes: new Set(ALL_TYPES), responseHeaders: true };

const policy = makePolicy({ domains: ['mail.test'], ceilings: { COMMUNICATION: 'allow' }, allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] } });
const floor = buildSessionRules({ policy }, { excludedTabIds: [-1] }, 'ext-host');
const types = (rules: Rule[]) => new Set(rules.flatMap((r) => r.condition.resourceTypes ?? []));
const blocksType = (rules: Rule[], type: string) => rules.some((r) => r.action.type === 'block' && (r.condition.resourceTypes ?? []).includes(type as never));

describe('the floor in Chromium', () => {
  it('is unchanged where every type and condition exists', () => {
    const { rules, dropped } = rulesForBrowser(floor, CHROMIUM);
    expect(dropped).toEqual([]);
    expect(rules).toEqual(floor);
  });
});

describe('the floor in Firefox 153', () => {
  const { rules, dropped } = rulesForBrowser(floor, FIREFOX_153);

  it('uses only resource types Firefox knows', () => {
    for (const type of types(rules)) expect(FIREFOX_153.resourceTypes.has(type)).toBe(true);
  });

  it('blocks what Firefox names apart wherever Chromium folds it in: a beacon with the pings, srcset images with the images, plugin subrequests with objects', () => {
    for (const rule of rules) {
      const t = rule.condition.resourceTypes ?? [];
      if (t.includes('ping' as never)) expect(t).toContain('beacon');
      if (t.includes('image' as never)) expect(t).toContain('imageset');
      if (t.includes('object' as never)) expect(t).toContain('object_subrequest');
      if (t.includes('other' as never)) expect(t).toEqual(expect.arrayContaining(['xslt', 'xml_dtd', 'web_manifest', 'speculative', 'json']));
    }
    expect(blocksType(rules, 'beacon')).toBe(true);
  });

  it('keeps every family but the response-header download rules, which it reports as dropped', () => {
    expect(dropped.length).toBeGreaterThan(0);
    for (const rule of dropped) expect(rule.condition.responseHeaders).toBeDefined();
    expect(rules.length + dropped.length).toBe(floor.length);
  });

  it('keeps the ids it was given, and passes a rule it does not change on as the same object', () => {
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    const chromium = rulesForBrowser(floor, CHROMIUM).rules;
    expect(chromium.every((rule, i) => rule === floor[i])).toBe(true);
  });

  it('drops a rule whose only types Firefox lacks rather than widening it to every type', () => {
    const onlyWebTransport: Rule = { id: 1, priority: 1, action: { type: 'block' }, condition: { resourceTypes: ['webtransport', 'webbundle'] } };
    expect(rulesForBrowser([onlyWebTransport], FIREFOX_153)).toEqual({ rules: [], dropped: [onlyWebTransport] });
  });
});

describe('isBlockedByExtension', () => {
  it("recognises Chromium's and Firefox's error for a request an extension blocked, not a stop or a network failure", () => {
    expect(isBlockedByExtension('net::ERR_BLOCKED_BY_CLIENT')).toBe(true);
    expect(isBlockedByExtension('Error code 2147500036')).toBe(true);
    expect(isBlockedByExtension('net::ERR_ABORTED')).toBe(false);
    expect(isBlockedByExtension('Error code 2152398850')).toBe(false);
    expect(isBlockedByExtension('net::ERR_CONNECTION_REFUSED')).toBe(false);
  });
});
