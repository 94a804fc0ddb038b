import { DownloadArgsSchema, FormSubmitArgsSchema, NavigateArgsSchema, RequestArgsSchema, UploadArgsSchema, BROWSER_TOOLS } from '../call';
import { emptyTargets, type ActionFacts } from '../classification';
import { maxClass, type RiskClass } from '../risk';
import { CLASS_CAPABILITY } from './capabilities';
import { FILE_EXTENSIONS } from '../items';
import { schemeOf } from '../schemes';
import { UNREADABLE_AMOUNT } from '../amounts';
import { addItem, addQueryItems, addUnique, addUrl, UNREADABLE_ITEM, UNREAD_RECIPIENT, byteLength, collectRequestAmounts, collectTargets, emptyCollected, graphqlFields, keyForm, keysOf, parseBody, payloadBytes, recipientsIn, isRecipientKey, targetsOf, withGraphQL, withWritten, type Collected } from './targets';
import { splitWords } from './vocabulary';
import { ACTIONS } from '../actions/vocabulary';
import { describeReading, isOrderStep, readGenericWrite, readLinkAction, readOrderPlacement, readWebAction, type ActionReading } from '../actions/read';

/**
 * Web actions: navigation, page requests, form submissions, uploads and downloads. Reading is
 * GET; anything that carries data is judged by where it goes (URL path words), what it carries
 * (body keys, form field names and types) and what the user would have clicked (submit text).
 * When several heuristics match, the highest class wins.
 */

type Unclassified = Omit<ActionFacts, 'layer'>;

interface Signal {
  riskClass: RiskClass;
  capability: string;
  why: string;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const PATH_WORDS: readonly [RiskClass, string, ReadonlySet<string>][] = [
  ['DELETE', 'data.delete', new Set(['delete', 'remove', 'trash', 'destroy', 'erase', 'purge'])],
  ['FINANCIAL', 'payment.send', new Set(['transfer', 'transfers', 'payment', 'payments', 'pay', 'checkout', 'order', 'orders', 'purchase', 'buy', 'charge', 'withdraw', 'payout', 'payouts'])],
  ['COMMUNICATION', 'message.send', new Set(['send', 'messages', 'message', 'mail', 'reply', 'compose', 'forward', 'sendmail', 'post', 'comment', 'comments', 'tweet', 'publish'])],
  ['PERMISSION_CHANGE', 'permission.change', new Set(['share', 'sharing', 'permission', 'permissions', 'filter', 'filters', 'rule', 'rules', 'password', 'acl', 'acls', 'role', 'roles', 'collaborators', 'delegate', 'delegates', 'forwarding', 'invite', 'grant', 'oauth2', 'apikeys', 'tokens'])],
];

/** Keys (letters and digits) that mark a body or form as money moving. */
const CARD_KEYS = new Set(['card', 'cardnumber', 'ccnumber', 'ccnum', 'creditcard', 'cvv', 'cvc', 'cvv2', 'cardcvc', 'securitycode', 'ccexp', 'cardexpiry', 'expirydate']);
const PAYEE_KEYS = new Set(['payee', 'iban', 'beneficiary', 'account', 'accountnumber', 'toaccount', 'destinationaccount', 'routingnumber', 'swift', 'bic', 'sortcode', 'recipientaccount', 'payeeiban']);
const AMOUNT_KEYS = new Set(['amount', 'sum', 'total', 'price']);
const ALWAYS_RECIPIENT_KEYS = new Set(['cc', 'bcc', 'recipient', 'recipients']);
const MESSAGE_KEYS = new Set(['subject', 'body', 'message', 'text', 'content', 'html', 'msg']);
const PERMISSION_KEYS = new Set(['share', 'sharewith', 'role', 'roles', 'forwardto', 'forwardingaddress', 'forwarding', 'permission', 'permissions', 'acl', 'grantee', 'accesslevel', 'collaborator', 'collaborators', 'delegate', 'newpassword', 'confirmpassword', 'passwordconfirmation']);
const DELETE_WORDS = /\b(?:delete|remove|trash|erase|destroy|close account|deactivate)\b/i;
const PAY_WORDS = /\b(?:pay|buy|purchase|place order|checkout|check out|transfer|donate|subscribe|confirm payment|send money|order now)\b/i;
const SEND_WORDS = /\b(?:send|reply|post|publish|comment|tweet|forward)\b/i;
const PERMISSION_WORDS = /\b(?:share|grant|invite|change password|update password|set password|add collaborator|enable forwarding|add forwarding|create filter|save filter)\b/i;
const SEARCH_FIELDS = new Set(['q', 'query', 'search', 's', 'term', 'keywords', 'k']);

/**
 * A segment that names a form's POST handler (`formPost`, `loginPost`, `editPost`, Rails/Magento style): its
 * `post` is the HTTP method the form is sent with, not a post to anyone.
 */
const FORM_HANDLER = /^(?:form|login|edit|save|update|reset|forgot|confirm|address|account|create)_?post$/i;

function pathWords(url: string): Set<string> {
  try {
    return new Set(new URL(url).pathname.split('/').flatMap((segment) => (FORM_HANDLER.test(segment) ? splitWords(segment).slice(0, -1) : splitWords(segment))));
  } catch {
    return new Set();
  }
}

/** Order words name a payment only when no after-sale step follows them: `/orders/991/return` returns an order, `/orders/123/cancel` cancels one. */
const ORDER_WORDS = new Set(['order', 'orders']);
const AFTER_SALE_WORDS = new Set(['cancel', 'cancellation', 'return', 'returns', 'exchange', 'track', 'tracking', 'review', 'reviews', 'address', 'delivery', 'shipping', 'shipment', 'shipments']);

/** Signals from where a data-bearing request goes. */
function pathSignals(url: string): Signal[] {
  const words = pathWords(url);
  // (Not when the order is the thing a return or cancellation acts on: a payment word besides it still pays.)
  const afterSale = [...words].some((w) => AFTER_SALE_WORDS.has(w));
  const signals = (set: ReadonlySet<string>) => [...set].filter((w) => words.has(w) && !(afterSale && ORDER_WORDS.has(w)));
  return PATH_WORDS.filter(([, , set]) => signals(set).length > 0).map(([riskClass, capability, set]) => ({
    riskClass,
    capability,
    why: `URL path names ${signals(set)[0]}`,
  }));
}

/** Signals from what a GraphQL mutation's fields are named (`transfer`, `sendPayment`, `deleteRepo`), as a path's words. */
function fieldSignals(fields: readonly string[]): Signal[] {
  const words = new Set(fields.flatMap((f) => splitWords(f)));
  return PATH_WORDS.filter(([, , set]) => [...set].some((w) => words.has(w))).map(([riskClass, capability, set]) => ({
    riskClass,
    capability,
    why: `GraphQL mutation names ${[...set].find((w) => words.has(w))}`,
  }));
}

/** A `to` key is a recipient when it holds an address or sits beside a message: flight searches have `to` too. */
function hasRecipient(keys: ReadonlySet<string>, toValues: readonly string[]): boolean {
  if ([...keys].some((k) => ALWAYS_RECIPIENT_KEYS.has(k))) return true;
  if (!keys.has('to')) return false;
  return toValues.some((v) => v.includes('@')) || [...keys].some((k) => MESSAGE_KEYS.has(k));
}

/** Signals from what a body or form carries. */
function keySignals(keys: ReadonlySet<string>, toValues: readonly string[]): Signal[] {
  const signals: Signal[] = [];
  const has = (set: ReadonlySet<string>) => [...keys].find((k) => set.has(k));
  const card = has(CARD_KEYS);
  const payee = has(PAYEE_KEYS);
  const amount = has(AMOUNT_KEYS);
  if (card !== undefined) signals.push({ riskClass: 'FINANCIAL', capability: 'payment.send', why: `carries a ${card} field` });
  else if (payee !== undefined && amount !== undefined) signals.push({ riskClass: 'FINANCIAL', capability: 'payment.send', why: `carries ${amount} and ${payee}` });
  if (hasRecipient(keys, toValues)) signals.push({ riskClass: 'COMMUNICATION', capability: 'message.send', why: 'names a recipient' });
  const permission = has(PERMISSION_KEYS);
  if (permission !== undefined) signals.push({ riskClass: 'PERMISSION_CHANGE', capability: 'permission.change', why: `carries a ${permission} field` });
  return signals;
}

function strongest(signals: readonly Signal[], fallback: Signal): Signal {
  return signals.reduce((best, s) => (maxClass(best.riskClass, s.riskClass) === best.riskClass ? best : s), fallback);
}

function result(signal: Signal, targets: Collected, outboundBytes: number): Unclassified {
  return {
    capability: signal.capability,
    riskClass: signal.riskClass,
    targets: targetsOf(targets),
    basis: signal.why,
    urls: targets.urls,
    outboundBytes,
  };
}

/** The capability a web action of each class is listed as (the web classifier's own names). */
const ACTION_CAPABILITY: Readonly<Record<string, string>> = {
  EXTERNAL_WRITE: 'web.write', COMMUNICATION: 'message.send', DELETE: 'data.delete', PERMISSION_CHANGE: 'permission.change', FINANCIAL: 'payment.send', LOCAL_WRITE: 'file.write', EXECUTION: 'code.execute',
};

/**
 * A write read as a web action (docs/actions.md): the action's own class decides, not the words of its
 * path or button (a forge's `PUT …/-/transfer` moves a project, it pays nobody; a forum's comment is a
 * post, not a message to someone). A write of a known app that no route describes keeps its heuristic
 * class and carries the unread action, which the evaluator's action binding asks about.
 */
/** A cart route that changes what is paid (a coupon, a gift card, a voucher) is a payment's step, not the cart's. */
const PRICE_CHANGING = /coupon|discount|voucher|promo|gift[-_]?card|giftcard/i;

function withAction(facts: Unclassified, reading: ActionReading | null): Unclassified {
  if (reading === null || facts.riskClass === 'READ' || facts.riskClass === 'UNKNOWN') return facts;
  // (A cart add under a checkout path — Magento's `checkout/cart/add` — moves no money: a write of the cart, which
  // the evaluator decides as a step of an order the words ask for. Money or a card in it still pays.)
  if (isOrderStep(reading) && facts.riskClass === 'FINANCIAL' && facts.basis.startsWith('URL path names') && !PRICE_CHANGING.test(reading.why + facts.urls.join(' '))) return { ...facts, riskClass: 'EXTERNAL_WRITE', capability: 'web.write', basis: `${facts.basis}; ${reading.why}, a step of an order`, action: reading };
  // (A route's last word on a site the table does not know names the action for binding, not its class.)
  if (reading.id === null || (reading.app === null && !ACTIONS[reading.id].security)) return { ...facts, action: reading };
  const riskClass = ACTIONS[reading.id].riskClass;
  // The action and its object are what the call acts on: an approval of it (a grant holds the call's items)
  // covers that action on that object, never another write of the same class on the site.
  const items = [...facts.targets.items, reading.object === null ? reading.id : `${reading.id} ${reading.object}`];
  return { ...facts, riskClass, capability: ACTION_CAPABILITY[riskClass] ?? facts.capability, basis: reading.why, action: reading, targets: { ...facts.targets, items } };
}

/** A plain write's action from what it is sent to and carries (read.ts, readGenericWrite); payments and messages are bound by their class. */
function genericWrite(facts: Unclassified, req: Parameters<typeof readGenericWrite>[0]): ActionReading | null {
  if (facts.riskClass === 'EXTERNAL_WRITE') return readGenericWrite(req);
  // (A cart add under a checkout path — Magento's `checkout/cart/add` — is the order's first step, read as one.)
  // A write that places an order is read as one (issue 35: the words' count of orders binds it, not only the
  // class's count of payments); any other payment is read from its money and payees.
  if (facts.riskClass !== 'FINANCIAL') return null;
  const step = readGenericWrite(req);
  return step?.alsoAs === 'order' ? step : readOrderPlacement(req);
}

function unknown(tool: string): Unclassified {
  return { capability: CLASS_CAPABILITY.UNKNOWN, riskClass: 'UNKNOWN', targets: emptyTargets(), basis: `arguments do not match ${tool}`, urls: [], outboundBytes: 0 };
}

function navigate(args: Record<string, unknown>): Unclassified {
  const parsed = NavigateArgsSchema.safeParse(args);
  if (!parsed.success) return unknown(BROWSER_TOOLS.navigate);
  const t = emptyCollected();
  addUrl(t, parsed.data.url);
  if (schemeOf(parsed.data.url).use === 'execution') return result({ riskClass: 'EXECUTION', capability: 'code.execute', why: 'javascript: URL runs code in the page' }, t, 0);
  collectRequestAmounts(t, parsed.data.url, undefined);
  const pays = paymentInQuery(parsed.data.url, t);
  if (pays !== null) return result(pays, t, 0);
  // (A link whose route ends in what it does — `…/order/cancel/order_id/300/` — acts when followed, as its POST would.)
  const acts = readLinkAction(parsed.data.url);
  if (acts !== null && acts.id !== null) return linkWrite(acts, t);
  return result({ riskClass: 'READ', capability: 'web.read', why: 'navigation reads a page' }, t, 0);
}

/** A link that acts when followed or fetched: a write of its action's kind (a delete, else a write). */
function linkWrite(acts: ActionReading, t: Collected): Unclassified {
  const riskClass = acts.id === 'delete' ? 'DELETE' : 'EXTERNAL_WRITE';
  return withAction(result({ riskClass, capability: riskClass === 'DELETE' ? 'data.delete' : 'web.write', why: `a link that ${describeReading(acts)} when followed` }, t, 0), acts);
}

/**
 * A GET to a payment path whose query carries an amount (`/pay?payee=…&amount=12000&confirm=1`) moves
 * money like the POST it stands for; null for every other GET.
 */
function paymentInQuery(url: string, t: Collected): Signal | null {
  const pays = pathSignals(url).find((s) => s.riskClass === 'FINANCIAL');
  return pays === undefined || (t.amounts ?? []).length === 0 ? null : { ...pays, why: `${pays.why}, with an amount in its query` };
}

/**
 * Reads that sites send as POST or PUT (a search form, a tracking lookup, an RPC `conversations.history`, a
 * GraphQL query, a JMAP `Email/query`): READ when the route or the body names a read and nothing in the
 * call names a write. Words that name a read as a route's own segment, or as the first word of an RPC
 * method (the last segment), and words that, anywhere in the path, make it a write after all.
 */
const READ_ROUTE_WORDS = new Set(['search', 'query', 'lookup', 'autocomplete', 'suggest', 'suggestions', 'typeahead']);
const READ_RPC_FIRST = new Set(['get', 'list', 'search', 'query', 'find', 'lookup', 'fetch', 'read', 'history', 'info']);
/** The verb of a dotted RPC method (`users.info`, `conversations.replies`) that reads. */
const READ_RPC_LAST = new Set(['info', 'list', 'history', 'replies', 'get', 'search', 'lookup']);
/** Request methods that only read (WebDAV). */
const DAV_READ_METHODS = new Set(['REPORT', 'PROPFIND']);
const WRITE_ROUTE_WORDS = new Set([
  ...PATH_WORDS.flatMap(([, , set]) => [...set]),
  'create', 'add', 'new', 'update', 'save', 'set', 'edit', 'submit', 'upload', 'import', 'write', 'put', 'patch', 'mark', 'bulk', 'invite', 'join', 'leave', 'vote', 'book', 'reserve', 'cancel', 'confirm', 'apply', 'mutate', 'mutation', 'execute', 'run', 'copy', 'move',
]);
/** A query body is small: what a search form or a filter sends, not an uploaded file or a long text. */
const QUERY_BYTES = 4096;
const JMAP_READ = /\/(?:get|query|changes|queryChanges)$/;

/** An RPC method whose first word reads (`search.messages`, `conversations.list` is `list` last: see below). */
function rpcReadMethod(url: string): boolean {
  const last = splitWords(pathSegments(url).at(-1) ?? '');
  return last.length > 1 && READ_RPC_FIRST.has(last[0]!);
}

function withoutLastSegment(url: string): string {
  try {
    const u = new URL(url);
    u.pathname = u.pathname.replace(/\/[^/]*\/?$/, '/');
    return u.href;
  } catch {
    return url;
  }
}

/**
 * Keys a search or listing sends and nothing else: what to look for, how to filter, sort and page it, and the
 * page's own form token. A body made only of these, with one that says what to find or how to filter, is a query.
 */
const QUERY_KEYS = new Set(['search', 'query', 'q', 'keyword', 'keywords', 'term', 'searchterm', 'filters', 'filter', 'searchquerystate', 'criteria']);
const LISTING_KEYS = new Set([...QUERY_KEYS, 'paging', 'pagination', 'page', 'pagesize', 'perpage', 'limit', 'offset', 'cursor', 'sort', 'sorting', 'sortby', 'sortorder', 'namespace', 'isajax', 'formkey', 'token', 'csrf', 'csrftoken', 'count', 'wants', 'fields', 'locale', 'lang']);

function queryBody(structured: unknown): boolean {
  if (structured === null || typeof structured !== 'object' || Array.isArray(structured)) return false;
  // (A GraphQL document is read by its own rule: a `query` that holds a mutation is no query.)
  const q = (structured as Record<string, unknown>).query;
  if (typeof q === 'string' && /^\s*(?:query|mutation|subscription|fragment|\{)/.test(q)) return false;
  const keys = Object.keys(structured).map(keyForm);
  return keys.length > 0 && keys.some((k) => QUERY_KEYS.has(k)) && keys.every((k) => LISTING_KEYS.has(k));
}

function queryRead(url: string, method: string, structured: unknown, bytes: number, signals: readonly Signal[]): Signal | null {
  // (WebDAV's REPORT and PROPFIND are safe methods, RFC 3253 §3.6 and RFC 4918 §9.1: a CalDAV calendar-query reads.)
  if (DAV_READ_METHODS.has(method)) return bytes <= QUERY_BYTES && signals.length === 0 ? { riskClass: 'READ', capability: 'web.read', why: `${method} is a WebDAV read` } : null;
  if ((method !== 'POST' && method !== 'PUT') || bytes > QUERY_BYTES || signals.length > 0) return null;
  const segments = pathSegments(url);
  // (An RPC read method's own words are its verb and what it reads: `search.messages` sends no message.)
  const words = (rpcReadMethod(url) ? segments.slice(0, -1) : segments).flatMap((s) => splitWords(s));
  if (words.some((w) => WRITE_ROUTE_WORDS.has(w))) return null;
  const last = splitWords(segments.at(-1) ?? '');
  if (words.some((w) => READ_ROUTE_WORDS.has(w))) return { riskClass: 'READ', capability: 'web.read', why: `${method} to a search route reads` };
  if (last.length > 1 && READ_RPC_FIRST.has(last[0]!)) return { riskClass: 'READ', capability: 'web.read', why: `${method} to the read method ${segments.at(-1)}` };
  if (last.length > 1 && last.at(-1) === 'history') return { riskClass: 'READ', capability: 'web.read', why: `${method} to the read method ${segments.at(-1)}` };
  // (A dotted RPC method is `noun.verb`: `users.info`, `conversations.replies` read what their noun names.)
  if (last.length > 1 && (segments.at(-1) ?? '').includes('.') && READ_RPC_LAST.has(last.at(-1)!)) return { riskClass: 'READ', capability: 'web.read', why: `${method} to the read method ${segments.at(-1)}` };
  // (An API that names its operation in the body — MediaWiki's `action=query` — reads when that operation does.)
  const operation = structured !== null && typeof structured === 'object' && !Array.isArray(structured) ? [(structured as Record<string, unknown>).action].flat() : [];
  if (operation.length === 1 && typeof operation[0] === 'string' && READ_RPC_FIRST.has(operation[0].toLowerCase())) return { riskClass: 'READ', capability: 'web.read', why: `${method} whose operation is ${operation[0]}` };
  // (At a site's root a body names no listing to read: only a route with one is a listing's query.)
  if (segments.length > 0 && queryBody(structured)) return { riskClass: 'READ', capability: 'web.read', why: `${method} whose body is only a query (what to find, filters, paging)` };
  if (structured !== null && typeof structured === 'object' && !Array.isArray(structured)) {
    const o = structured as Record<string, unknown>;
    // (withGraphQL wraps only a mutation: a plain `query` body is a read.)
    if (typeof o.query === 'string' && /^\s*(?:query\b|\{)/.test(o.query) && !/\b(?:mutation|subscription)\b/.test(o.query)) return { riskClass: 'READ', capability: 'web.read', why: 'GraphQL query reads' };
    const calls = o.methodCalls;
    if (Array.isArray(calls) && calls.length > 0 && calls.every((c) => Array.isArray(c) && typeof c[0] === 'string' && JMAP_READ.test(c[0]))) {
      return { riskClass: 'READ', capability: 'web.read', why: 'JMAP request only gets and queries' };
    }
  }
  return null;
}

/**
 * A query read reaches the host it is sent to, nothing its query names: a flight search's `origin: "BOS"` is a
 * value, not a host on the private network. (The request's own URL is still checked for an exfiltration shape.)
 */
function onlyUrlDomain(t: Collected, url: string): Collected {
  const own = emptyCollected();
  addUrl(own, url);
  return { ...t, domains: own.domains, urls: own.urls };
}

/** Recipient values anywhere in a structure (for telling a message's `to` from a route's). */
function toValues(value: unknown): string[] {
  const found: string[] = [];
  collectTargets(value, { recipients: found, domains: [], paths: [], items: [], urls: [] }, { urlsAnywhere: false, paths: false, items: 'none' });
  return found;
}

function pathSegments(url: string): string[] {
  try {
    return new URL(url).pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });
  } catch {
    return [];
  }
}

/** `DELETE /api/files/contracts.pdf` deletes `contracts.pdf`: REST names the item last. */
function lastPathSegment(url: string): string {
  return pathSegments(url).at(-1) ?? '';
}

/** Items a URL names: item keys in its query, and file names among its path segments (`/files/a.pdf/share`). */
function addUrlItems(into: Collected, url: string): void {
  addQueryItems(into, url);
  for (const segment of pathSegments(url)) {
    const dot = segment.lastIndexOf('.');
    if (dot > 0 && FILE_EXTENSIONS.has(segment.slice(dot + 1).toLowerCase())) addItem(into, segment);
  }
}

/**
 * Only a prefix of a body (or of a form's fields) was read: what it is about is unreadable, an amount may
 * sit in the rest, and so may another recipient of a body that names one.
 */
function markCut(t: Collected, cut: boolean): void {
  if (!cut) return;
  addItem(t, UNREADABLE_ITEM);
  addUnique((t.amounts ??= []), [UNREADABLE_AMOUNT]);
  if (t.recipients.length > 0) addUnique(t.recipients, [UNREAD_RECIPIENT]);
}

function request(args: Record<string, unknown>): Unclassified {
  const parsed = RequestArgsSchema.safeParse(args);
  if (!parsed.success) return unknown(BROWSER_TOOLS.request);
  const { url, kind, body, bodyBytes } = parsed.data;
  const method = parsed.data.method.toUpperCase();
  const structured = withGraphQL(withWritten(body, parseBody(body)));
  const t = emptyCollected();
  addUrl(t, url);
  collectTargets(structured, t, { urlsAnywhere: false, paths: false, items: 'items-and-files', channels: 'names' });
  collectRequestAmounts(t, url, structured);
  addUrlItems(t, url);
  if (method === 'DELETE') addItem(t, lastPathSegment(url));
  const cut = bodyBytes !== undefined && bodyBytes > payloadBytes(body);
  if (typeof structured === 'string' && structured.trim() !== '') addItem(t, UNREADABLE_ITEM);
  markCut(t, cut);
  const bytes = bodyBytes ?? payloadBytes(body);
  if (kind === 'websocket') return result({ riskClass: 'EXTERNAL_WRITE', capability: 'web.socket', why: 'a WebSocket sends data both ways' }, t, bytes);
  if (kind === 'beacon') return result({ riskClass: 'EXTERNAL_WRITE', capability: 'web.write', why: 'a beacon sends data' }, t, bytes);
  if (READ_METHODS.has(method) && body === undefined) {
    const pays = paymentInQuery(url, t);
    if (pays !== null) return result(pays, t, 0);
    // (A page script's GET of a link that acts — `?action=mark&as=spam` — changes state as following it would.)
    const acts = method === 'GET' ? readLinkAction(url) : null;
    if (acts !== null && acts.id !== null) return linkWrite(acts, t);
    return result({ riskClass: 'READ', capability: 'web.read', why: `${method} request reads` }, t, 0);
  }
  const signals = [...pathSignals(url), ...fieldSignals(graphqlFields(structured)), ...keySignals(keysOf(structured), toValues(structured))];
  if (method === 'DELETE') signals.push({ riskClass: 'DELETE', capability: 'data.delete', why: 'DELETE request' });
  // (`search.messages`: the noun after an RPC read method's verb is what it reads, not where a message goes.)
  const readSignals = rpcReadMethod(url) ? [...pathSignals(withoutLastSegment(url)), ...fieldSignals(graphqlFields(structured)), ...keySignals(keysOf(structured), toValues(structured))] : signals;
  const read = cut ? null : queryRead(url, method, structured, bytes, readSignals);
  if (read !== null) return result(read, onlyUrlDomain(t, url), bytes);
  const facts = result(strongest(signals, { riskClass: 'EXTERNAL_WRITE', capability: 'web.write', why: `${method} request sends data` }), t, bytes);
  return withAction(facts, readWebAction({ url, method, body: parseBody(body) }) ?? genericWrite(facts, { url, method, body: parseBody(body) }));
}

function formSubmit(args: Record<string, unknown>): Unclassified {
  const parsed = FormSubmitArgsSchema.safeParse(args);
  if (!parsed.success) return unknown(BROWSER_TOOLS.formSubmit);
  const { url, fields, fieldTypes = {}, submitText = '', fieldsCut = false } = parsed.data;
  const method = parsed.data.method.toUpperCase();
  const encoded = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) encoded.append(name, v);
  const bytes = byteLength(encoded.toString());
  const t = emptyCollected();
  collectTargets(fields, t, { urlsAnywhere: false, paths: false, items: 'items-and-files' });
  collectRequestAmounts(t, url, fields);
  addUrlItems(t, url);
  markCut(t, fieldsCut);

  if (method === 'GET') {
    // The submission is the URL with the fields as its query: that is what the exfiltration check must see.
    let target = url;
    try {
      const u = new URL(url);
      for (const [name, value] of encoded) u.searchParams.append(name, value);
      target = u.toString();
    } catch {
      // An unparseable action URL stays as it is; the evaluator's checks refuse it.
    }
    addUrl(t, target);
    const search = Object.keys(fields).some((name) => SEARCH_FIELDS.has(keyForm(name)));
    return result(paymentInQuery(url, t) ?? { riskClass: 'READ', capability: 'web.read', why: search ? 'search form (GET)' : 'GET form reads' }, t, bytes);
  }
  addUrl(t, url);

  const keys = new Set(Object.keys(fields).flatMap((name) => [keyForm(name), ...splitWords(name)]));
  for (const type of Object.values(fieldTypes)) keys.add(keyForm(type));
  const recipientValues = Object.entries(fields)
    .filter(([name]) => isRecipientKey(name))
    .flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).flatMap((one) => recipientsIn(one, name)));
  const signals = [...pathSignals(url), ...keySignals(keys, recipientValues)];

  // Password fields: a login form has one; changing a password needs a new one too.
  const passwordFields = Object.keys(fields).filter((name) => /pass(?:word|wd)?/i.test(name) || (fieldTypes[name] ?? '').toLowerCase() === 'password');
  const passwordChange = passwordFields.length >= 2 || passwordFields.some((name) => /new|confirm|change/i.test(name)) || (passwordFields.length > 0 && PERMISSION_WORDS.test(submitText));
  if (passwordChange) signals.push({ riskClass: 'PERMISSION_CHANGE', capability: 'permission.change', why: 'form changes a password' });
  const actionValues = Object.entries(fields)
    .filter(([name]) => ['action', 'op', 'method', 'operation', 'intent', 'command', 'do'].includes(keyForm(name)))
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
  const deleteField = Object.keys(fields).find((name) => DELETE_WORDS.test(splitWords(name).join(' '))) ?? actionValues.find((v) => DELETE_WORDS.test(v));
  if (DELETE_WORDS.test(submitText) || deleteField !== undefined) {
    signals.push({ riskClass: 'DELETE', capability: 'data.delete', why: deleteField !== undefined ? `form field ${deleteField} deletes` : `button "${submitText}"` });
  }
  if (PAY_WORDS.test(submitText)) signals.push({ riskClass: 'FINANCIAL', capability: 'payment.send', why: `button "${submitText}"` });
  if (SEND_WORDS.test(submitText)) signals.push({ riskClass: 'COMMUNICATION', capability: 'message.send', why: `button "${submitText}"` });
  if (PERMISSION_WORDS.test(submitText)) signals.push({ riskClass: 'PERMISSION_CHANGE', capability: 'permission.change', why: `button "${submitText}"` });
  // (A button, a password field or a field that deletes is a signal: such a form is never read as a search.)
  const read = fieldsCut ? null : queryRead(url, method, fields, bytes, signals);
  if (read !== null) return result(read, onlyUrlDomain(t, url), bytes);
  const facts = result(strongest(signals, { riskClass: 'EXTERNAL_WRITE', capability: 'web.write', why: `${method} form sends data` }), t, bytes);
  return withAction(facts, readWebAction({ url, method, body: fields }, { passwordChange }) ?? genericWrite(facts, { url, method, body: fields, submitText }));
}

function upload(args: Record<string, unknown>): Unclassified {
  const parsed = UploadArgsSchema.safeParse(args);
  if (!parsed.success) return unknown(BROWSER_TOOLS.upload);
  const t = emptyCollected();
  addUrl(t, parsed.data.url);
  addUnique(t.paths, parsed.data.files);
  return result({ riskClass: 'EXTERNAL_WRITE', capability: 'file.upload', why: `uploads ${parsed.data.files.length} file(s)` }, t, 0);
}

function download(args: Record<string, unknown>): Unclassified {
  const parsed = DownloadArgsSchema.safeParse(args);
  if (!parsed.success) return unknown(BROWSER_TOOLS.download);
  const t = emptyCollected();
  addUrl(t, parsed.data.url);
  addUnique(t.paths, [parsed.data.path]);
  return result({ riskClass: 'LOCAL_WRITE', capability: 'file.download', why: 'saves a download' }, t, 0);
}

/** A Map, not an object: a tool named `constructor` must not find a handler. */
export const WEB_HANDLERS: ReadonlyMap<string, (args: Record<string, unknown>) => Unclassified> = new Map([
  [BROWSER_TOOLS.navigate, navigate],
  [BROWSER_TOOLS.request, request],
  [BROWSER_TOOLS.formSubmit, formSubmit],
  [BROWSER_TOOLS.upload, upload],
  [BROWSER_TOOLS.download, download],
]);
