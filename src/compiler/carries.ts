import type { Analysis, Clause } from './clauses';
import { isVerb } from './verbs';

/**
 * What a setting clause gives its write to carry (Constraint.carries): the new value the user typed ("rename
 * the wifi to 'Casa-Lupo'", "set the price to $25000", "switch my timezone to Europe/Lisbon", "update the
 * headline to '…'"). A write on a site no app table describes is bound by it, so the router's rename passes
 * and its remote-management or DNS form does not. Only a setting verb with a value after "to", or a quoted
 * value, gives one: other writes ("cancel my booking", "mute #random") carry nothing the words say, and a
 * clause that gives nothing leaves the class unbound. A time or date after "to" is written otherwise in the
 * call ("3pm" is `15:00`): such a clause gives nothing either. Linear: fixed patterns over the clause's text.
 */

const MARKER = '[…]';
/** The value a setting verb sets: "… to Europe/Lisbon", "… to busy": up to a comma, a stop or "and". */
const TO_VALUE = /\bto\s+(["'“‘][^"'”’\n]{1,80}["'”’]|(?:[^,;.!?]|[,.](?=\d)){1,80}?)\s*(?=$|[,;.!?](?:\s|$)|\s+(?:and|but|then|pls|please|thanks|so|because|since|im|i'm)\b)/gi;
/** Verbs whose "to X" is the new value of a setting, not a person or a place. */
const SETTING_VERBS = new Set(['set', 'change', 'rename', 'switch', 'update', 'edit', 'modify', 'correct', 'fix', 'reset']);
/** A "to …" that names whom or what, not a value ("to my profile", "to the new one"): no value of its own. */
const NOT_A_VALUE = /^(?:me|my|him|her|them|us|you|it|its|the|a|an|this|that|these|those|everyone|anyone|all|our|your|their)$/i;
/** After an article, words that point at a thing rather than give a value ("to the new one", "to the same"). */
const NOT_A_VALUE_AFTER_ARTICLE = new Set(['new', 'old', 'same', 'other', 'next', 'previous', 'one', 'first', 'last', 'right', 'correct']);
const DATE_OR_TIME =
  /\b(?:\d{1,2}(?::\d{2})?\s?(?:am|pm)|\d{1,2}:\d{2}|today|tonight|tomorrow|tmrw|yesterday|next|noon|midnight|morning|afternoon|evening|week|weekend|mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/i;
/** Words after a value that say what kind of value it is ("the basic tier", "dark mode", "weekly digest"). */
const KIND_WORDS = new Set(['plan', 'tier', 'option', 'package', 'digest', 'mode', 'setting', 'subscription', 'version', 'one', 'theme', 'edition', 'level', 'membership', 'emails', 'email', 'summary', 'size']);
/** Numbers inside a value bind as numbers too ("5000 Forbes Ave" is carried as `street: 5000 Forbes Ave`). */
const NUMBER = /(?<=^|\s)\d[\d,]*(?:\.\d+)?(?=$|\s)/g;

/**
 * The clauses that go on the request's sentence without asking for anything of their own ("update the title
 * of my store (shop.test/admin) to '…'": the value sits after the bracket): their text, up to the next request.
 */
function continuation(clause: Clause, analysis: Analysis | undefined): string {
  if (analysis === undefined) return '';
  const at = analysis.clauses.indexOf(clause);
  const rest: string[] = [];
  for (const c of at < 0 ? [] : analysis.clauses.slice(at + 1)) {
    if (c.request !== null || c.negated || c.bans.length > 0) break;
    rest.push(c.text);
  }
  return rest.join(' ');
}

function normalised(value: string): string {
  return value.trim().toLowerCase().replace(/\s+/g, ' ').replace(/^["'“‘$€£]+|["'”’]+$/g, '');
}

/**
 * The clause's text with "in/on/at <site>" cut off where it is said ("set the price to $34 in shop-admin.test"):
 * the site is where the value is set, not part of it. A host after "to" stays: it may be the value ("set the
 * homepage to news.test").
 */
function withoutSites(clause: Clause): string {
  let text = clause.text;
  for (const t of [...clause.targets].filter((x) => x.kind === 'domain').sort((a, b) => b.start - a.start)) {
    const s = t.start - clause.start;
    const e = t.end - clause.start;
    if (s < 0 || e > text.length) continue;
    const m = /\s(?:in|on|at|from|via)\s+(?:the\s+)?$/i.exec(text.slice(0, s));
    if (m !== null) text = `${text.slice(0, m.index)};${text.slice(e)}`;
  }
  return text;
}

/**
 * The values one clause gives its write, lower case; empty when it gives none. `quoted` are the user's quoted
 * strings the isolation step removed (isolate.ts): a clause that held one ("update my bio to '…'") carries them.
 */
export function carriedValues(clause: Clause, quoted: readonly string[], analysis?: Analysis): string[] {
  if (clause.verb === null || !SETTING_VERBS.has(clause.verb.w)) return [];
  const out = new Set<string>();
  for (const m of `${withoutSites(clause)} ${continuation(clause, analysis)}`.matchAll(TO_VALUE)) {
    const raw = m[1]!.trim();
    if (raw.includes(MARKER)) {
      for (const q of quoted) out.add(normalised(q));
      continue;
    }
    // ("change my plan to the basic tier": the article is no part of the value.)
    const value = normalised(raw).replace(/^(?:the|a|an)\s+(?=\S)/, '');
    // ("edit the page to add …": a purpose, not a value.)
    const first = value.split(' ')[0]!;
    if (value === '' || NOT_A_VALUE.test(first) || NOT_A_VALUE_AFTER_ARTICLE.has(first) || isVerb(first)) continue;
    if (DATE_OR_TIME.test(value)) return [];
    out.add(value);
    // ("to the basic tier", "to weekly digest": a form says `basic`, `weekly`; the kind word is the words' own.)
    const words = value.split(' ');
    if (words.length > 1 && KIND_WORDS.has(words.at(-1)!)) out.add(words.slice(0, -1).join(' '));
    // (Not a phone number's groups: "+1 415 555 0100" is carried whole, never as "415".)
    if (/\p{L}/u.test(value)) for (const n of value.matchAll(NUMBER)) out.add(n[0]);
  }
  return [...out].filter((v) => v !== '');
}

/** "…, not monthly", "but not the suite": a bare refusal right after a request, of one or two words. */
const BARE_REFUSAL = /^(?:but\s+|and\s+)?(?:not|no|never)\s+(?:the\s+|a\s+|an\s+|any\s+)?([\p{L}\p{N}-]+(?:\s[\p{L}\p{N}-]+)?)$/iu;

/**
 * The words refused right after a request clause (Constraint.refuses): a negated clause that bans no verb's
 * class and is only "not X" ("subscribe me to the annual plan on news.test, not monthly"). Lower case.
 */
/** An access level the words give a share ("…, read only", "view-only access"). */
const READ_ACCESS = /\b(?:read|view)[- ]only\b/i;
/** What a share's permission field says when it gives more than reading. */
const WRITE_ACCESS = ['rw', 'write', 'read-write', 'readwrite', 'edit', 'editor', 'writer', 'owner', 'admin', 'full'];

export function refusedValues(clause: Clause, analysis: Analysis): string[] {
  const at = analysis.clauses.indexOf(clause);
  const next = at < 0 ? undefined : analysis.clauses[at + 1];
  // ("share budget.xlsx with omar@…, read only": a share that gives more than reading is another share.)
  if (clause.request === 'PERMISSION_CHANGE' && (READ_ACCESS.test(clause.text) || (next !== undefined && (next.request === null || next.request === 'READ') && READ_ACCESS.test(next.text)))) return WRITE_ACCESS;
  if (next === undefined || !next.negated || next.bans.length > 0 || next.request !== null) return [];
  const m = BARE_REFUSAL.exec(next.text.trim());
  return m === null ? [] : [m[1]!.toLowerCase()];
}

/**
 * Whether a setting clause gives this amount as the new value ("change the price to $25000", "set the rent to
 * 1,200 EUR"): the value after "to" is the amount itself. Such an amount is what the write sets, not a most.
 */
export function setsAmount(clause: Clause, value: string, analysis?: Analysis): boolean {
  return carriedValues(clause, [], analysis).some((v) => /^[\d,]+(?:\.\d+)?(?:\s*[a-z]{3})?$/i.test(v) && Number(v.replace(/[^\d.]/g, '')) === Number(value));
}
