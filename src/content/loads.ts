/**
 * Which element attributes make the browser fetch a URL, and the URLs a value names — pure functions
 * shared by the MAIN-world element, markup and style hooks (bundled there, so no DOM import).
 */

/** `image` for loads that render as images, `frame` for documents, `other` for scripts, styles, media. */
export type LoadKind = 'image' | 'frame' | 'other';

/** How an attribute's value names URLs: one URL, a srcset list, or CSS text. */
export type ValueSyntax = 'url' | 'srcset' | 'css';

export interface LoadAttribute {
  kind: LoadKind;
  syntax: ValueSyntax;
}

const url = (kind: LoadKind): LoadAttribute => ({ kind, syntax: 'url' });
const srcset: LoadAttribute = { kind: 'image', syntax: 'srcset' };

/**
 * Attributes (lower-case, by element local name) whose value starts a fetch as soon as it is set or the
 * element is inserted. `action`/`formaction` fetch nothing until a submission, which the form guard
 * decides; `href` on `<a>`/`<area>` fetches nothing until a click (a navigation the floor checks).
 */
const LOAD_ATTRIBUTES: Record<string, Record<string, LoadAttribute>> = {
  img: { src: url('image'), srcset },
  source: { src: url('other'), srcset },
  script: { src: url('other') },
  link: { href: url('other'), imagesrcset: srcset },
  iframe: { src: url('frame') },
  frame: { src: url('frame') },
  audio: { src: url('other') },
  video: { src: url('other'), poster: url('image') },
  track: { src: url('other') },
  object: { data: url('other') },
  embed: { src: url('other') },
  input: { src: url('image') },
  body: { background: url('image') },
  table: { background: url('image') },
  td: { background: url('image') },
  th: { background: url('image') },
  // SVG (local names are case-sensitive there; the HTML parser keeps these lower-case).
  image: { href: url('image'), 'xlink:href': url('image') },
  feimage: { href: url('image'), 'xlink:href': url('image') },
  use: { href: url('other'), 'xlink:href': url('other') },
};

const STYLE_ATTRIBUTE: LoadAttribute = { kind: 'image', syntax: 'css' };

/** The load an attribute starts on an element, or undefined when setting it fetches nothing. */
export function loadAttribute(localName: string, attribute: string): LoadAttribute | undefined {
  const name = attribute.toLowerCase();
  if (name === 'style') return STYLE_ATTRIBUTE;
  return LOAD_ATTRIBUTES[localName.toLowerCase()]?.[name];
}

/** The attribute names worth looking at on an element of this local name (style included). */
export function loadAttributeNames(localName: string): string[] {
  return ['style', ...Object.keys(LOAD_ATTRIBUTES[localName.toLowerCase()] ?? {})];
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';

/** The candidate URLs of a `srcset` value (HTML's "parse a srcset attribute", without descriptors). */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (isSpace(value[i]) || value[i] === ',')) i++;
    if (i >= value.length) break;
    const start = i;
    while (i < value.length && !isSpace(value[i])) i++;
    let candidate = value.slice(start, i);
    const endsList = candidate.endsWith(',');
    candidate = candidate.replace(/,+$/, '');
    if (candidate !== '') urls.push(candidate);
    if (endsList) continue;
    // Descriptors run to the next comma outside parentheses.
    let depth = 0;
    for (; i < value.length; i++) {
      const c = value[i];
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      else if (c === ',' && depth === 0) break;
    }
  }
  return urls;
}

const CSS_ESCAPE = /\\([0-9a-fA-F]{1,6}\s?|[^\n0-9a-fA-F])/g;

function unescapeCss(text: string): string {
  return text.replace(CSS_ESCAPE, (_, escaped: string) => {
    const hex = escaped.trim();
    return /^[0-9a-fA-F]+$/.test(hex) ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd) : escaped;
  });
}

const CSS_URL = /\burl\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)/gi;
const CSS_IMPORT = /@import\s+(?:"([^"]*)"|'([^']*)')/gi;
const CSS_IMAGE_SET = /image-set\(([^)]*)\)/gi;
const CSS_STRING = /"([^"]*)"|'([^']*)'/g;

/**
 * The URLs a piece of CSS references: `url(...)`, `@import "..."` and the strings of `image-set(...)`,
 * after CSS escapes are undone (so `\75 rl(` is seen as `url(`).
 */
export function cssUrls(text: string): string[] {
  const css = unescapeCss(text);
  const urls: string[] = [];
  for (const match of css.matchAll(CSS_URL)) urls.push(match[1] ?? match[2] ?? match[3] ?? '');
  for (const match of css.matchAll(CSS_IMPORT)) urls.push(match[1] ?? match[2] ?? '');
  for (const set of css.matchAll(CSS_IMAGE_SET)) {
    for (const match of (set[1] ?? '').matchAll(CSS_STRING)) urls.push(match[1] ?? match[2] ?? '');
  }
  return urls.filter((u) => u !== '');
}

/** The URLs a value of the given syntax names. */
export function urlsIn(syntax: ValueSyntax, value: string): string[] {
  if (syntax === 'srcset') return srcsetUrls(value);
  if (syntax === 'css') return cssUrls(value);
  const trimmed = trimUrl(value);
  return trimmed === '' ? [] : [trimmed];
}

/**
 * The value without the leading and trailing C0 controls and spaces a URL parser drops — by indexing,
 * not `String.prototype.trim`, which a page can replace before it sets `img.src` (`trim = () => ''` made
 * every URL look empty to the gate).
 */
function trimUrl(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && value[start]! <= ' ') start++;
  while (end > start && value[end - 1]! <= ' ') end--;
  let out = '';
  for (let i = start; i < end; i++) out += value[i];
  return out;
}
