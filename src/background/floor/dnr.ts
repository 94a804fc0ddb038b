import type { Browser } from '@wxt-dev/browser';
import { BARE_HOST_PORTS, privateEndpointOf } from '../../core/addresses';
import { hostOf } from '../../core/domains';
import { allowedWriteRoutes } from '../../core/actions';
import { canonicalSite } from '../../core/org';
import type { TaskPolicy } from '../../core/policy';
import { isConsequential } from '../../core/risk';
import { taintRules, type RuleSpec } from '../../taint/rules';
import { writeRouteRules } from './dnr-writes';
import type { TaintToken } from '../../taint/tokens';

/**
 * The network floor: declarativeNetRequest rules derived from the policy. Whatever page code
 * does (natives restored from a fresh iframe, a Worker, a redirect chain), the browser itself refuses:
 *
 *  - top-level navigations (main_frame) to sites off the policy's domain list (when it is a list);
 *    a blocked top-level navigation fails with net::ERR_BLOCKED_BY_CLIENT (so `page.goto` rejects), and
 *    the background then shows the extension's `blocked.html` in the tab, which says why and offers to
 *    ask the user (src/background/index.ts, webNavigation.onErrorOccurred);
 *  - data-bearing methods (POST/PUT/PATCH/DELETE), beacons/pings, WebSockets and WebTransport to sites
 *    not allowed for writes;
 *  - requests from fetch/XHR/"other" (EventSource, …) and `<object>`/`<embed>` to sites off the domain
 *    list; a page's dependencies (images, media, scripts, styles, fonts, frames) from such sites load as
 *    GET, on the web's ports, with no data-shaped host name (`dependencyRules`, `portRules`), and what
 *    their URLs carry is bounded across requests by the dependency ledger (`ledgerRules`);
 *  - exfiltration-shaped URLs to every site not allowed for writes: userinfo, an e-mail address in the
 *    query, a long letter-digit run in the query;
 *  - the task's taint: session data the guarded pages showed or the agent typed, in any of its
 *    encodings, to any site the task does not name (`src/taint/rules.ts`). These are dynamic rules, the
 *    rest session rules (see `buildTaintRules`);
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
 * Every family applies twice: to the guarded tabs, and to requests without a tab (shared and service
 * workers), whatever site started them, but the extension's own (`workerScope`). The taint applies once, unscoped, under
 * allow rules for every request outside those two scopes (`outOfScope`).
 *
 * What RE2 in DNR cannot express, and is left to the evaluator (semantic layer) and the taint: entropy
 * tests, base64 runs that contain `+ / = _ -` (the class is too large to count), percent-decoding,
 * secret-looking parameter NAMES with short values, the parameter count, URL length, and anything in a
 * request body. Data a script encrypts before sending matches no taint; the dependency ledger bounds how
 * much of it the unnamed sites can receive in a task (docs/limits-floor.md).
 */

export type Rule = Browser.declarativeNetRequest.Rule;
type RuleCondition = Browser.declarativeNetRequest.RuleCondition;
type ResourceType = `${Browser.declarativeNetRequest.ResourceType}`;
type RequestMethod = `${Browser.declarativeNetRequest.RequestMethod}`;

/**
 * Which tabs the rules apply to: every tab but the excluded ones (the control windows' tabs and, for guard
 * scope `task-tabs`, the tabs known to be outside the task), so a tab opened a moment ago is guarded.
 */
export interface FloorScope {
  excludedTabIds: number[];
}

/** `chrome.tabs.TAB_ID_NONE`: requests that do not come from a tab (the worker, other extensions). */
export const TAB_ID_NONE = -1;

export const DATA_METHODS: RequestMethod[] = ['post', 'put', 'patch', 'delete'];
export const READ_METHODS: RequestMethod[] = ['get', 'head', 'options'];
const CHANNEL_TYPES: ResourceType[] = ['ping', 'websocket', 'webtransport', 'csp_report'];
const SCRIPTED_READ_TYPES: ResourceType[] = ['xmlhttprequest', 'other', 'webbundle'];
/** A page's dependencies: what it loads from other sites (CDNs, a video embed) to render. */
export const DEPENDENCY_TYPES: ResourceType[] = ['image', 'media', 'script', 'stylesheet', 'font', 'sub_frame'];
/** Every request type the floor names (Chromium's vocabulary; `rulesForBrowser` translates). */
export const ALL_TYPES: ResourceType[] = [
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

/**
 * Priorities. Grants (allow) beat every block but the taint's, the ledger's and the organisation's. The
 * plain blocks (by site and method) and the data blocks (exfiltration shapes, data in a host name, other
 * ports, the private network) both sit below the grants; they are kept apart so the rules read by intent.
 */
export const PRIORITY_BLOCK = 1;
export const PRIORITY_DATA_BLOCK = 20;
export const PRIORITY_GRANT = 100;
/**
 * The taint: above the grants. An approval gives the agent a site (to read, or to write what it approved),
 * not the data the task's pages showed: "Allow for this task" on a read of attacker.test let the agent
 * open it with the shown sign-in code in the address. The evaluator checks the taint before grants too.
 */
export const PRIORITY_TAINT = PRIORITY_GRANT + 1;
/** The organisation's blocked sites: above the grants, so no approval lifts them. */
export const PRIORITY_ORG = 1000;
/**
 * The floor's header changes (`browserFetcherRules`, `refererRules`): above every allow, since a
 * higher-priority allow (a grant) would keep a header modification off the request.
 */
export const PRIORITY_HEADERS = 2000;
/**
 * Requests outside the guard's scope (other tabs, workers of other sites): an allow just above the taint,
 * which cannot be scoped itself (see buildTaintRules). No other rule of the floor judges these requests.
 */
export const PRIORITY_OUT_OF_SCOPE = PRIORITY_TAINT + 1;

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

/*
 * RE2 in DNR is tight: Chromium compiles each regex with a 2 KB memory limit, and counted repetitions of
 * a class with many ranges (`[a-z0-9._~-]{40}`, `[^a-z0-9]{0,3}` repeated) exceed it quickly. Every
 * pattern below was measured with isRegexSupported in Chromium 156, and e2e/floor-exfil.spec.ts checks
 * each again; the unit tests pin their meaning with JS RegExp.
 */

/**
 * Data in a dependency's host name, which the resolver sees before any request rule could: a long label
 * below two more labels, or a host of 6+ labels. Calibrated against CDN hosts (`d1234abcd5678.cloudfront.net`,
 * `fonts.gstatic.com` pass). What a dependency's path and query carry is the dependency ledger's to
 * bound (src/taint/ledger.ts): until 2026-12-02 the floor judged their shape, which refused a Google
 * Fonts file name (a 26-character run), a 32-hex content hash and `?id=` on a tag manager, and let a key
 * cut into 11-character pieces through.
 */
export const DEPENDENCY_HOST_PATTERNS: { name: string; regex: string }[] = [
  { name: 'long-host-label', regex: '^[a-z]+://(?:[a-z0-9-]+\\.)*[a-z0-9-]{16,}\\.[a-z0-9-]+\\.[a-z]' },
  { name: 'many-host-labels', regex: '^[a-z][a-z0-9+.-]*://(?:[^/?#.:]+\\.){5,}[^/?#.:]+(?:[:/?#]|$)' },
];

/**
 * The most a dependency's path and query (from the `/` after the host on) may hold to a site the task does
 * not name, in characters: what one request can carry before the ledger, which sees it only as it leaves,
 * can refuse the site. RE2 in DNR counts no further: `[!-~]{96}` (one range, case-sensitive) compiled
 * in Chromium 156 with isRegexSupported, `{128}` did not. Ordinary dependency URLs are shorter (a Google
 * Fonts file: 71; a Cloudinary transform: 79); a presigned or heavily tracked URL is not (docs/limits-floor.md).
 */
export const MAX_DEPENDENCY_PATH = 96;
export const LONG_DEPENDENCY_URL = `^[a-z]+://[^/]+/[!-~]{${MAX_DEPENDENCY_PATH}}`;

/** The ports a site the task does not name may be reached on (with the named sites' own, see `portRules`). */
export const DEFAULT_PORTS = [80, 443];

export interface FloorInput {
  policy: TaskPolicy;
  /** Domains where the evaluator allowed a consequential request in this task. */
  floorWriteDomains?: readonly string[];
  /** The task's data-lane taint (what guarded pages showed or the agent typed). */
  taint?: readonly TaintToken[];
  /** What the taint's bound left out: one filter each (src/taint/tokens.ts, spillOver). */
  taintOverflow?: readonly TaintToken[];
  /** The organisation's blocked sites (core/org.ts): every request to them, above every grant. */
  orgBlockedSites?: readonly string[];
  /** Sites the dependency ledger refused (over their budget, or they received a token): every request. */
  ledgerRefusedSites?: readonly string[];
  /** The ledger's task budget is spent: every site the task does not name is refused. */
  ledgerRefusesAll?: boolean;
  /** Ports the named sites were reached on this task (the test servers' and dev servers' ports). */
  namedPorts?: readonly number[];
}

/**
 * The host an entry names: the floor is scoped to the host the user named, not its registrable domain
 * (a task naming `news.example.test` does not name `uploads.example.test`; DNR's domain conditions take
 * a host's subdomains with it; a leading `www.` is dropped). Entries the evaluator derived (write domains, grants) are registrable
 * domains already, and name their whole site.
 */
function site(domain: string): string | null {
  // `www.` names the site's front door, not a host apart: `www.example.test` redirects to `example.test`.
  return hostOf(domain)?.replace(/^www\.(?=[^.]+\.)/, '') ?? null;
}

/** Whether `host` is one of `named` or below one (what DNR's `requestDomains` matches). */
export function isNamedHost(host: string, named: readonly string[]): boolean {
  return named.some((n) => host === n || host.endsWith(`.${n}`));
}

function sites(domains: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const d of domains) {
    const s = site(d);
    if (s !== null) out.add(s);
  }
  return [...out].sort();
}

/**
 * Whether the policy allows any consequential action outright (then its domain list may receive writes).
 * What it only allows after approval is not: each approved action is a grant, with its own allow rule
 * while it has uses left, so an unhooked write (a worker's POST) is refused at the floor until then.
 */
function listsWrites(policy: TaskPolicy): boolean {
  const { allow } = policy;
  return (
    allow.tools.length > 0 || allow.capabilities.length > 0 || allow.classes.some(isConsequential) ||
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

/** The part of a rule's condition that says which requests of which tabs (or workers) it judges. */
type ScopeCondition = Pick<RuleCondition, 'tabIds' | 'excludedTabIds' | 'initiatorDomains' | 'excludedInitiatorDomains'>;

/**
 * Requests without a tab (tab id -1): shared and service workers, judged by the same rules as the guarded
 * tabs, whatever site started them — every initiator but the extension's own origin. The extension's own
 * requests (the LLM compiler's fetches from the worker) are evaluated against its own rules — Chromium skips
 * only requests initiated by *other* extensions (extensions/browser/api/declarative_net_request/
 * ruleset_manager.cc, ShouldEvaluateRulesetForRequest) — so its origin is left out.
 *
 * Until 2026-12-01 a task that reads from a list judged only the workers of the sites on it, on the belief
 * that a guarded tab cannot reach another site. A service worker breaks that: a navigation its scope covers
 * is answered by the worker without a network request, so no rule refuses it (Chromium 156, nohooks build).
 * A site the task does not name whose service worker was registered before the task (`evil.localhost`) was
 * opened in the guarded tab with the shown code in the address, and its worker POSTed the code home — a
 * worker of an unnamed site, outside that scope. `extensionId` is the extension's host.
 */
export function workerScope(extensionId: string): ScopeCondition {
  return { tabIds: [TAB_ID_NONE], excludedInitiatorDomains: [extensionId] };
}

function excluding(condition: RuleCondition, domains: readonly string[]): RuleCondition {
  return domains.length > 0 ? { ...condition, excludedRequestDomains: domains.map(dnrDomain) } : condition;
}

const BLOCK: Rule['action'] = { type: 'block' };

/** The sites reading may reach (navigation list plus write sites), or null when reading is not limited. */
function readableSites(input: FloorInput): string[] | null {
  const nav = navigationSites(input);
  return nav === null ? null : sites([...nav, ...writeSites(input)]);
}

/** The sites the task names: data may go there (reading list and write sites; only write sites when reading is open). */
export function namedSites(input: FloorInput): string[] {
  return readableSites(input) ?? writeSites(input);
}

/** Data-bearing requests and data channels to sites not allowed for writes. */
function dataRules(writes: string[]): RuleSpec[] {
  return [
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ regexFilter: '^.+$', requestMethods: DATA_METHODS, resourceTypes: ['main_frame'] }, writes) },
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ requestMethods: DATA_METHODS, resourceTypes: NON_NAVIGATION_TYPES }, writes) },
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ resourceTypes: CHANNEL_TYPES }, writes) },
  ];
}

/** Navigation, frames and scripted reads off the domain list. */
function namedSiteRules(readable: string[]): RuleSpec[] {
  return [
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ regexFilter: '^.+$', resourceTypes: ['main_frame'] }, readable) },
    // Frames load as dependencies (a video embed): `dependencyRules`.
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ resourceTypes: SCRIPTED_READ_TYPES }, readable) },
  ];
}

/** Exfiltration-shaped URLs to every site not allowed for writes. */
function exfilShapeRules(writes: string[]): RuleSpec[] {
  return EXFIL_PATTERNS.flatMap((pattern): RuleSpec[] => [
    { priority: PRIORITY_DATA_BLOCK, action: BLOCK, condition: excluding({ regexFilter: pattern.regex, resourceTypes: ['main_frame'] }, writes) },
    { priority: PRIORITY_DATA_BLOCK, action: BLOCK, condition: excluding({ regexFilter: pattern.regex, resourceTypes: NON_NAVIGATION_TYPES }, writes) },
  ]);
}

/**
 * A page's dependencies from sites the task does not name (images, media, scripts, styles, fonts, and
 * frames: a video embed) load as GET/HEAD (data methods and channels are `dataRules`'), and what their URLs
 * carry is bounded across requests by the dependency ledger (src/taint/ledger.ts, `ledgerRules`) and the
 * taint rules, not judged by the shape of one URL. Here, what one request can carry before the ledger has
 * seen it and that no ordinary dependency needs:
 *  - `<object>`/`<embed>` never load from such sites;
 *  - a path and query longer than MAX_DEPENDENCY_PATH characters;
 *  - data in the host name (a long label, or many labels), which the resolver sees;
 *  - a port other than the web's two and the named sites' own (`portRules`).
 * A redirect is judged as its own request (the browser runs the rules again for its target, for every
 * resource type), and the ledger is charged for it too.
 */
function dependencyRules(readable: string[]): RuleSpec[] {
  const rules: RuleSpec[] = [
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: excluding({ resourceTypes: ['object'] }, readable) },
    { priority: PRIORITY_DATA_BLOCK, action: BLOCK, condition: excluding({ regexFilter: LONG_DEPENDENCY_URL, isUrlFilterCaseSensitive: true, resourceTypes: NON_NAVIGATION_TYPES }, readable) },
  ];
  for (const pattern of DEPENDENCY_HOST_PATTERNS) {
    rules.push({ priority: PRIORITY_DATA_BLOCK, action: BLOCK, condition: excluding({ regexFilter: pattern.regex, resourceTypes: NON_NAVIGATION_TYPES }, readable) });
  }
  return rules;
}

/**
 * Ports to sites the task does not name: only 80, 443 and the ports the named sites themselves use (policy
 * entries written with one, and ports the guarded tabs reached a named site on, `namedPorts`). A port is
 * 16 bits a page picks freely: a code went out as the ports 40482 and 50913 of two image requests. RE2 has
 * no "not", so the other ports are spelled out from their digits (`portsOutside`), packed into regexes
 * within RE2's 2 KB in DNR. IP literals and private names have rules of their own (`privateNetworkRules`).
 */
export function portRules(input: FloorInput, readable: string[]): RuleSpec[] {
  const ports = new Set<number>([...DEFAULT_PORTS, ...(input.namedPorts ?? [])]);
  for (const entry of [...(input.policy.domains ?? []), ...input.policy.constraints.flatMap((k) => k.domains ?? [])]) {
    const port = writtenPort(entry);
    if (port !== null) ports.add(port);
  }
  const prefix = '^[a-z]+://[^/?#@:\\[\\]]+:';
  const listed = [...ports].sort((a, b) => a - b).slice(0, MAX_NAMED_PORTS).map(String);
  return packAlternatives(portsOutside(listed), PORT_REGEX_BUDGET - prefix.length).map((alternatives) => ({
    priority: PRIORITY_DATA_BLOCK,
    action: BLOCK,
    condition: excluding({ regexFilter: `${prefix}${alternatives}`, resourceTypes: ALL_TYPES }, readable),
  }));
}
/** The most ports the named sites may use (beyond it the floor refuses more, never fewer). */
export const MAX_NAMED_PORTS = 16;

/** The port written in a policy entry (`news.test:8080`, `http://news.test:8080/`), or null. */
function writtenPort(entry: string): number | null {
  const match = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:@]+):([0-9]{1,5})(?:[/?#]|$)/i.exec(entry.trim());
  const port = match === null ? NaN : Number(match[1]);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

/**
 * The dependency ledger's refusals (src/taint/ledger.ts): a site that went over its budget or received a
 * token is refused every request for the rest of the task; once the task's budget is spent, so is every
 * site the task does not name. Above the grants, as the taint is: an approval gives a site, not the data.
 */
function ledgerRules(input: FloorInput, readable: string[]): RuleSpec[] {
  const rules: RuleSpec[] = [];
  // A refused site may hold a named host (`uploads.example.test` refused, `news.example.test` named): it stays open.
  const refused = [...new Set(input.ledgerRefusedSites ?? [])].filter((s) => !isNamedHost(s, readable)).sort();
  if (refused.length > 0) rules.push({ priority: PRIORITY_TAINT, action: BLOCK, condition: excluding({ requestDomains: refused.map(dnrDomain), resourceTypes: NON_NAVIGATION_TYPES }, readable) });
  if (input.ledgerRefusesAll === true) rules.push({ priority: PRIORITY_TAINT, action: BLOCK, condition: excluding({ resourceTypes: NON_NAVIGATION_TYPES }, readable) });
  return rules;
}

/**
 * The private network (`privateNetworkRules`): an image with `?w=200` on a LAN address the task does not
 * name is blocked.
 */
function privateNetworkSpecs(input: FloorInput): RuleSpec[] {
  return privateNetworkRules(input).map((condition): RuleSpec => ({ priority: PRIORITY_DATA_BLOCK, action: BLOCK, condition }));
}

/**
 * No `Referer` to a site the task does not name (nor a user granted). A page can put anything in its own
 * URL without a request (`history.replaceState`) and ask for the whole URL to be sent on as the referrer
 * (`referrerpolicy="unsafe-url"`, `fetch(…, { referrer })`): an image from an unnamed site — an allowed
 * dependency, its URL clean — carried the code and the key the page showed, in full, in its `Referer`
 * (Chromium 156, nohooks build). DNR reads no request header, so the taint cannot see it there: the header
 * is removed instead. Sites the task names (and sites a user granted a write, which may check it on a form post) keep it.
 */
export function refererRules(input: FloorInput): RuleSpec[] {
  // A read grant gives a site to read, not what the task's pages showed (as with the taint): it loses the header too.
  const keep = sites([...namedSites(input), ...input.policy.grants.filter((grant) => grant.riskClass !== 'READ').flatMap((grant) => grant.domains)]);
  return [
    {
      priority: PRIORITY_HEADERS,
      action: { type: 'modifyHeaders', requestHeaders: [{ header: 'referer', operation: 'remove' }] },
      condition: excluding({ resourceTypes: ALL_TYPES }, keep),
    },
  ];
}

/**
 * The Reporting API's own configuration headers, removed from every response in the guarded tabs and their
 * workers. A response's `Reporting-Endpoints` (and the older `Report-To`, which `NEL` names) tells the browser
 * where to POST the document's reports — CSP violations (`report-to`), COOP/COEP, Document-Policy,
 * deprecations and interventions (the `default` endpoint) — and each report carries the document's URL,
 * which a page sets without a request (`history.pushState`) to anything it showed, and the CSP fields
 * (`blockedURL`, `sample`). The network service uploads them itself: no declarativeNetRequest rule and no
 * webRequest listener sees the upload (Chromium 156, nohooks build: a guarded page's pushed URL carrying its
 * code reached https://127.0.0.1 and https://evil.test). Without these headers a guarded document names no
 * endpoint, so its reports are not sent. (CSP `report-uri` reports are requests the floor sees:
 * `csp_report`, refused to sites not allowed for writes.) Sites' own reporting is off while a task runs.
 */
export const REPORTING_HEADERS = ['reporting-endpoints', 'report-to', 'nel'] as const;
export function reportingRules(): RuleSpec[] {
  return [
    {
      priority: PRIORITY_HEADERS,
      action: { type: 'modifyHeaders', responseHeaders: REPORTING_HEADERS.map((header) => ({ header, operation: 'remove' as const })) },
      condition: { resourceTypes: ALL_TYPES },
    },
  ];
}

/** Downloads, when the task does not allow LOCAL_WRITE (a grant for a site lifts this). */
function downloadRules(policy: TaskPolicy): RuleSpec[] {
  if (policy.ceilings.LOCAL_WRITE === 'allow') return [];
  return [
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: { responseHeaders: [{ header: 'content-disposition', values: ['attachment*'] }], resourceTypes: DOWNLOAD_TYPES } },
    { priority: PRIORITY_BLOCK, action: BLOCK, condition: { responseHeaders: [{ header: 'content-type', values: ['application/octet-stream*'] }], resourceTypes: ['main_frame', 'sub_frame'] } },
  ];
}

/**
 * User grants: allow rules for exactly the granted domains. A private host is granted down to its port
 * (`localhost:3000`, see core/addresses.ts): a regex for that host and port alone, never its other ports
 * or its subdomains, which `requestDomains` would include.
 */
function grantRules(policy: TaskPolicy): RuleSpec[] {
  const scopeOf = (riskClass: string): RuleCondition => (riskClass === 'READ' ? { requestMethods: READ_METHODS, resourceTypes: ALL_TYPES } : { resourceTypes: ALL_TYPES });
  const bySite = policy.grants.flatMap((grant): RuleSpec[] => {
    const granted = sites(grant.domains.filter((d) => privateEndpointOf(d) === null));
    if (granted.length === 0) return [];
    return [{ priority: PRIORITY_GRANT, action: { type: 'allow' }, condition: { ...scopeOf(grant.riskClass), requestDomains: granted.map(dnrDomain) } }];
  });
  // Private hosts: the read grants' endpoints together and the others' together, so each host costs a
  // few regexes however many approvals name it (Chromium allows 1,000 regex rules in all).
  const byEndpoint = [true, false].flatMap((read): RuleSpec[] => {
    const endpoints = privateEndpoints(policy.grants.filter((g) => (g.riskClass === 'READ') === read).flatMap((g) => g.domains));
    return endpointPatterns(endpoints).map((regexFilter) => ({ priority: PRIORITY_GRANT, action: { type: 'allow' }, condition: { ...scopeOf(read ? 'READ' : 'WRITE'), regexFilter } }));
  });
  return [...bySite, ...byEndpoint];
}

/**
 * RE2 for exactly these private hosts at exactly these ports (a scheme's default port is not written in
 * the canonical URL): one pattern per host and form, each within RE2's 2 KB in DNR.
 */
export function endpointPatterns(endpoints: ReadonlyMap<string, ReadonlySet<number>>): string[] {
  return [...endpoints].flatMap(([host, ports]) => {
    const h = hostPattern(host);
    const listed = [...ports].sort((a, b) => a - b).map(String);
    const fixed = `${URL_START}${h}:${URL_END}`.length;
    const out = packAlternatives(listed, ANCHORED_REGEX_BUDGET - fixed).map((alternatives) => `${URL_START}${h}:${alternatives}${URL_END}`);
    if (ports.has(80)) out.push(`^(?:http|ws)://(?:[^/?#@]*@)?${h}${URL_END}`);
    if (ports.has(443)) out.push(`^(?:https|wss)://(?:[^/?#@]*@)?${h}${URL_END}`);
    return out;
  });
}

/**
 * Taint budget (Chromium: 5,000 unsafe dynamic rules, 30,000 safe ones; 1,000 regex rules across the dynamic and session sets).
 * Blocks are safe rules; the taint stays under 5,000 all the same. Its 6-character filters take about 160 rules for a
 * 66-character key in all its encodings, so this holds some 30 keys.
 */
export const TAINT_BUDGET = { urlFilters: 4_800, regexes: 150 } as const;


/** The organisation's blocked sites (and their subdomains), whatever the task names or the user granted. */
function orgRules(input: FloorInput): RuleSpec[] {
  const blocked = [...new Set((input.orgBlockedSites ?? []).map(canonicalSite).filter((s) => s !== ''))].sort();
  if (blocked.length === 0) return [];
  return [{ priority: PRIORITY_ORG, action: BLOCK, condition: { requestDomains: blocked.map(dnrDomain), resourceTypes: ALL_TYPES } }];
}

/** Every rule family but the taint, unscoped: the same list is scoped to the guarded tabs and to their workers. */
function floorRuleSpecs(input: FloorInput): RuleSpec[] {
  const writes = writeSites(input);
  const readable = readableSites(input);
  return [
    ...dataRules(writes),
    // Writes to a site with action-bound routes: only the task's own routes (dnr-writes.ts).
    ...writeRouteRules(allowedWriteRoutes(input.policy), writes),
    ...(readable === null ? [] : [...namedSiteRules(readable), ...dependencyRules(readable), ...portRules(input, readable), ...ledgerRules(input, readable)]),
    ...exfilShapeRules(writes),
    // Its navigation blocks are emitted once, for every tab (buildSessionRules).
    ...privateNetworkSpecs(input).filter((spec) => !isMainFrameOnly(spec)),
    ...downloadRules(input.policy),
    ...refererRules(input),
    ...reportingRules(),
    ...grantRules(input.policy),
    ...orgRules(input),
  ];
}

/**
 * Requests the browser makes itself on a page's behalf reach the network without passing declarativeNetRequest
 * (nor webRequest): PaymentRequest fetches the payment method's manifest (`HEAD <method URL>` — any path and
 * query, and `http:` on loopback), FedCM fetches the identity provider's `/.well-known/web-identity` and its
 * config URL. Measured in Chromium 156 with the nohooks build: a page sent the code it showed to
 * 127.0.0.1 both ways while the floor refused the same URL as a fetch. Both APIs are gated by
 * Permissions Policy, so every document in a guarded tab gets `payment=()` and `identity-credentials-get=()`
 * appended to its `Permissions-Policy` (the last value of a feature wins, so a page's own header cannot
 * lift it); frames inherit it, and `new PaymentRequest` and `navigator.credentials.get({ identity })` fail.
 * A server that sends a malformed `Permissions-Policy` (`"`) makes Chromium drop the whole combined header,
 * ours included: the legacy `Feature-Policy` says the same and still applies then. It is set, not appended
 * (a quote left open in the page's own value swallowed what followed), so a site's legacy Feature-Policy
 * is replaced during a task.
 */
export const GUARDED_PERMISSIONS_POLICY = 'payment=(), identity-credentials-get=()';
export const GUARDED_FEATURE_POLICY = "payment 'none'; identity-credentials-get 'none'";
export function browserFetcherRules(): RuleSpec[] {
  return [
    {
      priority: PRIORITY_HEADERS,
      action: {
        type: 'modifyHeaders',
        responseHeaders: [
          { header: 'permissions-policy', operation: 'append', value: GUARDED_PERMISSIONS_POLICY },
          { header: 'feature-policy', operation: 'set', value: GUARDED_FEATURE_POLICY },
        ],
      },
      condition: { resourceTypes: ['main_frame', 'sub_frame'] },
    },
  ];
}

/**
 * The session rules for one policy. Pure: the same input, scope and extension id give the same rules.
 * Blocked top-level navigations fail (`net::ERR_BLOCKED_BY_CLIENT`, so an agent's `goto` rejects); the
 * background then shows why in the tab (see index.ts). The extension id scopes the worker rules.
 */
export function buildSessionRules(input: FloorInput, scope: FloorScope, extensionId: string): Rule[] {
  const workers = workerScope(extensionId);
  const rules: Rule[] = [];
  const emit = (spec: RuleSpec, where: ScopeCondition) => rules.push({ ...spec, id: rules.length + 1, condition: { ...spec.condition, ...where } });
  const specs = floorRuleSpecs(input);
  for (const spec of specs) emit(spec, { excludedTabIds: scope.excludedTabIds });
  for (const spec of browserFetcherRules()) emit(spec, { excludedTabIds: scope.excludedTabIds });
  // Workers make no top-level navigations; the rest applies to them as to their pages.
  for (const spec of specs) if (!isMainFrameOnly(spec)) emit(spec, workers);
  // Navigations to the private network are refused in every tab, as the taint's are: a task page can
  // navigate a tab outside the task (its opener, a window it named), and with guard scope `task-tabs` that
  // tab's GET to a router or a local service went out (a user grant lifts it in the guarded tabs only).
  for (const spec of privateNetworkSpecs(input)) if (isMainFrameOnly(spec)) emit(spec, {});
  // No resource type named, so main_frame is left out: the taint's rules hold for top-level navigations
  // in every tab, as a task page can navigate a tab outside the task (its opener, a window it named).
  for (const where of outOfScope(scope, extensionId)) emit({ priority: PRIORITY_OUT_OF_SCOPE, action: { type: 'allow' }, condition: {} }, where);
  return rules;
}

/**
 * The requests neither scope judges, as conditions: tabs outside the tab scope, and requests without a
 * tab whose initiator the worker scope leaves out (or all of them when it is null). A request with no
 * initiator at all is outside an `initiatorDomains` scope and inside an `excludedInitiatorDomains` one.
 */
function outOfScope(scope: FloorScope, extensionId: string): ScopeCondition[] {
  const excludedTabs = scope.excludedTabIds.filter((t) => t !== TAB_ID_NONE);
  const otherTabs: ScopeCondition[] = excludedTabs.length > 0 ? [{ tabIds: excludedTabs }] : [];
  // The only requests without a tab outside the worker scope: the extension's own.
  return [...otherTabs, { tabIds: [TAB_ID_NONE], initiatorDomains: [extensionId] }];
}

/**
 * The taint's rules: session data the task's pages showed or the agent typed, to any site the task does
 * not name. They are dynamic rules, one per pattern with no tab condition (dynamic rules cannot name tabs),
 * and the session rules' out-of-scope allows (PRIORITY_OUT_OF_SCOPE) keep them to the guard's two scopes.
 * Why dynamic: they change at every taint report, and Chromium rebuilds a session ruleset on the
 * browser's UI thread at each update (every rule re-indexed, every regex compiled) while page loads,
 * requests and the agent's own DevTools commands wait; a dynamic ruleset is rebuilt on the file sequence
 * (extensions/browser/api/declarative_net_request/rules_monitor_service.cc, UpdateSessionRulesInternal vs
 * UpdateDynamicRulesInternal). Priorities compare across an extension's rulesets.
 */
export function buildTaintRules(input: FloorInput): RuleSpec[] {
  if ((input.taint?.length ?? 0) + (input.taintOverflow?.length ?? 0) === 0) return [];
  return taintRules({ tokens: input.taint ?? [], overflow: input.taintOverflow, namedSites: namedSites(input), resourceTypes: ALL_TYPES, priority: PRIORITY_TAINT, budget: TAINT_BUDGET });
}

function isMainFrameOnly(spec: RuleSpec): boolean {
  const types = spec.condition.resourceTypes;
  return types !== undefined && types.length === 1 && types[0] === 'main_frame';
}

/**
 * The private network (see core/addresses.ts) in DNR terms. DNR matches the URL Chromium has already
 * canonicalised, so `http://2130706433/` and `http://0x7f.1/` are `http://127.0.0.1/` here. RE2 reads
 * the host: IPv4 private, link-local, CGNAT, unspecified, multicast and reserved ranges, IPv6 literals
 * that are loopback/unspecified/IPv4-mapped (`[::…`), unique-local, link-local, site-local or multicast
 * (`[fc..`–`[ff..`), NAT64 (`[64:ff9b:`) and 6to4 (`[2002:`), and single-label names; `requestDomains`
 * the private name suffixes. The floor is coarser than the evaluator for IPv6 (a NAT64 or mapped form of
 * a public address is refused too). Hosts the task names (domain list, constraints, allowed writes) are
 * excluded exactly (not their subdomains), and rules of their own refuse their other ports and their
 * subdomains (`namedPrivateHostRules`); a user grant's allow rule (higher priority) lifts it for the
 * granted host and port.
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
    // A single-label name, also with the root's trailing dot (`router.`, `_gateway.`): Chromium keeps the
    // dot in the URL, and the resolver answers it as it answers `router`.
    `${scheme}[^./?#@:\\[\\]]+\\.?${rest}`,
  ];
})();
export const PRIVATE_NAME_DOMAINS = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'intranet', 'private', 'corp', 'home', 'localdomain'];

/**
 * DNR writes an IPv6 host in brackets, as the canonical URL does: `::1` in a domain condition matched
 * nothing, so a task listing `[::1]:3000` had its own host refused by the navigation and read rules.
 */
function dnrDomain(site: string): string {
  return site.includes(':') && !site.startsWith('[') ? `[${site}]` : site;
}

export function privateNetworkRules(input: FloorInput): RuleCondition[] {
  const { policy } = input;
  // A private host is named down to its port (core/addresses.ts): the general rules leave out exactly the
  // named hosts, and each named host gets rules of its own for its other ports and its subdomains.
  const named = privateEndpoints([...(policy.domains ?? []), ...policy.constraints.flatMap((k) => k.domains ?? []), ...(input.floorWriteDomains ?? [])]);
  const hosts = [...named.keys()];
  const byAddress: RuleCondition[] = PRIVATE_HOST_PATTERNS.map((regexFilter) => excluding({ regexFilter }, hosts.map(dnrDomain)));
  const byName: RuleCondition = excluding({ regexFilter: '^.+$', requestDomains: PRIVATE_NAME_DOMAINS }, hosts.map(dnrDomain));
  const byNamedHost = [...named].flatMap(([host, ports]) => namedPrivateHostRules(host, ports, hosts));
  // A blocked navigation fails and the background then shows the blocked page (check private_network, from the evaluator).
  return [...byAddress, byName, ...byNamedHost].flatMap((condition) => [
    { ...condition, resourceTypes: ['main_frame'] },
    { ...condition, resourceTypes: NON_NAVIGATION_TYPES },
  ]);
}

/**
 * The private hosts among policy entries (or a grant's domains), each with the ports named for it: the
 * port written (or the scheme's), the default ports for a host written with neither (see siteKeysOf).
 */
export function privateEndpoints(entries: Iterable<string>): Map<string, Set<number>> {
  const all = new Map<string, Set<number>>();
  for (const entry of entries) {
    const endpoint = privateEndpointOf(entry);
    if (endpoint === null) continue;
    const ports = all.get(endpoint.host) ?? new Set<number>();
    for (const port of endpoint.port === null ? BARE_HOST_PORTS : [endpoint.port]) ports.add(port);
    all.set(endpoint.host, ports);
  }
  // Bounded, so the rules stay within Chromium's 1,000 regex rules and RE2's 2 KB a regex: what is past
  // the bound is refused at the floor (narrower than the evaluator, never wider).
  const out = new Map<string, Set<number>>();
  const hosts = [...all.keys()].filter((host) => host.length <= MAX_PRIVATE_HOST_LENGTH).sort().slice(0, MAX_PRIVATE_HOSTS);
  for (const host of hosts) out.set(host, new Set([...all.get(host)!].sort((a, b) => a - b).slice(0, MAX_PRIVATE_PORTS)));
  return out;
}

/** The most private hosts, and ports per host, the floor lets through for a task's names (and again for its grants). */
export const MAX_PRIVATE_HOSTS = 8;
export const MAX_PRIVATE_PORTS = 8;

const URL_START = '^(?:https?|wss?)://(?:[^/?#@]*@)?';
/** Where the authority ends: cheaper for RE2 than matching the rest of the URL. */
const URL_END = '(?:[/?#]|$)';

/**
 * The longest regexes the private-host rules write, in characters: RE2 in DNR compiles each within 2 KB
 * and the cost grows with the pattern. Measured with isRegexSupported in this setup's Chromium over hosts
 * of 10 to 60 characters: an anchored pattern with the userinfo class (`^(?:https?|wss?)://(?:[^/?#@]*@)?host:…`)
 * compiled up to 133 characters and failed from 136; a `[/@]host:` pattern of port alternatives up to
 * 281 and failed from 296. A host longer than MAX_PRIVATE_HOST_LENGTH gets no rules of its own (it stays
 * refused). e2e/private-network.spec.ts installs the largest policy the bounds allow.
 */
const ANCHORED_REGEX_BUDGET = 115;
const PORT_REGEX_BUDGET = 200;
export const MAX_PRIVATE_HOST_LENGTH = 48;

/** A host in an RE2 pattern as the canonical URL writes it: IPv6 in brackets, a name's root dot allowed. */
function hostPattern(host: string): string {
  if (host.includes(':')) return `\\[${escapeRegex(host)}\\]`;
  return `${escapeRegex(host)}\\.?`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The blocks for one named private host: every port but the named ones (`localhost:3000` named: 9222,
 * 5432 and the default ports are refused), and every subdomain (`admin.localhost`) but the named ones,
 * which have rules of their own. The canonical URL leaves a scheme's default port out, so the default
 * port's rule depends on the scheme: `http://localhost/` is port 80, `https://localhost/` 443.
 */
function namedPrivateHostRules(host: string, ports: ReadonlySet<number>, named: readonly string[]): RuleCondition[] {
  const h = hostPattern(host);
  const domain = dnrDomain(host);
  // RE2 in DNR compiles each regex within 2 KB (isRegexSupported): a port set as one
  // anchored pattern with a userinfo class and both scheme groups did not fit even for two ports. So each
  // part is a rule of its own, and the other ports' rule is kept to the host by `requestDomains` rather
  // than by anchoring the whole URL (a path that spells `/localhost:9222` on the named host is refused too).
  const others = packAlternatives(portsOutside([...ports].map(String)), PORT_REGEX_BUDGET - `[/@]${h}:`.length);
  const rules: RuleCondition[] = others.map((alternatives) => ({ regexFilter: `[/@]${h}:${alternatives}`, requestDomains: [domain] }));
  if (!ports.has(80)) rules.push({ regexFilter: `^(?:http|ws)://(?:[^/?#@]*@)?${h}${URL_END}`, requestDomains: [domain] });
  if (!ports.has(443)) rules.push({ regexFilter: `^(?:https|wss)://(?:[^/?#@]*@)?${h}${URL_END}`, requestDomains: [domain] });
  if (!host.includes(':') && !/^[0-9.]+$/.test(host)) {
    const inside = named.filter((other) => other.endsWith(`.${host}`));
    rules.push(excluding({ regexFilter: `${URL_START}[^/?#@:\\[\\]]+\\.${h}(?::[0-9]+)?${URL_END}` }, inside));
  }
  return rules;
}

/**
 * RE2 for a port that is none of `ports`, as alternatives to be read from the port's first digit on:
 * the port leaves the trie of the listed ports at some digit, or ends on a strict prefix of one (a
 * canonical http(s)/ws(s) URL always has a path, so `/` follows the port). RE2 has no lookahead, so "not
 * 3000" is written out: `[0-24-9]`, `3[1-9]`, `30[1-9]`, `300[1-9]`, `3000[0-9]`, `3/`, `30/`, `300/`.
 * Flat, so they can be packed into as many rules as RE2's 2 KB per regex needs (`packAlternatives`).
 */
export function portsOutside(ports: readonly string[]): string[] {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const port of ports) {
    let node = root;
    for (const digit of port) {
      let child = node.next.get(digit);
      if (child === undefined) node.next.set(digit, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const out: string[] = [];
  const visit = (node: Node, prefix: string): void => {
    const others = [...'0123456789'].filter((d) => !node.next.has(d));
    if (others.length > 0) out.push(`${prefix}${others.length === 10 ? '[0-9]' : others.length === 1 ? others[0] : `[${others.join('')}]`}`);
    if (prefix !== '' && !node.end) out.push(`${prefix}/`);
    for (const [digit, child] of [...node.next].sort(([x], [y]) => x.localeCompare(y))) visit(child, `${prefix}${digit}`);
  };
  visit(root, '');
  return out;
}

/** Alternatives in groups of at most `budget` characters, one regex each (see ANCHORED_REGEX_BUDGET). */
function packAlternatives(alternatives: readonly string[], budget: number): string[] {
  const groups: string[][] = [];
  let size = Infinity;
  for (const alternative of alternatives) {
    if (size + alternative.length + 1 > budget) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(alternative);
    size += alternative.length + 1;
  }
  return groups.map((group) => (group.length === 1 ? group[0]! : `(?:${group.join('|')})`));
}

/**
 * What the browser's declarativeNetRequest understands, where Chromium and Firefox differ:
 *  - `resourceTypes`: the values of `declarativeNetRequest.ResourceType` (Firefox 153 has no
 *    `webtransport` or `webbundle`, and names some requests Chromium folds into others: `beacon` apart
 *    from `ping`, `imageset` (srcset, `<picture>`) apart from `image`, `object_subrequest` apart from
 *    `object`, and `xslt`, `xml_dtd`, `web_manifest`, `speculative`, `json` apart from `other`);
 *  - `responseHeaders`: the response-header condition (Firefox 153 refuses it).
 */
export interface DnrSupport {
  resourceTypes: ReadonlySet<string>;
  responseHeaders: boolean;
}

/** Firefox's names for requests Chromium counts under one of the floor's types. */
const FIREFOX_EQUIVALENTS: Readonly<Record<string, readonly string[]>> = {
  ping: ['beacon'],
  image: ['imageset'],
  object: ['object_subrequest'],
  other: ['xslt', 'xml_dtd', 'web_manifest', 'speculative', 'json'],
};

/**
 * The floor's rules in this browser's vocabulary. Every rule keeps its meaning: a type the floor names
 * also covers the browser's finer-grained names for the same requests (so a beacon is blocked wherever a
 * ping is), and a type the browser does not have is dropped (it cannot occur there). A rule whose types
 * all vanish, or that needs a condition the browser lacks, is left out and returned in `dropped` so the
 * caller can say what is weaker.
 */
export function rulesForBrowser<T extends RuleSpec>(rules: readonly T[], support: DnrSupport): { rules: T[]; dropped: T[] } {
  const kept: T[] = [];
  const dropped: T[] = [];
  // Hundreds of rules share a handful of type lists (the taint's all carry ALL_TYPES): map each list once.
  const translated = new Map<string, ResourceType[]>();
  const inBrowser = (types: readonly ResourceType[]): ResourceType[] => {
    const key = types.join();
    let mapped = translated.get(key);
    if (mapped === undefined) {
      mapped = [...new Set(types.flatMap((t) => [t, ...(FIREFOX_EQUIVALENTS[t] ?? [])]))].filter((t) => support.resourceTypes.has(t)) as ResourceType[];
      translated.set(key, mapped);
    }
    return mapped;
  };
  for (const rule of rules) {
    const { condition } = rule;
    if (condition.responseHeaders !== undefined && !support.responseHeaders) {
      dropped.push(rule);
      continue;
    }
    if (condition.resourceTypes === undefined) {
      kept.push(rule);
      continue;
    }
    const types = inBrowser(condition.resourceTypes as ResourceType[]);
    if (types.length === 0) dropped.push(rule);
    // Unchanged rules stay the same objects (Chromium's vocabulary is the floor's): see taintRules.
    else if (types.length === condition.resourceTypes.length && types.every((t, i) => t === condition.resourceTypes![i])) kept.push(rule);
    else kept.push({ ...rule, condition: { ...condition, resourceTypes: types as Rule['condition']['resourceTypes'] } });
  }
  return { rules: kept, dropped };
}
