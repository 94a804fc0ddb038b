import type { Browser } from '@wxt-dev/browser';
import { registrableDomain } from '../../core/domains';
import type { RuleSpec } from '../../taint/rules';

/**
 * The network floor for writes bound to an action and an object (issue 35, item 4). When the task writes
 * on a known app's site with action-bound routes ("comment on issue 1000" on gitlab.test), the floor holds
 * every data-bearing request (POST, PUT, PATCH, DELETE) to that site except the task's own routes, by
 * method and path: without the page hooks a same-site `fetch('/api/v4/projects/1/members')` is refused by
 * the browser, while the task's own form post to `/byteblaze/dotfiles/-/issues/1000/notes` goes through.
 *
 * Where the rules sit (priorities, see dnr.ts):
 *  - the block is above the floor's plain and data blocks (it only ever judges a site the floor already lets
 *    writes reach) and below the user's grants: an approved action opens its site while the grant has uses
 *    left, as it does today, so an ask the user approves still lands;
 *  - the routes' allows are just above the block and are written only for sites that are write sites, so they
 *    lift nothing but this block (the floor's other blocks exclude write sites, and the taint never names one).
 *
 * What a path cannot say, the floor cannot hold: a route whose path other actions share, told apart only by
 * the body (`PUT /:project` edits a project or changes its visibility; `bodyDecides`), lets those siblings
 * through on the task's object; a state change sent as a GET, over a WebSocket, or to a subdomain the task
 * names as its own site is not a data-bearing request to the site and is left to the evaluator. See
 * e2e/FLOOR.md, "Same-site writes bound to an object".
 */

type RuleCondition = Browser.declarativeNetRequest.RuleCondition;
type RequestMethod = `${Browser.declarativeNetRequest.RequestMethod}`;
type ResourceType = `${Browser.declarativeNetRequest.ResourceType}`;

/** One route a task may write to on a site (the core's `allowedWriteRoutes` gives these, per site). */
export interface WriteRouteInput {
  /** HTTP methods on the wire (a Rails `_method` override travels as a POST). */
  methods: readonly string[];
  /** An anchored RE2 expression for the URL's path (`^/byteblaze/dotfiles/-/issues/1000/notes/?$`). */
  pathRegex: string;
}

export interface SiteWriteRoutesInput {
  /** The site as the policy names it (`gitlab.test`, `gitlab.test:8080`). */
  site: string;
  /** The known app on the site; null: the table knows none, and the site keeps the site-level floor. */
  app: string | null;
  routes: readonly WriteRouteInput[];
}

/** Above the floor's data blocks (20), below the grants (100): see the file comment. */
export const PRIORITY_WRITE_ROUTE_BLOCK = 50;
export const PRIORITY_WRITE_ROUTE_ALLOW = 60;

const WRITE_METHODS: readonly RequestMethod[] = ['post', 'put', 'patch', 'delete'];
/** Every request type a write can travel as: a form's navigation or frame, fetch/XHR, a beacon, the rest. */
const WRITE_TYPES: ResourceType[] = ['main_frame', 'sub_frame', 'xmlhttprequest', 'ping', 'other', 'object', 'image', 'media', 'script', 'stylesheet', 'font', 'csp_report', 'webbundle'];

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The host part of a policy's site (`gitlab.test:8080` → `gitlab.test`), lower case; null when it is no host. */
function hostOf(site: string): string | null {
  const host = site.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  return host === '' || host.includes('/') || host.includes('[') ? null : host;
}

/**
 * The URL regex for one route: the site's exact host (any port: the loopback copies run on one), no
 * userinfo, the route's path, any query or fragment. `pathRegex` is anchored at both ends; its anchors go.
 */
export function routeUrlRegex(host: string, pathRegex: string): string | null {
  if (!pathRegex.startsWith('^/') || !pathRegex.endsWith('$')) return null;
  const path = pathRegex.slice(1, -1);
  return `^https?://${escapeRegex(host)}(?::[0-9]+)?${path}(?:[?#].*)?$`;
}

function methodsOf(route: WriteRouteInput): RequestMethod[] {
  const lower = route.methods.map((m) => m.toLowerCase());
  return WRITE_METHODS.filter((m) => lower.includes(m));
}

/**
 * The rules for the sites a task writes to with action-bound routes. `writeSites` are the floor's write
 * sites (dnr.ts, writeSites): a site off that list is already refused every write, and an allow there would
 * lift that. A site whose routes are all unusable for the floor (no write method, a path that is not an
 * anchored regex) keeps only the block: narrower, never wider — an approval still opens it.
 */
export function writeRouteRules(sites: readonly SiteWriteRoutesInput[], writeSites: readonly string[]): RuleSpec[] {
  const rules: RuleSpec[] = [];
  const writable = new Set(writeSites);
  const seen = new Set<string>();
  for (const entry of sites) {
    const host = hostOf(entry.site);
    if (entry.app === null || host === null) continue;
    const site = registrableDomain(host);
    if (site === null || !writable.has(site)) continue;
    if (!seen.has(host)) {
      seen.add(host);
      const block: RuleCondition = { requestDomains: [host], requestMethods: [...WRITE_METHODS], resourceTypes: WRITE_TYPES };
      rules.push({ priority: PRIORITY_WRITE_ROUTE_BLOCK, action: { type: 'block' }, condition: block });
    }
    for (const route of entry.routes) {
      const regexFilter = routeUrlRegex(host, route.pathRegex);
      const requestMethods = methodsOf(route);
      if (regexFilter === null || requestMethods.length === 0) continue;
      rules.push({ priority: PRIORITY_WRITE_ROUTE_ALLOW, action: { type: 'allow' }, condition: { regexFilter, requestMethods, requestDomains: [host], resourceTypes: WRITE_TYPES } });
    }
  }
  return dedupe(rules);
}

function dedupe(rules: RuleSpec[]): RuleSpec[] {
  const keys = new Set<string>();
  return rules.filter((rule) => {
    const key = JSON.stringify(rule);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}
