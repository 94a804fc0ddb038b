/**
 * Whether a person can see an element's text, from a snapshot of its computed style and box (pure, so
 * it is tested without a browser). The DOM layer builds the snapshot only for text the rules flagged,
 * because computing styles and boxes is what costs.
 */

export interface StyleView {
  display: string;
  visibility: string;
  opacity: string;
  fontSize: string;
  color: string;
  clip: string;
  clipPath: string;
  overflow: string;
  textIndent: string;
}

export interface BoxView {
  width: number;
  height: number;
  /** Document coordinates (viewport rect + scroll). */
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export type HiddenReason =
  | 'not-rendered'
  | 'aria-hidden'
  | 'inert-content'
  | 'zero-size'
  | 'off-screen'
  | 'clipped'
  | 'transparent'
  | 'tiny-font'
  | 'faint'
  | 'same-colour';

/** r, g, b in 0–255 and alpha 0–1 from `rgb(…)` / `rgba(…)` / `color(srgb …)`; null when unreadable. */
export function parseColour(css: string): { r: number; g: number; b: number; a: number } | null {
  const rgb = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/i.exec(css.trim());
  if (rgb !== null) {
    const alpha = rgb[4] === undefined ? 1 : rgb[4].endsWith('%') ? Number(rgb[4].slice(0, -1)) / 100 : Number(rgb[4]);
    return { r: Number(rgb[1]), g: Number(rgb[2]), b: Number(rgb[3]), a: alpha };
  }
  const srgb = /^color\(srgb\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)(?:\s*\/\s*([\d.]+))?\s*\)$/i.exec(css.trim());
  if (srgb !== null) return { r: Number(srgb[1]) * 255, g: Number(srgb[2]) * 255, b: Number(srgb[3]) * 255, a: srgb[4] === undefined ? 1 : Number(srgb[4]) };
  return null;
}

function luminance(c: { r: number; g: number; b: number }): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG contrast ratio (1 = identical, 21 = black on white). */
export function contrast(a: { r: number; g: number; b: number }, b: { r: number; g: number; b: number }): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Below this a person does not read text as text (1 px, 2 px fonts). */
const TINY_FONT_PX = 3;
/** Small and faint together: "9 px grey-on-white" fine print that people skip. */
const SMALL_FONT_PX = 10;
const FAINT_CONTRAST = 2.5;
const SAME_COLOUR_CONTRAST = 1.35;

/**
 * Why the text of the element with this style and box is hidden from a person, or null when it is
 * visible. `background` is the colour the text is drawn on (the nearest opaque background up the tree).
 */
export function hiddenByStyle(style: StyleView, box: BoxView, page: { width: number; height: number }, background: string): HiddenReason | null {
  if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse') return 'not-rendered';
  if (Number.parseFloat(style.opacity) <= 0.05) return 'transparent'; // NaN (unreadable) is not hidden
  if (box.width <= 1 || box.height <= 1) return 'zero-size';
  if (box.right <= 0 || box.bottom <= 0 || box.left >= page.width || box.top >= page.height || Number.parseFloat(style.textIndent) <= -500) return 'off-screen';
  if ((style.clip !== 'auto' && style.clip !== '' && /rect\(\s*0(px)?[\s,]+0(px)?[\s,]+0(px)?[\s,]+0(px)?\s*\)|rect\(\s*1px/.test(style.clip)) || /inset\(\s*(?:50|100)%|circle\(\s*0(?:px|%)?\s*(?:at|\))|polygon\(\s*0(?:px)?\s+0(?:px)?\s*\)/.test(style.clipPath)) {
    return 'clipped';
  }
  const size = Number.parseFloat(style.fontSize);
  if (size < TINY_FONT_PX) return 'tiny-font';
  const fg = parseColour(style.color);
  const bg = parseColour(background) ?? { r: 255, g: 255, b: 255, a: 1 };
  if (fg !== null) {
    if (fg.a <= 0.05) return 'transparent';
    const ratio = contrast(fg, bg);
    if (ratio < SAME_COLOUR_CONTRAST) return 'same-colour';
    if (size < SMALL_FONT_PX && ratio < FAINT_CONTRAST) return 'faint';
  }
  return null;
}
