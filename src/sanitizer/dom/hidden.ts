import { MARKER, UNREADABLE_MARKER } from '../text';
import { blendColour, clipPathWindow, clipRectWindow, fadedHides, filterColour, hiddenByStyle, inlineMayHide, intersect, MIN_READABLE_PX, ownOpacity, parseColour, solidGradientColour, tooSmall, visuallyHiddenLabel, windowHides, type HiddenReason, type InlineStyle, type Rect, type StyleView } from '../visibility';
import type { Piece } from './pieces';

const SVG_NS = 'http://www.w3.org/2000/svg';
const SVG_UNRENDERED = new Set(['defs', 'symbol', 'mask', 'clipPath', 'pattern', 'marker', 'linearGradient', 'radialGradient', 'filter', 'desc', 'title', 'metadata']);

/**
 * Whether a person can see text the rules flagged (src/sanitizer/dom): its styles, boxes, colours as
 * painted, the windows above it and the frame it is in. It reads the page and changes nothing; the pure
 * decisions on what it reads are src/sanitizer/visibility.ts. Asked only for text the rules flagged, and
 * for the inline text of a block (unreadableInline).
 */
export class Hidden {
  private readonly colours: SrgbColours;
  /**
   * What this batch read of each element, until our next write (`forget`): the ancestors many blocks share
   * (an article, the body, the root) are read once per batch, not once per block or piece of text. A
   * computed style is a live object; the values read from it and the boxes are what a write (ours, or a
   * custom element's reaction to ours) can change, so the Sanitizer forgets them after every write and at
   * the start and end of every batch.
   */
  private readonly reads = new Map<Element, Read>();
  private pageSize: { width: number; height: number } | null = null;

  constructor(private readonly doc: Document) {
    this.colours = new SrgbColours(doc);
  }

  /** The page changed (a write of ours, a new batch): what was read of it is read again when asked. */
  forget(): void {
    this.reads.clear();
    this.pageSize = null;
  }

  private read(el: Element, win: Window): Read {
    let read = this.reads.get(el);
    if (read === undefined) this.reads.set(el, (read = { style: win.getComputedStyle(el) }));
    return read;
  }

  private style(el: Element, win: Window): CSSStyleDeclaration {
    return this.read(el, win).style;
  }

  private view(el: Element, win: Window): StyleView {
    const read = this.read(el, win);
    return (read.view ??= styleView(read.style));
  }

  private box(el: Element, win: Window): Box {
    const read = this.read(el, win);
    return (read.box ??= elementBox(el, win));
  }

  private page(win: Window): { width: number; height: number } {
    return (this.pageSize ??= { width: Math.max(this.doc.documentElement.scrollWidth, win.innerWidth), height: Math.max(this.doc.documentElement.scrollHeight, win.innerHeight) });
  }

  /** Hidden when every text node the span touches is hidden from a person (for one reason or another). */
  hiddenFromPeople(pieces: readonly Piece[], span: { start: number; end: number }): HiddenReason | null {
    let reason: HiddenReason | null = null;
    for (const piece of pieces) {
      if (piece.end <= span.start || piece.start >= span.end) continue;
      // Only the text the span covers: the space before a sentence, in the visible node before it, is no part of it.
      if (piece.node.data.slice(Math.max(span.start, piece.start) - piece.start, Math.min(span.end, piece.end) - piece.start).trim() === '') continue;
      const why = this.hiddenReason(piece.node);
      if (why === null) return null;
      reason = why;
    }
    return reason;
  }

  hiddenReason(node: Text): HiddenReason | null {
    const root = node.getRootNode();
    if (root.nodeType === 11 && !(root instanceof ShadowRoot)) return 'inert-content'; // <template> content
    if (root !== this.doc && root.nodeType !== 11) return 'inert-content'; // detached
    const parent = node.parentElement;
    if (parent === null) return 'inert-content';
    for (let el: Element | null = parent; el !== null; el = el.parentElement ?? ((el.getRootNode() as ShadowRoot).host ?? null)) {
      if (el.getAttribute('aria-hidden') === 'true') return 'aria-hidden';
      if (el.tagName === 'NOSCRIPT') return 'inert-content';
      // SVG that is never drawn by itself: definitions, masks, patterns, a symbol, a description (found by the
      // second Sanitizer review: a `<text>` inside `<defs>` reached the agent).
      if (el.namespaceURI === SVG_NS && SVG_UNRENDERED.has(el.localName)) return 'not-rendered';
    }
    if (!parent.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return 'not-rendered';
    const win = this.doc.defaultView;
    if (win === null) return null;
    // `content-visibility: hidden` skips the element's own contents (its descendants fail checkVisibility,
    // its own text does not), yet the accessibility tree still reports them.
    if (this.style(parent, win).contentVisibility === 'hidden') return 'not-rendered';
    const range = this.doc.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    const page = this.page(win);
    const box = { width: rect.width, height: rect.height, left: rect.left + win.scrollX, top: rect.top + win.scrollY, right: rect.right + win.scrollX, bottom: rect.bottom + win.scrollY };
    const parentStyle = this.style(parent, win);
    const tiny = renderedTiny(range, parentStyle.writingMode, node.data);
    if (tiny !== null) return tiny;
    // What of the text shows through the windows above it (viewport coordinates): an ancestor that hides
    // its overflow, a `clip`, a `clip-path: inset(…)`. A window a few pixels wide or tall shows nothing
    // a person reads (found by the second Sanitizer review: `width: 3px; overflow: hidden`,
    // `clip-path: inset(0 0 95% 0)` and text pushed past an `overflow: hidden` box reached the agent).
    let shown: Rect = { left: rect.left, top: rect.top, right: rect.right, bottom: rect.bottom };
    /** An absolutely (or fixed) positioned box below escapes the overflow of ancestors up to its containing block. */
    let escape: 'none' | 'absolute' | 'fixed' = 'none';
    let opacity = 1;
    let painted: { color: string; background: string } | null = null;
    const fontSize = parentStyle.fontSize;
    const fontPx = Number.parseFloat(fontSize);
    for (let el: Element | null = parent; el !== null; el = el.parentElement) {
      const style = el === parent ? parentStyle : this.style(el, win);
      const own = el === parent ? box : this.box(el, win);
      let view = this.view(el, win);
      let background = 'rgb(255, 255, 255)';
      if (el === parent) {
        painted = this.paintedColours(el, style, win);
        view = { ...view, color: painted.color, webkitTextFillColor: '' };
        background = painted.background;
      }
      const why = hiddenByStyle(view, own, page, background);
      // An ancestor hides its text by clipping it (a clip, or a zero-size box that hides overflow) or by
      // fading it: opacities multiply down the tree (0.1 on a parent and 0.3 on its child are 0.03).
      opacity *= ownOpacity(view);
      if (el === parent ? why !== null : why === 'clipped' || (why === 'zero-size' && style.overflow !== 'visible')) return why;
      // Read only what this element needs: most ancestors neither clip nor are positioned.
      const overflows = view.overflow !== 'visible';
      const clipPath = view.clipPath !== '' && view.clipPath !== 'none';
      const position = style.position;
      const clipRect = position === 'absolute' && view.clip !== 'auto' && view.clip !== '';
      const transformed = escape !== 'none' && style.transform !== 'none' && style.transform !== '';
      if (escape === 'absolute' && (position !== 'static' || transformed)) escape = 'none';
      else if (escape === 'fixed' && transformed) escape = 'none';
      if ((overflows && escape === 'none') || clipPath || clipRect) {
        const frame = el === parent ? this.box(el, win) : own;
        // The text's own element clips it to a box of no height or width (`max-height: 0; overflow: hidden`):
        // the text's range keeps its size, the element shows none of it.
        if (el === parent && overflows && (frame.width <= 1 || frame.height <= 1)) return 'zero-size';
        const frameRect = { left: frame.left - win.scrollX, top: frame.top - win.scrollY, right: frame.right - win.scrollX, bottom: frame.bottom - win.scrollY };
        if (overflows && escape === 'none') {
          // hidden and clip cut at the box; a scroll box only when it is itself too small to read through.
          const cuts = (v: string) => v === 'hidden' || v === 'clip' || ((v === 'auto' || v === 'scroll') && tooSmall(frameRect));
          if (cuts(style.overflowX)) shown = { ...shown, left: Math.max(shown.left, frameRect.left), right: Math.min(shown.right, frameRect.right) };
          if (cuts(style.overflowY)) shown = { ...shown, top: Math.max(shown.top, frameRect.top), bottom: Math.min(shown.bottom, frameRect.bottom) };
        }
        // clip-path and clip cut the element and everything it holds, positioned or not.
        if (clipPath) {
          const cut = clipPathWindow(view.clipPath, frameRect);
          if (cut !== null) shown = intersect(shown, cut);
        }
        if (clipRect) {
          const cut = clipRectWindow(view.clip, frameRect);
          if (cut !== null) shown = intersect(shown, cut);
        }
        if (windowHides(shown, rect, fontPx)) return 'clipped';
      }
      if (position === 'absolute') escape = 'absolute';
      else if (position === 'fixed') escape = 'fixed';
      if (opacity <= 0.05) return 'transparent';
    }
    // Faded, not gone: the colour a person sees, the text's colour at the opacity of it and its ancestors.
    if (painted !== null) {
      const faded = fadedHides(painted.color, painted.background, opacity, fontSize);
      if (faded !== null) return faded;
    }
    const inFrame = this.frameHides(win);
    if (inFrame !== null) return inFrame;
    return this.firstLineHides(node, parent, range, win, page);
  }

  /**
   * A frame a person cannot see into: a viewport a few pixels wide or tall (`<iframe width=1 height=1>`),
   * or — for a frame of the same origin, whose element this script can read — a frame element that is not
   * rendered or faded out (found by the second Sanitizer review: text in a 1×1 iframe reached the agent).
   * A frame of another origin hidden by its element's style in the parent is not seen from inside.
   */
  private frameHides(win: Window): HiddenReason | null {
    if (win === win.top) return null;
    if (win.innerWidth < MIN_READABLE_PX || win.innerHeight < MIN_READABLE_PX) return 'clipped';
    let opacity = 1;
    let frame: Element | null;
    try {
      frame = win.frameElement;
    } catch {
      frame = null;
    }
    for (let depth = 0; frame !== null && depth < 8; depth++) {
      const outer = frame.ownerDocument.defaultView;
      if (outer === null) break;
      if (!frame.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return 'not-rendered';
      for (let el: Element | null = frame; el !== null; el = el.parentElement) opacity *= ownOpacity(this.view(el, outer));
      if (opacity <= 0.05) return 'transparent';
      const r = frame.getBoundingClientRect();
      if (r.width < MIN_READABLE_PX || r.height < MIN_READABLE_PX) return 'clipped';
      try {
        frame = outer.frameElement;
      } catch {
        frame = null;
      }
    }
    return null;
  }

  /**
   * Text on the first line of a block whose `::first-line` hides it (`font-size: 0`, the background's
   * colour): found by the data-lane review, an imperative on the first line reached the agent while people
   * saw only the lines after it. The block is the nearest ancestor that lays out lines; the text counts as
   * on its first line when every box of it sits at the top of the block's first box.
   */
  private firstLineHides(node: Text, parent: Element, range: Range, win: Window, page: { width: number; height: number }): HiddenReason | null {
    let block: Element | null = parent;
    while (block !== null && /^inline/.test(this.style(block, win).display)) block = block.parentElement;
    if (block === null) return null;
    // The block's `::first-line` verdict is the same for every text node in it: read once per batch.
    const read = this.read(block, win);
    if (read.firstLine === undefined) {
      const line = win.getComputedStyle(block, '::first-line');
      // `-webkit-text-fill-color` follows `color` unless set: the pseudo-element's reads as the block's own then.
      const fill = line.webkitTextFillColor !== read.style.webkitTextFillColor ? this.colours.srgb(line.webkitTextFillColor) : '';
      const view = { ...styleView(line), color: this.colours.srgb(line.color), webkitTextFillColor: fill };
      read.firstLine = hiddenByStyle(view, { width: 2, height: 2, left: 0, top: 0, right: 2, bottom: 2 }, page, this.backgroundOf(block, win));
    }
    const why = read.firstLine;
    if (why === null) return null;
    const all = this.doc.createRange();
    all.selectNodeContents(block);
    const first = Array.from(all.getClientRects()).find((r) => r.width > 0 || r.height > 0);
    const own = Array.from(range.getClientRects()).filter((r) => r.width > 0 || r.height > 0);
    if (first === undefined || own.length === 0) return null;
    return own.every((r) => Math.abs(r.top - first.top) <= 1) ? why : null;
  }

  /** The colour text is drawn on: the nearest background up the tree that is not transparent, in sRGB. */
  backgroundOf(el: Element, win: Window): string {
    return this.backgroundElementOf(el, win).colour;
  }

  private backgroundElementOf(el: Element, win: Window): Background {
    // Each element up the walk gets the answer too: the blocks of one article share their ancestors'.
    const walked: Read[] = [];
    let found: Background = { colour: 'rgb(255, 255, 255)', element: null };
    for (let e: Element | null = el; e !== null; e = e.parentElement) {
      const read = this.read(e, win);
      if (read.background !== undefined) {
        found = read.background;
        break;
      }
      walked.push(read);
      const style = read.style;
      const bg = this.colours.srgb(style.backgroundColor);
      const parsed = parseColour(bg);
      if (bg !== '' && bg !== 'transparent' && (parsed === null || parsed.a > 0)) {
        found = { colour: bg, element: e };
        break;
      }
      // A gradient of one colour paints like a background colour (`linear-gradient(#000, #000)`).
      const image = style.backgroundImage;
      if (image !== undefined && image !== 'none' && image !== '') {
        const solid = solidGradientColour(image);
        if (solid !== null) {
          found = { colour: this.colours.srgb(solid), element: e };
          break;
        }
      }
    }
    for (const read of walked) read.background = found;
    return found;
  }

  /**
   * The colours a person sees the text of `el` in and on, as painted (found by the data-lane review: each
   * hid an imperative the rules flagged): SVG text is painted with `fill` (white, `none`, `fill-opacity: 0`),
   * not `color`; `filter` brightness, contrast, invert and grayscale change the text's colour (every filter
   * up the tree) and the background's (the filters of the element that paints it and above); a
   * `mix-blend-mode` below the background blends the text into it (black text in `screen` on white is white).
   */
  private paintedColours(el: Element, style: CSSStyleDeclaration, win: Window): { color: string; background: string } {
    const wtfc = style.webkitTextFillColor;
    let fgCss = this.colours.srgb(wtfc !== undefined && wtfc !== '' ? wtfc : style.color);
    if (el.namespaceURI === 'http://www.w3.org/2000/svg') {
      const paint = style.fill === 'none' ? style.stroke : style.fill;
      const opacity = Number.parseFloat(style.fill === 'none' ? style.strokeOpacity : style.fillOpacity);
      if (paint === 'none') fgCss = 'rgba(0, 0, 0, 0)';
      else if (paint !== undefined && paint !== '' && !paint.includes('url(')) {
        const c = parseColour(this.colours.srgb(paint));
        if (c !== null) fgCss = `rgba(${c.r}, ${c.g}, ${c.b}, ${c.a * (Number.isNaN(opacity) ? 1 : opacity)})`;
      }
    }
    const { colour: bgCss, element: bgElement } = this.backgroundElementOf(el, win);
    let fg = parseColour(fgCss);
    let bg = parseColour(bgCss) ?? { r: 255, g: 255, b: 255, a: 1 };
    if (fg === null) return { color: fgCss, background: bgCss };
    let blend: string | undefined;
    let belowBackground = true;
    for (let e: Element | null = el; e !== null; e = e.parentElement) {
      const s = e === el ? style : this.style(e, win);
      if (e === bgElement) belowBackground = false;
      if (s.filter !== undefined && s.filter !== 'none' && s.filter !== '') {
        fg = filterColour(fg, s.filter);
        // A filter on the root element paints the page's canvas too (a dark mode by `html { filter: invert(1) }`).
        if (!belowBackground || (bgElement === null && e === this.doc.documentElement)) bg = filterColour(bg, s.filter);
      }
      if (belowBackground && blend === undefined && s.mixBlendMode !== undefined && s.mixBlendMode !== '' && s.mixBlendMode !== 'normal') blend = s.mixBlendMode;
    }
    if (blend !== undefined) fg = blendColour(blend, fg, bg);
    const css = (c: { r: number; g: number; b: number; a: number }) => `rgba(${Math.round(c.r)}, ${Math.round(c.g)}, ${Math.round(c.b)}, ${c.a})`;
    return { color: css(fg), background: css(bg) };
  }

  /** Whether a control's own text is hidden from people (its box, style, colour on its background, an ancestor's clip or fade). */
  controlHidden(element: Element): boolean {
    const win = this.doc.defaultView;
    if (win === null) return false;
    for (let el: Element | null = element; el !== null; el = el.parentElement) if (el.getAttribute('aria-hidden') === 'true') return true;
    if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return true;
    const page = this.page(win);
    let opacity = 1;
    for (let el: Element | null = element; el !== null; el = el.parentElement) {
      const style = this.style(el, win);
      const view = el === element ? { ...this.view(el, win), color: this.colours.srgb(style.color), webkitTextFillColor: this.colours.srgb(style.webkitTextFillColor) } : this.view(el, win);
      const background = el === element ? this.backgroundOf(el, win) : 'rgb(255, 255, 255)';
      const why = hiddenByStyle(view, this.box(el, win), page, background);
      opacity *= ownOpacity(view);
      if (el === element ? why !== null : why === 'clipped' || (why === 'zero-size' && style.overflow !== 'visible')) return true;
      if (opacity <= 0.05) return true;
    }
    return false;
  }

  /** A pseudo-element's text is hidden when its element is, or its own style hides it (size, colour, fade). */
  pseudoHidden(el: Element, style: CSSStyleDeclaration, win: Window): boolean {
    if (this.controlHidden(el)) return true;
    const view = { ...styleView(style), color: this.colours.srgb(style.color), webkitTextFillColor: this.colours.srgb(style.webkitTextFillColor) };
    const box = this.box(el, win);
    const page = this.page(win);
    const why = hiddenByStyle(view, { ...box, width: Math.max(box.width, 2), height: Math.max(box.height, 2) }, page, this.backgroundOf(el, win));
    return why !== null;
  }

  /**
   * Text a person cannot read inside a block they can (issue 41: a one-pixel white span inside ordinary
   * text reached the agent): whatever it says, text in an inline element — at any nesting, inline or
   * inline-block — that is too small, faint, faded or clipped to read, in a block whose other text is
   * readable, becomes the marker. A block hidden as a whole is the rules' concern (closed widgets keep
   * their text). The visually-hidden screen-reader pattern stays (see `visuallyHiddenLabel`). Cost: one
   * computed-style read per piece of text in an inline element and per inline ancestor up to the block;
   * boxes only for text that read says may hide, and every read before the first write (the caller cuts
   * what this returns).
   */
  unreadableInline(block: Element, pieces: readonly Piece[]): Piece[] {
    const win = this.doc.defaultView;
    if (win === null || pieces.length < 2) return [];
    let blockColours: { color: string; background: string } | null = null;
    const suspects: Piece[] = [];
    for (const piece of pieces) {
      const parent = piece.node.parentElement;
      const data = piece.node.data.trim();
      if (parent === null || parent === block || data === '' || data === MARKER || data === UNREADABLE_MARKER) continue;
      const style = this.style(parent, win);
      const chain: InlineStyle[] = [];
      for (let el: Element | null = parent; el !== null && el !== block; el = el.parentElement) {
        const read = this.read(el, win);
        chain.push((read.inline ??= inlineStyleOf(read.style)));
      }
      if (blockColours === null) {
        const blockStyle = this.style(block, win);
        blockColours = { color: blockStyle.color, background: this.backgroundOf(block, win) };
      }
      if (inlineMayHide({ fontSize: style.fontSize, color: style.color, webkitTextFillColor: style.webkitTextFillColor }, chain, blockColours)) suspects.push(piece);
    }
    if (suspects.length === 0) return [];
    const hidden = suspects.filter((p) => this.hiddenReason(p.node) !== null && !this.screenReaderLabel(p.node.parentElement!, block, win));
    if (hidden.length === 0) return [];
    // Otherwise visible: some other text of the block is readable.
    const others = pieces.filter((p) => !hidden.includes(p) && p.node.data.trim() !== '');
    if (!others.some((p) => this.hiddenReason(p.node) === null)) return [];
    return hidden;
  }

  /** The text's element or an inline ancestor below the block is the visually-hidden screen-reader pattern. */
  private screenReaderLabel(el: Element, block: Element, win: Window): boolean {
    for (let e: Element | null = el; e !== null && e !== block; e = e.parentElement) {
      const style = this.style(e, win);
      if (style.position !== 'absolute' && style.position !== 'fixed') continue;
      const r = e.getBoundingClientRect();
      return visuallyHiddenLabel(style, r);
    }
    return false;
  }
}

/**
 * Text drawn too small to read, however it got so (found by the second Sanitizer review: `transform:
 * scale(0.1)`, on it or an ancestor, and a 3 px font reached the agent): every line box of it is under
 * MIN_READABLE_PX tall (wide, in a vertical writing mode), or its letters advance under 1.5 px each on
 * average (squeezed together). Measured on the rendered boxes, so transforms and `zoom` count.
 */
function renderedTiny(range: Range, writingMode: string, text: string): HiddenReason | null {
  const lines = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
  if (lines.length === 0) return null;
  const vertical = writingMode !== undefined && writingMode.startsWith('vertical');
  const across = (r: DOMRect) => (vertical ? r.width : r.height);
  const along = (r: DOMRect) => (vertical ? r.height : r.width);
  if (lines.every((r) => across(r) < MIN_READABLE_PX)) return 'tiny-font';
  const letters = text.replace(/\s+/g, '').length;
  if (letters >= 8 && lines.reduce((n, r) => n + along(r), 0) / letters < 1.5) return 'tiny-font';
  return null;
}

type Box = { width: number; height: number; left: number; top: number; right: number; bottom: number };
type Background = { colour: string; element: Element | null };
/** One element as a batch read it (Hidden.reads). */
interface Read {
  style: CSSStyleDeclaration;
  view?: StyleView;
  inline?: InlineStyle;
  box?: Box;
  /** The colour its text is drawn on, and the element that paints it. */
  background?: Background;
  /** What its `::first-line` style hides (null: nothing). */
  firstLine?: HiddenReason | null;
}

function elementBox(el: Element, win: Window): Box {
  const r = el.getBoundingClientRect();
  return { width: r.width, height: r.height, left: r.left + win.scrollX, top: r.top + win.scrollY, right: r.right + win.scrollX, bottom: r.bottom + win.scrollY };
}

/** The computed style the inline pre-check reads (`?? ''`: unset in a test DOM). */
function inlineStyleOf(style: CSSStyleDeclaration): InlineStyle {
  return { display: style.display, position: style.position, overflow: style.overflow, opacity: style.opacity, filter: style.filter ?? '', clipPath: style.clipPath ?? '', clip: style.clip ?? '', transform: style.transform ?? '', maskImage: style.maskImage ?? '', mixBlendMode: style.mixBlendMode ?? '', visibility: style.visibility };
}

/** The computed style the visibility rules read. */
export function styleView(style: CSSStyleDeclaration): StyleView {
  // `?? ''`: a property the engine does not compute (a test DOM) reads as unset.
  return { display: style.display, visibility: style.visibility, opacity: style.opacity, fontSize: style.fontSize, color: style.color, clip: style.clip ?? '', clipPath: style.clipPath ?? '', overflow: style.overflow, textIndent: style.textIndent, filter: style.filter ?? '', maskImage: style.maskImage ?? '' };
}

/**
 * Colours in sRGB: a computed colour keeps its own space (`oklch(1 0 0)`, `color(display-p3 1 1 1)`),
 * which the contrast rules cannot read; a 1×1 canvas (never inserted in the page) paints it and reads
 * the pixel back.
 */
class SrgbColours {
  private context: CanvasRenderingContext2D | null | undefined;
  constructor(private readonly doc: Document) {}

  srgb(css: string | undefined): string {
    if (css === undefined || css === '' || parseColour(css) !== null) return css ?? '';
    this.context ??= this.doc.createElement('canvas').getContext('2d', { willReadFrequently: true });
    if (this.context === null) return css;
    this.context.clearRect(0, 0, 1, 1);
    this.context.fillStyle = 'rgba(0, 0, 0, 0)';
    this.context.fillStyle = css;
    this.context.fillRect(0, 0, 1, 1);
    const [r = 0, g = 0, b = 0, a = 0] = this.context.getImageData(0, 0, 1, 1).data;
    return `rgba(${r}, ${g}, ${b}, ${a / 255})`;
  }
}
