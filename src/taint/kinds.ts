/**
 * The taint's plain vocabulary, without zod: the ISOLATED content script (on every page) needs these and
 * nothing else; the schemas are in ./tokens.ts.
 */
export const TAINT_KINDS = ['secret-field', 'typed', 'one-time-code', 'card-or-account', 'email', 'token'] as const;
export type TaintKind = (typeof TAINT_KINDS)[number];

export const MIN_TOKEN_LENGTH = 4;
/** Shown tokens a site keeps in the task's taint, and past that in its overflow (src/taint/tokens.ts): the collector reports no more per document. */
export const MAX_DISPLAYED_PER_SITE = 100;
export const MAX_OVERFLOW_PER_SITE = 1_000;
export const MAX_TOKEN_LENGTH = 128;

/** The letters and digits of a token, lower-cased: what matching compares. */
export function canonical(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Whether a token may go back to the site it was seen on. What a page showed it already knows; a password
 * or one-time code the agent typed into a site the task does not name is exactly what that site must not
 * receive (until 2026-12-01 a page there could send it to itself in a URL).
 */
export function mayReturnToItsSite(kind: TaintKind): boolean {
  return kind !== 'secret-field';
}
