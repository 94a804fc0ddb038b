import { needlesOf, percentDecode } from './encode';
import { canonical, mayReturnToItsSite } from './kinds';
import type { TaintToken } from './tokens';

/**
 * The dependency ledger: what a task's guarded pages have sent, request after request, to each site the
 * task does not name. Pure (the background feeds it every such request: the MAIN hooks' proposals before
 * the load, webRequest's onBeforeRequest for every request, hooked or not).
 *
 * Two checks, across requests, per unnamed site (registrable domain, so subdomains share one account):
 *  - volume: every request costs its URL bytes beyond the site's name — subdomain labels, port, path and
 *    query — once per distinct URL (a repeat costs 1, so a count of repeats is paid for too). A site
 *    over SITE_BUDGET, or every unnamed site once the task is over TASK_BUDGET, is refused from then on;
 *  - taint: the URLs' values (subdomain labels, port, path segments, query values, decoded, letters and
 *    digits only, lower-cased) are joined into one stream per site, and every needle of every taint token
 *    (as shown, reversed, hex, base64, rot13) is looked for in it — so a key cut into pieces of any size,
 *    one character per request or interleaved with short parameter names, in any case, is found when the
 *    pieces arrive in order. Long tokens are also looked for with up to GAP junk characters between their
 *    characters (an index or a parameter name beside every piece).
 * What no check here finds: data encoded in a way the needles do not list (compressed, encrypted) or
 * sent out of order with its own reassembly scheme — bounded by the budgets (docs/limits-floor.md).
 */

/** Novel URL bytes one unnamed site may receive in one task (docs/limits-floor.md says why this figure). */
export const SITE_BUDGET = 4096;
/** Novel URL bytes all unnamed sites together may receive in one task. */
export const TASK_BUDGET = 16384;
/** Junk characters allowed between the characters of a long token in the gapped match. */
export const GAP = 4;
/** Tokens at least this long (letters and digits) are also looked for with gaps (shorter ones would match by chance). */
export const GAPPED_MIN = 16;
/** How much of each site's stream is kept (the newest part). */
const STREAM_LIMIT = 16384;

export interface LedgerBudgets {
  site: number;
  task: number;
}

export type LedgerVerdict =
  | { refused: false; cost: number }
  | { refused: true; cost: number; why: 'taint'; token: TaintToken }
  | { refused: true; cost: number; why: 'site-budget' | 'task-budget' };

interface Account {
  spent: number;
  urls: Set<string>;
  /** Pieces already seen for this site: a constant part (`/img/`, `.png`, `?w=`) is not appended again. */
  seen: Set<string>;
  /** Every new piece, in order. */
  stream: string;
  /** Each slot's pieces, in order (a piece per request in one slot: `?w=482`, `?w=913`). */
  slots: Map<string, string>;
}

/** Distinct URLs remembered per site (a URL past this is charged in full each time). */
const MAX_URLS = 4096;
/** Slots kept per site; pieces in further slots go to the shared stream only. */
const MAX_SLOTS = 64;

export interface LedgerRequest {
  url: URL;
  /** The registrable domain of the URL's host (what the account is kept under). */
  site: string;
}

/** One value of a URL and the slot it sits in (a subdomain label, the port, a path segment, a query parameter). */
export interface UrlPiece {
  slot: string;
  text: string;
}

const EXTENSION = /\.[a-z0-9]{1,5}$/i;

/**
 * The URL's values, each with its slot: subdomain labels (`h0` nearest the site), the port, path segments
 * (`p0`…, the last without its file extension), query values by name (names themselves when they carry no
 * value). Decoded, as written otherwise (matching lower-cases).
 */
export function urlPieces(url: URL, site: string): UrlPiece[] {
  const host = url.hostname.toLowerCase();
  const labels = host === site || !host.endsWith(`.${site}`) ? [] : host.slice(0, -site.length - 1).split('.').reverse();
  const pieces: UrlPiece[] = labels.map((text, i) => ({ slot: `h${i}`, text }));
  if (url.port !== '') pieces.push({ slot: 'port', text: url.port });
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  segments.forEach((segment, i) => {
    const text = percentDecode(segment);
    pieces.push({ slot: `p${i}`, text: i === segments.length - 1 ? text.replace(EXTENSION, '') : text });
  });
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) pieces.push({ slot: 'q', text: percentDecode(pair) });
    else pieces.push({ slot: `q:${percentDecode(pair.slice(0, eq)).slice(0, 32)}`, text: percentDecode(pair.slice(eq + 1)) });
  }
  return pieces;
}

/** What the URL costs the first time: its bytes beyond the site's name (labels, port, path, query). */
export function urlCost(url: URL, site: string): number {
  const host = url.hostname.toLowerCase();
  const labels = host === site ? 0 : Math.max(0, host.length - site.length - 1);
  return labels + url.port.length + url.pathname.length + url.search.length;
}

/** Whether `needle` occurs in `hay` with at most `gap` other characters between consecutive characters. */
export function gappedIncludes(hay: string, needle: string, gap: number): boolean {
  if (needle.length === 0) return true;
  // ends: the positions (ascending) where a gapped match of needle[0..i] ends.
  let ends: number[] = [];
  for (let p = 0; p < hay.length; p++) if (hay[p] === needle[0]) ends.push(p);
  for (let i = 1; i < needle.length && ends.length > 0; i++) {
    const next: number[] = [];
    let e = 0;
    for (let p = ends[0]! + 1; p < hay.length && p <= ends[ends.length - 1]! + gap + 1; p++) {
      if (hay[p] !== needle[i]) continue;
      while (e < ends.length && ends[e]! < p - gap - 1) e++;
      if (e < ends.length && ends[e]! < p) next.push(p);
    }
    ends = next;
  }
  return ends.length > 0;
}

interface TokenNeedles {
  contiguous: string[];
  gapped: string[];
}

export class DependencyLedger {
  private readonly accounts = new Map<string, Account>();
  private total = 0;
  private readonly needles = new Map<string, TokenNeedles>();

  constructor(private readonly budgets: LedgerBudgets = { site: SITE_BUDGET, task: TASK_BUDGET }) {}

  /** Bytes charged so far to `site` (0 when it has no account). */
  spent(site: string): number {
    return this.accounts.get(site)?.spent ?? 0;
  }

  private needlesOf(token: TaintToken): TokenNeedles {
    let found = this.needles.get(token.value);
    if (found === undefined) {
      const plain = canonical(token.value);
      const contiguous = needlesOf(token.value);
      const gapped = plain.length >= GAPPED_MIN ? [plain, [...plain].reverse().join('')] : [];
      found = { contiguous, gapped };
      if (this.needles.size > 1000) this.needles.clear();
      this.needles.set(token.value, found);
    }
    return found;
  }

  /**
   * Charges one request and says whether it is over a budget or completes a token.
   */
  charge(request: LedgerRequest, taint: readonly TaintToken[]): LedgerVerdict {
    const { url, site } = request;
    const key = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    let account = this.accounts.get(site);
    if (account === undefined) this.accounts.set(site, (account = { spent: 0, urls: new Set(), seen: new Set(), stream: '', slots: new Map() }));
    // A repeat costs 1 and still counts in its slots: the order of repeats carries data too (`/p/4.png` twice).
    const repeat = account.urls.has(key);
    if (!repeat && account.urls.size < MAX_URLS) account.urls.add(key);
    const cost = repeat ? 1 : urlCost(url, site);
    account.spent += cost;
    this.total += cost;
    const changed: [string, number][] = [];
    let added = 0;
    for (const piece of urlPieces(url, site)) {
      const text = canonical(piece.text);
      if (text === '') continue;
      const slot = account.slots.get(piece.slot);
      if (slot !== undefined || account.slots.size < MAX_SLOTS) {
        account.slots.set(piece.slot, ((slot ?? '') + text).slice(-STREAM_LIMIT));
        changed.push([piece.slot, text.length]);
      }
      if (repeat || account.seen.has(text)) continue;
      if (account.seen.size < 4 * MAX_SLOTS * 64) account.seen.add(text);
      account.stream += text;
      added += text.length;
    }
    account.stream = account.stream.slice(-STREAM_LIMIT);
    const streams: [string, number][] = [[account.stream, added], ...changed.map(([slot, n]): [string, number] => [account.slots.get(slot)!, n])];
    const token = this.completedToken(streams, taint, url.hostname.toLowerCase());
    if (token !== null) return { refused: true, cost, why: 'taint', token };
    return this.overBudget(account, cost);
  }

  private overBudget(account: Account, cost: number): LedgerVerdict {
    if (account.spent > this.budgets.site) return { refused: true, cost, why: 'site-budget' };
    if (this.total > this.budgets.task) return { refused: true, cost, why: 'task-budget' };
    return { refused: false, cost };
  }

  /** A token one of whose needles ends in the newest part (its length given) of one of the streams. */
  private completedToken(streams: readonly [string, number][], taint: readonly TaintToken[], host: string): TaintToken | null {
    for (const token of taint) {
      // What a host showed may go back to it (a token's site is the host it was seen on, or an older task's registrable domain).
      if ((host === token.site || host.endsWith(`.${token.site}`)) && mayReturnToItsSite(token.kind)) continue;
      const { contiguous, gapped } = this.needlesOf(token);
      for (const [stream, fresh] of streams) {
        if (fresh === 0) continue;
        for (const needle of contiguous) {
          if (stream.slice(Math.max(0, stream.length - fresh - needle.length + 1)).includes(needle)) return token;
        }
        for (const needle of gapped) {
          if (gappedIncludes(stream.slice(Math.max(0, stream.length - fresh - needle.length * (GAP + 1))), needle, GAP)) return token;
        }
      }
    }
    return null;
  }
}
