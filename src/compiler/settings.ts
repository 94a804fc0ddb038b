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
