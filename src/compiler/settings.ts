import { wordsNumber } from '../core/amounts';
import { dimensionOf, poleOfWord, type SettingPole } from '../core/actions/settings';
import type { Setting } from '../core/policy';
import type { Clause } from './clauses';

/**
 * The setting a clause changes, and which way (Constraint.settings): "turn off email notifications" sets
 * `email notifications` to off; "make my profile private" sets the profile to private; "enable 2FA" turns 2FA
 * on. Read with the one table of directions (src/core/actions/settings.ts) the evaluator reads writes with.
 * Only a clause that says a direction gives a setting: "change my plan" gives none (its value, if any, is
 * Constraint.carries). Linear: the clause's first words, fixed lists.
 */

/** Verbs that set a direction by a particle or a value after them ("turn off", "make … private", "opt out"). */
const SETTING_VERBS = new Set(['turn', 'switch', 'toggle', 'set', 'make', 'change', 'put', 'opt', 'update', 'keep', 'mark']);
/** Words of a clause that are no noun of the setting it changes. */
const NOT_NOUNS = new Set([
  'my', 'the', 'a', 'an', 'all', 'any', 'your', 'our', 'their', 'his', 'her', 'its', 'this', 'that', 'these', 'those', 'it', 'them', 'me', 'of', 'to', 'be',
  'setting', 'settings', 'option', 'options', 'feature', 'features', 'mode', 'page', 'account', 'preference', 'preferences', 'so', 'please', 'now', 'again', 'completely', 'back',
  'only', 'just', 'also', 'for', 'good', 'entirely', 'there',
]);
/** Words that end the setting's phrase ("turn off notifications on shop.test", "… for new orders", "… and …"). */
const PHRASE_ENDS = new Set(['in', 'at', 'from', 'with', 'under', 'and', 'then', 'but', 'because', 'since', 'so', 'via', 'by', 'within', 'while', 'when', 'if', 'except', 'unless', 'or']);
/** "on"/"off" followed by one of these is a preposition ("on my account", "on the site"), not the direction. */
const AFTER_PREPOSITION = new Set(['my', 'the', 'a', 'an', 'your', 'our', 'this', 'that', 'each', 'every', 'all']);

const TARGET = 'xtargetx';

export function settingOfClause(clause: Clause, text: string): Setting | null {
  if (clause.verb === null || clause.request === null || clause.request === 'READ' || clause.negated) return null;
  const verb = clause.verb.w;
  const verbPole = poleOfWord(verb);
  if (verbPole === null && !SETTING_VERBS.has(verb)) return null;
  // (Sites and addresses are no words of the setting: "turn off alerts on bank.test".)
  // (A target is a word of its own: "on shop.test" is a preposition before it.)
  let raw = '';
  let at = clause.verb.end;
  for (const t of [...clause.targets].sort((x, y) => x.start - y.start)) {
    if (t.start < at || t.end > clause.end) continue;
    raw += `${text.slice(at, t.start)} ${TARGET} `;
    at = t.end;
  }
  raw += text.slice(at, clause.end);
  const words = raw.toLowerCase().replace(/[’']s\b/g, '').split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '').slice(0, 10);
  let pole: SettingPole | null = verbPole;
  const nouns: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === TARGET) break;
    if ((w === 'on' || w === 'off') && (AFTER_PREPOSITION.has(words[i + 1] ?? '') || words[i + 1] === TARGET)) break;
    // ("update my information on OneStopShopping": "on" between a noun and a name is where, not which way.)
    if (w === 'on' && verbPole === null && nouns.length > 0 && words[i + 1] !== undefined && !PHRASE_ENDS.has(words[i + 1]!) && !NOT_NOUNS.has(words[i + 1]!) && poleOfWord(words[i + 1]!) === null) break;
    if (verb === 'opt' && (w === 'out' || w === 'in')) {
      pole ??= w === 'out' ? 'off' : 'on';
      continue;
    }
    const p = poleOfWord(w);
    if (p !== null) {
      // ("hide my activity, make my posts public": one direction per clause; two that disagree give none.)
      if (pole !== null && dimensionOf(pole) === dimensionOf(p) && pole !== p && verbPole === null) return null;
      pole ??= p;
      continue;
    }
    if (PHRASE_ENDS.has(w) || (w === 'to' && pole !== null) || (w === 'for' && nouns.length > 0)) break;
    if (!NOT_NOUNS.has(w) && /\p{L}/u.test(w)) nouns.push(w);
    if (nouns.length >= 4) break;
  }
  if (pole === null) return null;
  return { to: pole, about: nouns };
}

/** Settings once each (two clauses that change the same setting the same way are one). */
export function uniqueSettings(settings: readonly Setting[]): Setting[] {
  const seen = new Map<string, Setting>();
  for (const s of settings) seen.set(`${s.to}:${s.about.join(' ')}`, s);
  return [...seen.values()];
}

/** Words of a write clause that name nothing it acts on ("update", "my", "page", "please"). */
const NOT_THINGS = new Set([
  ...NOT_NOUNS, 'up', 'out', 'down', 'over', 'on', 'off', 'in', 'from', 'at', 'with', 'by', 'into', 'onto', 'about', 'as', 'than', 'is', 'are', 'was', 'and', 'or', 'but', 'then',
  'new', 'old', 'current', 'one', 'ones', 'thing', 'things', 'something', 'site', 'website', 'form', 'details', 'info', 'information', 'stuff', 'i', 'we', 'you', 'us', 'him', 'once', 'twice',
  'today', 'tomorrow', 'asap', 'right', 'away', 'thanks', 'thank', 'pls', 'please', 'quick', 'quickly', 'same', 'other', 'each', 'every', 'some', 'what', 'which', 'who', 'whatever', 'well', 'too',
]);

/** Words that open what a write says or how, not what it acts on ("… asking for a quote", "… saying hi"). */
const HOW_WORDS = new Set(['asking', 'saying', 'telling', 'using', 'including', 'mentioning', 'explaining', 'requesting', 'stating', 'letting', 'noting', 'ask', 'say', 'tell', 'let', 'know']);

/**
 * The nouns of what a write clause acts on (Constraint.about): its words after the verb that are no verb,
 * framing or filler ("cancel my subscription" → subscription; "unfollow @spammer" → spammer; "vote in the poll
 * on forum.test for option b" → poll, option). A write on a site no app table describes, whose action no route
 * names, names one of them, else it is another thing than the words name there. Empty: the clause names none.
 */
export function thingsOfClause(clause: Clause, text: string): string[] {
  if (clause.verb === null) return [];
  const from = clause.verb.end;
  const handles = clause.targets.filter((t) => t.start >= from && (t.kind === 'handle' || t.kind === 'channel')).map((t) => t.value.replace(/^[#@]/, '').toLowerCase());
  let raw = text.slice(from, clause.end);
  const d = clause.dictated;
  if (d !== null && d[1] > from) raw = raw.slice(0, Math.max(0, d[0] - from));
  for (const t of clause.targets) if (t.start >= from && t.end <= from + raw.length) raw = raw.slice(0, t.start - from) + ' '.repeat(t.end - t.start) + raw.slice(t.end - from);
  const words = raw.toLowerCase().replace(/[’']s\b/g, '').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1 && /\p{L}/u.test(w)).slice(0, 12);
  // (A verb's base form may be a noun — "the contact form", "my hotel booking" —; "asking", "saying" say how, not what.)
  // (A count — "invite three people" — and "as well" name no thing: one word every write may share binds nothing.)
  const things = words.filter((w) => !NOT_THINGS.has(w) && !HOW_WORDS.has(w) && poleOfWord(w) === null && wordsNumber(w) === null);
  return [...new Set([...handles, ...things])];
}

/** Things a message carries as a file, not as its text ("the contract draft", "the photos", "my CV"). */
const ATTACHED_THINGS = /\b(?:attach\w*|files?|docs?|documents?|pdfs?|drafts?|contracts?|reports?|invoices?|receipts?|photos?|pictures?|pics?|images?|screenshots?|scans?|spreadsheets?|sheets?|slides?|decks?|presentations?|cv|resume|statements?|tickets?|boarding pass(?:es)?|forms?|zip|archive|videos?|recordings?|notes|minutes|agenda|proposal|quote|estimate|xlsx?|docx?|csv|pptx?)\b/i;

/** Whether a message clause names a thing it carries as a file (Constraint.attachments), beyond the text it dictates. */
export function namesAttachment(clause: Clause, text: string): boolean {
  const from = clause.verb?.end ?? clause.start;
  const d = clause.dictated;
  const own = d !== null && d[0] >= from ? text.slice(from, d[0]) : text.slice(from, clause.end);
  return ATTACHED_THINGS.test(own) || clause.targets.some((t) => t.kind === 'path');
}
