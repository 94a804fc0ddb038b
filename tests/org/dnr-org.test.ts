import { describe, expect, it } from 'vitest';
import { buildSessionRules, PRIORITY_GRANT, PRIORITY_ORG, TAB_ID_NONE } from '../../src/background/floor/dnr';
import { grantFor } from '../../src/core/grants';
import { makePolicy } from '../support/policy';

const EXT = 'abcdefghijklmnopabcdefghijklmnop';
const policy = makePolicy({ taskId: 't', domains: ['shop.test', 'mail.test'] });
const granted = { ...policy, grants: [grantFor('t', 'browser.request', { capability: 'web.write', riskClass: 'EXTERNAL_WRITE', targets: { recipients: [], domains: ['shop.test'], paths: [], items: [] } }, 'task', 0)] };

describe('the network floor under the organisation', () => {
  const rules = buildSessionRules({ policy: granted, orgBlockedSites: ['*.shop.test', 'https://Ads.Example/'] }, { excludedTabIds: [TAB_ID_NONE] }, EXT);
  const org = rules.filter((r) => r.priority === PRIORITY_ORG);

  it('blocks every request to the blocked sites, above every grant, in the tabs and their workers', () => {
    expect(org).toHaveLength(2);
    expect(PRIORITY_ORG).toBeGreaterThan(PRIORITY_GRANT);
    expect(Math.max(...rules.filter((r) => r.action.type === 'allow').map((r) => r.priority ?? 0))).toBeLessThan(PRIORITY_ORG);
    for (const rule of org) expect(rule.condition).toMatchObject({ requestDomains: ['ads.example', 'shop.test'] });
  });

  it("never judges the extension's own requests (the collector's shipping): tab-less requests from every origin but the extension's", () => {
    for (const rule of org) {
      const { tabIds, excludedTabIds, excludedInitiatorDomains } = rule.condition;
      if (tabIds?.includes(TAB_ID_NONE)) expect(excludedInitiatorDomains).toEqual([EXT]);
      else expect(excludedTabIds).toContain(TAB_ID_NONE);
    }
  });

  it('no organisation, no org rules', () => {
    expect(buildSessionRules({ policy: granted }, { excludedTabIds: [-1] }, EXT).some((r) => r.priority === PRIORITY_ORG)).toBe(false);
  });
});
