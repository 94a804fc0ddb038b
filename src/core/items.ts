/**
 * Items: the named things an action acts on — the product a checkout buys, the file a form deletes,
 * the document a dialog shares. "Buy one USB-C cable" binds the purchase to that item, so a
 * compromised agent cannot spend the task's one purchase on a gift card.
 *
 * Products match by words, not by spelling: `USB-C cable`, `usb-c-cable` and `USB_C Cables` are the
 * same item. Files match by name: `old-draft.txt` is `OLD-DRAFT.txt` or `old-draft`, never
 * `old-draft.pdf`. Nothing looser: `usb-c-cable-10-pack` is another item, and a prompt is the way to
 * approve it.
 */

/** File-name extensions: a bare `report.pdf` is a file, and a site's id may add or drop one. */
export const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  'pdf', 'doc', 'docx', 'txt', 'csv', 'xls', 'xlsx', 'ppt', 'pptx', 'png', 'jpg', 'jpeg', 'gif', 'zip', 'json', 'md',
  'html', 'htm', 'mp3', 'mp4', 'mov', 'odt', 'ods', 'rtf', 'svg', 'webp', 'tar', 'gz', 'js', 'ts', 'py', 'sh',
]);

/** An item's words: lower case, letters and digits of any script, a plural `s` dropped (`cables` → `cable`). */
export function itemWords(item: string): string[] {
  return item
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** `report.pdf` → `pdf`; null when the name has no known extension. */
function extensionOf(name: string): string | null {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  return FILE_EXTENSIONS.has(extension) ? extension : null;
}

const withoutExtension = (name: string) => (extensionOf(name) === null ? name : name.slice(0, name.lastIndexOf('.')));

/**
 * Whether `actual` (what the action names) is `named` (what the user named).
 *  - A file the user named with its extension is matched as a name: case aside, the same name, or the
 *    same name with the extension left off by the site — never another extension (`report.xlsx` is
 *    not `report.pdf`) and never another spelling (`old_drafts.txt` is not `old-draft.txt`).
 *  - Anything else is matched by words, and the site may add one file extension (`old-draft` →
 *    `old-draft.txt`).
 *  - A path (`/`, `\`, `..`) in what the action names is never read as words: it names another place.
 */
export function itemMatches(actual: string, named: string): boolean {
  const a = actual.trim().toLowerCase();
  const n = named.trim().toLowerCase();
  if (a === '' || n === '') return false;
  if (a === n) return true;
  if (/[/\\]|\.\./.test(a)) return false;
  if (extensionOf(n) !== null) {
    const stem = withoutExtension(n);
    return itemWords(stem).length > 0 && a === stem;
  }
  const nameWords = itemWords(n);
  if (nameWords.length === 0) return false;
  return sameWords(itemWords(a), nameWords) || (extensionOf(a) !== null && sameWords(itemWords(withoutExtension(a)), nameWords));
}

/** Every item the action names is one the user named; an action whose item cannot be read is not. */
export function itemsCovered(actual: readonly string[], named: readonly string[]): boolean {
  return actual.length > 0 && actual.every((item) => named.some((n) => itemMatches(item, n)));
}
