/**
 * Whether a write carries one of the values the user's words give it (Constraint.carries): its fields, body
 * and URL, read as text. A number matches a number of the call equal to it ("25000" is `25,000.00`, "86" is
 * `86.00`); any other value matches text of the call that contains it. Pure; bounded by the call's size.
 */

const MAX_LEAVES = 2_000;

function leavesOf(value: unknown, out: string[], depth = 0): void {
  if (out.length >= MAX_LEAVES || depth > 12) return;
  if (typeof value === 'string') {
    out.push(value);
    // (A body sent as a JSON string or a GraphQL variables string holds its values inside.)
    const t = value.trim();
    if ((t.startsWith('{') || t.startsWith('[')) && t.length < 100_000) {
      try {
        leavesOf(JSON.parse(t) as unknown, out, depth + 1);
      } catch {
        // Not JSON: the text itself is the leaf.
      }
    }
  } else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leavesOf(v, out, depth + 1);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) leavesOf(v, out, depth + 1);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

const NUMERIC = /^\d[\d,]*(?:\.\d+)?$/;
const PHONE = /^\+?[\d\s().-]{7,}$/;
const NUMBERS = /\d[\d,]*(?:\.\d+)?/g;
const asNumber = (s: string) => Number(s.replace(/,/g, ''));

export function callCarries(args: unknown, values: readonly string[]): boolean {
  const leaves: string[] = [];
  leavesOf(args, leaves);
  const texts = leaves.map((l) => decoded(l).toLowerCase().replace(/\s+/g, ' '));
  const numbers = new Set(texts.flatMap((t) => [...t.matchAll(NUMBERS)].map((m) => asNumber(m[0]))));
  // (A phone number however the call spaces it, and a `+` a form encoding reads as a space: its digits.)
  const digits = (t: string) => t.replace(/\D/g, '');
  return values.some((v) => (NUMERIC.test(v) ? numbers.has(asNumber(v)) : PHONE.test(v) ? leaves.some((l) => digits(l).includes(digits(v))) : texts.some((t) => t.includes(v))));
}

/** Whether a call's text holds a refused word as a word of its own (`premium-monthly`, `MONTHLY`), in any case. */
export function callMentions(args: unknown, word: string): boolean {
  const leaves: string[] = [];
  leavesOf(args, leaves);
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
  return leaves.some((l) => re.test(decoded(l)));
}

/** A form field's own name, without the brackets it is nested in (`shipping[line1]` → `line1`, `guests[adults]` → `adults`). */
export const fieldName = (key: string): string => key.replace(/^.*\[([^\]]+)\]$/, '$1');

const STREET_KEY = /^(?:street|street_?address|address_?line_?1|line_?1|address1|street_?line)$/i;

/** The street lines a call carries (`address.street`, `shipping[line1]`): where an order goes. Lower case, spaces squeezed. */
export function streetsOf(args: unknown, depth = 0): string[] {
  if (depth > 8 || args === null || typeof args !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(args as Record<string, unknown>).slice(0, 200)) {
    const key = fieldName(k);
    if (typeof v === 'string' && STREET_KEY.test(key) && /\d/.test(v) && /\p{L}{2}/u.test(v)) out.push(v.toLowerCase().replace(/\s+/g, ' ').trim());
    else if (typeof v === 'object') out.push(...streetsOf(v, depth + 1));
  }
  return out;
}

/** A counted noun as its field names write it: `num_rooms`, `roomCount`, `number_of_adults`, `guests[adults]` → `room`, `adult`. */
function countedNoun(key: string): string {
  const w = fieldName(key).toLowerCase().replace(/[^a-z]/g, '');
  return w.replace(/^(?:numberof|numof|num|no|nb|total)(?=[a-z]{3})/, '').replace(/(?<=[a-z]{3})(?:count|qty|number|num|total)$/, '').replace(/(?:es|s)$/, '');
}
const countedWord = (noun: string) => noun.toLowerCase().replace(/(?:es|s)$/, '');

/**
 * A count the words give for a noun ("1 room 2 adults", "grab 2 seats") that a call's field for that noun
 * (`rooms: 3`, `num_seats`) contradicts, as a plain sentence; null when every such field carries the count said.
 */
export function countOtherThanSaid(args: unknown, counts: Readonly<Record<string, number>>, depth = 0): string | null {
  if (depth > 8 || args === null || typeof args !== 'object') return null;
  const said = new Map(Object.entries(counts).map(([noun, n]): [string, [string, number]] => [countedWord(noun), [noun, n]]));
  for (const [k, v] of Object.entries(args as Record<string, unknown>).slice(0, 200)) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,6}\s*$/.test(v) ? Number(v) : null;
    const hit = n === null ? undefined : said.get(countedNoun(k));
    if (hit !== undefined && n !== hit[1]) return `the user's words say ${hit[1]} ${hit[0]}; this write carries ${n} (${k})`;
    const inner = typeof v === 'object' ? countOtherThanSaid(v, counts, depth + 1) : null;
    if (inner !== null) return inner;
  }
  return null;
}
