/**
 * Amounts and quantities, exactly. "Pay my electricity bill of 45 EUR" binds the payment to at most
 * 45 EUR, so an injected "the bill was corrected to 4,500 EUR" asks instead of paying.
 *
 * Values are canonical decimal strings (`"4500"`, `"45.5"`, `"0.05"`: no leading zeros, no trailing
 * fractional zeros, no exponent) compared digit by digit, never as floats. Currencies are ISO 4217
 * codes; a symbol or word maps to one (`€` → EUR, `$` → USD, "euros" → EUR).
 *
 * Locale forms read: `45`, `45.00`, `45,00`, `4,500`, `4.500,00`, `4 500`, `4'500`, `1,234,567.89`,
 * `45,-`, symbols and codes before or after (`€45`, `45 €`, `EUR 45`, `45 EUR`, `US$1,200.50`), number
 * words up to the thousands ("forty-five euros", "one thousand two hundred dollars"); in the user's words
 * also codes touching the digits (`45EUR`, `EUR45`), scales (`€2k`, `1,5k EUR`, `2 thousand euros`,
 * `2.5 million USD`) and minor units (`45 euro cents`, `50p`).
 *
 * Ambiguity: `4,500` and `4.500` are 4.5 in one locale and 4500 in another. In a value an action
 * proposes, every reader here returns the LARGER reading, because the only question asked of it is "is
 * it above what the user named?" and the larger reading can only turn an ALLOW into an ASK_USER (fail
 * safe). In the user's words (findMoney) a number is read as money is written: no currency read here has
 * three decimals, so `2,000 EUR` is 2000 (reading it as 2 EUR blocked real payments); digits that do not
 * state one value (`1,20000 EUR`, `1.659 EUR/l`) and money findMoney cannot bind (`pay bob 45`, `99 cents`,
 * `tip 15%`) are reported by unreadMoney, and the compiler then asks before every payment rather than
 * binding one wider than the words. A negative or otherwise unreadable value is unreadable, never zero.
 */

export interface Money {
  /** Canonical non-negative decimal. */
  value: string;
  /** ISO 4217 code, upper case; null when the text names none. */
  currency: string | null;
}

const CURRENCY_CODES = new Set([
  'EUR', 'USD', 'GBP', 'CHF', 'JPY', 'CNY', 'CAD', 'AUD', 'NZD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'RON', 'BGN',
  'INR', 'BRL', 'MXN', 'ZAR', 'SGD', 'HKD', 'KRW', 'TRY', 'ILS', 'AED', 'SAR', 'RUB', 'UAH', 'THB', 'IDR', 'PHP', 'MYR',
]);

/** Symbols and prefixes, longest first so `US$` is not read as `$`. */
const CURRENCY_SYMBOLS: readonly [string, string][] = [
  ['US$', 'USD'], ['$US', 'USD'], ['£GB', 'GBP'], ['C$', 'CAD'], ['A$', 'AUD'], ['NZ$', 'NZD'], ['HK$', 'HKD'], ['S$', 'SGD'], ['R$', 'BRL'],
  ['€', 'EUR'], ['$', 'USD'], ['£', 'GBP'], ['¥', 'JPY'], ['₹', 'INR'], ['₩', 'KRW'], ['₺', 'TRY'], ['₪', 'ILS'], ['zł', 'PLN'],
];

const CURRENCY_WORDS: Readonly<Record<string, string>> = {
  euro: 'EUR', euros: 'EUR', dollar: 'USD', dollars: 'USD', bucks: 'USD', pound: 'GBP', pounds: 'GBP', quid: 'GBP',
  franc: 'CHF', francs: 'CHF', yen: 'JPY', yuan: 'CNY', rupee: 'INR', rupees: 'INR',
};

/** The currency a symbol, code or word names (`€`, `eur`, `Euros`); null for anything else. */
export function currencyOf(text: string): string | null {
  const t = text.trim();
  if (t === '') return null;
  const upper = t.toUpperCase();
  if (CURRENCY_CODES.has(upper)) return upper;
  const symbol = CURRENCY_SYMBOLS.find(([s]) => s.toUpperCase() === upper);
  if (symbol) return symbol[1];
  return CURRENCY_WORDS[t.toLowerCase()] ?? null;
}

// ---------------------------------------------------------------------------------------------------
// Exact decimals

/** `"0045.500"` → `"45.5"`; `"."`-separated digits only. */
function canonical(intPart: string, fracPart: string): string {
  const int = intPart.replace(/^0+(?=\d)/, '') || '0';
  const frac = fracPart.replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

/** `"045.50"` → `"45.5"`: the canonical form of a plain decimal (digits, at most one point). */
export function canonicalDecimal(text: string): string {
  const [int = '', frac = ''] = text.split('.');
  return canonical(int, frac);
}

/** Compare two canonical decimals: -1, 0 or 1. Exact for any length. */
export function compareDecimal(a: string, b: string): number {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const pa = af.padEnd(width, '0');
  const pb = bf.padEnd(width, '0');
  return pa === pb ? 0 : pa < pb ? -1 : 1;
}

/** The canonical decimal of an integer count of minor units (`4500` cents → `"45"`), `digits` decimals. */
export function fromMinorUnits(minor: string, digits = 2): string | null {
  if (!/^\d{1,30}$/.test(minor)) return null;
  const padded = minor.padStart(digits + 1, '0');
  return canonical(padded.slice(0, padded.length - digits), padded.slice(padded.length - digits));
}

// ---------------------------------------------------------------------------------------------------
// Numbers written with digits

const GROUP_SPACE = /^\d{1,3}(?:[ '’\u00a0\u202f]\d{3})+(?:[.,]\d+)?$/;

/**
 * Every decimal a run of digits and separators can mean, smallest first; empty when it is not a
 * number. `4,500` → ["4.5", "4500"]; `4.500,00` → ["4500"]; `45,-` → ["45"].
 */
export function numberReadings(raw: string): string[] {
  let text = raw.trim().replace(/[.,]-$/, '');
  if (GROUP_SPACE.test(text)) text = text.replace(/[ '’\u00a0\u202f]/g, '');
  if (!/^\d[\d.,]*$/.test(text) || /[.,]$/.test(text)) return [];
  const dots = (text.match(/\./g) ?? []).length;
  const commas = (text.match(/,/g) ?? []).length;
  const grouped = (int: string, sep: string) => new RegExp(`^\\d{1,3}(?:\\${sep}\\d{3})+$`).test(int);
  if (dots === 0 && commas === 0) return [canonical(text, '')];
  if (dots > 0 && commas > 0) {
    // The last separator is the decimal one; the other groups thousands.
    const decimalSep = text.lastIndexOf('.') > text.lastIndexOf(',') ? '.' : ',';
    const groupSep = decimalSep === '.' ? ',' : '.';
    const at = text.lastIndexOf(decimalSep);
    const int = text.slice(0, at);
    const frac = text.slice(at + 1);
    if (int.includes(decimalSep) || !grouped(int, groupSep) || !/^\d+$/.test(frac)) return [];
    return [canonical(int.split(groupSep).join(''), frac)];
  }
  const sep = dots > 0 ? '.' : ',';
  const parts = text.split(sep);
  if (parts.length > 2) return grouped(text, sep) ? [canonical(parts.join(''), '')] : [];
  const [int = '', frac = ''] = parts;
  const asDecimal = canonical(int, frac);
  // Exactly three digits after one separator, and an integer part that could lead a group: both readings.
  if (frac.length === 3 && /^[1-9]\d{0,2}$/.test(int)) return [asDecimal, canonical(int + frac, '')];
  // Four or more: `1,20000` groups nothing, but a server that drops the separator reads 120000, and the
  // larger reading is the one a proposed amount is checked by.
  if (frac.length > 3) return [asDecimal, canonical(int + frac, '')];
  return [asDecimal];
}

/** The larger reading of a number written with digits (see the header on ambiguity); null if none. */
export function parseNumber(raw: string): string | null {
  return numberReadings(raw).at(-1) ?? null;
}

// ---------------------------------------------------------------------------------------------------
// Numbers written as words

const UNITS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
/** (`fourty`, `ninty`: misspellings people type; each is one number only.) */
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, ninty: 90 };

/**
 * A number written in words, up to the thousands: "forty-five", "one hundred and five", "a thousand
 * two hundred", "a dozen", "two dozen". Null when the words are not exactly one number.
 */
export function wordsNumber(text: string): number | null {
  const words = text.toLowerCase().replace(/-/g, ' ').split(/\s+/).filter((w) => w !== '');
  if (words.length === 0 || words.length > 12) return null;
  let total = 0;
  let current = 0;
  let seen = false;
  for (const [i, w] of words.entries()) {
    if (w === 'and' && i > 0 && i < words.length - 1) continue;
    if ((w === 'a' || w === 'an') && i === 0) {
      current = 1;
      continue;
    }
    if (w in UNITS) current += UNITS[w]!;
    else if (w in TENS) current += TENS[w]!;
    else if (w === 'dozen') current = (current || 1) * 12;
    else if (w === 'hundred') current = (current || 1) * 100;
    else if (w === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else return null;
    seen = true;
  }
  return seen ? total + current : null;
}

// ---------------------------------------------------------------------------------------------------
// Amounts in a field value

const NUMBER_RUN = String.raw`\d{1,3}(?:[ '’\u00a0\u202f]\d{3})+(?:[.,]\d+|[.,]-)?|\d[\d.,]*(?:[.,]-)?`;
const SYMBOL_ALTERNATION = CURRENCY_SYMBOLS.map(([s]) => s.replace(/[$.]/g, '\\$&')).join('|');
const FIELD_AMOUNT = new RegExp(`^(${SYMBOL_ALTERNATION}|[A-Za-z]{3})? ?(${NUMBER_RUN}) ?(${SYMBOL_ALTERNATION}|[A-Za-z]{3,7})?$`, 'i');
const FIELD_AMOUNT_IN_WORDS = /^([a-z -]+?) ([a-z]+)$/i;

/**
 * A field value as money: a number with at most one currency before or after it (`45`, `45,00 €`,
 * `EUR 4.500`, `$1,200.50`, `forty-five euros`). Null when the value is not exactly that.
 */
export function parseAmount(text: string): Money | null {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t === '' || t.length > 80) return null;
  const m = FIELD_AMOUNT.exec(t);
  if (m) {
    const [, before, number = '', after] = m;
    if (before !== undefined && after !== undefined) return null;
    const currencyText = before ?? after;
    const currency = currencyText === undefined ? null : currencyOf(currencyText);
    if (currencyText !== undefined && currency === null) return null;
    const value = parseNumber(number);
    return value === null ? null : { value, currency };
  }
  const words = FIELD_AMOUNT_IN_WORDS.exec(t);
  if (words) {
    const currency = currencyOf(words[2]!);
    const n = currency === null ? null : wordsNumber(words[1]!);
    if (currency !== null && n !== null) return { value: String(n), currency };
  }
  return null;
}

/** A JSON number as money: finite, non-negative, its shortest decimal form (no exponent). */
export function amountOfNumber(n: number, currency: string | null = null): Money | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const text = String(n);
  if (!/^\d+(?:\.\d+)?$/.test(text)) return null;
  const [int = '0', frac = ''] = text.split('.');
  return { value: canonical(int, frac), currency };
}

/** A count of items: "2", "two", "a dozen", "3x", "x3", "3 pcs". Null when it is not a whole count. */
export function parseQuantity(text: string): number | null {
  const t = text.trim().toLowerCase();
  const digits = /^(?:x\s?)?(\d{1,9})(?:\s?(?:x|pcs?|pieces?|units?|packs?))?$/.exec(t);
  if (digits) return Number(digits[1]);
  return t.length <= 40 ? wordsNumber(t) : null;
}

// ---------------------------------------------------------------------------------------------------
// Targets: how amounts travel in a classification and a grant (strings, compared exactly)

/** The amount of an action whose amount field could not be read. It is never at or below any bound. */
export const UNREADABLE_AMOUNT = '(unreadable amount)';
/** The quantity of an action whose quantity field could not be read. */
export const UNREADABLE_QUANTITY = '(unreadable quantity)';

/** `{value: "4500", currency: "EUR"}` → `"4500 EUR"`; without a currency, the value alone. */
export function amountTarget(m: Money): string {
  return m.currency === null ? m.value : `${m.value} ${m.currency}`;
}

/** The inverse of amountTarget; null for the unreadable marker or anything else. */
export function moneyOfTarget(target: string): Money | null {
  const m = /^(\d+(?:\.\d+)?)(?: ([A-Z]{3}))?$/.exec(target);
  return m ? { value: m[1]!, currency: m[2] ?? null } : null;
}

/** For people: `"4500" EUR` → `4,500.00 EUR`. Two decimals unless the value has more. */
export function formatMoney(m: Money): string {
  const [int = '0', frac = ''] = m.value.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const decimals = frac.length > 2 ? frac : frac.padEnd(2, '0');
  return `${grouped}.${decimals}${m.currency === null ? '' : ` ${m.currency}`}`;
}

/** A target amount for people: the formatted money, or the unreadable marker as it is. */
export function amountWords(target: string): string {
  const m = moneyOfTarget(target);
  return m === null ? target : formatMoney(m);
}

// ---------------------------------------------------------------------------------------------------
// Amounts in the user's words

export interface MoneyMention {
  /** Always with its currency: a number without one is no amount in the user's words. */
  money: Money & { currency: string };
  start: number;
  end: number;
}

const NUMBER_WORD = String.raw`(?:a|an|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety|ninty|hundred|thousand)`;
const NUMBER_WORD_RUN = String.raw`${NUMBER_WORD}(?:(?:[ -]|\sand\s)${NUMBER_WORD})*`;
/** A code or word after a number may touch it ("45EUR"), and one before a number too ("EUR45"). */
const CURRENCY_TOKEN_AFTER = String.raw`${SYMBOL_ALTERNATION}|(?:\b|(?<=\d))[A-Za-z]{3,7}\b`;
const CURRENCY_TOKEN_BEFORE = String.raw`${SYMBOL_ALTERNATION}|\b[A-Za-z]{3,7}(?:\b|(?=\d))`;
/**
 * A scale after the digits: `2k`, `1.5m`, `2 thousand`, `2.5 million`, `3 Mio.`. Letters touch the digits;
 * words may follow a space. What follows the scale is no letter (`2kg` is no amount).
 */
const SCALE = String.raw`(?:(?:k|K|m|M|mn|bn)|\s?(?:thousand|million|billion|mio\.?|Mio\.?))(?![A-Za-z])`;
const SCALES: Readonly<Record<string, number>> = { k: 3, thousand: 3, m: 6, mn: 6, million: 6, mio: 6, 'mio.': 6, bn: 9, billion: 9 };
/** The number of a mention: digits with an optional scale, no letter or digit right after the number. */
const SCALED_RUN = String.raw`(?:${NUMBER_RUN})(?:${SCALE})?`;

/** Amounts in text, tried in this order (matchAll copies each, so sharing them is safe). */
const MONEY_IN_TEXT: readonly [RegExp, 'before' | 'after' | 'words'][] = [
  [new RegExp(String.raw`(?<![\w$])(${CURRENCY_TOKEN_BEFORE}) ?(${SCALED_RUN})(?![A-Za-z\d])`, 'gu'), 'before'],
  [new RegExp(String.raw`(?<![\w.,])(${SCALED_RUN}) ?(${CURRENCY_TOKEN_AFTER})`, 'gu'), 'after'],
  [new RegExp(String.raw`\b(${NUMBER_WORD_RUN}) (${CURRENCY_TOKEN_AFTER})`, 'giu'), 'words'],
];

/** Minor units after a currency word or code: "45 euro cents" is 0.45 EUR, never 45 EUR. */
const MINOR_AFTER = /^ ?(?:cents?|ct|pence|penny|pennies)\b/i;
/** A rate, not a payment: "1.659 EUR/l", "12.500 EUR per month" (see userNumber on the ambiguous digits). */
const RATE_AFTER = /^\s*(?:\/|per\b|an? (?:hour|day|week|month|year|litre|liter|kg|night)\b)/i;

/** Codes people write in lower case after a number ("120 eur"); none of them is an English word. */
const LOWER_CASE_CODES = new Set(['eur', 'usd', 'gbp', 'chf', 'jpy', 'cad', 'aud', 'nzd', 'sek', 'nok', 'dkk', 'pln', 'czk', 'huf', 'inr', 'cny', 'sgd', 'hkd', 'brl', 'mxn', 'zar']);

/**
 * In the user's words a code counts only in capitals ("TRY 3" is lira, "try 3 times" is not), or after a
 * number when it is a common one ("120 eur"); words and symbols in any case.
 */
function writtenCurrency(token: string, afterNumber: boolean): string | null {
  const lower = token.toLowerCase();
  if (/^[a-z]{3}$/i.test(token) && CURRENCY_CODES.has(token.toUpperCase()) && token !== token.toUpperCase() && !(afterNumber && LOWER_CASE_CODES.has(lower))) return null;
  return currencyOf(token);
}

/** `"2.5"` × 10^3 → `"2500"`, exactly. */
function scaleDecimal(value: string, zeros: number): string {
  const [int = '0', frac = ''] = value.split('.');
  const padded = frac.padEnd(zeros, '0');
  return canonical(int + padded.slice(0, zeros), padded.slice(zeros));
}

/**
 * The one value a number the user wrote for money has; null when the digits do not say it exactly.
 * Money has at most two decimals in every currency read here, so one separator followed by exactly three
 * digits groups thousands (`2,000 EUR` and `2.000 €` are 2000, `1.250€` is 1250) — unless the amount is a
 * rate (`1.659 EUR/l`), where three decimals are common: that reading is no reading. Four or more digits
 * after one separator (`1,20000`) and any form numberReadings cannot read are no reading either: an
 * amount the words do not state exactly binds nothing wider than what they state — the caller asks.
 */
export function userNumber(raw: string, rate = false): string | null {
  const scaled = new RegExp(`^(.*?)(${SCALE})$`).exec(raw);
  const digits = scaled ? scaled[1]! : raw;
  const readings = numberReadings(digits);
  let value: string | null;
  if (readings.length === 1) value = readings[0]!;
  else if (readings.length === 2 && /^\d{1,3}[.,]\d{3}$/.test(digits.trim()) && !rate) value = readings[1]!;
  else value = null;
  if (value === null || !scaled) return value;
  const zeros = SCALES[scaled[2]!.trim().toLowerCase()];
  return zeros === undefined ? null : scaleDecimal(value, zeros);
}

/**
 * Money amounts written in a text, with their spans: a number with a currency before or after it, read as
 * the user wrote it (`2,000 EUR` is 2000, `€2k` 2000, `45 euro cents` 0.45, `50p` 0.50 GBP). A bare
 * number ("pay Bob 45") names no currency and is no amount here; a number whose value the digits do not
 * state exactly (`1,20000 EUR`) is none either — see unreadMoney for what the compiler does with both.
 */
export function findMoney(text: string): MoneyMention[] {
  const out: MoneyMention[] = [];
  const taken = (start: number, end: number) => out.some((o) => start < o.end && end > o.start);
  for (const [pattern, shape] of MONEY_IN_TEXT) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      let end = start + m[0].length;
      if (taken(start, end)) continue;
      const [numberText = '', currencyText = ''] = shape === 'before' ? [m[2], m[1]] : [m[1], m[2]];
      const currency = writtenCurrency(currencyText, shape !== 'before');
      const rate = RATE_AFTER.test(text.slice(end));
      let value = shape === 'words' ? ((n) => (n === null ? null : String(n)))(wordsNumber(numberText)) : userNumber(numberText.replace(/[.,]+$/, ''), rate);
      if (currency === null || value === null) continue;
      const minor = shape !== 'before' ? MINOR_AFTER.exec(text.slice(end)) : null;
      if (minor) {
        value = /^\d+$/.test(value) ? fromMinorUnits(value) : null;
        end += minor[0].length;
        if (value === null) continue;
      }
      out.push({ money: { value, currency }, start, end });
    }
  }
  // Pence: "50p" is 0.50 GBP.
  for (const m of text.matchAll(/(?<![\w.,£$€])(\d{1,6})p\b/g)) {
    const end = m.index + m[0].length;
    const value = fromMinorUnits(m[1]!);
    if (value !== null && !taken(m.index, end)) out.push({ money: { value, currency: 'GBP' }, start: m.index, end });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** A word or sign that says a number is money but names no currency the compiler can bind to. */
const MONEYISH = String.raw`cents?|ct|pence|grand|quid|bucks?|euros?|dollars?|pounds?|ft|kr|kn|lei|reais|real|rs|kč|rand|pesos?|rupees?`;
const SHARE = /\b(?:half|halves|third|quarter|split|share|portion|part|percent|per ?cent)\b|(?<![\d.,])\d[\d.,]*\s?%/i;
/** Words before a bare number that make it a spending limit ("more than 50", "under 50", "budget: 50"). */
/** (`budget`, `limit`, `cap` only with `of`, `is` or a colon: "a spreadsheet called Budget 2027" names a year.) */
const LIMIT_BEFORE = /\b(?:more than|less than|over|above|under|below|beyond|exceed(?:s|ing)?|at most|up to|max(?:imum)?|(?:budget|limit|cap)(?: of| is|:))\s*$/i;
/** Words before a bare number that state it as the sum ("the amount is 1200", "it's 35", "total: 80"). */
const STATED_BEFORE = /(?:\b(?:amount|total|sum|price|cost|fee|balance|due|owe|owes|costs|comes to|its|it's|it is|that'?s)(?: is| was| of| due)?:?|\()\s*$/i;
/** Verbs whose object a bare number is the sum of: "pay bob 45", "transfer 500 to …", "donate 25". */
export const MONEY_VERBS: ReadonlySet<string> = new Set(['pay', 'send', 'transfer', 'wire', 'tip', 'donate', 'give', 'lend', 'loan', 'refund', 'reimburse', 'repay', 'deposit', 'remit', 'venmo', 'zelle', 'top', 'pledge', 'contribute', 'chip']);
/** Words after a bare number that leave it the sum ("45 to bob", "45 for lunch", "45 now", "45."). */
const AFTER_SUM = /^\s*(?:$|[.,;:!?)]|-(?!\w)|(?:to|for|on|via|from|into|at|now|today|tomorrow|tonight|and|then|please|pls|plz|back|each|per|in|by|with|over|through|asap|total|max|only|ish)\b)/i;
/** Words before a bare number that make it a name, a date or a time ("invoice 4500", "on 12", "may 2025"). */
/** (Not `invoice`, `bill` or `ticket`: "pay the gas bill 120" is a sum as often as "invoice 4500" is a name — unsure, it asks.) */
const ID_BEFORE = /\b(?:order|room|apartment|apt|flat|unit|ref|reference|number|no\.?|nr\.?|id|account|acct|case|item|line|page|version|v|at|on|by|from|before|after|until|till|since|in|iphone|galaxy|pixel|model|gate|seat|row|floor|table|step|part|chapter|level|route|bus|flight|train|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\s*#?\s*$/i;

export interface UnreadMoney {
  /** The words as written. */
  text: string;
  /** `sum`: a bare number after a paying verb ("send 20 to ann"); `other`: any other money not read. */
  kind: 'sum' | 'other';
  start: number;
  end: number;
}

/**
 * Money in a text that findMoney could not read: a number beside a money word it cannot bind (`99 cents`,
 * `2 grand`), a number beside a currency whose digits do not state one value (`1,20000 EUR`, `45,– €`), a
 * bare number after a spending-limit word (`under 50`), and after one of MONEY_VERBS (`verb`, the clause's)
 * a bare number that is the sum paid (`pay bob 45`, `transfer 500 to …`), a percentage (`tip 15%`) or a
 * share of a named amount (`pay half of the 120 EUR bill`). `skip` are spans already read (amounts,
 * addresses, IBANs). Each is a phrase the compiler must not bind wider than it reads: it asks instead.
 */
export function unreadMoney(text: string, skip: readonly { start: number; end: number }[], verb: string | null, financial = false): UnreadMoney[] {
  const out: UnreadMoney[] = [];
  const covered = (s: number, e: number) => skip.some((r) => s < r.end && e > r.start) || out.some((r) => s < r.end && e > r.start);
  const add = (start: number, raw: string, kind: UnreadMoney['kind'] = 'other') => {
    const t = raw.replace(/[\s.,]+$/, '');
    if (t !== '' && !covered(start, start + t.length)) out.push({ text: t, kind, start, end: start + t.length });
  };
  const moneyVerb = verb !== null && MONEY_VERBS.has(verb);
  // A number beside a money word or a currency that findMoney did not read.
  const beside = new RegExp(
    String.raw`(?<![\w,])\.?\d[\d.,'’\-–]*(?:[kKmM]{1,2}|mn|bn)?\s?(?:(?:${MONEYISH})(?![A-Za-z])|${SYMBOL_ALTERNATION}|[A-Z]{3}\b|(?:eur|usd|gbp|chf)\b)|(?:${SYMBOL_ALTERNATION})\s?\d[\d.,'’\-–kKmM]*`,
    'gi',
  );
  for (const m of text.matchAll(beside)) {
    // (A three-letter code must be one: "45 TBD" is no money; a money word is, whatever follows.)
    const code = new RegExp(`(?:${MONEYISH})$`, 'i').test(m[0]) ? undefined : /[A-Za-z]{3}$/.exec(m[0])?.[0];
    if (code !== undefined && currencyOf(code) === null) continue;
    add(m.index, m[0]);
  }
  if (moneyVerb) {
    const share = SHARE.exec(text);
    if (share !== null) add(share.index, share[0]);
    const grand = /\b(?:a|one|two|three|four|five|ten|\d+|couple of) grands?\b/i.exec(text);
    if (grand !== null) add(grand.index, grand[0]);
  }
  // A number said on its own ("pay rent (1250) to …" splits it into a clause of its own).
  // (Not a list's number: "1.", "3)" open a step.)
  const alone = /^\s*(?:\(\s*(\d[\d.,'’]*?)\s*\)|(\d[\d.,'’]*\d|\d{3,}))\s*[.!]?\s*$/.exec(text);
  const said = alone?.[1] ?? alone?.[2];
  if (said !== undefined) add(text.indexOf(said), said);
  for (const m of text.matchAll(/(?<![\w.,'’#@/-])\d[\d.,'’]*(?![\w%€$£¥@/])/g)) {
    const before = text.slice(0, m.index);
    const after = text.slice(m.index + m[0].length);
    if (!AFTER_SUM.test(after) || (/(?:^|\n)\s*$/.test(before) && /^[.)]\s/.test(after))) continue;
    // In a payment or purchase, two decimals are a price ("renew my netflix for 15.49").
    const price = financial && /^\d+[.,]\d{2}$/.test(m[0]);
    if (LIMIT_BEFORE.test(before) || STATED_BEFORE.test(before) || price) add(m.index, m[0]);
    else if (moneyVerb && !ID_BEFORE.test(before)) add(m.index, m[0], 'sum');
  }
  return out.sort((a, b) => a.start - b.start);
}
