import { parse } from 'tldts';
import { privateHostOf, siteKeyOf } from '../core/addresses';
import { hostOf } from '../core/domains';
import { FILE_EXTENSIONS } from '../core/items';
import { channelForm, phoneForm } from '../core/classifier/targets';

/**
 * Literal targets written in the user's words: e-mail addresses, account identifiers (IBANs),
 * hosts and URLs, file paths. Each is a whole whitespace-delimited token (trailing punctuation
 * trimmed), so `not-alice@x.com` is never read as `alice@x.com`, and the domain inside an e-mail
 * address is never a host token. Linear: one pass over the chunks, no backtracking patterns.
 */
export type TargetKind = 'email' | 'iban' | 'phone' | 'handle' | 'channel' | 'domain' | 'path';

export interface TargetToken {
  kind: TargetKind;
  /** Canonical value: lower-cased address or IBAN without spaces, registrable domain, literal path. */
  value: string;
  /**
   * A domain written below its site (`news.example.test`, not `example.test` or `www.example.test`): the
   * host the user named. The policy's site lists keep it, so the floor and the taint's exemption are
   * scoped to that host and its subdomains, not to a sibling host (`uploads.example.test`).
   */
  host?: string;
  start: number;
  end: number;
}

const EMAIL = /^[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/i;
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d{1,5})?(?:[/?#].*)?$/i;
const IPV4_HOST = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?:[/?#].*)?$/;
/** A host as a URL parser returns an IPv4 address. */
const IPV4_ADDRESS = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const URL_SCHEME = /^https?:\/\//i;
const LOCALHOST_PORT = /^localhost:\d{1,5}(?:[/?#].*)?$/i;
const PATH = /^(?:~\/|~$|\/|[a-z]:\\)/i;
/** A lower-case word, a dot, then a capitalised word: two sentences run together ("Bob.Book", "invoice.Pay"). */
const RUN_ON = /[a-z]\.[A-Z][a-z]+$/;
/** Words after which a dotted quad is a number, not an address ("section 4.2.1.3", "version 1.0.0.0"). */
const NUMBER_BEFORE = new Set(['section', 'item', 'version', 'v', 'release', 'tag', 'chapter', 'paragraph', 'clause', 'part', 'build', '§']);
/**
 * Words right before an IP address written without a scheme that make it a place to go ("the router at
 * 192.168.1.1", "open 10.0.0.5:8080"); "to" counts only after a verb of going ("log in to", "go to").
 * Anywhere else the address is a value typed into a form ("set the DNS server to 10.0.0.53", "whitelist
 * 10.1.2.3"), not a site the task may reach.
 */
const IP_SITE_BEFORE = new Set(['at', 'on', 'open', 'visit', 'browse', 'via', 'reach', 'load', 'into', 'onto']);
const IP_VALUE_BEFORE = new Set(['to', 'as', 'is', '=']);
const IP_GOING_BEFORE_TO = new Set(['go', 'navigate', 'head', 'over', 'connect', 'browse', 'in', 'login', 'signin', 'logon', 'back', 'return']);
/**
 * File extensions that are also top-level domains (`report.pl`, `main.rs`, `logo.ai`, `lib.so`, `App.java`).
 * Written bare, such a name is a file unless the words before make it a place: "on allegro.pl", "at
 * amazon.in", "go to perplexity.ai", "upload it to drive.pl" — or it follows such a site in a list. Unsure,
 * it is a file: a site left out asks; a file read as a site would be one the task may reach.
 */
const FILE_LIKE_SUFFIXES = new Set(['pl', 'pm', 'ps', 'do', 'rs', 'ai', 'ml', 'so', 'st', 'tf', 'cc', 'in', 'am', 'ac', 'mk', 'ms', 'ma', 'cl', 'cr', 'gs', 'sc', 'sv', 'mo', 'ly', 'pt', 'bz', 'java', 'app', 'run', 'cab', 'mobi', 'gd', 'nu']);
const NAME_SITE_BEFORE = new Set(['at', 'on', 'visit', 'browse', 'via', 'to', 'website', 'site']);
/** "look at main.rs", "rename a.txt to b.pl": the name after these is a file. */
const FILE_PHRASE_BEFORE = /\b(?:look(?:ing)?|glance|rename[ds]?|convert(?:ed|s)?|cop(?:y|ied)|move[ds]?|save[ds]?|export(?:ed|s)?)\b/i;
/** Suffixes outside the ICANN list that still name sites on this kind of test rig. */
const RESERVED_SUFFIXES = new Set(['test', 'localhost', 'example', 'invalid']);
const IBAN_SPACED = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;
const IBAN_COMPACT = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
/** A `+`, then digits in groups of up to five joined by one space, dash, dot or bracket (not a date or an amount). */
/** A national phone number with its area code: `(412) 268-2000`, `412-268-2000`, `412.268.2000` (never a bare run of digits). */
const NATIONAL_PHONE = /(?<![\w+])(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?![\w-])/g;
const PHONE = /(?<![\w+])\+\d{1,4}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?![\w@])/g;
/** A chunk, where a URL's bracketed IPv6 host (`http://[::1]:3000/`) stays in one piece. */
const CHUNK = /[a-zA-Z][a-zA-Z0-9+.-]*:\/\/\[[0-9a-fA-F:.]+\][^\s<>"“”()[\]{},;]*|[^\s<>"“”()[\]{},;]+/g;
const ENDS_IN_IPV6_HOST = /:\/\/\[[0-9a-f:.]+\]$/i;
const TRAILING = /[.,:;!?'’)\]]+$/;
const POSSESSIVE = /['’]s$/i;
/** A handle as payment apps and social sites write it (`@nasa`, `@Sam-Lee`, `@jane.doe`). */
const HANDLE = /^@[a-z0-9_](?:[a-z0-9_.-]{0,28}[a-z0-9_])?$/i;
const RELATIVE_PATH = /^(?:\.\/)?[\w-]+(?:\/[\w.-]+)*\/[\w-][\w.-]*\.[a-z0-9]{1,5}$/i;
const CHANNEL = /^#[\p{L}\p{N}_.-]{1,80}$/u;

function hostIsSite(host: string): boolean {
  const info = parse(host, { allowPrivateDomains: true });
  // IP literals and private names (`wiki.corp.internal`) the user writes name hosts the task may reach.
  if (info.isIp || privateHostOf(host) !== null) return true;
  if (info.publicSuffix === null || info.domain === null) return false;
  return info.isIcann === true || info.isPrivate === true || RESERVED_SUFFIXES.has(info.publicSuffix);
}

/** The chunk without trailing sentence punctuation (and a possessive 's), as written. */
function trimChunk(raw: string): string {
  if (PATH.test(raw)) return raw.replace(/[.,:;!?)]+$/, '') || raw;
  if (ENDS_IN_IPV6_HOST.test(raw)) return raw;
  return raw.replace(POSSESSIVE, '').replace(TRAILING, '').replace(POSSESSIVE, '');
}

/**
 * A site the words name: its registrable domain (what the compiler binds and matches), and the host when the
 * words name one below it. A leading `www.` names the site's front door, not a host apart (the floor reads
 * it the same way, src/background/floor/dnr.ts); a private host's key is its endpoint already.
 */
function domainTarget(text: string): { kind: 'domain'; value: string; host?: string } | null {
  const site = siteKeyOf(text);
  if (site === null) return null;
  const host = hostOf(text)?.toLowerCase().replace(/^www\.(?=[^.]+\.)/, '');
  return host === undefined || host === site || privateHostOf(text) !== null ? { kind: 'domain', value: site } : { kind: 'domain', value: site, host };
}

function classifyChunk(raw: string): { kind: TargetKind; value: string; host?: string } | null {
  const text = raw.replace(/^mailto:/i, '');
  if (PATH.test(text)) return { kind: 'path', value: text };
  // "fix whatever is failing in src/utils/date.ts": a project-relative file path (folders, then a file with an
  // extension that names a file); never `..`, never under a dotted first part (`docs.test/a.md` is a site).
  if (RELATIVE_PATH.test(text) && !text.includes('..') && FILE_EXTENSIONS.has(text.slice(text.lastIndexOf('.') + 1).toLowerCase()) && !text.slice(0, text.indexOf('/')).includes('.')) return { kind: 'path', value: text };
  if (text === '' || text.includes('*')) return null;
  if (EMAIL.test(text)) return { kind: 'email', value: text.toLowerCase() };
  if (IBAN_COMPACT.test(text)) return { kind: 'iban', value: text.toLowerCase() };
  if (URL_SCHEME.test(text)) {
    // A private host is named with its port (`http://localhost:3000` names that port only; see addresses.ts).
    return domainTarget(text);
  }
  // "follow @nasa": an account's handle (its value without the @, as a site's form writes it).
  if (HANDLE.test(text)) return { kind: 'handle', value: text.slice(1).toLowerCase() };
  // "post it in #releases", "msg the team in #eng": a chat channel (as a message tool's channel argument reads).
  if (CHANNEL.test(text)) return { kind: 'channel', value: channelForm(text) };
  if (text.includes('@')) return null;
  if (HOST.test(text) || IPV4_HOST.test(text)) {
    const host = hostOf(text);
    if (host === null || !hostIsSite(host)) return null;
    const bare = !/[:/?#]/.test(text);
    // To a URL parser a number with a dot is an IPv4 address (84.20 → 84.0.0.20, 10.30 → 10.0.0.30,
    // 12.05.2026 → 12.5.7.234): an amount, a time or a date is not an address the user named. Only a
    // dotted quad names one.
    if (IPV4_ADDRESS.test(host) && !IPV4_HOST.test(text)) return null;
    // A part with a leading zero is octal to a URL parser (044.123.45.67 → 36.123.45.67): a phone
    // number, not the address the user wrote.
    if (IPV4_HOST.test(text) && /(?:^|\.)0\d/.test(text.split(/[:/?#]/)[0]!)) return null;
    // "Reply to Bob.Book a room": a sentence run on without its space, not a host (`.Book` is a TLD).
    if (bare && RUN_ON.test(text)) return null;
    const lastLabel = host.slice(host.lastIndexOf('.') + 1);
    if (bare && FILE_EXTENSIONS.has(lastLabel)) return null;
    return domainTarget(text);
  }
  // `localhost:3000`, as a developer writes a local server: that name and port (a bare `localhost` is a word).
  if (LOCALHOST_PORT.test(text)) {
    const site = siteKeyOf(text);
    return site === null ? null : { kind: 'domain', value: site };
  }
  return null;
}

/**
 * Whether the words before `start` make the IP address there a place to go (see IP_SITE_BEFORE). A link
 * (`http://10.0.0.5/…`) is one unless written as what a setting is set to ("set the webhook URL to http://…").
 */
function namesPlace(text: string, start: number, written: string): boolean {
  const lead = text.slice(Math.max(0, start - 40), start);
  const m = /(?:([a-z]+)\s+)?([a-z]+|=)\s*$/i.exec(lead);
  if (m === null) return false;
  const [before, beforeThat] = [m[2]!.toLowerCase(), m[1]?.toLowerCase() ?? ''];
  const going = before === 'to' && IP_GOING_BEFORE_TO.has(beforeThat);
  if (URL_SCHEME.test(written)) return going || !IP_VALUE_BEFORE.has(before);
  // "point dns.test at 10.0.0.53": what the record is set to.
  return going || (IP_SITE_BEFORE.has(before) && !(before === 'at' && /\bpoint/i.test(lead)));
}

/** `report.pl`: one dot, no scheme, port or path, and a suffix that is also a file extension. */
function isFileLike(written: string): boolean {
  return /^[^.:/?#]+\.[a-z]+$/i.test(written) && FILE_LIKE_SUFFIXES.has(written.slice(written.indexOf('.') + 1).toLowerCase());
}

/** Whether the words before a file-like name make it a site (see FILE_LIKE_SUFFIXES); `previous`: the target before it. */
function namesSite(text: string, start: number, previous: TargetToken | undefined): boolean {
  if (previous?.kind === 'domain' && /^\s*(?:,|,?\s*(?:and|or))\s*$/i.test(text.slice(previous.end, start))) return true;
  const lead = text.slice(Math.max(0, start - 40), start);
  const before = /([a-z]+)\s+$/i.exec(lead)?.[1]?.toLowerCase();
  if (before === undefined || !NAME_SITE_BEFORE.has(before)) return false;
  // This sentence's words only (the dot in `notes.txt` ends none): "rename notes.txt to notes.pl" renames.
  const sinceSentence = lead.slice(lead.search(/(?:[^.!?;\n]|[.!?;](?!\s))*$/));
  return !FILE_PHRASE_BEFORE.test(sinceSentence.slice(0, sinceSentence.length - before.length - 1));
}

/** Every literal target in the text, in order of position. */
export function extractTargets(text: string): TargetToken[] {
  const out: TargetToken[] = [];
  const taken: Array<[number, number]> = [];
  for (const m of text.matchAll(IBAN_SPACED)) {
    const value = m[0].replace(/ /g, '');
    if (!IBAN_COMPACT.test(value)) continue;
    out.push({ kind: 'iban', value: value.toLowerCase(), start: m.index, end: m.index + m[0].length });
    taken.push([m.index, m.index + m[0].length]);
  }
  // "+1 415 555 0134", "+44 7700 900123": an international phone number, however spaced (8 to 15 digits).
  for (const m of text.matchAll(PHONE)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length < 8 || digits.length > 15 || taken.some(([s, e]) => m.index < e && m.index + m[0].length > s)) continue;
    out.push({ kind: 'phone', value: phoneForm(m[0]), start: m.index, end: m.index + m[0].length });
    taken.push([m.index, m.index + m[0].length]);
  }
  // "(412) 268-2000", "412-268-2000": a national number written with its area code (North American style).
  for (const m of text.matchAll(NATIONAL_PHONE)) {
    if (taken.some(([s, e]) => m.index < e && m.index + m[0].length > s)) continue;
    out.push({ kind: 'phone', value: phoneForm(m[0]), start: m.index, end: m.index + m[0].length });
    taken.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(CHUNK)) {
    const start = m.index;
    const written = trimChunk(m[0]);
    // The token ends where its text does, so "… on mail.test." stays inside its sentence.
    const end = start + written.length;
    if (written === '' || taken.some(([s, e]) => start < e && end > s)) continue;
    const target = classifyChunk(written);
    if (target === null) continue;
    const before = /(\S+)\s+$/.exec(text.slice(Math.max(0, start - 30), start))?.[1]?.toLowerCase();
    if (target.kind === 'domain' && IPV4_ADDRESS.test(hostOf(target.value) ?? '') && before !== undefined && NUMBER_BEFORE.has(before)) continue;
    if (target.kind === 'domain' && IPV4_ADDRESS.test(hostOf(target.value) ?? '') && !namesPlace(text, start, written)) continue;
    // `localhost:3128` is a place as an address is: "set the proxy to localhost:3128" types it into a form.
    if (target.kind === 'domain' && LOCALHOST_PORT.test(written) && !namesPlace(text, start, written)) continue;
    if (target.kind === 'domain' && isFileLike(written) && !namesSite(text, start, out.at(-1))) continue;
    out.push({ ...target, start, end });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Canonical form of a recipient as drafts may write it: lower-case, IBAN without spaces. */
export function canonicalRecipient(value: string): string {
  const trimmed = value.trim().replace(/^mailto:/i, '');
  if (/^\+[\d\s().-]{7,}$/.test(trimmed)) return phoneForm(trimmed);
  const compact = trimmed.replace(/ /g, '');
  return (IBAN_COMPACT.test(compact.toUpperCase()) ? compact : trimmed).toLowerCase();
}

/** Roots and home directories are never granted: they stand for everything under them. */
export function isRefusedPath(path: string, homeDir?: string): boolean {
  const p = path.trim();
  if (p === '' || p.includes('*') || p.includes('?') || /(?:^|[/\\])\.\.(?:[/\\]|$)/.test(p)) return true;
  const stripped = p.length > 1 ? p.replace(/[/\\]+$/, '') : p;
  if (stripped === '/' || stripped === '~' || stripped === '' || /^[a-z]:$/i.test(stripped)) return true;
  if (/^\/(?:home|Users)\/[^/]+$/.test(stripped) || stripped === '/root' || stripped === '/home' || stripped === '/Users') return true;
  if (homeDir !== undefined && stripped === homeDir.replace(/[/\\]+$/, '')) return true;
  return false;
}
