import { mayReturnToItsSite } from './kinds';
import { canonical, MIN_TOKEN_LENGTH, type TaintToken } from './tokens';

/**
 * How a token can reappear in a URL, and the check that finds it. Both sides are normalised the same
 * way — percent-decoded (up to three times), lower-cased, everything but letters and digits removed — so
 * separators, case and percent-encoding do not hide a token. A token is looked for as it was shown, as
 * its letters and digits, reversed, in rot13, in hex, and in base64 (standard and url-safe) at the three byte
 * alignments it can have inside a longer encoded blob.
 */

/** Encoded forms shorter than this are not looked for (they would match ordinary URLs by chance). */
export const MIN_NEEDLE_LENGTH = 6;

const utf8 = (s: string) => new TextEncoder().encode(s);

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** rot13 of the letters: the cheapest re-encoding there is (a red team sent a key so). */
export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/**
 * base64 of `bytes` as it appears inside the encoding of any longer input that contains it: for each
 * alignment k (bytes before the next 3-byte group boundary), the complete groups from k on.
 */
export function base64Alignments(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const whole = Math.floor((bytes.length - k) / 3) * 3;
    if (whole <= 0) continue;
    out.push(base64(bytes.subarray(k, k + whole)));
  }
  return out;
}

/** Every encoded form of a token, raw (not normalised): the shown value and its letters-and-digits form as sources. */
export function encodingsOf(value: string): string[] {
  const sources = [...new Set([value, canonical(value)])].filter((s) => s.length >= MIN_TOKEN_LENGTH);
  const out = new Set<string>();
  for (const source of sources) {
    const bytes = utf8(source);
    out.add(source);
    out.add([...source].reverse().join(''));
    out.add(rot13(source));
    out.add(hex(bytes));
    for (const b64 of base64Alignments(bytes)) out.add(b64);
  }
  return [...out];
}

/** The normalised forms matching compares: every encoding's letters and digits, lower-cased. */
export function needlesOf(value: string): string[] {
  const out = new Set<string>();
  for (const encoding of encodingsOf(value)) {
    const n = canonical(encoding);
    if (n.length >= MIN_NEEDLE_LENGTH || (n.length >= MIN_TOKEN_LENGTH && n === canonical(value))) out.add(n);
  }
  return [...out];
}

/** Percent-decodes up to three times (double encoding), tolerating malformed escapes. */
export function percentDecode(text: string): string {
  let current = text;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current.replace(/\+/g, ' '));
    } catch {
      next = current.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

/** The normalised text of a URL: host, path, query and fragment, decoded, lower-cased, letters and digits only. */
export function normalizeUrl(url: string): string {
  return canonical(percentDecode(url));
}

/**
 * The first taint token the URL carries (in `tokens`' order), or null. The caller passes the
 * destination's site: tokens seen on that site are skipped, except a password or one-time code typed
 * there (mayReturnToItsSite).
 */
export function urlCarriesTaint(url: string, tokens: readonly TaintToken[], destinationSite: string | null): TaintToken | null {
  const haystack = normalizeUrl(url);
  for (const token of tokens) {
    if (destinationSite !== null && token.site === destinationSite && mayReturnToItsSite(token.kind)) continue;
    if (needlesOf(token.value).some((needle) => haystack.includes(needle))) return token;
  }
  return null;
}
