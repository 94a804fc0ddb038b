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
 * words up to the thousands ("forty-five euros", "one thousand two hundred dollars").
 *
 * Ambiguity: `4,500` and `4.500` are 4.5 in one locale and 4500 in another. Every reader here returns
 * the LARGER reading, because the only question asked of an amount an action proposes is "is it above
 * what the user named?" and the larger reading can only turn an ALLOW into an ASK_USER (fail safe).
 * A negative or otherwise unreadable value is unreadable, never zero.
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
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };

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

const NUMBER_WORD = String.raw`(?:a|an|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)`;
const NUMBER_WORD_RUN = String.raw`${NUMBER_WORD}(?:(?:[ -]|\sand\s)${NUMBER_WORD})*`;
const CURRENCY_TOKEN = String.raw`${SYMBOL_ALTERNATION}|\b[A-Za-z]{3,7}\b`;

/** Amounts in text, tried in this order (matchAll copies each, so sharing them is safe). */
const MONEY_IN_TEXT: readonly [RegExp, 'before' | 'after' | 'words'][] = [
  [new RegExp(String.raw`(?<![\w$])(${CURRENCY_TOKEN}) ?(${NUMBER_RUN})`, 'gu'), 'before'],
  [new RegExp(String.raw`(?<![\w.,])(${NUMBER_RUN}) ?(${CURRENCY_TOKEN})`, 'gu'), 'after'],
  [new RegExp(String.raw`\b(${NUMBER_WORD_RUN}) (${CURRENCY_TOKEN})`, 'giu'), 'words'],
];

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

/**
 * Money amounts written in a text, with their spans: a number with a currency before or after it.
 * A bare number ("pay Bob 45") names no currency and is no amount here: it binds nothing. An ambiguous
 * number ("4,500 EUR") takes its SMALLER reading: this is the bound, and a smaller bound can only make
 * more actions ask (fail safe; the popup shows the bound as read).
 */
export function findMoney(text: string): MoneyMention[] {
  const out: MoneyMention[] = [];
  for (const [pattern, shape] of MONEY_IN_TEXT) {
    for (const m of text.matchAll(pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      if (out.some((o) => start < o.end && end > o.start)) continue;
      const [numberText = '', currencyText = ''] = shape === 'before' ? [m[2], m[1]] : [m[1], m[2]];
      const currency = writtenCurrency(currencyText, shape !== 'before');
      const value = shape === 'words' ? wordsNumber(numberText) : (numberReadings(numberText.replace(/[.,]+$/, ''))[0] ?? null);
      if (currency === null || value === null) continue;
      out.push({ money: { value: String(value), currency }, start, end });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}
