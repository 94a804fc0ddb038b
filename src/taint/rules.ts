import type { Browser } from '@wxt-dev/browser';
import { encodingsOf } from './encode';
import { mayReturnToItsSite } from './kinds';
import { byPriority, canonical, MAX_OVERFLOW_TOKENS, MAX_TASK_TOKENS, type TaintToken } from './tokens';

type Rule = Browser.declarativeNetRequest.Rule;
type RuleCondition = Browser.declarativeNetRequest.RuleCondition;
type ResourceType = `${Browser.declarativeNetRequest.ResourceType}`;

/** A rule without its id and tab scope (the floor adds both). */
export type RuleSpec = Omit<Rule, 'id'>;

/**
 * The taint as declarativeNetRequest rules: the browser itself refuses a request whose URL carries a
 * token, whatever context sends it (hooks or not). DNR compares raw URLs (case-insensitively), without
 * decoding, so each token becomes:
 *  - `urlFilter` substrings of every encoding (as shown, letters-and-digits only, reversed, rot13, hex,
 *    base64 at three alignments), cut into SHINGLE-long pieces (HEX_SHINGLE for hex) at fixed offsets: a
 *    token the sender splits into pieces of at least 2·SHINGLE−1 characters (a separator every 11
 *    characters) still contains a whole piece in one request; finer cuts, and cuts spread over several
 *    requests, are the dependency ledger's (src/taint/ledger.ts);
 *  - RE2 `regexFilter`s that allow separators between the characters: up to three for tokens of up to
 *    SHORT_SPACED characters (`4[^a-z0-9]{0,3}8[^a-z0-9]{0,3}3…`), one for the first and last
 *    SPACED_WINDOW characters of longer ones (`a[^a-z0-9]?b…`). Chromium's 2 KB regex limit allows no
 *    more (measured with isRegexSupported, case-sensitive: six characters with `{0,3}`, sixteen with `?`;
 *    the rules are case-sensitive for that reason — a separated token in upper case is not matched).
 * Rules are spent in priority order (field values first, mergeTaint's order) within the budgets, after
 * one filter for every token (taintRules); what does not fit is still caught on hooked actions by
 * `urlCarriesTaint` and, across requests, by the dependency ledger.
 */

export const SHINGLE = 6;
export const HEX_SHINGLE = 12;
/** Pieces shorter than this are not used as substrings (ordinary URLs would match by chance). */
export const MIN_PIECE = 6;
export const SHORT_SPACED = 6;
export const SPACED_WINDOW = 16;

/** Chromium's limits: 5,000 session rules, 1,000 regex rules (shared with every other rule family). */
export interface TaintBudget {
  urlFilters: number;
  regexes: number;
}

/**
 * A piece as whole filters: itself when short, else shingle-long cuts at fixed offsets and its tail. Hex
 * pieces (16 symbols: a 6-character cut would match an ordinary content hash by chance) are cut in
 * HEX_SHINGLE-long pieces; the others (36 symbols, DNR compares without case) in SHINGLE-long ones, so a
 * key cut into 11-character path segments still holds a whole filter in one request.
 */
function addShingles(out: Set<string>, piece: string): void {
  const size = /^[0-9a-f]+$/i.test(piece) ? HEX_SHINGLE : SHINGLE;
  if (piece.length <= 2 * size) {
    out.add(piece);
    return;
  }
  for (let at = 0; at + size <= piece.length; at += size) out.add(piece.slice(at, at + size));
  out.add(piece.slice(-size));
}

/** Substrings a URL carrying `value` contains (raw, case-insensitive in DNR). */
export function urlFiltersOf(value: string): string[] {
  const out = new Set<string>();
  const full = canonical(value);
  for (const encoding of encodingsOf(value)) {
    for (const piece of encoding.split(/[^A-Za-z0-9]+/)) {
      if (piece.length >= (piece.toLowerCase() === full ? 4 : MIN_PIECE)) addShingles(out, piece);
    }
  }
  // The value as shown, percent-encoded as a URL carries it (`4111%201111%201111%201111`,
  // `john.doe%40gmail.com`; a browser writes a space in a path as %20 by itself): whole, since cut at
  // its non-letters it falls into groups too short to filter, and `%20` is no separator the spaced
  // patterns allow. `*` is DNR's wildcard: such a value has no literal filter.
  const escaped = encodeURIComponent(value.trim());
  if (escaped.includes('%') && !escaped.includes('*') && escaped.length >= MIN_PIECE) addShingles(out, escaped);
  return [...out];
}

/**
 * The one filter every token gets first (taintRules): the first shingle of its first piece as shown, else
 * of its letters and digits — a URL that carries the token whole, as shown or without separators, holds it.
 * It is one of urlFiltersOf's (same pieces, same shingles).
 */
export function firstFilterOf(value: string): string | null {
  const full = canonical(value);
  for (const source of [value, full]) {
    for (const piece of source.split(/[^A-Za-z0-9]+/)) {
      if (piece.length < (piece.toLowerCase() === full ? 4 : MIN_PIECE)) continue;
      const out = new Set<string>();
      addShingles(out, piece);
      return [...out][0] ?? null;
    }
  }
  return null;
}

/** The separator-tolerant RE2 patterns of a token (none for tokens under four letters and digits). */
export function spacedRegexesOf(value: string): string[] {
  const chars = canonical(value);
  if (chars.length < 4) return [];
  if (chars.length <= SHORT_SPACED) return [[...chars].join('[^a-z0-9]{0,3}')];
  const windows = new Set([chars.slice(0, SPACED_WINDOW), chars.slice(-SPACED_WINDOW)]);
  return [...windows].map((w) => [...w].join('[^a-z0-9]?'));
}

export interface TaintRuleInput {
  tokens: readonly TaintToken[];
  /** Tokens the taint's bound left out: one filter each, after the tokens' own first round. */
  overflow?: readonly TaintToken[];
  /** Sites every token may go to (the sites the task names). */
  namedSites: readonly string[];
  resourceTypes: ResourceType[];
  priority: number;
  budget: TaintBudget;
}

interface Candidate {
  /** Identifies the pattern for one site: the same pattern from two tokens of a site is one rule. */
  key: string;
  rule: RuleSpec;
}

/**
 * A token's rules before the budgets, built once per token and condition and then reused: the floor is
 * rebuilt at every taint report, and the same rule objects let the update compare them by identity
 * (src/background/floor/rule-update.ts). Bounded: cleared when it holds twice a task's token limit.
 */
const candidateCache = new Map<string, { urlFilters: Candidate[]; regexes: Candidate[] }>();
const CANDIDATE_CACHE_LIMIT = 2 * MAX_TASK_TOKENS;

function excludedOf(token: TaintToken, input: TaintRuleInput): string[] {
  return [...new Set([...input.namedSites, ...(mayReturnToItsSite(token.kind) ? [token.site] : [])])].sort();
}

/** The first round's rule of a token (firstFilterOf), cached as candidatesOf's are; null when it has none. */
const firstCache = new Map<string, Candidate | null>();
const FIRST_CACHE_LIMIT = 2 * (MAX_TASK_TOKENS + MAX_OVERFLOW_TOKENS);

function firstCandidateOf(token: TaintToken, input: TaintRuleInput): Candidate | null {
  const excluded = excludedOf(token, input);
  const cacheKey = JSON.stringify([token.value, token.site, excluded, input.resourceTypes, input.priority]);
  const cached = firstCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const filter = firstFilterOf(token.value);
  const candidate: Candidate | null = filter === null ? null : {
    key: `u|${filter.toLowerCase()}|${token.site}`,
    rule: { priority: input.priority, action: { type: 'block' }, condition: { urlFilter: filter, resourceTypes: input.resourceTypes, excludedRequestDomains: excluded } },
  };
  if (firstCache.size >= FIRST_CACHE_LIMIT) firstCache.clear();
  firstCache.set(cacheKey, candidate);
  return candidate;
}

function candidatesOf(token: TaintToken, input: TaintRuleInput) {
  const excluded = excludedOf(token, input);
  const cacheKey = JSON.stringify([token.value, token.site, excluded, input.resourceTypes, input.priority]);
  let candidates = candidateCache.get(cacheKey);
  if (candidates !== undefined) return candidates;
  const condition = (extra: RuleCondition): RuleCondition => ({ ...extra, resourceTypes: input.resourceTypes, excludedRequestDomains: excluded });
  candidates = {
    urlFilters: urlFiltersOf(token.value).map((filter) => ({
      key: `u|${filter.toLowerCase()}|${token.site}`,
      rule: { priority: input.priority, action: { type: 'block' }, condition: condition({ urlFilter: filter }) },
    })),
    // Case-sensitive (the patterns are lower-case): case folding doubles every class, and the
    // case-insensitive form of these patterns exceeds Chromium's 2 KB regex limit when the rule is added.
    regexes: spacedRegexesOf(token.value).map((regex) => ({
      key: `r|${regex}|${token.site}`,
      rule: { priority: input.priority, action: { type: 'block' }, condition: condition({ regexFilter: regex, isUrlFilterCaseSensitive: true }) },
    })),
  };
  if (candidateCache.size >= CANDIDATE_CACHE_LIMIT) candidateCache.clear();
  candidateCache.set(cacheKey, candidates);
  return candidates;
}

/**
 * The rules of `input.tokens`, within the budgets, in two rounds. First one filter of every token and then
 * of every overflow token (its first piece as shown): a URL that carries the token whole is refused
 * whatever else the budget went to, so a site showing hundreds of junk tokens before a key does not leave
 * the key without a rule (2026-12-03 red team, taint flood). Then every other filter and regex of the
 * tokens, in priority order, as far as the budgets go.
 */
export function taintRules(input: TaintRuleInput): RuleSpec[] {
  const rules: RuleSpec[] = [];
  const seen = new Set<string>();
  let urlFilters = 0;
  let regexes = 0;
  const ranked = byPriority(input.tokens);
  for (const token of [...ranked, ...(input.overflow ?? [])]) {
    const first = firstCandidateOf(token, input);
    if (first === null || urlFilters >= input.budget.urlFilters || seen.has(first.key)) continue;
    seen.add(first.key);
    urlFilters++;
    rules.push(first.rule);
  }
  for (const token of ranked) {
    const candidates = candidatesOf(token, input);
    for (const { key, rule } of candidates.urlFilters) {
      if (urlFilters >= input.budget.urlFilters || seen.has(key)) continue;
      seen.add(key);
      urlFilters++;
      rules.push(rule);
    }
    for (const { key, rule } of candidates.regexes) {
      if (regexes >= input.budget.regexes || seen.has(key)) continue;
      seen.add(key);
      regexes++;
      rules.push(rule);
    }
  }
  return rules;
}
