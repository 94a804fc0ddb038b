import { z } from '../core/zod';
import { canonical, MAX_DISPLAYED_PER_SITE, MAX_OVERFLOW_PER_SITE, MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH, TAINT_KINDS, type TaintKind } from './kinds';

/**
 * Session data as the guarded pages showed it or the agent typed it: the data-lane taint. A token is
 * recorded with its kind (which decides its priority and the words of a block's reason; the token itself
 * is never put in a reason or the audit log) and the site it was seen on (sending a token back to the
 * site that showed it leaks nothing).
 */

export { canonical, MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH, TAINT_KINDS, type TaintKind } from './kinds';
// Pure: the content scripts must not carry zod.
export const TaintKindSchema = /* @__PURE__ */ z.enum(TAINT_KINDS);

/** What a block says instead of the token. */
export const KIND_WORDS: Record<TaintKind, string> = {
  'secret-field': 'a password or one-time-code field value',
  typed: 'text typed into the page',
  'one-time-code': 'a code shown on the page',
  'card-or-account': 'a card or account number shown on the page',
  email: 'an e-mail address shown on the page',
  token: 'a key or token shown on the page',
};

export const TaintTokenSchema = /* @__PURE__ */ z.strictObject({
  value: z.string().check(z.minLength(MIN_TOKEN_LENGTH), z.maxLength(MAX_TOKEN_LENGTH)),
  kind: TaintKindSchema,
  /** Registrable domain of the page the token was seen on. */
  site: z.string().check(z.minLength(1), z.maxLength(253)),
});
export type TaintToken = z.infer<typeof TaintTokenSchema>;

/** Tokens kept per task, and at most this many shown by one site (so one site's junk cannot crowd out another's secret). */
export const MAX_TASK_TOKENS = 400;
export { MAX_DISPLAYED_PER_SITE, MAX_OVERFLOW_PER_SITE } from './kinds';
/** And at most this many typed on one site: the earliest stay, so a page flooding its fields evicts nothing. */
export const MAX_TYPED_PER_SITE = 50;

/** Lower is kept first: what was typed into password/OTP fields outranks anything a page can display. */
const PRIORITY: Record<TaintKind, number> = { 'secret-field': 0, typed: 1, 'one-time-code': 2, 'card-or-account': 2, email: 3, token: 3 };
const isDisplayed = (kind: TaintKind) => PRIORITY[kind] >= 2;

/**
 * Adds `incoming` to `current` and returns the bounded set, deterministically:
 *  - one entry per (canonical value, site), keeping the highest-priority kind;
 *  - typed and field values first, then displayed tokens; among equals, the earlier one stays, so a page
 *    that floods tokens after a secret was shown cannot evict it;
 *  - each site displays at most MAX_DISPLAYED_PER_SITE tokens and has at most MAX_TYPED_PER_SITE typed
 *    ones, so an attacker's page cannot evict what another site showed or what was typed there.
 */
export function mergeTaint(current: readonly TaintToken[], incoming: readonly TaintToken[]): TaintToken[] {
  const byKey = new Map<string, { token: TaintToken; order: number }>();
  let order = 0;
  for (const token of [...current, ...incoming]) {
    const key = `${canonical(token.value)}|${token.site}`;
    if (canonical(token.value).length < MIN_TOKEN_LENGTH) continue;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { token, order: order++ });
    else if (PRIORITY[token.kind] < PRIORITY[seen.token.kind]) seen.token = token;
  }
  const ranked = [...byKey.values()].sort((a, b) => PRIORITY[a.token.kind] - PRIORITY[b.token.kind] || a.order - b.order);
  const perSite = new Map<string, number>();
  const kept: TaintToken[] = [];
  for (const { token } of ranked) {
    if (kept.length >= MAX_TASK_TOKENS) break;
    const slot = `${isDisplayed(token.kind) ? 'shown' : 'typed'}|${token.site}`;
    const n = perSite.get(slot) ?? 0;
    if (n >= (isDisplayed(token.kind) ? MAX_DISPLAYED_PER_SITE : MAX_TYPED_PER_SITE)) continue;
    perSite.set(slot, n + 1);
    kept.push(token);
  }
  return kept;
}

/**
 * What a task's taint leaves out, kept for one network-floor filter each (src/taint/rules.ts, taintRules'
 * first round) and nothing more: the taint's bound is what the evaluator and the dependency ledger search
 * at every request (400 tokens cost the ledger's index some 150 ms to build, measured 2026-12-03), while
 * one filter per token costs a DNR rule and no search. So a site that shows 100 junk tokens before a key
 * pushes the key out of the taint but not out of the floor: a URL that carries it whole is refused.
 */
export const MAX_OVERFLOW_TOKENS = 2_000;

/**
 * The overflow after a merge: `before` (the overflow so far) and then `candidates` (every token the merge
 * saw), less what `kept` holds, one entry per (canonical value, site), the earliest first, bounded per site
 * (one site's junk cannot crowd out another's) and per task.
 */
export function spillOver(kept: readonly TaintToken[], before: readonly TaintToken[], candidates: readonly TaintToken[]): TaintToken[] {
  const keyOf = (token: TaintToken) => `${canonical(token.value)}|${token.site}`;
  const taken = new Set(kept.map(keyOf));
  const perSite = new Map<string, number>();
  const out: TaintToken[] = [];
  for (const token of [...before, ...candidates]) {
    if (out.length >= MAX_OVERFLOW_TOKENS) break;
    const key = keyOf(token);
    const n = perSite.get(token.site) ?? 0;
    if (taken.has(key) || canonical(token.value).length < MIN_TOKEN_LENGTH || n >= MAX_OVERFLOW_PER_SITE) continue;
    taken.add(key);
    perSite.set(token.site, n + 1);
    out.push(token);
  }
  return out;
}

/** Tokens in priority order (mergeTaint's order): what the network floor spends its rule budget on first. */
export function byPriority(tokens: readonly TaintToken[]): TaintToken[] {
  return [...tokens].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind]);
}
