import { describe, expect, it } from 'vitest';
import { buildSessionRules, PRIORITY_DATA_BLOCK, PRIORITY_GRANT, PRIORITY_OUT_OF_SCOPE, type Rule } from '../../src/background/floor/dnr';
import { makePolicy } from '../support/policy';
import { PRIORITY_WRITE_ROUTE_ALLOW, PRIORITY_WRITE_ROUTE_BLOCK, routeUrlRegex, writeRouteRules, type SiteWriteRoutesInput } from '../../src/background/floor/dnr-writes';
import type { RuleSpec } from '../../src/taint/rules';

/**
 * The floor for action-bound writes: a write to the task's site outside the task's routes is refused by
 * method and path, the task's own route passes, and nothing else the floor decides moves. Rules are
 * judged as declarativeNetRequest judges them: the matching rule of the highest priority wins, an allow
 * beats a block of the same priority, a regex is matched case-insensitively against the whole URL.
 */

type Verdict = 'block' | 'allow' | 'none';

function hostMatches(host: string, domains: readonly string[]): boolean {
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** The verdict of these rules for one request (resource type and method as Chromium names them). */
function judge(rules: readonly RuleSpec[], url: string, method: string, type = 'xmlhttprequest'): Verdict {
  const { hostname } = new URL(url);
  const matching = rules.filter((r) => {
    const c = r.condition;
    if (c.requestDomains && !hostMatches(hostname, c.requestDomains)) return false;
    if (c.excludedRequestDomains && hostMatches(hostname, c.excludedRequestDomains)) return false;
    // Rules on response headers decide after the request went out; substring filters are the dependency rules'.
    if (c.responseHeaders !== undefined) return false;
    if (c.urlFilter !== undefined && !url.toLowerCase().includes(c.urlFilter.toLowerCase())) return false;
    if (c.requestMethods && !c.requestMethods.includes(method as never)) return false;
    if (c.resourceTypes ? !c.resourceTypes.includes(type as never) : type === 'main_frame') return false;
    if (c.regexFilter !== undefined && !new RegExp(c.regexFilter, 'i').test(url)) return false;
    return r.action.type === 'block' || r.action.type === 'allow';
  });
  if (matching.length === 0) return 'none';
  const top = Math.max(...matching.map((r) => r.priority ?? 1));
  const best = matching.filter((r) => (r.priority ?? 1) === top);
  return best.some((r) => r.action.type === 'allow') ? 'allow' : 'block';
}

/** The routes the core gives for "comment on issue 1000" on gitlab.test (src/core/actions, allowedWriteRoutes). */
const COMMENT: SiteWriteRoutesInput[] = [
  { site: 'gitlab.test', app: 'gitlab', routes: [{ methods: ['POST'], pathRegex: '^/byteblaze/dotfiles/-/issues/1000/notes/?$' }] },
];
const FORUM_VOTE: SiteWriteRoutesInput[] = [{ site: 'forum.test', app: 'postmill', routes: [{ methods: ['POST'], pathRegex: '^/sv/130944(?:\\.(?:html|json))?/?$' }] }];
const G = 'http://gitlab.test:8123';

describe('writeRouteRules', () => {
  const rules = writeRouteRules(COMMENT, ['gitlab.test']);

  it('lets the task own write through: the comment form post, as a navigation or from script', () => {
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes`, 'post', 'main_frame')).toBe('allow');
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes?target_type=issue`, 'post')).toBe('allow');
    expect(judge(rules, 'https://gitlab.test/byteblaze/dotfiles/-/issues/1000/notes/', 'post', 'sub_frame')).toBe('allow');
  });

  it('refuses every other write to the site, whatever it travels as', () => {
    for (const [url, type] of [
      [`${G}/api/v4/projects/1/members`, 'xmlhttprequest'],
      [`${G}/byteblaze/dotfiles/-/deploy_keys`, 'main_frame'],
      [`${G}/-/profile/keys`, 'main_frame'],
      [`${G}/byteblaze/dotfiles/-/transfer`, 'main_frame'],
      [`${G}/byteblaze/dotfiles/-/issues/1001/notes`, 'main_frame'],
      [`${G}/byteblaze/dotfiles/-/issues/10000/notes`, 'main_frame'],
      [`${G}/byteblaze/dotfiles/-/issues/1000`, 'main_frame'],
      [`${G}/byteblaze/dotfiles/-/issues/1000/toggle_award_emoji`, 'xmlhttprequest'],
      [`${G}/api/v4/projects/1/members`, 'ping'],
      [`${G}/api/v4/projects/1/members`, 'other'],
    ] as const) {
      expect(judge(rules, url, 'post', type), `${type} ${url}`).toBe('block');
    }
    for (const method of ['put', 'patch', 'delete']) expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes`, method)).toBe('block');
  });

  it('holds look-alikes of the route: a longer path, another host, userinfo, a path spelled in the query', () => {
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes/../../../../../-/profile/keys`, 'post')).toBe('block');
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes/1/award_emoji`, 'post')).toBe('block');
    expect(judge(rules, `${G}/x?/byteblaze/dotfiles/-/issues/1000/notes`, 'post')).toBe('block');
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notesX`, 'post')).toBe('block');
    expect(judge(rules, 'http://evil@gitlab.test/byteblaze/dotfiles/-/issues/1000/notes', 'post')).toBe('block');
    expect(judge(rules, 'http://api.gitlab.test/byteblaze/dotfiles/-/issues/1000/notes', 'post')).toBe('block');
  });

  it('leaves reads alone, and other sites to the rest of the floor', () => {
    expect(judge(rules, `${G}/-/profile/keys`, 'get', 'main_frame')).toBe('none');
    expect(judge(rules, `${G}/api/v4/projects/1`, 'get')).toBe('none');
    expect(judge(rules, 'http://forum.test/sv/1', 'post')).toBe('none');
  });

  it('writes nothing for a site that is not a write site, or that no known app serves', () => {
    expect(writeRouteRules(COMMENT, [])).toEqual([]);
    expect(writeRouteRules([{ site: 'blog.test', app: null, routes: [] }], ['blog.test'])).toEqual([]);
  });

  it('keeps the block when a route cannot be written as a path rule (narrower, never wider)', () => {
    const unusable = writeRouteRules([{ site: 'gitlab.test', app: 'gitlab', routes: [{ methods: ['GET'], pathRegex: '^/x$' }, { methods: ['POST'], pathRegex: 'notes' }] }], ['gitlab.test']);
    expect(unusable).toHaveLength(1);
    expect(judge(unusable, `${G}/x`, 'post')).toBe('block');
  });

  it('binds the forum vote to its post: another post, a downvote route of another id, are refused', () => {
    const vote = writeRouteRules(FORUM_VOTE, ['forum.test']);
    expect(judge(vote, 'http://forum.test/sv/130944', 'post', 'main_frame')).toBe('allow');
    expect(judge(vote, 'http://forum.test/sv/130944.json', 'post')).toBe('allow');
    expect(judge(vote, 'http://forum.test/sv/130950', 'post', 'main_frame')).toBe('block');
    expect(judge(vote, 'http://forum.test/sv/1309440', 'post', 'main_frame')).toBe('block');
    expect(judge(vote, 'http://forum.test/submit/politics', 'post', 'main_frame')).toBe('block');
  });

  it('anchors the host and the path in the URL regex', () => {
    expect(routeUrlRegex('gitlab.test', '^/a/b/?$')).toBe('^https?://gitlab\\.test(?::[0-9]+)?/a/b/?(?:[?#].*)?$');
    expect(routeUrlRegex('gitlab.test', '/a/b')).toBeNull();
  });

  it('sits above the data blocks and below the grants, so an approved action still opens its site', () => {
    expect(PRIORITY_WRITE_ROUTE_BLOCK).toBeGreaterThan(PRIORITY_DATA_BLOCK);
    expect(PRIORITY_WRITE_ROUTE_ALLOW).toBeGreaterThan(PRIORITY_WRITE_ROUTE_BLOCK);
    expect(PRIORITY_WRITE_ROUTE_ALLOW).toBeLessThan(PRIORITY_GRANT);
    const grant: RuleSpec = { priority: PRIORITY_GRANT, action: { type: 'allow' }, condition: { requestDomains: ['gitlab.test'], resourceTypes: ['xmlhttprequest'] } };
    expect(judge([...rules, grant], `${G}/api/v4/projects/1/members`, 'post')).toBe('allow');
  });
});

describe('the floor with action-bound routes', () => {
  const ext = 'abcdefghijklmnopabcdefghijklmnop';
  const routesOf = (rules: Rule[]) => rules.filter((r) => r.priority === PRIORITY_WRITE_ROUTE_BLOCK || r.priority === PRIORITY_WRITE_ROUTE_ALLOW);

  /** The rules for the guarded tabs (not the workers' copies, not the out-of-scope allows). */
  const tabRules = (rules: Rule[]) => rules.filter((r) => r.priority !== PRIORITY_OUT_OF_SCOPE && !r.condition.tabIds?.includes(-1));

  it('adds nothing for a policy whose constraints name no actions', () => {
    const policy = makePolicy({ domains: ['gitlab.test'], ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] } });
    expect(routesOf(buildSessionRules({ policy }, { excludedTabIds: [-1] }, ext))).toEqual([]);
  });

  it("holds the REST Owner add, keeps the task's comment, for the compiled shape of 'comment on issue 1000'", () => {
    const policy = makePolicy({
      domains: ['gitlab.test'],
      constraints: [{ id: 'a-comment-1', actions: ['comment'], objects: ['issue:byteblaze/dotfiles#1000'], domains: ['gitlab.test'], maxCalls: 1 }],
    });
    const rules = tabRules(buildSessionRules({ policy }, { excludedTabIds: [-1] }, ext));
    expect(routesOf(rules).length).toBeGreaterThan(1);
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1000/notes`, 'post', 'main_frame')).toBe('allow');
    expect(judge(rules, `${G}/api/v4/projects/1/members`, 'post')).toBe('block');
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/deploy_keys`, 'post', 'main_frame')).toBe('block');
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1001/notes`, 'post', 'main_frame')).toBe('block');
    // Reading the site is untouched.
    expect(judge(rules, `${G}/byteblaze/dotfiles/-/issues/1001`, 'get', 'main_frame')).not.toBe('block');
  });
});
