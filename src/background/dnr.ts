import type { Browser } from '@wxt-dev/browser';
import { registrableDomain } from '../core/domains';
import type { TaskPolicy } from '../core/policy';
import { isConsequential } from '../core/risk';

/**
 * The network floor: declarativeNetRequest session rules derived from the policy. Whatever page code
 * does (natives restored from a fresh iframe, a Worker, a redirect chain), the browser itself refuses:
 *
 *  - navigations (main_frame) and sub-frames to sites off the policy's domain list (when it is a list);
 *    a blocked top-level navigation fails with net::ERR_BLOCKED_BY_CLIENT (so `page.goto` rejects), and
 *    the background then shows the extension's `blocked.html` in the tab, which says why and offers to
 *    ask the user (src/background/index.ts, webNavigation.onErrorOccurred);
 *  - data-bearing methods (POST/PUT/PATCH/DELETE), beacons/pings, WebSockets and WebTransport to sites
 *    not allowed for writes;
 *  - requests from fetch/XHR/"other" (EventSource, …) to sites off the domain list, and image/media
 *    GETs that carry a query string to those sites (a pixel with `?d=…` is the classic beacon);
 *  - exfiltration-shaped URLs to every site not allowed for writes: userinfo, an e-mail address in the
 *    query, a long base64 or hex run in the query or path;
 *  - downloads, unless the task allows LOCAL_WRITE: responses that say `Content-Disposition:
 *    attachment`, and navigations to `application/octet-stream`. This stops a download even where a
 *    debugger manages it (Playwright's downloads skip the downloads API's filename hook and finish
 *    after a cancel). Downloads a page builds itself (blob:, data:) carry no response and are left to
 *    the downloads API guard.
 *
 * Sites allowed for writes: the domains of the policy's constraints, the domains where the evaluator
 * already allowed a consequential request this task (`floorWriteDomains`), and the policy's domain list
 * when the policy lists any consequential permission. Each user grant adds an allow rule (higher
 * priority) for exactly the granted domains: READ grants lift navigation/read blocks, other grants
 * lift every block for those domains.
 *
 * What RE2 in DNR cannot express, and is left to the evaluator (semantic layer): base64 runs that
 * contain `+ / = _ -` (the class is too large to count), runs shorter than 32, entropy tests, tokens in
 * the PATH (a static-asset hash exemption needs lookaround, and a path rule would block every hashed
 * asset), percent-decoding (a double-encoded e-mail address is not seen), secret-looking parameter
 * NAMES with short values, the parameter count, URL length, and anything in a request body. Scripts,
 * styles and fonts from third-party sites are not blocked by domain (pages need their CDNs); only the
 * exfiltration-shape rules apply to them.
 */

export type Rule = Browser.declarativeNetRequest.Rule;
type RuleCondition = Browser.declarativeNetRequest.RuleCondition;
type ResourceType = `${Browser.declarativeNetRequest.ResourceType}`;
type RequestMethod = `${Browser.declarativeNetRequest.RequestMethod}`;

/** Which tabs the rules apply to: listed tabs, or every tab except the excluded ones. */
export type FloorScope = { tabIds: number[] } | { excludedTabIds: number[] };

/** `chrome.tabs.TAB_ID_NONE`: requests that do not come from a tab (the worker, other extensions). */
export const TAB_ID_NONE = -1;

export const DATA_METHODS: RequestMethod[] = ['post', 'put', 'patch', 'delete'];
export const READ_METHODS: RequestMethod[] = ['get', 'head', 'options'];
const CHANNEL_TYPES: ResourceType[] = ['ping', 'websocket', 'webtransport', 'csp_report'];
const SCRIPTED_READ_TYPES: ResourceType[] = ['xmlhttprequest', 'other', 'webbundle'];
const PIXEL_TYPES: ResourceType[] = ['image', 'media', 'object'];
const ALL_TYPES: ResourceType[] = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
];
const NON_NAVIGATION_TYPES = ALL_TYPES.filter((t) => t !== 'main_frame');
/** Requests a download starts from: a navigation, a frame, or an `<a download>` click ("other"). */
const DOWNLOAD_TYPES: ResourceType[] = ['main_frame', 'sub_frame', 'other'];

/** Priorities: grants (allow) beat every block; redirects and blocks share one level. */
export const PRIORITY_BLOCK = 1;
export const PRIORITY_GRANT = 100;

/**
 * Exfiltration-shaped URLs in RE2 (DNR's regex engine: no lookaround, no backreferences, and each
 * regex must compile within 2 KB). Measured in Chromium 156 with isRegexSupported: a counted run of a
 * small class fits up to about 32 repetitions (`[a-z0-9]{32,}` fits, `{40,}` and any base64 class
 * with `+/=_%-` at 20 do not), so the floor's token rule is "a run of ≥ 32 letters and digits in the
 * query". Matching is case-insensitive (DNR's default).
 */
export const EXFIL_PATTERNS: { name: string; regex: string; reason: string }[] = [
  // Each matches the WHOLE URL: a redirect's `\\0` is the match, and the blocked page shows the URL.
  { name: 'userinfo', regex: '^[a-z][a-z0-9+.-]*://[^/?#]*@.*$', reason: 'credentials (userinfo) in the URL' },
  { name: 'email-in-query', regex: '^[^?#]*\\?.*[a-z0-9._%+-](@|%40)[a-z0-9-]+\\.[a-z]{2,}.*$', reason: 'e-mail address in the query' },
  { name: 'token-in-query', regex: '^[^?#]*\\?.*[a-z0-9]{32,}.*$', reason: 'long token (32+ letters and digits) in the query' },
];

export interface FloorInput {
  policy: TaskPolicy;
  /** Domains where the evaluator allowed a consequential request in this task. */
  floorWriteDomains?: readonly string[];
}

function site(domain: string): string | null {
  return registrableDomain(domain);
}

function sites(domains: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const d of domains) {
    const s = site(d);
    if (s !== null) out.add(s);
  }
  return [...out].sort();
}

/** Whether the policy names any consequential permission (then its domain list may receive writes). */
function listsWrites(policy: TaskPolicy): boolean {
  const listing = [policy.allow, policy.requireApproval];
  return (
    listing.some((l) => l.tools.length > 0 || l.capabilities.length > 0 || l.classes.some(isConsequential)) ||
    Object.entries(policy.ceilings).some(([cls, ceiling]) => cls !== 'READ' && ceiling === 'allow')
  );
}

/** The sites navigation may reach, or null when reading is not limited to a list. */
export function navigationSites(input: FloorInput): string[] | null {
  const { policy } = input;
  if (policy.domains === null) return null;
  return sites([...policy.domains, ...policy.constraints.flatMap((k) => k.domains ?? []), ...(input.floorWriteDomains ?? [])]);
}

/** The sites data-bearing requests may reach (grants excepted: they get their own allow rules). */
export function writeSites(input: FloorInput): string[] {
  const { policy } = input;
  return sites([
    ...policy.constraints.flatMap((k) => k.domains ?? []),
    ...(input.floorWriteDomains ?? []),
    ...(policy.domains !== null && listsWrites(policy) ? policy.domains : []),
  ]);
}

function scoped(condition: RuleCondition, scope: FloorScope): RuleCondition {
  return 'tabIds' in scope ? { ...condition, tabIds: scope.tabIds } : { ...condition, excludedTabIds: scope.excludedTabIds };
}

function excluding(condition: RuleCondition, domains: string[]): RuleCondition {
  return domains.length > 0 ? { ...condition, excludedRequestDomains: domains } : condition;
}

/**
 * The session rules for one policy. Pure: the same policy and scope give the same rules.
 * Returns no rules when the scope names no tab (nothing is guarded).
 */
export function buildSessionRules(input: FloorInput, scope: FloorScope): Rule[] {
  if ('tabIds' in scope && scope.tabIds.length === 0) return [];
  const rules: Rule[] = [];
  const add = (priority: number, action: Rule['action'], condition: RuleCondition) =>
    rules.push({ id: rules.length + 1, priority, action, condition: scoped(condition, scope) });
  const block: Rule['action'] = { type: 'block' };

  const nav = navigationSites(input);
  const writes = writeSites(input);
  const readable = nav === null ? null : sites([...nav, ...writes]);

  // Data-bearing requests and data channels to sites not allowed for writes.
  add(PRIORITY_BLOCK, block, excluding({ regexFilter: '^.+$', requestMethods: DATA_METHODS, resourceTypes: ['main_frame'] }, writes));
  add(PRIORITY_BLOCK, block, excluding({ requestMethods: DATA_METHODS, resourceTypes: NON_NAVIGATION_TYPES }, writes));
  add(PRIORITY_BLOCK, block, excluding({ resourceTypes: CHANNEL_TYPES }, writes));

  if (readable !== null) {
    // Navigation and frames off the domain list; scripted reads off the list; pixels with a query.
    add(PRIORITY_BLOCK, block, excluding({ regexFilter: '^.+$', resourceTypes: ['main_frame'] }, readable));
    add(PRIORITY_BLOCK, block, excluding({ resourceTypes: ['sub_frame', ...SCRIPTED_READ_TYPES] }, readable));
    add(PRIORITY_BLOCK, block, excluding({ urlFilter: '?', resourceTypes: PIXEL_TYPES }, readable));
  }

  // Exfiltration-shaped URLs to every site not allowed for writes.
  for (const pattern of EXFIL_PATTERNS) {
    add(PRIORITY_BLOCK, block, excluding({ regexFilter: pattern.regex, resourceTypes: ['main_frame'] }, writes));
    add(PRIORITY_BLOCK, block, excluding({ regexFilter: pattern.regex, resourceTypes: NON_NAVIGATION_TYPES }, writes));
  }

  for (const condition of privateNetworkRules(input)) add(PRIORITY_BLOCK, block, condition);

  // Downloads, when the task does not allow LOCAL_WRITE (a grant for a site lifts this below).
  if (input.policy.ceilings.LOCAL_WRITE !== 'allow') {
    add(PRIORITY_BLOCK, block, { responseHeaders: [{ header: 'content-disposition', values: ['attachment*'] }], resourceTypes: DOWNLOAD_TYPES });
    add(PRIORITY_BLOCK, block, { responseHeaders: [{ header: 'content-type', values: ['application/octet-stream*'] }], resourceTypes: ['main_frame', 'sub_frame'] });
  }

  // User grants: allow rules for exactly the granted domains.
  for (const grant of input.policy.grants) {
    const granted = sites(grant.domains);
    if (granted.length === 0) continue;
    if (grant.riskClass === 'READ') {
      add(PRIORITY_GRANT, { type: 'allow' }, { requestDomains: granted, requestMethods: READ_METHODS, resourceTypes: ALL_TYPES });
    } else {
      add(PRIORITY_GRANT, { type: 'allow' }, { requestDomains: granted, resourceTypes: ALL_TYPES });
    }
  }
  return rules;
}

/**
 * The private network (see core/addresses.ts) in DNR terms. DNR matches the URL Chromium has already
 * canonicalised, so `http://2130706433/` and `http://0x7f.1/` are `http://127.0.0.1/` here. RE2 reads
 * the host: IPv4 private, link-local, CGNAT, unspecified, multicast and reserved ranges, IPv6 literals
 * that are loopback/unspecified/IPv4-mapped (`[::…`), unique-local, link-local, site-local or multicast
 * (`[fc..`–`[ff..`), NAT64 (`[64:ff9b:`) and 6to4 (`[2002:`), and single-label names; `requestDomains`
 * the private name suffixes. The floor is coarser than the evaluator for IPv6 (a NAT64 or mapped form of
 * a public address is refused too). Hosts the task names (domain list, constraints, allowed writes) are
 * excluded; a user grant's allow rule (higher priority) lifts it for the granted host.
 */
export const PRIVATE_HOST_PATTERNS = (() => {
  // One regex per range group: a single alternation of all of them exceeds RE2's 2 KB program limit
  // (measured with isRegexSupported in Chromium 156). Canonical IPv4 octets are 1–3 digits: `[0-9]+`.
  const scheme = '^(?:https?|wss?)://(?:[^/?#@]*@)?';
  const rest = '(?::[0-9]+)?(?:[/?#].*)?$';
  const n = '[0-9]+';
  return [
    `${scheme}(?:127|10|0|22[4-9]|2[3-5][0-9])\\.${n}\\.${n}\\.${n}${rest}`,
    `${scheme}(?:169\\.254|192\\.168|172\\.(?:1[6-9]|2[0-9]|3[01])|100\\.(?:6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])|198\\.1[89])\\.${n}\\.${n}${rest}`,
    `${scheme}(?:192\\.0\\.[02]|192\\.88\\.99|198\\.51\\.100|203\\.0\\.113)\\.${n}${rest}`,
    `${scheme}\\[(?:::|f[c-f][0-9a-f]{2}:|64:ff9b:|2002:).*$`,
    `${scheme}[^./?#@:\\[\\]]+${rest}`,
  ];
})();
export const PRIVATE_NAME_DOMAINS = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'intranet', 'private', 'corp', 'home', 'localdomain'];

/** DNR writes an IPv6 host in brackets, as the canonical URL does. */
function dnrDomain(site: string): string {
  return site.includes(':') ? `[${site}]` : site;
}

export function privateNetworkRules(input: FloorInput): RuleCondition[] {
  const { policy } = input;
  const named = sites([...(policy.domains ?? []), ...policy.constraints.flatMap((k) => k.domains ?? []), ...(input.floorWriteDomains ?? [])]).map(dnrDomain);
  const byAddress: RuleCondition[] = PRIVATE_HOST_PATTERNS.map((regexFilter) => ({ regexFilter }));
  const byName: RuleCondition = { regexFilter: '^.+$', requestDomains: PRIVATE_NAME_DOMAINS };
  // A blocked navigation fails and the background then shows the blocked page (check private_network, from the evaluator).
  return [...byAddress, byName].flatMap((condition) => [
    excluding({ ...condition, resourceTypes: ['main_frame'] }, named),
    excluding({ ...condition, resourceTypes: NON_NAVIGATION_TYPES }, named),
  ]);
}
