import { MAX_TOKEN_LENGTH, type TaintKind } from './kinds';

/**
 * What is worth stealing in text a page shows (pure; the content script feeds it visible text). Only
 * shapes that are data rather than prose: one-time codes and other digit runs of 6+ digits, card and
 * IBAN shapes, e-mail addresses, and long letter-digit tokens (API keys, session ids). Short digit runs
 * (years, prices) and plain words are left out: they are everywhere, also in ordinary dependency URLs.
 */

export interface FoundToken {
  value: string;
  kind: Exclude<TaintKind, 'secret-field' | 'typed'>;
}

/**
 * E-mail addresses, as `/[a-z0-9._%+-]{1,64}@DOMAIN/gi` finds them, but from each `@`: that regex tries a
 * match at every letter of the text (and scans up to 64 characters from each), two thirds of this file's
 * time on prose. Its leftmost match for an `@` starts where the run of local-part characters before it
 * does (at most 64 back, not before the previous match's end), and the domain is the same pattern.
 */
const EMAIL_DOMAIN = /[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.[a-z]{2,24}/iy;

function isLocalPart(c: number): boolean {
  // [a-z0-9._%+-], case-insensitive (ASCII only: without the u flag, /i folds no other letter into these).
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
}

function emails(text: string): string[] {
  const out: string[] = [];
  let end = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    const earliest = Math.max(end, at - 64);
    while (start > earliest && isLocalPart(text.charCodeAt(start - 1))) start--;
    if (start === at) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.exec(text) === null) continue;
    end = EMAIL_DOMAIN.lastIndex;
    out.push(text.slice(start, end));
  }
  return out;
}
/** 13–19 digits in groups (cards), or an IBAN (2 letters, 2 digits, 11–30 alphanumerics, spaces allowed). */
const CARD = /\b\d{4}(?:[ -]?\d{3,4}){2,3}(?:[ -]?\d{1,3})?\b/g;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g;
const DIGITS = /(?<![0-9])\d{6,19}(?![0-9])/g;
/** 16+ characters of letters, digits and -_ with at least one digit and one letter (API keys, session ids). */
const TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/g;

function hasLetterAndDigit(s: string): boolean {
  return /[a-z]/i.test(s) && /[0-9]/.test(s);
}

/** At most `limit` tokens from `text`, in order of appearance per kind. */
export function tokensInText(text: string, limit = 200): FoundToken[] {
  const out: FoundToken[] = [];
  const seen = new Set<string>();
  const push = (value: string, kind: FoundToken['kind']) => {
    const v = value.trim().slice(0, MAX_TOKEN_LENGTH);
    if (out.length >= limit || seen.has(v)) return;
    seen.add(v);
    out.push({ value: v, kind });
  };
  for (const email of emails(text)) push(email, 'email');
  for (const m of text.matchAll(IBAN)) push(m[0], 'card-or-account');
  for (const m of text.matchAll(CARD)) if (m[0].replace(/\D/g, '').length >= 13) push(m[0], 'card-or-account');
  for (const m of text.matchAll(DIGITS)) push(m[0], 'one-time-code');
  for (const m of text.matchAll(TOKEN)) if (hasLetterAndDigit(m[0])) push(m[0], 'token');
  return out;
}
