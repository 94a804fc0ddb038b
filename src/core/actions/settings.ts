import { flatFields } from './read';
import { POLE_WORDS, type SettingPole } from './vocabulary';

export { SETTING_POLE_IDS, type SettingPole } from './vocabulary';
export type SettingDimension = 'visibility' | 'switch';

/**
 * Settings the words change, with their direction: "turn off email notifications", "make my profile private",
 * "enable 2FA", "opt out of marketing e-mails". One table for both sides: the compiler reads the direction and
 * the setting's own nouns from the words (src/compiler/settings.ts), the evaluator reads what a write sets from
 * its fields, its submit button and its route (`email_notifications=on`, `is_private=false`, `project[visibility_level]=20`,
 * `/2fa/disable`). "Make it private" never authorises "make it public": the same action on the same object in
 * the other direction is a write the words do not name (issue 35).
 */

const DIMENSION_OF: Readonly<Record<SettingPole, SettingDimension>> = { private: 'visibility', public: 'visibility', off: 'switch', on: 'switch' };
const OPPOSITE: Readonly<Record<SettingPole, SettingPole>> = { private: 'public', public: 'private', off: 'on', on: 'off' };
const TRUE = new Set(['true', '1', 'yes', 'y', 'checked']);
const FALSE = new Set(['false', '0', 'no', 'n', 'unchecked']);

export function poleOfWord(word: string): SettingPole | null {
  const w = word.toLowerCase().replace(/-/g, '_');
  return Object.hasOwn(POLE_WORDS, w) ? POLE_WORDS[w]! : null;
}

export function dimensionOf(pole: SettingPole): SettingDimension {
  return DIMENSION_OF[pole];
}

export function oppositeOf(pole: SettingPole): SettingPole {
  return OPPOSITE[pole];
}

/** `email_notifications`, `user[private_profile]`, `optOut` → lower-case words. */
function nameWords(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  // ("opt_out", "only_me": two words that name one direction.)
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const pair = `${words[i]}_${words[i + 1] ?? ''}`;
    if (poleOfWord(pair) !== null) {
      out.push(pair);
      i++;
    } else out.push(words[i]!);
  }
  return out;
}

/** What one field of a write sets, with the field's own words (its name), or null when it sets no direction. */
export interface FieldDirection {
  pole: SettingPole;
  /** The words of the field's name, or of the button or route that said it. */
  words: string[];
}

/** A field's direction: a pole word as its value, or a boolean under a name that says the pole (or none: on/off). */
function fieldDirection(name: string, value: string): SettingPole | null {
  const v = value.trim().toLowerCase();
  const words = nameWords(name);
  const named = words.map(poleOfWord).find((p) => p !== null) ?? null;
  // (A GitLab visibility level: 0 private, 10 internal, 20 public.)
  if (words.some((w) => w === 'visibility') && /^\d+$/.test(v)) return v === '0' ? 'private' : v === '20' ? 'public' : null;
  const asWord = poleOfWord(v.replace(/\s+/g, '_'));
  if (asWord !== null) return asWord;
  if (!TRUE.has(v) && !FALSE.has(v)) return null;
  const pole: SettingPole = named ?? 'on';
  return TRUE.has(v) ? pole : OPPOSITE[pole];
}

/** A write's fields or body; a string body read as JSON, else as form encoding. */
function bodyOf(a: Record<string, unknown>): unknown {
  const body = a.fields ?? a.body ?? a.data ?? a.json;
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return Object.fromEntries(new URLSearchParams(body));
  }
}

/** The directions a write sets: per field, its button ("Make public", "Turn on") and its route's last segment (`/disable`). */
export function directionsOfCall(args: unknown): FieldDirection[] {
  if (args === null || typeof args !== 'object') return [];
  const a = args as Record<string, unknown>;
  const out: FieldDirection[] = [];
  for (const [name, values] of flatFields(bodyOf(a))) {
    if (name === '_method' || name.endsWith('[]')) continue;
    for (const value of values.slice(0, 4)) {
      const pole = fieldDirection(name, value);
      if (pole !== null) out.push({ pole, words: nameWords(name) });
    }
  }
  for (const text of [a.submitText, a.button]) {
    if (typeof text !== 'string') continue;
    const pole = text.toLowerCase().split(/[^a-z]+/).map(poleOfWord).find((p) => p !== null);
    if (pole !== undefined && pole !== null) out.push({ pole, words: nameWords(text) });
  }
  if (typeof a.url === 'string') {
    try {
      const last = new URL(a.url).pathname.split('/').filter((s) => s !== '').at(-1);
      const pole = last === undefined ? null : poleOfWord(last);
      if (pole !== null) out.push({ pole, words: nameWords(new URL(a.url).pathname) });
    } catch {
      // Not a URL: no route to read.
    }
  }
  return out;
}

/** A word's stem for matching a setting's nouns against a write's names ("notifications" ~ `notify_email`). */
export function stemOf(word: string): string {
  const w = word.toLowerCase();
  return w.length <= 5 ? w.replace(/s$/, '') : w.slice(0, 5);
}

/** Whether every one of the nouns is in the text's words (by stem). */
export function namesAll(nouns: readonly string[], words: readonly string[]): boolean {
  const stems = words.map(stemOf);
  return nouns.every((n) => {
    const s = stemOf(n);
    return stems.some((w) => w.startsWith(s) || s.startsWith(w) && w.length >= 4);
  });
}

/** Every word of a write: field names and values, its button, its URL's path. For matching a setting's nouns. */
export function wordsOfCall(args: unknown): string[] {
  if (args === null || typeof args !== 'object') return [];
  const a = args as Record<string, unknown>;
  const out: string[] = [];
  for (const [name, values] of flatFields(bodyOf(a))) {
    out.push(...nameWords(name));
    for (const v of values.slice(0, 20)) out.push(...nameWords(v.slice(0, 200)));
  }
  for (const text of [a.submitText, a.button]) if (typeof text === 'string') out.push(...nameWords(text));
  if (typeof a.url === 'string') {
    try {
      out.push(...nameWords(decodeURIComponent(new URL(a.url).pathname)));
    } catch {
      // Not a URL.
    }
  }
  return out;
}

/** A setting of the words (Constraint.settings): its direction and its nouns. */
export interface SettingWords {
  to: SettingPole;
  about: readonly string[];
}

function describeSetting(s: SettingWords): string {
  const thing = s.about.length > 0 ? s.about.join(' ') : 'it';
  return s.to === 'on' || s.to === 'off' ? `turn ${thing} ${s.to}` : `make ${thing} ${s.to}`;
}

/**
 * Why a write is none of the settings the words change, or null when it is one of them: for some setting, no
 * field of it (among those that name the setting's nouns, when some do) sets the other direction, and, on a
 * site no app table describes (`generic`), the write names the setting's nouns. Pure; bounded by the call.
 */
export function settingRefusal(settings: readonly SettingWords[], args: unknown, generic: boolean): string | null {
  const directions = directionsOfCall(args);
  let words: string[] | undefined;
  let why: string | null = null;
  for (const s of settings) {
    const dim = DIMENSION_OF[s.to];
    const ofDim = directions.filter((d) => DIMENSION_OF[d.pole] === dim);
    const named = s.about.length === 0 ? [] : ofDim.filter((d) => namesAll(s.about, d.words) || s.about.some((n) => namesAll([n], d.words)));
    const relevant = named.length > 0 ? named : ofDim;
    const other = relevant.find((d) => d.pole !== s.to);
    if (other !== undefined) {
      why ??= `the words ${describeSetting(s)}; this write sets ${other.words.join(' ') || 'it'} ${other.pole}`;
      continue;
    }
    if (generic && s.about.length > 0 && !namesAll(s.about, (words ??= wordsOfCall(args)))) {
      why ??= `the words ${describeSetting(s)}; this write does not name ${s.about.join(' ')}`;
      continue;
    }
    return null;
  }
  return why;
}

/** Whether a write names one of the things the words act on (Constraint.about), by stem, in its words. */
export function namesAnyThing(about: readonly string[], args: unknown): boolean {
  const words = wordsOfCall(args);
  return about.some((n) => namesAll([n], words));
}

/** A path segment that names a thing by its words (`q3-deck`, `finance_2027`): words joined by - or _, one of three letters or more. */
const OBJECT_SLUG = /^(?=.*\p{L}{3})[\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)+$/u;

/**
 * The object a write's route names by name, when it names none of the things the words act on (Constraint.about):
 * a slug between a collection and what is done to it (`/api/files/finance-2027/permissions`). Null when the route
 * names none (an opaque id: `/events/77/invite`) or the one it names is among the words' (`q3-deck` for "the Q3
 * deck"). Each named thing must be named by the slug itself, not by any other word of the call.
 */
export function unnamedObjectSlug(about: readonly string[], args: unknown): string | null {
  if (args === null || typeof args !== 'object' || typeof (args as { url?: unknown }).url !== 'string') return null;
  let segments: string[];
  try {
    segments = new URL((args as { url: string }).url).pathname.split('/').filter((x) => x !== '').map((x) => decodeURIComponent(x));
  } catch {
    return null;
  }
  for (const slug of segments.slice(1, -1)) {
    if (!OBJECT_SLUG.test(slug)) continue;
    if (!about.some((n) => namesAll([n], nameWords(slug)))) return slug;
  }
  return null;
}
