import { ibanChecksumHolds, isRecipientKey } from '../core/classifier/targets';
import { needlesOf, percentDecode } from '../taint/encode';
import { canonical } from '../taint/kinds';
import { PASTED_KINDS, type PastedKind } from './pasted-kinds';

/**
 * The Minimizer's deterministic detector: confidential data inside an action the evaluator would allow,
 * which the user's own request does not call for. It reads the values an action carries (form fields,
 * request-body leaves, query parameters) and returns findings with exact spans, so the guard can offer to
 * send the action without them.
 *
 * What counts, and why it is recognisable without a model:
 *  - one-time codes: 4–8 digits next to words people use for them (code, OTP, PIN, verification …);
 *  - passwords written out in text (`password: …`);
 *  - payment card numbers: 13–19 digits (spaces/dashes allowed) that pass the Luhn check;
 *  - IBANs: country code, check digits and BBAN that pass ISO 13616 mod-97;
 *  - API keys and tokens with well-known prefixes, JWTs, PEM private-key blocks, and long high-entropy
 *    tokens (session ids) in free-text fields (message, note, memo …: where a token has no business);
 *  - e-mail addresses and phone numbers that are not among the task's recipients.
 * Anything the user's own words contain (their IBAN for a payment, their address for a delivery) is
 * never a finding: the user asked for it to be sent. Form controls whose value the page set rather than
 * the agent typed (hidden inputs such as CSRF tokens, selects, checkboxes, a site's own password field
 * on its own login form) are not read: a login or a 2FA form on the task's site is the task.
 */

export const DATA_KINDS = [
  'one_time_code',
  'password',
  'card_number',
  'iban',
  'api_key',
  'jwt',
  'private_key',
  'session_token',
  'email',
  'phone',
  /** Named by the model mode: data the task does not need (see model.ts). */
  'unneeded',
  /** Session data another site showed (or the agent typed there): the data-lane taint. */
  'other_site_data',
  /** Private details found only in what the user pasted, not in what they asked (./pasted.ts). */
  ...PASTED_KINDS,
] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/** One string an action carries, with where it sits (`fields.note`, `body.message.text`, `query.q`). */
export interface CarriedValue {
  path: string;
  value: string;
  /** The input type of a form field, when known (`password`, `email`, …). */
  fieldType?: string;
  /** A name (object key, field or query parameter name), not a value: read for data, never for addresses. */
  name?: true;
}

export interface Finding {
  kind: DataKind;
  path: string;
  /** The span within `value` of the CarriedValue at `path`, [start, end). */
  start: number;
  end: number;
}

export interface DetectContext {
  /** The user's own words (request and follow-ups): data in them is never a finding. */
  userWords: string;
  /** The task's recipients (e-mail addresses, account ids): never a finding. */
  recipients: readonly string[];
}

/** Words in words people use for one-time codes; a 4–8 digit run within ~40 characters after one is a code. */
const CODE_CONTEXT = /\b(?:code|codes|otp|one[- ]time|verification|verify|passcode|pin|2fa|mfa|sign[- ]in|login|security code|token)\b[^0-9]{0,40}$/i;
/** Field names where people write prose: a token there was pasted, not required by the form. */
const FREE_TEXT_KEY = /message|body|text|content|note|comment|memo|subject|description|reference|remark|reason|detail|html|msg|gift|bio|title/i;
/** Control types whose value the page set, not the agent (see the header). */
export const PAGE_SET_TYPES = new Set(['hidden', 'select', 'select-multiple', 'radio', 'checkbox', 'password', 'file', 'submit', 'image', 'reset', 'button', 'button-submit', 'button-button', 'button-reset']);
const PASSWORD_IN_TEXT = /\b(?:password|passwd|passphrase|pwd)\s*(?:is|:|=)\s*(\S{4,64})/gi;
const DIGIT_RUN = /(?<![0-9])[0-9]{4,8}(?![0-9])/g;
/** A code written in two groups (`483-920`, `483 920`). */
const SPLIT_CODE = /(?<![0-9])[0-9]{3,4}[ -][0-9]{3,4}(?![0-9])/g;
export const CARD_CANDIDATE = /(?<![0-9])[0-9](?:[ ._-]{0,2}[0-9]){12,18}(?![0-9])/g;
/** Issuer prefixes and lengths of the common card networks (Visa, Mastercard, Amex, Discover). */
const CARD_SHAPED = /^(?:4[0-9]{15}|4[0-9]{18}|5[1-5][0-9]{14}|2[2-7][0-9]{14}|3[47][0-9]{13}|6(?:011|5[0-9]{2})[0-9]{12})$/;
export const IBAN_CANDIDATE = /\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}/gi;
const API_KEY = /\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9_-]{16,}|\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}|\bxox[abpors]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b/g;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;
const LONG_TOKEN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])/g;
export const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
export const PHONE = /(?<![\w+])\+?[0-9](?:[ ()./-]{0,2}[0-9]){7,14}(?![\w])/g;
/** A run that may be base64 (standard or url-safe) or hex of a datum: decoded and read again (encodedIn). */
const ENCODED_RUN = /(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/_-]|\r?\n(?=[A-Za-z0-9+/_-])){16,}={0,2}(?![A-Za-z0-9+/_=-])/g;
/** A run with percent-escapes (`4111%201111%20…`): decoded as the network floor's taint decodes URLs. */
const PERCENT_RUN = /(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2})*%[0-9A-Fa-f]{2}(?:[A-Za-z0-9._~+-]|%[0-9A-Fa-f]{2})*/g;
/** The longest run decoded (a 16 KB view holds no longer one). */
const MAX_ENCODED_RUN = 32_768;
/** Decoded runs read within decoded runs (base64 of hex of a datum). */
const MAX_DECODE_DEPTH = 2;

const NON_ASCII_DIGIT = /\p{Nd}/u;
const SPACE_OR_FORMAT = /[\p{Zs}\p{Cf}]/u;
const DASH = /\p{Pd}/u;

/** The value of a decimal digit of any script: its distance from the first digit of its run of ten. */
function digitOf(text: string, at: number): number {
  const code = text.charCodeAt(at);
  let zero = code;
  while (zero > code - 9 && NON_ASCII_DIGIT.test(String.fromCharCode(zero - 1))) zero--;
  return code - zero;
}

/**
 * A value as the detectors read it, character for character (the same length, so a finding's span is a
 * span of the value): digits of any script as ASCII digits, fullwidth letters as ASCII, every space
 * (no-break, thin …) and invisible format character as a space, every dash as a hyphen. Text that reads
 * the same to a person (a card number with no-break spaces, in fullwidth or Arabic-Indic digits) must
 * not hide the datum.
 */
export function foldForDetection(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const c = value[i]!;
    if (code < 0x80) out += c;
    else if (code >= 0xff01 && code <= 0xff5e) out += String.fromCharCode(code - 0xfee0);
    else if (NON_ASCII_DIGIT.test(c)) out += String(digitOf(value, i));
    else if (SPACE_OR_FORMAT.test(c)) out += ' ';
    else if (DASH.test(c)) out += '-';
    else out += c;
  }
  return out;
}

export const digitsOf = (text: string) => text.replace(/[^0-9]/g, '');
const alnumOf = (text: string) => text.replace(/[^A-Za-z0-9]/g, '').toUpperCase();

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

/** An IBAN's shape (country, check digits, 15–34 characters) and its ISO 13616 checksum. */
export function ibanValid(candidate: string): boolean {
  const iban = alnumOf(candidate);
  return iban.length >= 15 && iban.length <= 34 && /^[A-Z]{2}[0-9]{2}/.test(iban) && ibanChecksumHolds(iban);
}

/**
 * A greedy match can run into the next word or number ("DE89… please", "4111 … 1111 12/28"): the datum is
 * the longest prefix, ending on a letter or digit, that is valid.
 */
export function longestValidPrefix(match: string, valid: (text: string) => boolean): number {
  for (let end = match.length; end > 0; end--) {
    if (/[A-Za-z0-9]/.test(match[end - 1] ?? '') && valid(match.slice(0, end))) return end;
  }
  return 0;
}

function entropyBits(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

interface UserData {
  digitRuns: ReadonlySet<string>;
  alnum: string;
  lower: string;
  recipients: ReadonlySet<string>;
}

function userDataOf(ctx: DetectContext): UserData {
  const words = foldForDetection(ctx.userWords);
  const runs = new Set<string>();
  for (const m of words.matchAll(/[0-9][0-9 ./-]*[0-9]/g)) runs.add(digitsOf(m[0]));
  return { digitRuns: runs, alnum: alnumOf(words), lower: words.toLowerCase(), recipients: new Set(ctx.recipients.map((r) => r.toLowerCase())) };
}

/** Whether the user's own words contain this datum (compared the way the datum is usually reformatted). */
function userSaid(kind: DataKind, text: string, user: UserData): boolean {
  switch (kind) {
    case 'one_time_code':
    case 'card_number':
    case 'phone':
      return [...user.digitRuns].some((run) => run.includes(digitsOf(text)));
    case 'iban':
      return user.alnum.includes(alnumOf(text));
    case 'email':
      return user.recipients.has(text.toLowerCase()) || user.lower.includes(text.toLowerCase());
    default:
      return user.lower.includes(text.toLowerCase());
  }
}

/** All findings in one carried value. Overlapping findings keep the first (most specific) kind. */
function detectIn(carried: CarriedValue, user: UserData, depth = 0): Finding[] {
  const { path } = carried;
  const value = foldForDetection(carried.value);
  const found: Finding[] = [];
  /** `decoded`: found in a decoded run, already checked against the user's words as decoded text. */
  const add = (kind: DataKind, start: number, end: number, decoded = false) => {
    if (end <= start || found.some((f) => start < f.end && f.start < end)) return;
    if (!decoded && userSaid(kind, value.slice(start, end), user)) return;
    found.push({ kind, path, start, end });
  };
  if (PAGE_SET_TYPES.has((carried.fieldType ?? '').toLowerCase())) return [];
  // A name is no free text and no recipient: e-mail addresses and phone numbers in names are not data here
  // (maps keyed by address are the evaluator's recipients to bind).
  const leaf = carried.name === true ? '' : (path.split('.').at(-1) ?? path).replace(/\[\d+\]$/, '');
  const freeText = carried.name !== true && (path === 'body' || FREE_TEXT_KEY.test(leaf));
  for (const m of value.matchAll(PRIVATE_KEY)) add('private_key', m.index, m.index + m[0].length);
  for (const m of value.matchAll(JWT)) add('jwt', m.index, m.index + m[0].length);
  for (const m of value.matchAll(API_KEY)) add('api_key', m.index, m.index + m[0].length);
  for (const m of value.matchAll(PASSWORD_IN_TEXT)) {
    const start = m.index + m[0].length - (m[1] ?? '').length;
    add('password', start, m.index + m[0].length);
  }
  for (const m of value.matchAll(IBAN_CANDIDATE)) {
    const length = longestValidPrefix(m[0], ibanValid);
    if (length > 0) add('iban', m.index, m.index + length);
  }
  // In a name, only a number with a card's issuer prefix and length: maps keyed by numeric ids and
  // timestamps (`{"1701234567890": …}`) pass Luhn one time in ten.
  const cardLike = carried.name === true ? (digits: string) => CARD_SHAPED.test(digits) && luhnValid(digits) : luhnValid;
  for (const m of value.matchAll(CARD_CANDIDATE)) {
    const length = longestValidPrefix(m[0], (text) => cardLike(digitsOf(text)));
    if (length > 0) add('card_number', m.index, m.index + length);
  }
  // Who receives the action is the evaluator's recipient binding; the Minimizer reads what it carries.
  for (const m of isRecipientKey(leaf) || carried.name === true ? [] : value.matchAll(EMAIL)) add('email', m.index, m.index + m[0].length);
  for (const m of [...value.matchAll(DIGIT_RUN), ...value.matchAll(SPLIT_CODE)]) if (CODE_CONTEXT.test(value.slice(Math.max(0, m.index - 60), m.index))) add('one_time_code', m.index, m.index + m[0].length);
  for (const m of carried.name === true ? [] : value.matchAll(PHONE)) if (digitsOf(m[0]).length >= 8 && /[ ()./+-]/.test(m[0])) add('phone', m.index, m.index + m[0].length);
  // Base64 or hex of a datum (found by the data-lane review: a card number base64-encoded in an allowed
  // body passed): the run is decoded and read as text; a finding inside it flags the whole run, which
  // "Send without it" removes. After the JWTs and keys found above (they keep their own kind), before the
  // free-text token check (a run that decodes to a datum is named by it).
  if (depth < MAX_DECODE_DEPTH) {
    for (const m of value.matchAll(ENCODED_RUN)) {
      if (m[0].length > MAX_ENCODED_RUN || found.some((f) => m.index < f.end && f.start < m.index + m[0].length)) continue;
      // MIME wraps base64 at 76 characters: the lines are one run.
      for (const decoded of decodedForms(m[0].replace(/\r?\n/g, ''))) {
        const inner = detectIn({ ...carried, value: decoded }, user, depth + 1);
        if (inner.length > 0) {
          add(inner[0]!.kind, m.index, m.index + m[0].length, true);
          break;
        }
      }
    }
    for (const m of value.matchAll(PERCENT_RUN)) {
      if (m[0].length < 8 || m[0].length > MAX_ENCODED_RUN || found.some((f) => m.index < f.end && f.start < m.index + m[0].length)) continue;
      const inner = detectIn({ ...carried, value: percentDecode(m[0]) }, user, depth + 1);
      if (inner.length > 0) add(inner[0]!.kind, m.index, m.index + m[0].length, true);
    }
  }
  for (const m of freeText ? value.matchAll(LONG_TOKEN) : []) {
    const run = m[0];
    if (/[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run) && entropyBits(run) > 4) add('session_token', m.index, m.index + run.length);
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Text as UTF-8, or null when the bytes are not text (binary data, a random token's decoding). */
function textOf(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex -- control characters are what tells binary from text
  return /^[^\u0000-\u0008\u000e-\u001f\u007f]*$/.test(text) ? text : null;
}

/** The texts a run can encode: hex (an even run of hex digits) and base64 (standard or url-safe, padded or not). */
function decodedForms(run: string): string[] {
  const out: string[] = [];
  if (/^(?:[0-9a-fA-F]{2})+$/.test(run)) {
    const bytes = new Uint8Array(run.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 2, i * 2 + 2), 16);
    const text = textOf(bytes);
    if (text !== null) out.push(text);
  }
  const standard = run.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (standard.length % 4 !== 1) {
    try {
      const binary = atob(standard + '='.repeat((4 - (standard.length % 4)) % 4));
      const text = textOf(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
      if (text !== null) out.push(text);
    } catch {
      // not base64
    }
  }
  return out;
}

/** Values that are only digits (spaces and dashes allowed), 4–16 of them: the parts a card number can be cut into. */
const DIGITS_ONLY = /^[0-9](?:[ -]?[0-9]){3,15}$/;

/**
 * A card number cut over several values (found by the data-lane review: `41111111` and `11111111` in two
 * fields, or in two body keys, each no card alone): any two digit-only values in either order, and runs of
 * three or four consecutive ones (a card form's four boxes), whose digits together are a card number with
 * an issuer's prefix and length and a valid Luhn check. Each part is flagged whole.
 */
function splitCards(values: readonly CarriedValue[], user: UserData): Finding[] {
  const parts: { path: string; digits: string; length: number; index: number }[] = [];
  values.forEach((carried, index) => {
    if (carried.name === true || PAGE_SET_TYPES.has((carried.fieldType ?? '').toLowerCase())) return;
    const value = foldForDetection(carried.value).trim();
    if (DIGITS_ONLY.test(value)) parts.push({ path: carried.path, digits: digitsOf(value), length: carried.value.length, index });
  });
  if (parts.length < 2 || parts.length > 64) return [];
  const isCard = (digits: string) => CARD_SHAPED.test(digits) && luhnValid(digits) && !userSaid('card_number', digits, user);
  const found: Finding[] = [];
  const flag = (group: readonly (typeof parts)[number][]) => {
    for (const part of group) if (!found.some((f) => f.path === part.path)) found.push({ kind: 'card_number', path: part.path, start: 0, end: part.length });
  };
  for (const a of parts) for (const b of parts) if (a !== b && isCard(a.digits + b.digits)) flag([a, b]);
  for (let size = 3; size <= 4; size++) {
    for (let i = 0; i + size <= parts.length; i++) {
      const group = parts.slice(i, i + size);
      if (group.every((p, k) => k === 0 || p.index === group[k - 1]!.index + 1) && isCard(group.map((p) => p.digits).join(''))) flag(group);
    }
  }
  return found;
}

/** Confidential data the action carries that the user did not ask to send. */
export function detectConfidential(values: readonly CarriedValue[], ctx: DetectContext): Finding[] {
  const user = userDataOf(ctx);
  const found = values.flatMap((v) => detectIn(v, user));
  for (const f of splitCards(values, user)) if (!found.some((g) => g.path === f.path)) found.push(f);
  return found;
}

/** A datum another site showed, as the taint recorded it (src/taint/tokens.ts). */
export interface ShownElsewhere {
  value: string;
  site: string;
  /** The taint's kind: text the agent itself typed elsewhere is its own writing, not data it read. */
  kind: string;
}

/**
 * Session data shown on (or typed into) another site than the action's destination that the action now
 * carries: the Minimizer's "text the agent read on another site". Matched on letters and digits, with
 * up to three separators between them and any case, so reformatting does not hide it. Data the user's own
 * words contain is never a finding.
 */
export function detectShownElsewhere(values: readonly CarriedValue[], shown: readonly ShownElsewhere[], destinationSites: readonly string[], ctx: DetectContext): Finding[] {
  const user = userDataOf(ctx);
  const recipients = new Set(ctx.recipients.map((r) => r.toLowerCase()));
  const foreign = shown.filter((t) => t.kind !== 'typed' && !destinationSites.includes(t.site) && !recipients.has(t.value.toLowerCase()));
  const findings: Finding[] = [];
  // The values the agent wrote, each folded once (not once per token).
  const readable = values.flatMap((carried) => {
    const leaf = (carried.path.split('.').at(-1) ?? '').replace(/\[\d+\]$/, '');
    return PAGE_SET_TYPES.has((carried.fieldType ?? '').toLowerCase()) || isRecipientKey(leaf) ? [] : [{ path: carried.path, folded: foldForDetection(carried.value), alnum: undefined as { text: string; at: number[] } | undefined }];
  });
  for (const token of foreign) {
    const chars = foldForDetection(token.value).replace(/[^A-Za-z0-9]/g, '');
    if (chars.length < 6 || userSaid('other_site_data', chars, user) || user.alnum.includes(chars.toUpperCase())) continue;
    const pattern = new RegExp(chars.split('').join('[^A-Za-z0-9]{0,3}'), 'gi');
    // Its encoded forms as the network floor's taint looks for them (src/taint/encode.ts): reversed, hex,
    // base64 at each alignment inside a longer blob, compared on letters and digits in any case.
    const plain = canonical(chars);
    const encoded = needlesOf(token.value).filter((n) => n !== plain && n.length >= 8);
    const push = (path: string, start: number, end: number) => {
      if (!findings.some((f) => f.path === path && start < f.end && f.start < end)) findings.push({ kind: 'other_site_data', path, start, end });
    };
    for (const carried of readable) {
      for (const m of carried.folded.matchAll(pattern)) push(carried.path, m.index, m.index + m[0].length);
      if (encoded.length === 0) continue;
      carried.alnum ??= alnumIndex(carried.folded);
      for (const needle of encoded) {
        for (let at = carried.alnum.text.indexOf(needle); at >= 0; at = carried.alnum.text.indexOf(needle, at + needle.length)) {
          push(carried.path, carried.alnum.at[at]!, carried.alnum.at[at + needle.length - 1]! + 1);
        }
      }
    }
  }
  return findings;
}

/** A value's letters and digits, lower-cased, with where each sits in the value (the taint's canonical form). */
function alnumIndex(value: string): { text: string; at: number[] } {
  let text = '';
  const at: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (/[A-Za-z0-9]/.test(c)) {
      text += c.toLowerCase();
      at.push(i);
    }
  }
  return { text, at };
}

/** Findings of two sources in one list: a later finding that overlaps an earlier one in the same value is dropped. */
export function mergeFindings(first: readonly Finding[], second: readonly Finding[]): Finding[] {
  const merged = [...first];
  for (const f of second) if (!merged.some((m) => m.path === f.path && f.start < m.end && m.start < f.end)) merged.push(f);
  return merged;
}

const KIND_WORDS: Record<DataKind, string> = {
  one_time_code: 'a one-time code',
  password: 'a password',
  card_number: 'a payment card number',
  iban: 'an IBAN',
  api_key: 'an API key',
  jwt: 'a login token (JWT)',
  private_key: 'a private key',
  session_token: 'a session token',
  email: 'an e-mail address the task does not name',
  phone: 'a phone number',
  unneeded: 'data the task does not need (model)',
  other_site_data: 'data another site showed',
  health: 'health details you pasted',
  religion: 'religious beliefs you pasted',
  politics: 'political views you pasted',
  sexuality: 'sexual orientation you pasted',
  union_membership: 'trade-union membership you pasted',
  ethnicity: 'ethnic origin you pasted',
  criminal_record: 'criminal-record details you pasted',
  home_address: 'a home address you pasted',
  birth_date: 'a date of birth you pasted',
  national_id: 'a national id number you pasted',
  account_number: 'an account or card number you pasted',
  third_party_name: 'names you pasted that your instruction does not mention',
  pasted_contact: 'contact details you pasted',
};

/** A private detail of the pasted part of the user's words (./pasted.ts; stored in the compile report). */
export interface PastedDetail {
  kind: PastedKind;
  text: string;
}

/** Kinds matched as words (any case, with their endings); names in their own case; the rest on letters and digits. */
const WORD_KINDS: ReadonlySet<string> = new Set(['health', 'religion', 'politics', 'sexuality', 'union_membership', 'ethnicity', 'criminal_record']);

function detailPattern(detail: PastedDetail): RegExp | null {
  const text = foldForDetection(detail.text).trim();
  if (text === '') return null;
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (WORD_KINDS.has(detail.kind)) return new RegExp(`(?<![\\p{L}\\p{N}])${escape(text).replace(/[\s-]+/g, '[\\s-]+')}(?:s|es|'s|ed|ing)?(?![\\p{L}\\p{N}])`, 'giu');
  // A name in its own case ("Rose", not "rose"), or in capitals.
  if (detail.kind === 'third_party_name') return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escape(text)}|${escape(text.toUpperCase())})(?![\\p{L}\\p{N}])`, 'gu');
  const chars = text.replace(/[^A-Za-z0-9]/g, '');
  if (chars.length < 4) return null;
  // Reformatting (spaces, dashes, dots between the characters) does not hide a number or an address.
  return new RegExp(`(?<![A-Za-z0-9])${chars.split('').join('[^A-Za-z0-9]{0,3}')}(?![0-9])`, 'gi');
}

/**
 * The pasted part's private details that an action carries: each detail the compile found only in what the
 * user pasted (a chat, an e-mail, notes) and not in the instruction, wherever the agent put it. Values the
 * page set (hidden inputs, selects) and names are not read, as for every detector here.
 */
export function detectPasted(values: readonly CarriedValue[], details: readonly PastedDetail[]): Finding[] {
  if (details.length === 0) return [];
  const patterns = details.flatMap((d) => {
    const pattern = detailPattern(d);
    return pattern === null ? [] : [{ kind: d.kind, pattern }];
  });
  const found: Finding[] = [];
  for (const carried of values) {
    if (carried.name === true || PAGE_SET_TYPES.has((carried.fieldType ?? '').toLowerCase())) continue;
    const value = foldForDetection(carried.value);
    for (const { kind, pattern } of patterns) {
      for (const m of value.matchAll(pattern)) {
        const start = m.index;
        const end = start + m[0].length;
        if (!found.some((f) => f.path === carried.path && start < f.end && f.start < end)) found.push({ kind, path: carried.path, start, end });
      }
    }
  }
  return found.sort((a, b) => (a.path === b.path ? a.start - b.start : 0));
}

/** "a one-time code and an IBAN in message, subject" — what the prompt says, never the data itself. */
export function describeFindings(findings: readonly Finding[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))].map((k) => KIND_WORDS[k]);
  const where = [...new Set(findings.map((f) => f.path))].slice(0, 4);
  const list = kinds.length <= 1 ? (kinds[0] ?? '') : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
  return `${list} in ${where.join(', ')}`;
}

/** The value with the findings' spans cut out (whitespace around a cut collapsed). */
export function withoutFindings(value: string, findings: readonly Pick<Finding, 'start' | 'end'>[]): string {
  let out = '';
  let at = 0;
  for (const f of [...findings].sort((a, b) => a.start - b.start)) {
    if (f.start < at) continue;
    out += value.slice(at, f.start);
    at = f.end;
  }
  out += value.slice(at);
  return out.replace(/[ \t]{2,}/g, ' ').replace(/ +([.,;:!?])/g, '$1').trim();
}
