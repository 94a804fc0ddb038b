import { isolateInput } from '../compiler/isolate';
import { CARD_CANDIDATE, digitsOf, EMAIL, foldForDetection, IBAN_CANDIDATE, ibanValid, longestValidPrefix, luhnValid, PHONE, type PastedDetail } from './detect';
import { CATEGORY_LEXICONS, IDENTIFYING_ASKED, termPattern } from './lexicon';
import { lazy } from '../lazy/load';
import type { PastedKind } from './pasted-kinds';

/**
 * Pasted is not the same as asked. The compiler's first step (src/compiler/isolate.ts) splits the user's
 * words into the instruction and what the user shows (a pasted chat, an e-mail, notes, quoted text). This
 * step finds, in the shown part, the private details the instruction does not call for: the special
 * categories (health, religion, politics, sexuality, union membership, ethnicity, criminal records; word
 * lists in ./lexicon.ts), precise home addresses, dates of birth, national ids, account and card numbers,
 * contact details, and the names of people the instruction does not mention (compromise, an English NLP
 * library: ./names.ts). The background keeps them with the task (the compile report's `pasted`), and the
 * Minimizer holds a send that carries one ("Send without it": ./detect.ts `detectPasted`).
 *
 * A detail the instruction itself contains is asked for (the user named the person, typed the number), and
 * so is every detail of a kind the instruction calls for ("update my shipping address from the e-mail
 * below" asks for the address). Runs once per compile, in the compiler's script, not on every decision.
 */

const MONTH = String.raw`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?`;
const DATE = String.raw`(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2}|${MONTH}\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH},?\s+\d{4})`;
const BIRTH_DATE = new RegExp(String.raw`\b(?:born(?:\s+on|\s+in)?|date\s+of\s+birth|d\.?o\.?b\.?|birth\s*date|birthday(?:\s+is)?)\s*(?:is|:|-)?\s*(${DATE})`, 'gi');
/** A house number, a street's name and its kind ("42 Elm Street", "7b Rue de la Paix" is not English; later). */
const ADDRESS = /\b(\d{1,6}[A-Za-z]?\s+(?:[A-Z][\p{L}'.-]*\s+){1,4})(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl|Terrace|Close|Crescent|Square|Sq|Parkway|Pkwy|Highway|Hwy)\b\.?/gu;
const SSN = /(?<![0-9])[0-9]{3}-[0-9]{2}-[0-9]{4}(?![0-9])/g;
const NATIONAL_ID = /\b(?:ssn|social\s+security(?:\s+number)?|passport(?:\s+number|\s+no\.?)?|national\s+insurance(?:\s+number)?|ni\s+number|nhs\s+number|tax\s+id|driver'?s\s+licen[cs]e(?:\s+number|\s+no\.?)?|id\s+number)\s*(?:is|:|#)?\s*([A-Z0-9][A-Z0-9 -]{4,20}[A-Z0-9])/gi;
const ACCOUNT = /\b(?:account(?:\s+number|\s+no\.?|\s+#)?|acct\.?(?:\s+no\.?)?|routing(?:\s+number)?|sort\s+code|member(?:ship)?\s+(?:number|no\.?|id))\s*(?:is|:|#)?\s*([0-9][0-9 -]{4,24}[0-9])/gi;
/** Words in front of a name that are not the name (Dr. Patel is Patel; my sister Jo is Jo). */
const NOT_NAME_WORDS = new Set(['dr', 'mr', 'mrs', 'ms', 'miss', 'mx', 'prof', 'sir', 'madam', 'grandma', 'grandpa', 'granny', 'aunt', 'auntie', 'uncle', 'mom', 'mum', 'dad', 'me', 'you', 'hi', 'hey', 'dear', 'thanks', 'cheers']);

/** The list's term a match is ("Migraines" → migraine), so the Minimizer finds it with any ending. */
function termOf(match: string, terms: readonly string[]): string {
  const plain = match.toLowerCase().replace(/[\s-]+/g, ' ');
  const known = (t: string) => terms.some((term) => term.replace(/-/g, ' ') === t);
  return [plain, ...["'s", 'es', 's', 'ed', 'ing'].map((end) => (plain.endsWith(end) ? plain.slice(0, -end.length) : ''))].find((t) => t !== '' && known(t)) ?? plain;
}

/** The words of a text, lower-cased, for "does the instruction contain it". */
const wordsOf = (text: string) => ` ${foldForDetection(text).toLowerCase().replace(/[^\p{L}\p{N}@.+-]+/gu, ' ')} `;

function addedDetail(out: PastedDetail[], kind: PastedKind, text: string): void {
  const clean = text.trim();
  if (clean !== '' && !out.some((d) => d.kind === kind && d.text.toLowerCase() === clean.toLowerCase())) out.push({ kind, text: clean });
}

/** The private details of the pasted part of `words` that its instruction does not call for. */
export async function pastedDetailsOf(words: string): Promise<PastedDetail[]> {
  const { text: instruction, removed } = isolateInput(words);
  if (removed.length === 0) return [];
  const said = wordsOf(instruction);
  const saidDigits = (foldForDetection(instruction).match(/[0-9][0-9 ./-]*[0-9]/g) ?? []).map(digitsOf);
  const inInstruction = (text: string) => said.includes(` ${wordsOf(text).trim()} `);
  const digitsInInstruction = (text: string) => saidDigits.some((run) => run.includes(digitsOf(text)));
  const asked = (kind: PastedKind) => IDENTIFYING_ASKED[kind]?.test(instruction) === true;
  const text = foldForDetection(words);
  const out: PastedDetail[] = [];

  for (const lexicon of CATEGORY_LEXICONS) {
    // The instruction calls for the category: by its own words, or by naming one of its terms.
    if (lexicon.asked.test(instruction) || termPattern(lexicon.terms).test(instruction)) continue;
    for (const m of text.matchAll(termPattern(lexicon.terms))) addedDetail(out, lexicon.kind, termOf(m[0], lexicon.terms));
  }
  const numeric = (kind: PastedKind, value: string) => {
    if (!asked(kind) && !digitsInInstruction(value)) addedDetail(out, kind, value);
  };
  for (const m of text.matchAll(BIRTH_DATE)) if (!asked('birth_date') && !inInstruction(m[1]!)) addedDetail(out, 'birth_date', m[1]!);
  for (const m of text.matchAll(ADDRESS)) if (!asked('home_address') && !inInstruction(m[1]!)) addedDetail(out, 'home_address', m[1]!);
  for (const m of text.matchAll(SSN)) numeric('national_id', m[0]);
  for (const m of text.matchAll(NATIONAL_ID)) numeric('national_id', m[1]!);
  for (const m of text.matchAll(ACCOUNT)) numeric('account_number', m[1]!);
  for (const m of text.matchAll(CARD_CANDIDATE)) {
    const length = longestValidPrefix(m[0], (t) => luhnValid(digitsOf(t)));
    if (length > 0) numeric('account_number', m[0].slice(0, length));
  }
  for (const m of text.matchAll(IBAN_CANDIDATE)) {
    const length = longestValidPrefix(m[0], ibanValid);
    if (length > 0 && !asked('account_number') && !said.toUpperCase().replace(/\s/g, '').includes(m[0].slice(0, length).toUpperCase().replace(/\s/g, ''))) addedDetail(out, 'account_number', m[0].slice(0, length));
  }
  for (const m of text.matchAll(EMAIL)) if (!asked('pasted_contact') && !said.includes(m[0].toLowerCase())) addedDetail(out, 'pasted_contact', m[0]);
  for (const m of text.matchAll(PHONE)) if (digitsOf(m[0]).length >= 8 && /[ ()./+-]/.test(m[0]) && !out.some((d) => (d.kind === 'account_number' || d.kind === 'national_id') && digitsOf(d.text).includes(digitsOf(m[0])))) numeric('pasted_contact', m[0]);

  if (!asked('third_party_name')) {
    const { personNames } = await lazy('names');
    for (const name of personNames(words)) {
      for (const token of name.split(/[\s,;:!?()]+/)) {
        const word = token.replace(/^[^\p{L}]+|[^\p{L}'-]+$/gu, '').replace(/'s$/, '');
        if (word.length < 2 || !/^\p{Lu}/u.test(word) || NOT_NAME_WORDS.has(word.toLowerCase().replace(/\.$/, '')) || inInstruction(word)) continue;
        addedDetail(out, 'third_party_name', word);
      }
    }
  }
  return out;
}
