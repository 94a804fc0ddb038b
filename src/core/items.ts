/**
 * Items: the named things a web action acts on — the product a checkout buys, the file a form
 * deletes, the document a dialog shares. "Buy one USB-C cable" binds the purchase to that item, so a
 * compromised agent cannot spend the task's one purchase on a gift card.
 *
 * Matching is by words, not by spelling: `USB-C cable`, `usb-c-cable` and `USB_C Cables` are the
 * same item; `old-draft` and `old-draft.txt` are too (one trailing file extension may differ). Nothing
 * looser: `usb-c-cable-10-pack` is another item, and a prompt is the way to approve it.
 */

/** File-name extensions: a bare `report.pdf` is a file, and a site's id may add or drop one. */
export const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  'pdf', 'doc', 'docx', 'txt', 'csv', 'xls', 'xlsx', 'ppt', 'pptx', 'png', 'jpg', 'jpeg', 'gif', 'zip', 'json', 'md',
  'html', 'htm', 'mp3', 'mp4', 'mov', 'odt', 'ods', 'rtf', 'svg', 'webp', 'tar', 'gz', 'js', 'ts', 'py', 'sh',
]);

/** An item's words: lower case, letters and digits, a plural `s` dropped (`cables` → `cable`). */
export function itemWords(item: string): string[] {
  return item
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** Whether `actual` (what the action names) is `named` (what the user named). */
export function itemMatches(actual: string, named: string): boolean {
  const a = itemWords(actual);
  const n = itemWords(named);
  if (a.length === 0 || n.length === 0) return false;
  if (sameWords(a, n)) return true;
  const withoutExtension = (words: string[]) => (words.length > 1 && FILE_EXTENSIONS.has(words.at(-1)!) ? words.slice(0, -1) : words);
  return sameWords(withoutExtension(a), withoutExtension(n));
}

/** Every item the action names is one the user named; an action whose item cannot be read is not. */
export function itemsCovered(actual: readonly string[], named: readonly string[]): boolean {
  return actual.length > 0 && actual.every((item) => named.some((n) => itemMatches(item, n)));
}
