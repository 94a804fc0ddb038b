/**
 * The taint's plain vocabulary, without zod: the ISOLATED content script (on every page) needs these and
 * nothing else; the schemas are in ./tokens.ts.
 */
export const TAINT_KINDS = ['secret-field', 'typed', 'one-time-code', 'card-or-account', 'email', 'token'] as const;
export type TaintKind = (typeof TAINT_KINDS)[number];

export const MIN_TOKEN_LENGTH = 4;
export const MAX_TOKEN_LENGTH = 128;

/** The letters and digits of a token, lower-cased: what matching compares. */
export function canonical(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, '');
}
