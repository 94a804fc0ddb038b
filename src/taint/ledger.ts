import { needlesOf, percentDecode } from './encode';
import { canonical, mayReturnToItsSite } from './kinds';
import type { TaintToken } from './tokens';

/**
 * The dependency ledger: what a task's guarded pages have sent, request after request, to each site the
 * task does not name. Pure (the background feeds it every such request: the MAIN hooks' proposals before
 * the load, webRequest's onBeforeRequest for every request, hooked or not).
 *
 * Two checks, across requests, per unnamed site (registrable domain, so subdomains share one account) and,
 * for the taint, across every unnamed site together (a key cut over fourteen hosts is one key):
 *  - volume: every request costs its URL bytes beyond the site's name — subdomain labels, port, path and
 *    query — once per distinct URL (a repeat costs 1, so a count of repeats is paid for too). A site
 *    over SITE_BUDGET, or every unnamed site once the task is over TASK_BUDGET, is refused from then on;
 *  - taint: the URLs' values (subdomain labels, port, path segments, query values, decoded, letters and
 *    digits only, lower-cased) are joined into streams per site — one of every new value, and one per
 *    slot (`?w=`, the third path segment) — and a run of PIECE characters of any needle of any taint token
 *    (as shown, reversed, rot13, hex, base64), or a short token whole, refuses the site: a key cut into
 *    pieces of any size, one character per request, or beside an index or a parameter name, in any case,
 *    is found once PIECE characters of it arrived in order. The same streams are kept for all unnamed
 *    sites together: a run completed there refuses every unnamed site, since the pieces went to many.
 * What no check here finds: data encoded in a way the needles do not list (compressed, encrypted) or
 * sent out of order with its own reassembly scheme — bounded by the budgets (docs/limits-floor.md).
 */

/** Novel URL bytes one unnamed site may receive in one task (docs/limits-floor.md says why this figure). */
export const SITE_BUDGET = 4096;
/** Novel URL bytes all unnamed sites together may receive in one task. */
export const TASK_BUDGET = 16384;
/** A run of this many characters of a token's needle in what a site received refuses the site. */
export const PIECE = 10;
/**
 * Out of order: RUNS pieces (URL values), each holding a distinct RUN-character run of one long token (as shown
 * or reversed), among what a site received, in any order and beside anything (an index, a counter), refuse it. Only tokens of LONG_TOKEN
 * characters or more (keys), whose runs are random: a short code's or an e-mail's runs are words and numbers.
 */
export const RUN = 5;
export const RUNS = 4;
const LONG_TOKEN = 16;
/** How much of each site's stream is kept (the newest part). */
const STREAM_LIMIT = 16384;

export interface LedgerBudgets {
  site: number;
  task: number;
}

export type LedgerVerdict =
  | { refused: false; cost: number }
  /** `across`: the run was completed only by pieces sent to several unnamed sites (every one is refused). */
  | { refused: true; cost: number; why: 'taint'; token: TaintToken; across: boolean }
  | { refused: true; cost: number; why: 'site-budget' | 'task-budget' };

/** What a stream is kept from: the pieces seen, every new piece in order, each slot's pieces in order. */
interface Streams {
  /** Pieces already seen: a constant part (`/img/`, `.png`, `?w=`) is not appended again. */
  seen: Set<string>;
  /** Every new piece, in order. */
  stream: string;
  /** Each slot's pieces, in order (a piece per request in one slot: `?w=482`, `?w=913`). */
  slots: Map<string, string>;
  /** Per long token (its value), the distinct runs of it received, in any order. */
  runs: Map<string, Set<string>>;
}

interface Account extends Streams {
  spent: number;
  urls: Set<string>;
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

/**
 * The taint as the ledger looks for it: every PIECE-long run of every needle (and the short needles
 * whole), so a site is refused once it has received a run of PIECE characters of a token — not only once
 * the whole token arrived, which for the hooks' check (before the load) would withhold the last piece only.
 */
interface TaintIndex {
  pieces: Map<string, TaintToken>;
  short: { needle: string; token: TaintToken }[];
  /** Every RUN-long run of a long token as shown and reversed, to the token (for the out-of-order count). */
  runs: Map<string, TaintToken>;
}

/**
 * What the ledger has counted, as the task stores it (so a worker restart keeps the budgets and the
 * streams): per site its spent bytes, the URLs it has charged, the pieces it has seen, and the newest
 * PIECE - 1 characters of its stream and of each slot — a run is only ever looked for where it ends in a
 * new piece, so no older character can be read again (completedToken).
 */
export interface LedgerCounts {
  total: number;
  sites: Array<{ site: string; spent: number; urls: string[]; seen: string[]; stream: string; slots: Array<[string, string]>; runs?: Array<[string, string[]]> }>;
  /** The streams of all unnamed sites together (absent in a task stored before they were kept). */
  across?: { seen: string[]; stream: string; slots: Array<[string, string]>; runs?: Array<[string, string[]]> };
}

const tail = (s: string) => s.slice(-(PIECE - 1));

/** What a host showed may go back to it (a token's site is the host it was seen on, or an older task's registrable domain). */
function mayGoTo(token: TaintToken, host: string): boolean {
  return (host === token.site || host.endsWith(`.${token.site}`)) && mayReturnToItsSite(token.kind);
}

/** The out-of-order runs to store with the task (a few per token: RUNS at most before a refusal). */
function keptRuns(streams: Streams): Array<[string, string[]]> {
  return [...streams.runs].map(([value, runs]): [string, string[]] => [value, [...runs]]);
}

/**
 * Appends a request's pieces to one set of streams (its slots always, the shared stream only what is new):
 * the streams to look in, each with how many characters just arrived.
 */
function appended(streams: Streams, pieces: readonly UrlPiece[], repeat: boolean): [string, number][] {
  const changed: [string, number][] = [];
  let added = 0;
  for (const piece of pieces) {
    const slot = streams.slots.get(piece.slot);
    if (slot !== undefined || streams.slots.size < MAX_SLOTS) {
      streams.slots.set(piece.slot, ((slot ?? '') + piece.text).slice(-STREAM_LIMIT));
      changed.push([piece.slot, piece.text.length]);
    }
    if (repeat || streams.seen.has(piece.text)) continue;
    if (streams.seen.size < 4 * MAX_SLOTS * 64) streams.seen.add(piece.text);
    streams.stream += piece.text;
    added += piece.text.length;
  }
  streams.stream = streams.stream.slice(-STREAM_LIMIT);
  return [[streams.stream, added], ...changed.map(([slot, n]): [string, number] => [streams.slots.get(slot)!, n])];
}

export class DependencyLedger {
  private readonly accounts = new Map<string, Account>();
  /** Every unnamed site's pieces in one set of streams. */
  private across: Streams = { seen: new Set(), stream: '', slots: new Map(), runs: new Map() };
  private total = 0;
  private index: { taint: readonly TaintToken[]; index: TaintIndex } | null = null;

  constructor(
    private readonly budgets: LedgerBudgets = { site: SITE_BUDGET, task: TASK_BUDGET },
    counted?: LedgerCounts,
  ) {
    if (counted === undefined) return;
    this.total = counted.total;
    const runsOf = (kept: Array<[string, string[]]> | undefined) => new Map((kept ?? []).map(([value, runs]): [string, Set<string>] => [value, new Set(runs)]));
    for (const a of counted.sites) this.accounts.set(a.site, { spent: a.spent, urls: new Set(a.urls), seen: new Set(a.seen), stream: a.stream, slots: new Map(a.slots), runs: runsOf(a.runs) });
    if (counted.across !== undefined) this.across = { seen: new Set(counted.across.seen), stream: counted.across.stream, slots: new Map(counted.across.slots), runs: runsOf(counted.across.runs) };
  }

  /** What it has counted, to be stored with the task (the constructor takes it back). */
  counts(): LedgerCounts {
    return {
      total: this.total,
      sites: [...this.accounts].map(([site, a]) => ({ site, spent: a.spent, urls: [...a.urls], seen: [...a.seen], stream: tail(a.stream), slots: [...a.slots].map(([slot, text]): [string, string] => [slot, tail(text)]), runs: keptRuns(a) })),
      across: { seen: [...this.across.seen], stream: tail(this.across.stream), slots: [...this.across.slots].map(([slot, text]): [string, string] => [slot, tail(text)]), runs: keptRuns(this.across) },
    };
  }

  /** Bytes charged so far to `site` (0 when it has no account). */
  spent(site: string): number {
    return this.accounts.get(site)?.spent ?? 0;
  }

  private indexOf(taint: readonly TaintToken[]): TaintIndex {
    if (this.index?.taint === taint) return this.index.index;
    const pieces = new Map<string, TaintToken>();
    const short: TaintIndex['short'] = [];
    for (const token of taint) {
      for (const needle of needlesOf(token.value)) {
        if (needle.length < PIECE) short.push({ needle, token });
        else for (let at = 0; at + PIECE <= needle.length; at++) if (!pieces.has(needle.slice(at, at + PIECE))) pieces.set(needle.slice(at, at + PIECE), token);
      }
    }
    const runs = new Map<string, TaintToken>();
    for (const token of taint) {
      const shown = canonical(token.value);
      if (shown.length < LONG_TOKEN) continue;
      for (const form of [shown, [...shown].reverse().join('')]) for (let at = 0; at + RUN <= form.length; at++) if (!runs.has(form.slice(at, at + RUN))) runs.set(form.slice(at, at + RUN), token);
    }
    const index = { pieces, short, runs };
    this.index = { taint, index };
    return index;
  }

  /**
   * Charges one request and says whether it is over a budget or completes a token.
   */
  charge(request: LedgerRequest, taint: readonly TaintToken[]): LedgerVerdict {
    const { url, site } = request;
    const key = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    let account = this.accounts.get(site);
    if (account === undefined) this.accounts.set(site, (account = { spent: 0, urls: new Set(), seen: new Set(), stream: '', slots: new Map(), runs: new Map() }));
    // A repeat costs 1 and still counts in its slots: the order of repeats carries data too (`/p/4.png` twice).
    const repeat = account.urls.has(key);
    if (!repeat && account.urls.size < MAX_URLS) account.urls.add(key);
    const cost = repeat ? 1 : urlCost(url, site);
    account.spent += cost;
    this.total += cost;
    const pieces = urlPieces(url, site)
      .map((piece) => ({ slot: piece.slot, text: canonical(piece.text) }))
      .filter((piece) => piece.text !== '');
    const host = url.hostname.toLowerCase();
    // Both sets of streams take the request, whatever either finds.
    const own = appended(account, pieces, repeat);
    const everywhere = appended(this.across, pieces, repeat);
    const fresh = repeat ? [] : pieces;
    const token = this.completedToken(own, taint, host) ?? this.scatteredToken(account, fresh, taint, host);
    if (token !== null) return { refused: true, cost, why: 'taint', token, across: false };
    const spread = this.completedToken(everywhere, taint, host) ?? this.scatteredToken(this.across, fresh, taint, host);
    if (spread !== null) return { refused: true, cost, why: 'taint', token: spread, across: true };
    return this.overBudget(account, cost);
  }

  private overBudget(account: Account, cost: number): LedgerVerdict {
    if (account.spent > this.budgets.site) return { refused: true, cost, why: 'site-budget' };
    if (this.total > this.budgets.task) return { refused: true, cost, why: 'task-budget' };
    return { refused: false, cost };
  }

  /**
   * A long token RUNS distinct runs of which have now arrived in as many pieces, in any order: each new piece's
   * RUN-long windows are looked up, and its first run of a token remembered (a reshuffled key, or its pieces
   * each beside an index).
   */
  private scatteredToken(streams: Streams, pieces: readonly UrlPiece[], taint: readonly TaintToken[], host: string): TaintToken | null {
    if (taint.length === 0 || pieces.length === 0) return null;
    const { runs } = this.indexOf(taint);
    if (runs.size === 0) return null;
    for (const piece of pieces) {
      // One count per piece, whatever runs it holds: within a piece, order is kept and PIECE rules.
      const counted = new Set<string>();
      for (let at = 0; at + RUN <= piece.text.length; at++) {
        const token = runs.get(piece.text.slice(at, at + RUN));
        if (token === undefined || counted.has(token.value) || mayGoTo(token, host)) continue;
        counted.add(token.value);
        let got = streams.runs.get(token.value);
        if (got === undefined) streams.runs.set(token.value, (got = new Set()));
        got.add(piece.text.slice(at, at + RUN));
        if (got.size >= RUNS) return token;
      }
    }
    return null;
  }

  /** A token a run of which (or, when short, the whole of which) ends in the newest part of one of the streams. */
  private completedToken(streams: readonly [string, number][], taint: readonly TaintToken[], host: string): TaintToken | null {
    if (taint.length === 0) return null;
    const { pieces, short } = this.indexOf(taint);
    const mayGo = (token: TaintToken) => mayGoTo(token, host);
    for (const [stream, fresh] of streams) {
      if (fresh === 0) continue;
      for (let end = Math.max(PIECE, stream.length - fresh + 1); end <= stream.length; end++) {
        const token = pieces.get(stream.slice(end - PIECE, end));
        if (token !== undefined && !mayGo(token)) return token;
      }
      for (const { needle, token } of short) {
        if (!mayGo(token) && stream.slice(Math.max(0, stream.length - fresh - needle.length + 1)).includes(needle)) return token;
      }
    }
    return null;
  }
}
