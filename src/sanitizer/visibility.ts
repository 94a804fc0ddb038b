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
  /** `opacity(…)` in a filter fades the text like `opacity`. */
  filter?: string;
  /** What text is painted with when set (`-webkit-text-fill-color: transparent` paints nothing). */
  webkitTextFillColor?: string;
  /** A mask made only of transparent gradients shows nothing. */
  maskImage?: string;
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

/** The element's own opacity, its `opacity` property times any `opacity(…)` filter (an unreadable value counts as 1). */
export function ownOpacity(style: Pick<StyleView, 'opacity' | 'filter'>): number {
  let value = Number.parseFloat(style.opacity);
  if (Number.isNaN(value)) value = 1;
  for (const m of (style.filter ?? '').matchAll(/opacity\(\s*([\d.]+)(%?)\s*\)/g)) value *= Number(m[1]) / (m[2] === '%' ? 100 : 1);
  return value;
}

/**
 * A clip-path that leaves nothing to see: a circle or ellipse of radius 0, an inset that meets itself
 * (top + bottom or left + right at least 100 %), or a polygon of no area.
 */
export function clipPathHides(value: string): boolean {
  if (/(?:circle|ellipse)\(\s*0(?:px|%)?(?:\s+0(?:px|%)?)?\s*(?:at|\))/.test(value)) return true;
  const inset = /inset\(([^)]*)\)/.exec(value);
  if (inset !== null) {
    const parts = (inset[1] ?? '').split(/\s+round\s+/)[0]!.trim().split(/\s+/).map((p) => (p.endsWith('%') || Number.parseFloat(p) === 0 ? Number.parseFloat(p) : Number.NaN));
    const [top = 0, right = top, bottom = top, left = right] = parts;
    if (top + bottom >= 100 || left + right >= 100) return true;
  }
  const polygon = /polygon\(([^)]*)\)/.exec(value);
  if (polygon !== null) {
    const points = (polygon[1] ?? '').replace(/^\s*(?:nonzero|evenodd)\s*,/, '').split(',').map((pair) => pair.trim().split(/\s+/).map((v) => Number.parseFloat(v)));
    if (points.every((p) => p.length === 2 && p.every((v) => !Number.isNaN(v)))) {
      let area = 0;
      for (let i = 0; i < points.length; i++) {
        const [x1, y1] = points[i]!;
        const [x2, y2] = points[(i + 1) % points.length]!;
        area += x1! * y2! - x2! * y1!;
      }
      if (Math.abs(area) < 1e-9) return true;
    }
  }
  return false;
}

/**
 * A mask that shows nothing: gradients whose every colour is transparent (`mask-image:
 * linear-gradient(transparent, transparent)`), no image of another kind.
 */
export function maskHides(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === 'none' || /url\(|image\(|element\(|paint\(/i.test(value)) return false;
  const colours = [...value.matchAll(/(?:rgba?|color)\([^()]*\)|\btransparent\b/gi)].map((m) => (m[0].toLowerCase() === 'transparent' ? { a: 0 } : parseColour(m[0])));
  return colours.length > 0 && colours.every((c) => c !== null && c.a <= 0.05);
}

type Rgb = { r: number; g: number; b: number; a: number };
const clamp255 = (v: number) => Math.max(0, Math.min(255, v));
const amountOf = (arg: string | undefined, fallback: number) => {
  if (arg === undefined || arg.trim() === '') return fallback;
  const n = Number.parseFloat(arg);
  return Number.isNaN(n) ? fallback : arg.trim().endsWith('%') ? n / 100 : n;
};

/**
 * A colour as a CSS `filter` list paints it: `brightness`, `contrast`, `invert` and `grayscale` change
 * every pixel the same way (brightness(10) turns grey text white); other functions are left out.
 */
export function filterColour(colour: Rgb, filter: string | undefined): Rgb {
  if (filter === undefined || filter === '' || filter === 'none') return colour;
  let { r, g, b } = colour;
  for (const m of filter.matchAll(/(brightness|contrast|invert|grayscale)\(([^)]*)\)/g)) {
    const amount = amountOf(m[2], 1);
    const channel = (f: (v: number) => number) => {
      r = clamp255(f(r));
      g = clamp255(f(g));
      b = clamp255(f(b));
    };
    if (m[1] === 'brightness') channel((v) => v * amount);
    else if (m[1] === 'contrast') channel((v) => (v - 127.5) * amount + 127.5);
    else if (m[1] === 'invert') channel((v) => v + (255 - 2 * v) * Math.min(1, amount));
    else {
      const grey = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      const k = Math.min(1, amount);
      r = r + (grey - r) * k;
      g = g + (grey - g) * k;
      b = b + (grey - b) * k;
    }
  }
  return { r, g, b, a: colour.a };
}

/** Text of colour `source` drawn with `mix-blend-mode: mode` on `backdrop` (the separable modes; others leave it as is). */
export function blendColour(mode: string | undefined, source: Rgb, backdrop: Rgb): Rgb {
  const f: Record<string, (s: number, d: number) => number> = {
    multiply: (s, d) => s * d,
    screen: (s, d) => s + d - s * d,
    darken: (s, d) => Math.min(s, d),
    lighten: (s, d) => Math.max(s, d),
    difference: (s, d) => Math.abs(s - d),
    exclusion: (s, d) => s + d - 2 * s * d,
    'plus-lighter': (s, d) => Math.min(1, s + d),
    'plus-darker': (s, d) => Math.max(0, s + d - 1),
    'color-dodge': (s, d) => (d === 0 ? 0 : s >= 1 ? 1 : Math.min(1, d / (1 - s))),
    'color-burn': (s, d) => (d >= 1 ? 1 : s <= 0 ? 0 : 1 - Math.min(1, (1 - d) / s)),
    'hard-light': (s, d) => (s <= 0.5 ? 2 * s * d : 1 - 2 * (1 - s) * (1 - d)),
    overlay: (s, d) => (d <= 0.5 ? 2 * s * d : 1 - 2 * (1 - s) * (1 - d)),
  };
  const fn = mode === undefined ? undefined : f[mode];
  if (fn === undefined) return source;
  const mix = (s: number, d: number) => fn(s / 255, d / 255) * 255;
  return { r: mix(source.r, backdrop.r), g: mix(source.g, backdrop.g), b: mix(source.b, backdrop.b), a: source.a };
}

/**
 * Why the text of the element with this style and box is hidden from a person, or null when it is
 * visible. `background` is the colour the text is drawn on (the nearest opaque background up the tree).
 */
export function hiddenByStyle(style: StyleView, box: BoxView, page: { width: number; height: number }, background: string): HiddenReason | null {
  if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse') return 'not-rendered';
  if (ownOpacity(style) <= 0.05) return 'transparent';
  if (box.width <= 1 || box.height <= 1) return 'zero-size';
  if (box.right <= 0 || box.bottom <= 0 || box.left >= page.width || box.top >= page.height || Number.parseFloat(style.textIndent) <= -500) return 'off-screen';
  if ((style.clip !== 'auto' && style.clip !== '' && /rect\(\s*0(px)?[\s,]+0(px)?[\s,]+0(px)?[\s,]+0(px)?\s*\)|rect\(\s*1px/.test(style.clip)) || clipPathHides(style.clipPath) || maskHides(style.maskImage)) {
    return 'clipped';
  }
  const size = Number.parseFloat(style.fontSize);
  if (size < TINY_FONT_PX) return 'tiny-font';
  const fg = parseColour(style.webkitTextFillColor !== undefined && style.webkitTextFillColor !== '' ? style.webkitTextFillColor : style.color);
  const bg = parseColour(background) ?? { r: 255, g: 255, b: 255, a: 1 };
  if (fg !== null) {
    if (fg.a <= 0.05) return 'transparent';
    const ratio = contrast(fg, bg);
    if (ratio < SAME_COLOUR_CONTRAST) return 'same-colour';
    if (size < SMALL_FONT_PX && ratio < FAINT_CONTRAST) return 'faint';
  }
  return null;
}

/** A rectangle in viewport coordinates. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Below this many pixels a window onto text (an overflow, a clip, a clip-path inset) or a line of
 * rendered text (a scale transform, `zoom`, a 3 px font) shows nothing a person reads (found by the
 * second Sanitizer review: `width: 3px; overflow: hidden`, `clip-path: inset(0 0 95% 0)`,
 * `transform: scale(0.1)` and `font-size: 3px` each reached the agent).
 */
export const MIN_READABLE_PX = 4;

const lengthOf = (value: string | undefined, whole: number): number => {
  if (value === undefined || value === '' || value === 'auto') return 0;
  const n = Number.parseFloat(value);
  if (Number.isNaN(n)) return 0;
  return value.trim().endsWith('%') ? (n / 100) * whole : n;
};

/**
 * What a `clip-path: inset(…)` leaves of an element's box (insets in px or %, of the border box), or
 * null for any other clip-path (shapes of no area are clipPathHides' concern).
 */
export function clipPathWindow(value: string, box: Rect): Rect | null {
  const inset = /^inset\(([^)]*)\)/.exec(value.trim());
  if (inset === null) return null;
  const parts = (inset[1] ?? '').split(/\s+round\s+/)[0]!.trim().split(/\s+/);
  const [t, r = t, b = t, l = r] = parts;
  const w = box.right - box.left;
  const h = box.bottom - box.top;
  return { left: box.left + lengthOf(l, w), top: box.top + lengthOf(t, h), right: box.right - lengthOf(r, w), bottom: box.bottom - lengthOf(b, h) };
}

/** What a `clip: rect(top, right, bottom, left)` (absolutely positioned elements) leaves of an element's box, or null. */
export function clipRectWindow(value: string, box: Rect): Rect | null {
  const m = /^rect\(\s*([^,\s)]+)[,\s]+([^,\s)]+)[,\s]+([^,\s)]+)[,\s]+([^,\s)]+)\s*\)$/.exec(value.trim());
  if (m === null) return null;
  const at = (v: string, fallback: number, origin: number) => (v === 'auto' ? fallback : origin + (Number.parseFloat(v) || 0));
  return { left: at(m[4]!, box.left, box.left), top: at(m[1]!, box.top, box.top), right: at(m[2]!, box.right, box.left), bottom: at(m[3]!, box.bottom, box.top) };
}

export function intersect(a: Rect, b: Rect): Rect {
  return { left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom) };
}

/** A window too small to read through (or none at all). */
export function tooSmall(r: Rect): boolean {
  return r.right - r.left < MIN_READABLE_PX || r.bottom - r.top < MIN_READABLE_PX;
}

/**
 * Whether the part of a text's box (`text`) a window leaves (`shown`) lets a person read it: not when it is
 * a few pixels, less than half a line of `fontPx` tall, or two letters wide and a fifth of the text or less
 * (`clip-path: inset(0 99% 0 0)` shows "Fo" of a sentence). A window that shows the start of a line of
 * text (an ellipsis, a narrow column) lets it be read.
 */
export function windowHides(shown: Rect, text: Rect, fontPx: number): boolean {
  if (tooSmall(shown)) return true;
  const w = shown.right - shown.left;
  const h = shown.bottom - shown.top;
  if (Number.isFinite(fontPx) && h < fontPx * 0.5) return true;
  return Number.isFinite(fontPx) && w < fontPx * 2 && w < (text.right - text.left) * 0.2;
}

/**
 * Text of colour `fg` faded to `opacity` (its own and its ancestors', multiplied) over `bg`: hidden when
 * the colour a person sees is too close to the background (found by the second Sanitizer review: black text
 * at `opacity: 0.08` on white, which the 0.05 cut-off let through, is as pale as `#ececec`).
 */
export function fadedHides(fgCss: string, bgCss: string, opacity: number, fontSize: string): HiddenReason | null {
  if (opacity >= 1) return null;
  const fg = parseColour(fgCss);
  const bg = parseColour(bgCss) ?? { r: 255, g: 255, b: 255, a: 1 };
  if (fg === null) return null;
  const k = Math.max(0, Math.min(1, opacity * fg.a));
  const seen = { r: fg.r * k + bg.r * (1 - k), g: fg.g * k + bg.g * (1 - k), b: fg.b * k + bg.b * (1 - k) };
  const ratio = contrast(seen, bg);
  if (ratio < SAME_COLOUR_CONTRAST) return 'transparent';
  if (Number.parseFloat(fontSize) < SMALL_FONT_PX && ratio < FAINT_CONTRAST) return 'faint';
  return null;
}

/**
 * The one colour a `background-image` of gradients paints when every stop is the same opaque colour
 * (`linear-gradient(#000, #000)` under black text), or null (found by the second Sanitizer review: the
 * check read `background-color` only, so black text on a black gradient counted as black on white).
 */
export function solidGradientColour(value: string | undefined): string | null {
  if (value === undefined || value === '' || value === 'none' || /url\(|image\(|element\(|paint\(|cross-fade\(/i.test(value)) return null;
  const stops = [...value.matchAll(/(?:rgba?|color)\([^()]*\)/gi)].map((m) => m[0]);
  const colours = stops.map((s) => parseColour(s));
  if (colours.length === 0 || colours.some((c) => c === null || c.a < 0.95)) return null;
  const first = colours[0]!;
  return colours.every((c) => contrast(c!, first) < SAME_COLOUR_CONTRAST) ? stops[0]! : null;
}

/** Below this an inline element's font is worth the full check (the full check hides below 3 px, or small and faint). */
const SUSPECT_FONT_PX = 6;
/** Text of another colour than its block whose contrast with the block's background is below this is worth the full check. */
const SUSPECT_CONTRAST = 2.6;

/** What the cheap pre-check reads of an inline element and each inline ancestor up to its block. */
export interface InlineStyle {
  display: string;
  position: string;
  overflow: string;
  opacity: string;
  filter: string;
  clipPath: string;
  clip: string;
  transform: string;
  maskImage: string;
  mixBlendMode: string;
  visibility: string;
}

/**
 * Whether text inside an inline element (a span, a link, `<small>`) of an otherwise visible block may be
 * unreadable, read from computed styles alone (no layout): a font under 6 px; a colour of its own that is
 * faint on the block's background; or, on the element or an inline ancestor below the block, a fade, a
 * filter, a clip, a positioned or transformed box, a mask, a blend, an inline box that hides its overflow.
 * Only such text gets the full check (boxes, ancestors), so a page of ordinary links and bold words costs
 * one style read per piece of text.
 */
export function inlineMayHide(
  text: { fontSize: string; color: string; webkitTextFillColor?: string },
  chain: readonly InlineStyle[],
  block: { color: string; background: string },
): boolean {
  if (Number.parseFloat(text.fontSize) < SUSPECT_FONT_PX) return true;
  const fill = text.webkitTextFillColor !== undefined && text.webkitTextFillColor !== '' && text.webkitTextFillColor !== text.color ? text.webkitTextFillColor : text.color;
  if (fill !== block.color) {
    const fg = parseColour(fill);
    const bg = parseColour(block.background) ?? { r: 255, g: 255, b: 255, a: 1 };
    // A colour the rules cannot read (oklch, display-p3) is checked in full: the full check paints it.
    if (fg === null || fg.a < 0.35 || contrast(fg, bg) < SUSPECT_CONTRAST) return true;
  }
  return chain.some(
    (s) =>
      s.opacity !== '1' ||
      (s.filter !== 'none' && s.filter !== '') ||
      (s.clipPath !== 'none' && s.clipPath !== '') ||
      (s.clip !== 'auto' && s.clip !== '') ||
      s.position === 'absolute' ||
      s.position === 'fixed' ||
      (s.transform !== 'none' && s.transform !== '') ||
      (s.maskImage !== 'none' && s.maskImage !== '') ||
      (s.mixBlendMode !== 'normal' && s.mixBlendMode !== '') ||
      s.visibility !== 'visible' ||
      (s.display !== 'inline' && s.display !== 'contents' && s.overflow !== 'visible'),
  );
}

/**
 * The visually-hidden pattern real sites use for screen-reader labels (Bootstrap's `.visually-hidden`,
 * Tailwind's `sr-only`, WordPress's `.screen-reader-text`): an absolutely positioned box of at most 1×1 px
 * that hides its overflow. People who use a screen reader hear it, so it is read as they read it; an
 * instruction in it is still removed (the hidden-instruction and addressed-to-agent rules).
 */
export function visuallyHiddenLabel(style: { position: string; overflow: string }, box: { width: number; height: number }): boolean {
  return (style.position === 'absolute' || style.position === 'fixed') && style.overflow !== 'visible' && box.width <= 1 && box.height <= 1;
}
