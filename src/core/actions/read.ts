import { APPS, type AppSpec, type RouteSpec } from './apps';
import { ACTIONS, ACTION_IDS, GENERAL_VERBS, type ActionId } from './vocabulary';
import { patternRegex } from './pattern';

/**
 * What a web request does and to what: its action and its object, read from what the site sends. A
 * known app's request is read from its routes and field shapes (./apps.ts); on any other site only the
 * account-security actions are read, from field shapes that only they carry (a public key as a value, a
 * `deploy_key[…]` or `personal_access_token[…]` field, a profile's `private_profile`). Never from one
 * word of a path or a username: `/-/transfer` on a forge moves a project, `/user/grant/edit` edits a user.
 */

export interface ActionReading {
  /** The action; null when the request is a write of a known app that none of its routes describes. */
  id: ActionId | null;
  /** The canonical object acted on (`issue:byteblaze/dotfiles#1000`, `post:130944`); null when unread. */
  object: string | null;
  /** The known app whose routes read it; null for the field shapes read on any site. */
  app: string | null;
  /** Why, in words: the route or field that decided. */
  why: string;
  /**
   * The action this one is a step of, on a site the table does not know: a cart add edits the cart and is
   * part of an order; a newsletter switch edits a setting and (un)subscribes. Words that ask for either grant it.
   */
  alsoAs?: ActionId;
}

/**
 * A step of an order, not the order (a cart add, read as an edit of the cart `alsoAs` order): it moves no money, and
 * under words that ask for the order it is decided as part of it, counted apart from the order's placement
 * (evaluator.ts: one order's cart adds never use up the order).
 */
export function isOrderStep(reading: ActionReading | undefined): boolean {
  return reading !== undefined && reading.alsoAs === 'order' && reading.id !== 'order';
}

export interface WebRequestView {
  url: string;
  method: string;
  /** Form fields or a parsed body; a string body is read as JSON or form encoding by the caller. */
  body: unknown;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A route's URLPattern pathname as a matcher, built once per route (the table is data; compiling it is the
 * costly part). The same translation gives the network floor its rules (./routes.ts): one reading of a
 * pattern for both.
 */
const compiled = new WeakMap<object, RegExp>();
function patternOf(spec: { path: string }): RegExp {
  let p = compiled.get(spec);
  if (p === undefined) compiled.set(spec, (p = new RegExp(patternRegex(spec.path, new Map(), { groups: true }))));
  return p;
}

function hostMatches(host: string, hosts: readonly string[]): boolean {
  return hosts.some((h) => host === h || host.endsWith(`.${h}`));
}

/** The known app served on this host, if any. */
export function appOfHost(host: string): AppSpec | null {
  const h = host.toLowerCase().replace(/\.$/, '');
  return APPS.find((a) => hostMatches(h, a.hosts)) ?? null;
}

/** The known app a URL is served by: by its host, else by a path shape only that app uses. */
export function appOfUrl(url: URL): AppSpec | null {
  return appOfHost(url.hostname) ?? APPS.find((a) => a.signature !== undefined && a.signature.test(url.pathname)) ?? null;
}

function urlOf(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * A body or form as flat fields: `user[email]`, and for JSON both `user.email` and `user[email]`;
 * GraphQL `variables` also without their prefix (`input.projectPath`). Values as strings.
 */
export function flatFields(body: unknown): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, value: string) => out.set(key, [...(out.get(key) ?? []), value]);
  const walk = (value: unknown, dotted: string, bracketed: string, depth: number) => {
    if (depth > 8) return;
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      if (value.every((v) => typeof v !== 'object' || v === null)) {
        for (const v of value.slice(0, 200)) {
          add(dotted, String(v));
          if (bracketed !== dotted) add(bracketed, String(v));
          add(`${bracketed}[]`, String(v));
        }
      } else value.slice(0, 50).forEach((v, i) => walk(v, `${dotted}.${i}`, `${bracketed}[${i}]`, depth + 1));
      return;
    }
    if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, 500)) {
        walk(v, dotted === '' ? k : `${dotted}.${k}`, bracketed === '' ? k : `${bracketed}[${k}]`, depth + 1);
      }
      return;
    }
    add(dotted, String(value));
    if (bracketed !== dotted) add(bracketed, String(value));
  };
  walk(body, '', '', 0);
  for (const [k, v] of [...out]) if (k.startsWith('variables.')) for (const one of v) add(k.slice('variables.'.length), one);
  return out;
}

/**
 * A known app's fields with the URL's query parameters added: the apps read a write's parameters from both
 * (Rails' `params` merges the query over the body: `POST …/notes?target_iid=1001` with `target_iid=1000`
 * in the body notes on 1001). A name in both holds both values, and a route reads no object from a name with
 * two values, so the body cannot name one object while the query names another. (The method override is
 * read from the body alone, as Rack's MethodOverride reads it.)
 */
function withQuery(fields: ReadonlyMap<string, string[]>, url: URL): Map<string, string[]> {
  const out = new Map(fields);
  for (const [k, v] of url.searchParams) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

/** The method a Rails form means (`_method=delete` on a POST). */
function effectiveMethod(method: string, fields: ReadonlyMap<string, string[]>): string {
  const m = method.toUpperCase();
  const override = fields.get('_method')?.[0]?.toUpperCase();
  return m === 'POST' && override !== undefined && WRITE_METHODS.has(override) ? override : m;
}

/** A template such as `issue:{project}#{iid}` filled from the path's groups and the fields; null when a name is missing. */
function fill(template: string, params: ReadonlyMap<string, string>): string | null {
  let missing = false;
  const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params.get(name);
    if (v === undefined || v === '') missing = true;
    return v ?? '';
  });
  return missing ? null : filled;
}

function objectOf(templates: readonly string[] | undefined, params: ReadonlyMap<string, string>): string | null {
  for (const t of templates ?? []) {
    const o = fill(t, params);
    if (o !== null) return canonicalObject(o);
  }
  return null;
}

/** One spelling per object: lower case, no trailing slash or `.json`, decoded. */
export function canonicalObject(object: string): string {
  return decoded(object).toLowerCase().replace(/\.json$/, '').replace(/\/+$/, '');
}

function routeMatches(route: RouteSpec, method: string, pathname: string, fields: ReadonlyMap<string, string[]>): Map<string, string> | null {
  if (!route.methods.includes(method)) return null;
  const m = patternOf(route).exec(pathname);
  if (m === null) return null;
  if (route.fields !== undefined && !route.fields.some((f) => fields.has(f))) return null;
  for (const [f, allowed] of Object.entries(route.values ?? {})) {
    const got = fields.get(f) ?? [];
    if (got.length === 0 || !got.every((v) => allowed.includes(v.trim().toLowerCase()))) return null;
  }
  const params = new Map<string, string>();
  for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) params.set(k, decoded(v));
  for (const [k, v] of fields) if (!params.has(k) && v.length === 1) params.set(k, v[0]!);
  return params;
}

function readApp(app: AppSpec, method: string, url: URL, fields: ReadonlyMap<string, string[]>): ActionReading {
  const pathname = url.pathname;
  if (app.graphql !== undefined && pathname === app.graphql.path) {
    // (One name: the query and the body naming two operations read as none the guard knows.)
    const ops = fields.get('operationName') ?? [];
    const op = ops.length === 1 ? ops[0] : undefined;
    const known = op === undefined ? undefined : Object.hasOwn(app.graphql.operations, op) ? app.graphql.operations[op] : undefined;
    if (known === undefined) return { id: null, object: null, app: app.app, why: `${app.title} GraphQL operation ${op ?? '(unnamed)'} is not one the guard knows` };
    const params = new Map<string, string>();
    for (const [k, v] of fields) if (v.length === 1) params.set(k, v[0]!);
    return { id: known.action, object: objectOf(known.object, params), app: app.app, why: `${app.title} GraphQL ${op}` };
  }
  for (const route of app.routes) {
    const params = routeMatches(route, method, pathname, fields);
    if (params === null) continue;
    const reading: ActionReading = { id: route.action, object: objectOf(route.object, params), app: app.app, why: `${app.title} route ${method} ${route.path}` };
    return withCommand(app, reading, fields);
  }
  return { id: null, object: null, app: app.app, why: `${method} ${pathname} is no route of ${app.title} the guard knows` };
}

/**
 * A text that runs a command (`/merge` on a line of a GitLab comment) is that command on the same object,
 * not the comment it looks like: the first command line decides; a command the table marks null (one the
 * guard does not name: `/move`, `/clone`) reads as an unknown action, which asks; a line that is no command
 * of the app stays text.
 */
function withCommand(app: AppSpec, reading: ActionReading, fields: ReadonlyMap<string, string[]>): ActionReading {
  if (app.commands === undefined || reading.id === 'merge' || reading.id === 'close') return reading;
  for (const f of app.commands.fields) {
    for (const text of fields.get(f) ?? []) {
      for (const m of text.slice(0, 65_536).matchAll(/^[ \t]*\/([a-z_]+)/gim)) {
        const name = m[1]!.toLowerCase();
        // (A line such as "/path/to/file is broken" runs nothing: the app runs only the commands it has.)
        if (!Object.hasOwn(app.commands.actions, name)) continue;
        return { id: app.commands.actions[name]!, object: reading.object, app: app.app, why: `${reading.why}, whose text runs the quick action /${name}` };
      }
    }
  }
  return reading;
}

/** The object a page URL names on a known app (`…/-/issues/1000` → `issue:byteblaze/dotfiles#1000`); null otherwise. */
export function objectOfPage(raw: string): string | null {
  const url = urlOf(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  if (url === null) return null;
  const app = appOfUrl(url);
  if (app === null) return null;
  for (const page of app.pages) {
    const m = patternOf(page).exec(url.pathname.replace(/\/+$/, '') || '/');
    if (m === null) continue;
    const params = new Map<string, string>();
    for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) params.set(k, decoded(v));
    return objectOf([page.object], params);
  }
  return null;
}

const PUBLIC_KEY = /^\s*(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+[A-Za-z0-9+/=]{16,}/;
const PGP_KEY = /-----BEGIN PGP PUBLIC KEY BLOCK-----/;

/** Field-name shapes that only an account-security action carries, on any site. */
const SECURITY_FIELDS: readonly [ActionId, RegExp][] = [
  ['deploy_key', /^deploy_(?:key|token)s?\[/i],
  ['access_token', /^(?:personal_)?access_token\[|^token\[scopes\]|^personal_access_token/i],
  ['api_key', /^api_key\[/i],
  ['oauth_app', /^(?:doorkeeper_|oauth_)application\[/i],
  ['webhook', /^(?:web)?hook\[url\]$|^webhook_?url$|^payload_url$/i],
  ['two_factor', /^(?:otp_attempt|pin_code|otp_secret|totp(?:_code)?|two_?factor(?:_auth)?|2fa|mfa(?:_enabled)?|recovery_codes?)$/i],
  ['email_change', /^(?:user\[(?:unconfirmed_)?email\]|email\[email\]|new_?email|email_new|change_email)$/i],
  ['phone_change', /^(?:user\[phone(?:_number)?\]|new_?phone(?:_number)?)$/i],
  ['visibility', /^(?:user\[private_profile\]|private_profile|project\[visibility(?:_level)?\]|visibility(?:_level)?|profile_visibility|is_private|make_public)$/i],
  ['transfer_ownership', /^(?:new_namespace_id|new_owner(?:_id)?|transfer_to_(?:user|owner|namespace)|transfer_?ownership|make_?owner)$/i],
];
/** Fields that carry the text of a new post or message (its last name part: `status`, `post[body]`, `commentary`). */
const POSTED_TEXT_FIELD = /(?:^|[[._])(?:status|text|body|content|commentary|message|caption|tweet_text|note)\]?$/i;
/** A role field that makes someone the owner (a share as `role: owner`) hands the thing over: a transfer of ownership. */
const ROLE_FIELD = /^(?:role|access_?level|permission)$/i;
/**
 * Path segments that are an account-security resource's own compound name (`/settings/api-keys`,
 * `/user/ssh_keys`): two words that together name nothing else. A single word (`keys`, `hooks`,
 * `transfer`) never decides.
 */
const SECURITY_SEGMENTS: readonly [ActionId, RegExp][] = [
  ['deploy_key', /^deploy[-_]?(?:keys?|tokens?)$/i],
  ['ssh_key', /^ssh[-_]?keys?$/i],
  ['gpg_key', /^gpg[-_]?keys?$/i],
  ['access_token', /^(?:personal[-_]?)?access[-_]?tokens?$/i],
  ['api_key', /^api[-_]?keys?$/i],
  ['oauth_app', /^oauth[-_]?(?:apps?|applications?)$/i],
  ['two_factor', /^(?:two[-_]?factor(?:[-_]?auth(?:entication)?)?|2fa|mfa|recovery[-_]?codes)$/i],
  ['webhook', /^web[-_]?hooks?$/i],
];
/** A field that sends mail on to an address (`forward_to`, `forwarding_address`, `redirect_target`). */
const FORWARD_FIELD = /forward|redirect/i;
/** A field that says what a mail rule does with a message, and the values that send it on (`vacation_action=redirect`). */
const RULE_ACTION_FIELD = /(?:^|[_.[-])(?:action|mode|type|do)\]?$/i;
const FORWARD_VALUE = /^(?:redirect|forward|forward_?copy|redirect_?copy|copy_?to|fwd)$/i;
/**
 * A field's name without the row numbers a form with repeated rows gives it (`_action_type[0]`, `actions[1][type]`,
 * `rule.0.action`): a filter's first rule is read as the rule it is.
 */
const unnumbered = (name: string) => name.replace(/\[\d+\]|\.\d+(?=\.|$)/g, '');
/** A message being written names its recipients in these: a compose form is a message, not a mail rule. */
const COMPOSE_RECIPIENT_FIELD = /^_?(?:to|cc|bcc|recipients?)$/i;
const MAIL_ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A mail rule that sends the account's mail on to an address (an auto-forward, a redirect in an out-of-office
 * rule): a field named for forwarding that holds an address, or a rule's action field set to redirect/forward
 * beside a field that holds an address. Mail keeps leaving to that address after the task: account security.
 */
function readMailForward(fields: ReadonlyMap<string, string[]>): ActionReading | null {
  const names = [...fields.keys()];
  if (names.some((n) => COMPOSE_RECIPIENT_FIELD.test(unnumbered(n)))) return null;
  const addressed = names.filter((n) => (fields.get(n) ?? []).some((v) => MAIL_ADDRESS.test(v.trim())));
  const named = addressed.find((n) => FORWARD_FIELD.test(n));
  if (named !== undefined) return { id: 'mail_forward', object: null, app: null, why: `field ${named} sends mail on to an address` };
  const rule = names.find((n) => RULE_ACTION_FIELD.test(unnumbered(n)) && (fields.get(n) ?? []).some((v) => FORWARD_VALUE.test(v.trim())));
  if (rule !== undefined && addressed.length > 0) return { id: 'mail_forward', object: null, app: null, why: `field ${rule} sends mail on to the address in ${addressed[0]}` };
  return null;
}

/**
 * A write to the account's own e-mail or phone resource (`PUT /api/account/email`, `/me/phone`) that carries a
 * new address or number: the route's last word and the value together, never either alone (`/account/email`
 * with `newsletter=off` is a newsletter switch).
 */
const IDENTITY_FIELDS: readonly [ActionId, RegExp, RegExp][] = [
  ['email_change', /^(?:new)?e?mail(?:address)?$/, MAIL_ADDRESS],
  ['phone_change', /^(?:new)?(?:mobile|mobilephone|phone|phonenumber|mobilenumber|cellphone)$/, /^\+?[\d\s().-]{6,}$/],
];
/** Route words of the account's own identity resources (`/api/account/email`, `/me/phone`, `/profile/contact`, `users.profile.set`). */
const IDENTITY_ROUTE_WORDS = new Set(['email', 'emails', 'mail', 'phone', 'phones', 'mobile', 'profile', 'profiles', 'account', 'me', 'user', 'users', 'security', 'settings', 'identity']);
/** Route words of writes that carry someone's address without setting the account's (an invite, a sign-up, a share). */
const ADDRESSING_ROUTE_WORDS = new Set(['invite', 'invites', 'invitation', 'invitations', 'register', 'signup', 'subscribe', 'share', 'member', 'members', 'message', 'messages']);
/**
 * A write to the account's own identity resource that carries a new e-mail address or phone number: the route
 * and the value together, never either alone (`/account/email` with `newsletter=off` is a newsletter switch; a
 * shipping address's `telephone` is where a parcel goes). An address before a number: a write that changes both
 * changes where the account's mail goes.
 */
function readIdentityRoute(url: URL, fields: ReadonlyMap<string, string[]>): ActionReading | null {
  const route = url.pathname.split('/').filter((x) => x !== '').flatMap((x) => decoded(x).toLowerCase().split(/[^a-z]+/));
  if (!route.some((w) => IDENTITY_ROUTE_WORDS.has(w)) || route.some((w) => ADDRESSING_ROUTE_WORDS.has(w))) return null;
  // (A message's text beside the address — a contact form's `message` — sends it; it sets nothing.)
  if ([...fields.keys()].some((n) => POSTED_TEXT_FIELD.test(n))) return null;
  for (const [id, field, value] of IDENTITY_FIELDS) {
    const hit = [...fields].find(([name, values]) => field.test(name.replace(/^.*[[.]/, '').replace(/[^a-z]/gi, '').toLowerCase()) && values.some((v) => value.test(v.trim())));
    if (hit !== undefined) return { id, object: null, app: null, why: `field ${hit[0]} of the account's ${route.filter((w) => IDENTITY_ROUTE_WORDS.has(w)).at(-1)!} carries a new value` };
  }
  return null;
}

const MONEY_FIELDS = /^(?:amount|sum|total|price|iban|payee|beneficiary|account(?:_?number)?|card(?:_?number)?)$/i;

/** Account-security actions read from field shapes (and compound path names) on a site the table does not know; null when none. */
function readSecurityFields(fields: ReadonlyMap<string, string[]>, url: URL): ActionReading | null {
  const names = [...fields.keys()];
  if (names.some((n) => MONEY_FIELDS.test(n))) return null;
  for (const segment of url.pathname.split('/').map(decoded)) {
    const hit = SECURITY_SEGMENTS.find(([, shape]) => shape.test(segment));
    if (hit !== undefined) return { id: hit[0], object: null, app: null, why: `URL path names ${segment}` };
  }
  for (const [id, shape] of SECURITY_FIELDS) {
    const hit = names.find((n) => shape.test(n));
    // (A post's audience beside its text — `{status, visibility: unlisted}`, `{commentary, visibility: ANYONE}` — is
    // who sees the new post, not the account's or a project's visibility.)
    if (hit !== undefined && id === 'visibility' && names.some((n) => POSTED_TEXT_FIELD.test(n))) continue;
    if (hit !== undefined) return { id, object: null, app: null, why: `carries a ${hit} field` };
  }
  const forward = readMailForward(fields);
  if (forward !== null) return forward;
  const identity = readIdentityRoute(url, fields);
  if (identity !== null) return identity;
  for (const [name, values] of fields) {
    if (ROLE_FIELD.test(name) && values.some((v) => /^owner$/i.test(v.trim()))) return { id: 'transfer_ownership', object: null, app: null, why: `field ${name} makes someone the owner` };
    if (values.some((v) => PUBLIC_KEY.test(v))) return { id: /deploy/i.test(name) ? 'deploy_key' : 'ssh_key', object: null, app: null, why: `field ${name} carries a public key` };
    if (values.some((v) => PGP_KEY.test(v))) return { id: 'gpg_key', object: null, app: null, why: `field ${name} carries a PGP public key` };
  }
  return null;
}

/**
 * REST routes that end in the action they take (`/orders/991/cancel`, `/groups/5/leave`, `/pulls/17/merge`):
 * on a site the table does not know, the last segment of a write's path names its action when it is one
 * of these verbs (never a noun elsewhere in the path). Read for binding only: the class stays the heuristics'.
 */
const ROUTE_VERBS: ReadonlyMap<string, ActionId> = new Map(ACTION_IDS.flatMap((id) => ACTIONS[id].routes.map((w): [string, ActionId] => [w, id])));
const PLAN_WORDS = new Set(['membership', 'memberships', 'subscription', 'subscriptions', 'plan', 'plans']);

/** Where a generic write goes, when its form says: a chat channel (`channel=#releases`), as `channel:releases`. */
function channelObject(fields: ReadonlyMap<string, string[]>): string | null {
  const values = fields.get('channel') ?? [];
  return values.length === 1 && /^#?[\p{L}\p{N}_-]{1,80}$/u.test(values[0]!) ? canonicalObject(`channel:${values[0]!.replace(/^#/, '')}`) : null;
}

/** A path's segments, decoded and in lower case, without the key/value parameters written after the action's own word. */
function routeSegments(url: URL): string[] {
  const segments = url.pathname.split('/').filter((x) => x !== '').map((x) => decoded(x).toLowerCase());
  // (`…/order/cancel/order_id/299/`, `…/review/product/post/id/7710/`: parameters as key/value segments.)
  while (segments.length >= 3 && /^(?:[a-z]+_)?id$/.test(segments.at(-2)!) && /^[\w-]+$/.test(segments.at(-1)!)) segments.splice(-2, 2);
  return segments;
}

function readRouteVerb(url: URL, method: string, fields: ReadonlyMap<string, string[]>): ActionReading | null {
  if (method === 'DELETE') return { id: 'delete', object: null, app: null, why: 'DELETE request' };
  const segments = routeSegments(url);
  const last = segments.at(-1);
  const id = last === undefined ? undefined : ROUTE_VERBS.get(last);
  if (id === undefined) return readOperation(url, segments, fields);
  // (`/review/product/post`: "post" is how the review is sent; the resource the route names is what is made.)
  const made = id === 'post' ? resourceAction(segments.slice(0, -1)) : null;
  if (made !== null) return { ...made, why: `the route posts to ${made.why}` };
  return { id: id === 'cancel_order' && segments.some((x) => PLAN_WORDS.has(x)) ? 'plan_cancel' : id, object: channelObject(fields), app: null, why: `the route ends in ${last}` };
}

/** Verbs that say what an operation does as its first word (`FavoriteTweet`, `dm/new`), beyond the actions' own. */
const GENERAL_OPERATION_VERBS = new Set([...GENERAL_VERBS, 'new', 'send', 'submit', 'save', 'do', 'post', 'api', 'v1', 'v2', 'json']);
const CREATE_WORDS = new Set(['create', 'new', 'add', 'post']);
const OPERATION_VERBS: ReadonlyMap<string, ActionId> = new Map(
  ACTION_IDS.flatMap((id) => ACTIONS[id].verbs.filter((v) => !GENERAL_OPERATION_VERBS.has(v) && !['set', 'change', 'update', 'edit', 'modify', 'move', 'fix', 'correct', 'create', 'text', 'email'].includes(v)).map((v): [string, ActionId] => [v, id])),
);
const OPERATION_NOUNS: ReadonlyMap<string, ActionId> = new Map(
  ACTION_IDS.filter((id) => !ACTIONS[id].security).flatMap((id) => ACTIONS[id].nouns.filter((n) => !n.includes(' ')).map((n): [string, ActionId] => [n, id])),
);

/**
 * An RPC or GraphQL operation named by what it does (`…/graphql/<id>/CreateRetweet`, `operationName: FavoriteTweet`,
 * `…/friendships/create.json`, `…/dm/new2.json`), on a site the table does not know: its first word when that is
 * an action's own verb, else, after a general verb, the action a noun of it names. For binding only, as a route's
 * last word; null when its words name no action.
 */
function readOperation(url: URL, segments: readonly string[], fields: ReadonlyMap<string, string[]>): ActionReading | null {
  const ops = fields.get('operationName') ?? [];
  const raw = ops.length === 1 ? ops[0]! : url.pathname.split('/').filter((x) => x !== '').at(-1) ?? '';
  const named = raw.replace(/\.(?:json|php|aspx?)$/i, '');
  const words = named.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z]+/).filter((w) => w !== '');
  // A noun names the action only after a creating verb of the same name (`CreateTweet`), or, for a bare REST
  // create (`friendships/create.json`, `dm/new2.json`), as the resource before it.
  // (One word is never enough: `/transfer` may move a project or money. A name of two words or more says it.)
  if (words.length < 2 && !(words.length === 1 && CREATE_WORDS.has(words[0]!))) return null;
  let creates = words.length > 0 && CREATE_WORDS.has(words[0]!);
  if (words.length > 0 && words.every((w) => CREATE_WORDS.has(w)) && segments.length >= 2 && ops.length !== 1) words.push(...segments.at(-2)!.split(/[^a-z]+/));
  else if (words.length === 0) creates = false;
  const first = words.find((w) => !GENERAL_OPERATION_VERBS.has(w));
  if (first === undefined) return null;
  const id = OPERATION_VERBS.get(first) ?? OPERATION_VERBS.get(first.replace(/s$/, '')) ?? (creates ? (OPERATION_NOUNS.get(first) ?? OPERATION_NOUNS.get(first.replace(/s$/, ''))) : undefined);
  return id === undefined ? null : { id, object: channelObject(fields), app: null, why: `the operation ${named} ${ACTIONS[id].says.replace(/ (?:on|to|of|in)$/, '')}` };
}

/**
 * Resources whose name says what a write to them does, on a site the table does not know (Magento's
 * `checkout/cart/add`, `wishlist/index/add`, `rma/returns/submit`, `review/product/post`; `/api/cart`): the
 * nearest such segment to the end decides.
 */
const RESOURCES: readonly [RegExp, Omit<ActionReading, 'why' | 'object' | 'app'>, string][] = [
  [/^(?:cart|carts|basket|shopping[-_]?cart)$/, { id: 'edit', alsoAs: 'order' }, 'the cart'],
  [/^(?:wishlist|wish[-_]list|wishlists)$/, { id: 'edit' }, 'a wish list'],
  [/^(?:review|reviews)$/, { id: 'comment' }, 'a review'],
  [/^(?:rma|returns?)$/, { id: 'return_order' }, 'a return'],
  [/^(?:newsletter|newsletters)$/, { id: 'edit', alsoAs: 'follow' }, 'a newsletter subscription'],
];
/** Segments that say money moves or an order is acted on: a resource before them (`carts/mine/payment-information`) is not what is written. */
const MONEY_SEGMENT = /^(?:payment[-_]?information|payments?|pay|place[-_]?order|placeorder|orders?|checkout)$/;
function resourceAction(segments: readonly string[]): ActionReading | null {
  for (let i = segments.length - 1; i >= 0; i--) {
    if (MONEY_SEGMENT.test(segments[i]!)) return null;
    const hit = RESOURCES.find(([shape]) => shape.test(segments[i]!));
    if (hit !== undefined) return { ...hit[1], object: null, app: null, why: hit[2] };
  }
  return null;
}

/** A POST to a collection of these makes a new one (`POST /me/app/pulls`, `/api/now/table/incident`): a new post. */
const POSTED_COLLECTIONS = new Set(['issues', 'pulls', 'pull-requests', 'pull_requests', 'posts', 'threads', 'topics', 'tickets', 'incident', 'incidents', 'submissions', 'discussions', 'questions']);
/** Words of a route or operation that save a change to something that exists (`…/save`, `users.profile.set`, `update_profile`, `save-prefs`). */
const SAVE_WORDS = new Set(['save', 'update', 'edit', 'set', 'formpost', 'editpost', 'modify']);
/** A route's last words that name a setting or a profile of the account (`/profile/status`, `/account/plan`). */
const SETTING_NOUNS = new Set(['settings', 'preferences', 'prefs', 'profile', 'status', 'address', 'addresses']);
const PLAN_FIELD = /^(?:plan|plan_id|tier|membership)$/i;
const SUBSCRIBED_FIELD = /^(?:newsletter|is_subscribed|subscribed|subscribe)$/i;
/** A button that saves what a form changes. */
const SAVE_BUTTON = /^\s*(?:save|update|apply|save changes|submit changes|confirm changes)\b/i;
const wordsOf = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z]+/).filter((w) => w !== '');

/**
 * What a write the vocabulary's routes and operations do not name does, read from what it is sent to and
 * what it carries, on a site the table does not know, for a write the heuristics read as a plain write
 * (a payment and a message are read from their money and recipients, and bound by them). Null when
 * nothing says: an unread write, which asks under words that name actions there (./binding.ts).
 */
export function readGenericWrite(req: WebRequestView & { submitText?: string }): ActionReading | null {
  const url = urlOf(req.url);
  if (url === null || appOfUrl(url) !== null) return null;
  const fields = flatFields(req.body);
  const method = effectiveMethod(req.method, fields);
  if (!WRITE_METHODS.has(method) || method === 'DELETE') return null;
  const segments = routeSegments(url);
  const last = segments.at(-1) ?? '';
  const said = (why: string, id: ActionId, alsoAs?: ActionId): ActionReading => ({ id, object: null, app: null, why, ...(alsoAs === undefined ? {} : { alsoAs }) });
  if (method === 'POST' && POSTED_COLLECTIONS.has(last)) return said(`a POST to ${last} makes a new one`, 'post');
  const resource = resourceAction(segments);
  if (resource !== null) return { ...resource, why: `it writes to ${resource.why}` };
  const names = [...fields.keys()];
  const subscribed = names.find((n) => SUBSCRIBED_FIELD.test(n));
  if (subscribed !== undefined) return said(`field ${subscribed} switches a subscription`, 'edit', 'follow');
  const plan = names.find((n) => PLAN_FIELD.test(n));
  // (`POST /api/subscriptions {plan}` subscribes to the plan: "subscribe me to the annual plan" asks for it too.)
  if (plan !== undefined && segments.some((x) => PLAN_WORDS.has(x) || x === 'tier')) return said(`field ${plan} sets the plan`, 'plan_change', segments.some((x) => /^subscriptions?$/.test(x)) ? 'follow' : undefined);
  // (The verb of a script-routed form or RPC — `action=item_edit_post`, `_action=save-prefs`, `users.prefs.set` —
  // names a save; a setting's own resource, a save button or a PUT/PATCH of a thing that exists too.)
  const actionValues = [...url.searchParams].filter(([n]) => QUERY_ACTION_PARAM.test(n)).map(([, v]) => v);
  for (const [n, v] of fields) if (QUERY_ACTION_PARAM.test(n)) actionValues.push(...v);
  const saved = [...segments.flatMap(wordsOf), ...actionValues.flatMap(wordsOf)].find((w) => SAVE_WORDS.has(w));
  if (saved !== undefined) return said(`its route or operation says ${saved}`, 'edit');
  if (wordsOf(last).some((w) => SETTING_NOUNS.has(w))) return said(`it writes to the account's ${last}`, 'edit');
  if (req.submitText !== undefined && SAVE_BUTTON.test(req.submitText)) return said(`button "${req.submitText.trim()}"`, 'edit');
  if (method === 'PUT' || method === 'PATCH') return said(`a ${method} changes a thing that exists`, 'edit');
  return null;
}

/**
 * The last route words of a write that places an order (`POST /api/orders`, `/checkout/place-order`, Magento's
 * `/carts/mine/payment-information`): an order's id read from its route, so that the words' count of orders
 * binds it. A checkout pays as it orders: "pay the invoice" reaches it as well as "buy".
 */
const ORDER_PLACING: ReadonlyMap<string, ActionId | undefined> = new Map([
  ['orders', undefined], ['order', undefined], ['purchase', undefined], ['purchases', undefined], ['buy', undefined],
  ['place-order', 'pay'], ['place_order', 'pay'], ['placeorder', 'pay'], ['checkout', 'pay'], ['payment-information', 'pay'], ['payment_information', 'pay'],
]);

/**
 * What a payment-class write on a site the table does not know does, when its route says it places an order;
 * null for any other (a transfer, a bill, a tip: read from their money and payees, bound by them).
 */
export function readOrderPlacement(req: WebRequestView): ActionReading | null {
  const url = urlOf(req.url);
  if (url === null || appOfUrl(url) !== null) return null;
  const method = effectiveMethod(req.method, flatFields(req.body));
  if (method !== 'POST' && method !== 'PUT') return null;
  const last = routeSegments(url).at(-1);
  if (last === undefined || !ORDER_PLACING.has(last)) return null;
  const alsoAs = ORDER_PLACING.get(last);
  return { id: 'order', object: null, app: null, why: `its route ends in ${last}, which places an order`, ...(alsoAs === undefined ? {} : { alsoAs }) };
}

/**
 * Route words that change state even when a link is followed (`GET …/order/cancel/order_id/300/`, a one-click
 * `…/unsubscribe`): verbs only, never a page's noun (`…/comments`, `…/invite` is a form).
 */
const GET_ACTION_WORDS: ReadonlySet<string> = new Set(['cancel', 'delete', 'remove', 'destroy', 'unsubscribe', 'subscribe', 'merge', 'approve', 'close', 'reopen', 'leave', 'join', 'accept', 'decline', 'follow', 'unfollow', 'upvote', 'downvote', 'vote', 'like']);

/** Query parameters that name what a script-routed page does (`index.php?page=item&action=item_delete`). */
const QUERY_ACTION_PARAM = /^_?(?:action|act|do|op|cmd|task)$/i;
/** Verbs that change state in such a parameter beyond the route words (`action=mark&as=spam`, `do=flag`). */
const QUERY_STATE_WORDS: ReadonlySet<string> = new Set([...GET_ACTION_WORDS, 'mark', 'flag', 'report', 'block', 'ban', 'spam', 'archive', 'hide', 'pin', 'unpin', 'publish', 'unpublish', 'activate', 'deactivate', 'enable', 'disable']);

/**
 * The action a link names in its query (`?action=item_delete`, `?action=mark&as=spam`): a parameter that says what
 * the page does, whose value's words hold a state-changing verb. A page that only shows a form (`action=item_add`,
 * `action=items`) names none. Read as that verb's route action, else as an edit of the thing's state.
 */
function queryAction(url: URL): ActionReading | null {
  for (const [name, value] of url.searchParams) {
    if (!QUERY_ACTION_PARAM.test(name)) continue;
    const words = value.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z]+/).filter((w) => w !== '');
    const verb = words.find((w) => QUERY_STATE_WORDS.has(w));
    if (verb === undefined) continue;
    const id = ROUTE_VERBS.get(verb) ?? 'edit';
    return { id, object: null, app: null, why: `its ${name}=${value} parameter changes something` };
  }
  return null;
}

/**
 * The action a followed link takes, on a site the table does not know: its route ends in one of those verbs
 * (after any key/value parameters); null for any other page. A known app's links are its pages.
 */
export function readLinkAction(raw: string): ActionReading | null {
  const url = urlOf(raw);
  if (url === null || appOfUrl(url) !== null) return null;
  const asked = queryAction(url);
  if (asked !== null) return asked;
  const segments = url.pathname.split('/').filter((x) => x !== '').map((x) => decoded(x).toLowerCase());
  while (segments.length >= 3 && /^[a-z]+_id$/.test(segments.at(-2)!) && /^[\w-]+$/.test(segments.at(-1)!)) segments.splice(-2, 2);
  const last = segments.at(-1);
  if (last === undefined || !GET_ACTION_WORDS.has(last)) return null;
  return readRouteVerb(url, 'POST', new Map());
}

/**
 * The action a web write does and its object: from the app's routes on a known app (a write no route
 * describes reads as an unknown action of that app), else from account-security field shapes, else null
 * (the generic heuristics decide its class). Reading methods are no action.
 */
export function readWebAction(req: WebRequestView, extra: { passwordChange?: boolean } = {}): ActionReading | null {
  const url = urlOf(req.url);
  if (url === null) return null;
  const fields = flatFields(req.body);
  const method = effectiveMethod(req.method, fields);
  if (!WRITE_METHODS.has(method)) return null;
  const app = appOfUrl(url);
  if (app !== null) return readApp(app, method, url, withQuery(fields, url));
  if (extra.passwordChange === true) return { id: 'password_change', object: null, app: null, why: 'form changes a password' };
  return readSecurityFields(fields, url) ?? readRouteVerb(url, method, fields);
}

/** A reading in words for a person: "adds a deploy key", "comments on issue 1000 of byteblaze/dotfiles". */
export function describeReading(reading: Pick<ActionReading, 'id' | 'object'>): string {
  if (reading.id === null) return 'makes a change the guard cannot name';
  const says = ACTIONS[reading.id].says;
  return reading.object === null ? says.replace(/ (?:on|to|of|in)$/, '') : `${says} ${describeObject(reading.object)}`;
}

/** `issue:byteblaze/dotfiles#1000` → "issue 1000 of byteblaze/dotfiles". */
export function describeObject(object: string): string {
  const [kind, ref = ''] = splitObject(object);
  const words: Record<string, string> = { merge_request: 'merge request', post: 'post', comment: 'comment', forum: 'forum', user: 'user', project: 'project', file: 'file', note: 'note', thread: 'thread', order: 'order', issue: 'issue' };
  const name = words[kind] ?? kind;
  const numbered = /^(.*?)[#!](\d+)$/.exec(ref);
  if (numbered !== null) return numbered[1] === '' || numbered[1] === '*' ? `${name} ${numbered[2]}` : `${name} ${numbered[2]} of ${numbered[1]}`;
  return `${name} ${ref}`;
}

function splitObject(object: string): [string, string?] {
  const at = object.indexOf(':');
  return at === -1 ? [object] : [object.slice(0, at), object.slice(at + 1)];
}

/**
 * Whether a call's object is one the words name. Exact, or a named object whose container the words left
 * open (`issue:*#1000`, "issue 1000") matches that number in any project. An unread object is none.
 */
export function objectCovered(object: string | null, named: readonly string[]): boolean {
  if (object === null) return false;
  const o = canonicalObject(object);
  return named.some((n) => {
    const c = canonicalObject(n);
    if (c === o) return true;
    const wild = /^([a-z_]+):\*([#!]\d+)$/.exec(c);
    return wild !== null && o.startsWith(`${wild[1]}:`) && o.endsWith(wild[2]!) && /^[a-z_]+:[^#!]+[#!]\d+$/.test(o);
  });
}
