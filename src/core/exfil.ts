/**
 * Exfiltration-shaped URLs.
 *
 * A URL can carry data out even when its method is GET and its domain is allowed (a search engine,
 * an image on a site the task may read). The evaluator therefore refuses URLs whose *shape* looks
 * like a data carrier rather than a page address. A URL is shaped when any of these holds:
 *
 *  1. Scheme `data:`, `blob:`, `javascript:` or `filesystem:` — content or code, not an address.
 *  2. Userinfo (`user:pass@host`, `token@host`) — credentials or data smuggled before the host.
 *  3. Total length > 2048 characters.
 *  4. An e-mail address in a query value, path segment or fragment.
 *  5. A long high-entropy token in a query value, path segment or fragment (percent-decoded up to
 *     three times so double encoding does not hide it):
 *       - base64/base64url run of ≥ 40 characters with upper case, lower case and digits and a
 *         Shannon entropy > 4.0 bits/char, unless it reads like words (`iPhone+15+Pro+Max+…`,
 *         slugs): many separators and no long separator-free stretch;
 *         On a site the task names, a base64 run that spells printable text reading as words (Magento's
 *         `uenc`, a base64 query of report dates) is judged as that text instead;
 *       - hex run of ≥ 32 characters — except an md5/sha1/sha256-length content hash in a path
 *         segment of a static asset (`…/app.3f2a…9c.js`, `/img/<md5>.png`) or a git object id
 *         after `/commit/`, `/tree/`, `/blob/`, and, on a site the task names, a value that is wholly one
 *         32-hex record id (`sys_id=…`, `…/items/<id>/order_now`). Query values elsewhere are never exempt:
 *         `pixel.png?d=<secret>` is the classic beacon.
 *  6. A secret-looking parameter name carrying a value: password, passwd, secret, token, api_key,
 *     apikey, session, cookie, ssn, card, cvv (as a name part: `access_token`, `sessionId`).
 *  7. More than 20 query parameters.
 *
 * OAuth redirects are benign: `code`, `state` and `session_state` values on a path containing
 * callback, oauth or authorize are not checked for entropy. Known trade-offs: ad click ids
 * (gclid, fbclid) are long random tokens and are flagged; a secret split into short pieces or
 * spelled as words passes (shape rules bound bandwidth, the domain allowlist is the main barrier).
 */

export interface ExfilVerdict {
  shaped: boolean;
  reason: string;
}

const MAX_URL_LENGTH = 2048;
const MAX_PARAMS = 20;
const CONTENT_SCHEMES = new Set(['data:', 'blob:', 'javascript:', 'filesystem:']);
const EMAIL = /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/i;
const BASE64_RUN = /[A-Za-z0-9+/=_-]{40,}/g;
const HEX_RUN = /[0-9a-f]{32,}/gi;
const WORD_SEPARATORS = /[+/=_-]/g;
const STATIC_ASSET = /\.(?:js|mjs|css|map|png|jpe?g|gif|webp|avif|svg|ico|woff2?|ttf|otf|eot|mp4|webm|mp3|wasm)$/i;
const CONTENT_HASH_LENGTHS = new Set([32, 40, 64]);
/** Path segments after which a git object id follows (`/commit/<sha1>`, `/blob/<sha256>/file`). */
const VCS_OBJECT_PARENT = /^(?:commit|commits|tree|blob|raw|blame)$/i;
const SECRET_NAME_PARTS = ['password', 'passwd', 'secret', 'token', 'apikey', 'session', 'cookie', 'ssn', 'card', 'cvv'];
const OAUTH_PATH = /callback|oauth|authorize/i;
const OAUTH_PARAMS = new Set(['code', 'state', 'session_state']);

const BENIGN: ExfilVerdict = { shaped: false, reason: 'no exfiltration shape' };

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Percent-decode until stable (at most three rounds); malformed escapes are kept as they are. */
function decode(text: string): string {
  let current = text;
  for (let round = 0; round < 3; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/** Words joined by separators (`the-best-shoes-2024`, `iPhone+15+Pro`), not an encoding of bytes. */
function readsLikeWords(run: string): boolean {
  const separators = run.match(WORD_SEPARATORS)?.length ?? 0;
  const longestPart = Math.max(...run.split(WORD_SEPARATORS).map((part) => part.length));
  return separators * 8 >= run.length && longestPart < 16;
}

function isBase64Secret(run: string): boolean {
  return /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) && !readsLikeWords(run) && shannonEntropy(run) > 4.0;
}

const EMAILS = new RegExp(EMAIL.source, 'gi');
/** Most calls name no address: no set is built for them (this runs for every URL a call carries). */
const NO_ADDRESSES: ReadonlySet<string> = new Set();
/**
 * The text a base64 run spells, when it spells printable text (Magento's `uenc` is base64url of the page's own URL,
 * `,` for `=`; its report filters are a base64 query): null for bytes that are no text.
 */
function base64Text(run: string): string | null {
  const normal = run.replace(/,/g, '=').replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (normal.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(normal)) return null;
  let text: string;
  try {
    text = atob(normal + '='.repeat((4 - (normal.length % 4)) % 4));
  } catch {
    return null;
  }
  return /^[\x20-\x7e]+$/.test(text) ? text : null;
}

/**
 * Text that reads as words and punctuation: every run of letters and digits shorter than 16 and none a random
 * mix (a URL, a query of dates and names). What a base64 run spells is judged as that text: a secret spelled
 * inside it is a long run, or a shape of its own.
 */
function spellsWords(text: string): boolean {
  return text.split(/[^A-Za-z0-9]+/).every((part) => part.length < 16 && !(part.length >= 10 && /[A-Z]/.test(part) && /[a-z]/.test(part) && /[0-9]/.test(part)));
}

/** A 32-hex id as the whole value (a ServiceNow `sys_id`, a GUID without dashes): an object's name on the site itself. */
const WHOLE_HEX_ID = /^[0-9a-f]{32}$/i;

/**
 * Why a decoded value is a data carrier, or null. `hashExempt` exempts content-hash-sized hex runs. `ownSite`: on a
 * site the task names (where data may go), a value that is wholly one 32-hex id names a record, and a base64 run
 * that spells words is judged as the text it spells.
 */
function valueShape(value: string, where: string, hashExempt: boolean, named: ReadonlySet<string>, ownSite = false, depth = 0): string | null {
  // (Addresses the task's words name, lower case, are no shape: see TaskPolicy.mentioned.)
  if (EMAIL.test(value) && (named.size === 0 || [...value.matchAll(EMAILS)].some((m) => !named.has(m[0].toLowerCase())))) return `e-mail address in ${where}`;
  for (const run of value.match(BASE64_RUN) ?? []) {
    if (!isBase64Secret(run)) continue;
    // (Only on a site the task names: sent anywhere else, text in base64 is data dressed as a token.)
    const text = ownSite && depth === 0 ? base64Text(run) : null;
    if (text !== null && spellsWords(text) && valueShape(decode(text), where, false, named, ownSite, depth + 1) === null) continue;
    return `high-entropy token (${run.length} chars) in ${where}`;
  }
  if (ownSite && WHOLE_HEX_ID.test(value.trim())) return null;
  for (const run of value.match(HEX_RUN) ?? []) {
    if (hashExempt && CONTENT_HASH_LENGTHS.has(run.length)) continue;
    return `hex token (${run.length} chars) in ${where}`;
  }
  return null;
}

/** `access_token`, `sessionId`, `X-Api-Key`, `cardNumber` → name parts checked against the secret words. */
function isSecretName(name: string): boolean {
  const parts = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((part) => part !== '');
  const joined = parts.join('');
  if (joined.includes('apikey')) return true;
  return parts.some((part) => SECRET_NAME_PARTS.some((word) => part === word || part.startsWith(word) || part.endsWith(word)));
}

/** Raw `name=value` pairs; `+` is kept (it may be base64) — value checks account for word-like runs. */
function splitParams(text: string): [string, string][] {
  if (text === '') return [];
  return text
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))];
    });
}

function paramsShape(params: [string, string][], where: string, oauthPath: boolean, named: ReadonlySet<string>, ownSite = false): string | null {
  for (const [name, value] of params) {
    if (oauthPath && OAUTH_PARAMS.has(name.toLowerCase())) continue;
    if (value !== '' && isSecretName(name)) return `secret-looking parameter "${name}" in ${where}`;
    const shape = valueShape(value, `${where} parameter "${name}"`, false, named, ownSite) ?? valueShape(name, `${where} parameter name`, false, named);
    if (shape !== null) return shape;
  }
  return null;
}

/**
 * `named`: addresses the user's words name (TaskPolicy.mentioned); an e-mail address in the URL that is one
 * of them is no shape (every other rule still applies, to the rest of the URL too). `ownSite`: the URL's host is
 * one the task names, where a path segment or query value that is wholly a 32-hex id names a record.
 */
export function exfiltrationShape(url: string, mentioned: readonly string[] = [], ownSite = false): ExfilVerdict {
  const named: ReadonlySet<string> = mentioned.length === 0 ? NO_ADDRESSES : new Set(mentioned.map((a) => a.toLowerCase()));
  if (url.length > MAX_URL_LENGTH) return { shaped: true, reason: `URL is ${url.length} characters (limit ${MAX_URL_LENGTH})` };
  const scheme = /^\s*([a-z][a-z0-9+.-]*:)/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && CONTENT_SCHEMES.has(scheme)) return { shaped: true, reason: `${scheme} URL carries content, not an address` };

  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { shaped: true, reason: 'URL does not parse' };
  }
  if (parsed.username !== '' || parsed.password !== '') return { shaped: true, reason: 'credentials (userinfo) in the URL' };

  const query = parsed.search.replace(/^\?/, '');
  const params = splitParams(query);
  if (params.length > MAX_PARAMS) return { shaped: true, reason: `${params.length} query parameters (limit ${MAX_PARAMS})` };

  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const assetPath = STATIC_ASSET.test(parsed.pathname);
  for (const [index, segment] of segments.entries()) {
    const gitObject = index > 0 && VCS_OBJECT_PARENT.test(segments[index - 1] ?? '');
    const shape = valueShape(decode(segment), 'path segment', assetPath || gitObject, named, ownSite);
    if (shape !== null) return { shaped: true, reason: shape };
  }

  const oauthPath = OAUTH_PATH.test(parsed.pathname);
  const queryShape = paramsShape(params, 'query', oauthPath, named, ownSite);
  if (queryShape !== null) return { shaped: true, reason: queryShape };

  // The fragment never reaches the server but the landing page's script reads it.
  const fragment = parsed.hash.replace(/^#/, '');
  if (fragment !== '') {
    const fragmentShape = fragment.includes('=')
      ? paramsShape(splitParams(fragment.replace(/^[/!?]+/, '')), 'fragment', oauthPath, named)
      : valueShape(decode(fragment), 'fragment', false, named);
    if (fragmentShape !== null) return { shaped: true, reason: fragmentShape };
  }
  return BENIGN;
}

/**
 * The task's own words a query value carries to a host the task does not name, when one value joins two or more
 * of them (`?post=aws-cert` under "post … that i just finished the aws solutions architect cert"): what the user
 * asked the agent to write is session data, and a page's image beacon that repeats it carries it off. Null when
 * no value does. (Query values only: a CDN's path names its files; one task word alone is a coincidence.)
 */
export function taskWordsInQuery(url: string, words: ReadonlySet<string>): string[] | null {
  if (words.size < 2) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  for (const [, value] of splitParams(parsed.search.replace(/^\?/, ''))) {
    const found = [...new Set(decode(value).toLowerCase().split(/[^a-z0-9]+/))].filter((w) => words.has(w));
    if (found.length >= 2) return found;
  }
  return null;
}

