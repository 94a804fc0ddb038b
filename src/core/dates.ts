/**
 * Days a booking or an event is for. The words name them by month and day ("dec 18-20", "jan 8", "from dec 21
 * 9am to dec 23 6pm"); a tool call writes them as ISO dates in its date fields (`start_day: "2026-12-18"`,
 * `end_time: "2026-12-23 18:00"`). Both are compared as `MM-DD`: a year the words leave out is the agent's to
 * fill, a day they name is not (a stay "dec 18-20" that ends on the 25th is another stay).
 */

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6, jul: 7, july: 7,
  aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};
const MONTH_DAY = /\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:\s*[-–]\s*(\d{1,2})(?:st|nd|rd|th)?)?(?![\d:])/gi;

const dayKey = (month: number, day: number) => `${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** The days a text names by month and day, a hyphenated range's days between included; empty when it names none. */
export function daysNamed(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(MONTH_DAY)) {
    const month = MONTHS[m[1]!.toLowerCase()];
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    if (month === undefined || from < 1 || from > 31 || to < from || to > 31) continue;
    for (let d = from; d <= to; d++) out.add(dayKey(month, d));
  }
  return [...out];
}

/** Keys that hold when a booking or an event is: `start_day`, `date`, `new_start_time`, `check_in`, `end`. */
const DATE_KEY = /day|date|time|start|end|check_?in|check_?out|arrival|departure/i;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T\s])/;

/** The days a call's date fields name, as `MM-DD`. */
export function daysCarried(args: unknown, key = '', depth = 0): string[] {
  if (depth > 6) return [];
  if (typeof args === 'string') {
    const m = DATE_KEY.test(key) ? ISO_DAY.exec(args.trim()) : null;
    return m === null ? [] : [`${m[2]}-${m[3]}`];
  }
  if (Array.isArray(args)) return args.flatMap((v) => daysCarried(v, key, depth + 1));
  if (typeof args === 'object' && args !== null) return Object.entries(args).flatMap(([k, v]) => daysCarried(v, k, depth + 1));
  return [];
}

/** The first day a call carries that the words do not name; null when there is none. */
export function dayOtherThanSaid(args: unknown, days: readonly string[]): string | null {
  return daysCarried(args).find((d) => !days.includes(d)) ?? null;
}
