import { applySpans, classify, findInstructions, isSuspicious, MARKER, maskMarkers, PLACEHOLDER, sentences, stripInvisible, UNREADABLE_MARKER, type SanitizerRule, type Span } from './text';
import { blendColour, clipPathWindow, clipRectWindow, fadedHides, filterColour, hiddenByStyle, inlineMayHide, intersect, MIN_READABLE_PX, ownOpacity, parseColour, solidGradientColour, tooSmall, visuallyHiddenLabel, windowHides, type HiddenReason, type InlineStyle, type Rect, type StyleView } from './visibility';
import { GENERATED_MARK, GENERATED_PSEUDOS as PSEUDOS, GENERATED_RULES } from './generated-style';

/**
 * The Sanitizer in a document (ISOLATED world). It rewrites the real DOM, which both worlds share, so what
 * the agent reads through `innerText`, `page.content()` or the accessibility tree is already clean:
 * invisible characters go from every text node, attribute and comment; instruction-carrying comments go;
 * `alt`/`title`/`aria-label` instructions become the marker; text addressed to the agent becomes the
 * marker wherever it is; imperative text with a target becomes the marker where a person cannot see it.
 *
 * It works on blocks: the nearest non-inline ancestor of a text node and the text nodes it holds, so an
 * instruction split over `<b>`/`<span>` is read whole and removed precisely. One MutationObserver
 * watches the document, every shadow root it finds (closed ones through `chrome.dom`) and every
 * `<template>`'s content; records are processed in the observer's callback, before any task (an agent's
 * `page.evaluate`) can run. Styles and boxes are computed only for text the rules flagged as imperative.
 */

export type Mode = 'off' | 'hidden' | 'model';

export interface Removal {
  rule: SanitizerRule;
  chars: number;
}

export interface SanitizerEnv {
  /** Closed shadow roots too, where the browser offers it (`chrome.dom.openOrClosedShadowRoot`). */
  shadowRootOf(element: Element): ShadowRoot | null;
  /** Removals of one observer batch (never the text). */
  report(removals: Removal[]): void;
  /** Model mode: the removals a model proposes for a suspicious block (exact substrings), or null on any failure. */
  review?(text: string): Promise<string[] | null>;
  /**
   * The frame's stylesheets may generate text: the background inserts the user-origin sheet that puts the
   * marker in flagged generated content (src/sanitizer/generated-style.ts). Called once per document.
   */
  protectGenerated?(): void;
}

/** Inline elements: their text belongs to the enclosing block. */
const INLINE = new Set([
  'A', 'ABBR', 'B', 'BDI', 'BDO', 'CITE', 'CODE', 'DATA', 'DFN', 'EM', 'FONT', 'I', 'KBD', 'MARK', 'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TIME', 'U', 'VAR', 'WBR', 'BR', 'LABEL', 'BIG', 'TT', 'STRIKE', 'DEL', 'INS',
  // A shadow tree's <slot> shows the host's children in its place: its block reads them (piecesOf).
  'SLOT',
]);
/** Never text for a reader: code and styles, and form values (the user's data). */
const SKIP = new Set(['SCRIPT', 'STYLE', 'TEXTAREA']);
/** Rounds of records made during one batch read before the rest is left to the observer's next delivery. */
const SETTLE_ROUNDS = 3;

/** Attributes people or the accessibility tree read as text (`label`: an `<option>`'s or `<optgroup>`'s shown text). */
const ATTRIBUTES = ['alt', 'title', 'aria-label', 'aria-description', 'aria-roledescription', 'placeholder', 'aria-placeholder', 'aria-valuetext', 'label'] as const;
const VISIBILITY_ATTRIBUTES = ['style', 'class', 'hidden', 'aria-hidden', 'open'];
/**
 * Inputs whose `value` attribute people and the accessibility tree read: a button's label, a text field's
 * preset text. Hidden inputs (a CSRF token), passwords and choices are the page's data, never read.
 */
const SHOWN_VALUE_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'submit', 'button', 'reset']);
/** Short labels of controls (menu items, buttons, tabs) are never removed for looking imperative. */
const CONTROL_SELECTOR = 'a,button,summary,option,label,[role=menuitem],[role=tab],[role=button],[role=link],[role=option],[role=menuitemradio],[role=menuitemcheckbox]';
const CONTROL_LABEL_MAX_WORDS = 6;
/** Elements whose insertion changes the page's styles. */
const STYLE_TAGS = new Set(['STYLE', 'LINK']);
const OPENABLE_ROLES = new Set(['dialog', 'alertdialog', 'tabpanel', 'menu', 'menubar', 'listbox', 'tooltip', 'tree', 'region']);
/**
 * The built-in elements that can host a shadow root (DOM standard, "valid shadow host name"; declarative
 * shadow roots too); any other can only if it is a custom element (a name with a hyphen). Every other
 * element is never asked for one: `chrome.dom.openOrClosedShadowRoot` is a native call per element.
 */
const SHADOW_HOSTS = ['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span'];
const SHADOW_HOST_TAGS = new Set(SHADOW_HOSTS.map((t) => t.toUpperCase()));
const MODEL_TIMEOUT_MS = 10_000;
/** A `content` value this short carries no instruction (icons, quotes, counters, clearfix `""`). */
const MIN_GENERATED_CHARS = 12;
const CONTENT_TOKEN = /"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)/g;

const SVG_NS = 'http://www.w3.org/2000/svg';
const SVG_UNRENDERED = new Set(['defs', 'symbol', 'mask', 'clipPath', 'pattern', 'marker', 'linearGradient', 'radialGradient', 'filter', 'desc', 'title', 'metadata']);

interface Piece {
  node: Text;
  start: number;
  end: number;
}

/** Elements that show no text of their own: stepped over when reading a run of blocks. */
const NO_TEXT_TAGS = new Set(['STYLE', 'SCRIPT', 'LINK', 'TEMPLATE']);
/** Blocks an instruction can be split across: list items, cells, paragraphs, plain boxes. */
const SPLIT_TAGS = new Set(['LI', 'TD', 'TH', 'P', 'DIV', 'DT', 'DD', 'SPAN', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'SECTION']);
/** Words or targets without which a run of blocks is no instruction (a cheap test before the rules read it). */
const SPLIT_WORTH_READING = /@|:\/\/|assistant|agent|\bai\b|a\.i\.|llm|language model|gpt|claude|gemini|copilot|\bbots?\b|crawler|ignore|disregard|override|bypass|instruction|prompt|directive|the user|you are now|you (?:must|will) now|you have been|\.(?:pdf|docx?|xlsx?|csv|zip|json)\b|[€$£]\s?\d|\b[A-Z]{2}\d{2}[A-Z0-9 ]{11,}|password|passcode|sign-?in code|api[\s_-]?key|token|credential/i;

/** Selectors whose match can change with no mutation of the element itself: combinators, `:has()`, attributes, states. */
const RELATIONAL_SELECTOR = /[+~]|:has\(|\[|:(?:checked|hover|focus|focus-within|focus-visible|active|target|open|popover-open|valid|invalid|user-valid|user-invalid|placeholder-shown|indeterminate|default|modal|playing|paused)\b/i;
const STATE_SELECTOR = /:(?:checked|hover|focus|focus-within|focus-visible|active|target|open|popover-open|valid|invalid|user-valid|user-invalid|placeholder-shown|indeterminate|default|modal|playing|paused)\b/i;

/** A rule's selector for the element that carries the pseudo-element (`.on + p::before` → `.on + p`). */
function elementSelector(selector: string): string {
  return selector
    .split(',')
    .map((part) => {
      const s = part.replace(/::?(?:before|after)\b/gi, '').trim();
      return s === '' || /[>+~]$/.test(s) ? `${s} *`.trim() : s;
    })
    .join(', ');
}

/** The text a `content` value draws: its strings, and the attributes `attr()` reads from `el` (none without one). */
function generatedText(content: string, el: Element | null): string {
  let text = '';
  for (const m of content.matchAll(CONTENT_TOKEN)) text += m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (el?.getAttribute(m[2] ?? '') ?? '');
  return text;
}

function splittable(el: Element): boolean {
  return SPLIT_TAGS.has(el.tagName);
}

function endsSentence(text: string): boolean {
  return /[.!?]["')\]]*\s*$/.test(text);
}

function isElement(node: Node): node is Element {
  return node.nodeType === 1;
}

/** The block a text node belongs to: its nearest non-inline ancestor (a shadow root or fragment when none). */
function blockOf(node: Node): Element | DocumentFragment | null {
  let parent: Node | null = node.parentNode;
  while (parent !== null && isElement(parent) && INLINE.has(parent.tagName)) parent = parent.parentNode;
  if (parent === null) return null;
  return isElement(parent) || parent.nodeType === 11 ? (parent as Element | DocumentFragment) : null;
}

function skipped(node: Node): boolean {
  for (let p = node.parentNode; p !== null && isElement(p); p = p.parentNode) if (SKIP.has(p.tagName)) return true;
  return false;
}

/** What a batch read of each block (piecesOf), so reading runs of sibling blocks reads none twice. */
type BlockTexts = Map<Element | DocumentFragment, { text: string; pieces: Piece[] }>;

/** The block's own text nodes, in order: its text and that of its inline descendants. */
function piecesOf(block: Element | DocumentFragment): { text: string; pieces: Piece[] } {
  const pieces: Piece[] = [];
  let text = '';
  const visit = (parent: Node) => {
    for (let child = parent.firstChild; child !== null; child = child.nextSibling) {
      if (child.nodeType === 3) {
        const data = (child as Text).data;
        pieces.push({ node: child as Text, start: text.length, end: text.length + data.length });
        text += data;
      } else if (isElement(child) && child.tagName === 'SLOT') {
        // What the slot shows: the host's children assigned to it (light DOM text read with the shadow
        // text around it, as the accessibility tree and innerText read it), else its fallback content.
        const assigned = (child as HTMLSlotElement).assignedNodes?.({ flatten: true }) ?? [];
        if (assigned.length === 0) visit(child);
        for (const node of assigned) {
          if (node.nodeType === 3) {
            const data = (node as Text).data;
            pieces.push({ node: node as Text, start: text.length, end: text.length + data.length });
            text += data;
          } else if (isElement(node) && INLINE.has(node.tagName) && !SKIP.has(node.tagName)) visit(node);
        }
      } else if (isElement(child) && child.tagName === 'BR') {
        // A line break ends a line of text as a person reads it (no piece: nothing to cut).
        text += '\n';
      } else if (isElement(child) && INLINE.has(child.tagName) && !SKIP.has(child.tagName)) visit(child);
    }
  };
  visit(block);
  return { text, pieces };
}

/** Every text node under `el` (not in code or form values), in order: what an accessible name reads. */
function textOfSubtree(el: Element): { text: string; pieces: Piece[] } {
  const pieces: Piece[] = [];
  let text = '';
  const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent !== null && parent !== el && SKIP.has(parent.tagName)) continue;
    const data = (node as Text).data;
    pieces.push({ node: node as Text, start: text.length, end: text.length + data.length });
    text += data;
  }
  return { text, pieces };
}

/** Cuts [start, end) out of the pieces' text nodes and puts `marker` where the cut begins. */
function cut(pieces: readonly Piece[], span: { start: number; end: number }, marker: string): void {
  let placed = false;
  for (const piece of pieces) {
    if (piece.end <= span.start || piece.start >= span.end) continue;
    const from = Math.max(span.start, piece.start) - piece.start;
    const to = Math.min(span.end, piece.end) - piece.start;
    const data = piece.node.data;
    piece.node.data = data.slice(0, from) + (placed ? '' : marker) + data.slice(to);
    placed = true;
  }
}

export class Sanitizer {
  private mode: Mode | null = null;
  private readonly observer: MutationObserver;
  private readonly observed = new WeakSet<Node>();
  /** Blocks with visible imperative text: hidden later by a class or style change, they are checked again. */
  private readonly visibleCandidates = new Set<Element>();
  /** Inputs whose shown value is imperative and visible: checked again like the blocks above. */
  private readonly valueCandidates = new Set<Element>();
  /** Custom elements that had no shadow root yet (upgraded later). */
  private readonly pendingHosts = new Set<Element>();
  private readonly awaitingReview = new WeakSet<Element | DocumentFragment>();
  private readonly reviewed = new Map<string, string[] | null>();
  private removals: Removal[] = [];
  private readonly colours: SrgbColours;
  /** Our own rules that replace flagged generated content with the marker (adopted once needed). */
  private generatedSheet: CSSStyleSheet | null = null;
  /** Whether the stylesheets may generate text, as last read (null: read again, they changed). */
  private stylesheetsRead: boolean | null = null;
  /** The user-origin sheet was asked for (src/sanitizer/generated-style.ts). */
  private userSheetAsked = false;
  /** The pseudo-elements this Sanitizer marked on each element: a page that removes the mark gets it back. */
  private readonly generatedMarks = new WeakMap<Element, Set<string>>();
  /** The shadow roots being watched (their own stylesheets and elements are read for generated content). */
  private readonly shadowRoots = new Set<ShadowRoot>();
  /** Each watched shadow root by its host (reading a run of blocks across a shadow boundary asks no native call). */
  private readonly hostRoots = new WeakMap<Element, ShadowRoot>();
  /** Elements named by several others (`aria-labelledby="a b"`) seen in this batch: their joined name is read. */
  private readonly labelled = new Set<Element>();
  /**
   * Attributes the stylesheets read with `attr()` in generated content, or test in the selector of a rule
   * that generates text, or — while visible imperative text waits to be rechecked — in any selector
   * (`[data-hide=y] p { color: #fff }` hides it with no record on the text or its class; found by the second
   * Sanitizer review): changes to them are watched.
   */
  private readonly contentAttributes = new Set<string>();
  /**
   * Selectors (pseudo-elements taken off) of the rules that generate text and reach beyond the element
   * that changed: a sibling combinator, `:has()`, an attribute or a state (`:checked`, `:hover` …). When an
   * element is restyled (or, for states, the page is used), the elements they match are read again at
   * once (found by the second Sanitizer review: `.on + p::before`, `body:has(.on) p::before` and
   * `[data-mode=x] p::before`, switched on after load, reached the aria snapshot until the next full pass).
   */
  private relational: string[] = [];

  /** Whether a generating rule depends on a state no mutation record reports (the listeners are added once). */
  private stateListening = false;
  /** Keyframes whose `content` is an instruction: an element animated with one is marked (`@keyframes k { to { content: "…" } }`). */
  private readonly instructionKeyframes = new Set<string>();

  constructor(
    private readonly doc: Document,
    private readonly env: SanitizerEnv,
  ) {
    this.observer = new MutationObserver((records) => this.onRecords(records));
    this.colours = new SrgbColours(doc);
  }

  /** Start watching at document_start; nothing is touched until the mode is known. */
  watch(): void {
    this.observe(this.doc);
    // Once parsed and once loaded, what can have changed without a mutation record: stylesheets that
    // arrived since may hide text the rules flagged as imperative (only those blocks depend on styles:
    // every other finding is removed wherever it is), and page script may have attached shadow roots,
    // whose contents no observer of the document sees.
    const refresh = () => {
      if (this.mode !== null && this.mode !== 'off') this.batch(() => this.refresh());
    };
    this.doc.addEventListener('DOMContentLoaded', refresh);
    this.doc.defaultView?.addEventListener('load', refresh);
    // Styles that change later without a mutation record on the text: a stylesheet link that finished
    // loading, an animation or transition that ended (a delayed fade to opacity 0). Capture: these events
    // do not bubble.
    const restyled = (event: Event) => {
      if (event.type === 'load' && (event.target as Element | null)?.tagName !== 'LINK') return;
      if (this.mode !== null && this.mode !== 'off')
        this.batch(() => {
          this.recheckCandidates(this.doc);
          if (event.type === 'load') {
            this.stylesheetsRead = null;
            this.generatedContent(() => this.allElements());
          }
        });
    };
    // An animation that starts or repeats later (`animation: fade 1s 2s infinite`, which never ends) too.
    for (const type of ['load', 'animationstart', 'animationiteration', 'animationend', 'transitionend']) this.doc.addEventListener(type, restyled, true);
  }

  /** The mode from the background: the whole document so far is processed now, then every mutation. */
  configure(mode: Mode): void {
    this.mode = mode;
    if (mode === 'off') {
      this.observer.disconnect();
      return;
    }
    this.batch(() => this.scan(this.doc));
  }

  /**
   * A shadow root was just attached to `host` (announced by the MAIN hook on `attachShadow`): no mutation
   * record reports it, so it is watched and read from now on.
   */
  shadowAttached(host: Element): void {
    if (this.mode !== null && this.mode !== 'off') this.batch(() => this.host(host));
  }

  private stylesQueued = false;

  /**
   * Rules changed through the CSSOM (announced by the MAIN hooks: `insertRule`, `replaceSync`, an
   * `adoptedStyleSheets` assignment), which make no mutation record (found by the second Sanitizer review:
   * generated text a rule added, and visible imperative text a rule turned white, reached the agent). Read
   * once per task, in a microtask (a sheet filled and then adopted is read adopted): visible imperative text
   * is checked again and, once parsed, generated content read.
   */
  stylesChanged(): void {
    if (this.stylesQueued || this.mode === null || this.mode === 'off') return;
    this.stylesQueued = true;
    queueMicrotask(() => {
      this.stylesQueued = false;
      if (this.mode === null || this.mode === 'off') return;
      this.batch(() => {
        this.recheckCandidates(this.doc);
        if (this.doc.readyState === 'loading') return;
        this.stylesheetsRead = null;
        this.generatedContent(() => this.allElements());
      });
    });
  }

  /** Stops watching (the content script's context ended; tests). */
  stop(): void {
    this.mode = 'off';
    this.observer.disconnect();
  }

  private observe(root: Node): void {
    if (this.observed.has(root)) return;
    this.observed.add(root);
    this.observer.observe(root, this.observerOptions());
  }

  private observerOptions(): MutationObserverInit {
    return { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: [...ATTRIBUTES, ...VISIBILITY_ATTRIBUTES, 'value', 'id', 'aria-labelledby', GENERATED_MARK, ...this.contentAttributes] };
  }

  private onRecords(records: MutationRecord[]): void {
    if (this.mode === null || this.mode === 'off') return;
    this.batch(() => this.process(records));
  }

  private process(records: readonly MutationRecord[]): void {
    const blocks = new Set<Element | DocumentFragment>();
    const visited = new Set<Node>();
    /** Elements whose class, style, id or an attribute `attr()` reads changed: their generated content is read again. */
    const restyled = new Map<Element, string>();
    let stylesChanged = false;
    for (const record of records) {
      if (record.type === 'childList') {
        // The parser reports an element and then each of its descendants, all before this runs: once a
        // node's subtree was read in this batch, the records of insertions into it need no look at their
        // nodes (a node since moved elsewhere is reported again where it went; one since removed is not
        // in the document, and is read when it is inserted again). Reading addedNodes makes a NodeList each.
        if (visited.has(record.target)) continue;
        const added = record.addedNodes;
        for (let i = 0; i < added.length; i++) {
          const node = added[i]!;
          if (node.nodeType === 1 && STYLE_TAGS.has((node as Element).tagName)) stylesChanged = true;
          this.scanNode(node, blocks, visited);
        }
        if ((record.target as Element).tagName === 'STYLE') stylesChanged = true;
        if ((record.target as Element).tagName === 'TEXTAREA') this.inputValue(record.target as Element);
      } else if (record.type === 'characterData') {
        if (record.target.parentElement?.tagName === 'STYLE') stylesChanged = true;
        if (record.target.parentElement?.tagName === 'TEXTAREA') this.inputValue(record.target.parentElement);
        this.scanNode(record.target, blocks, visited);
      } else if (record.type === 'attributes' && isElement(record.target)) {
        const name = record.attributeName ?? '';
        if (name === GENERATED_MARK) this.restoreMarks(record.target);
        else if (name === 'aria-labelledby') this.labelled.add(record.target);
        else {
          if ((ATTRIBUTES as readonly string[]).includes(name)) this.attribute(record.target, name);
          else if (name === 'value') this.inputValue(record.target);
          else this.recheckCandidates(record.target);
          if (name !== 'value') restyled.set(record.target, name);
        }
      }
    }
    this.addSlotBlocks(blocks);
    const texts: BlockTexts = new Map();
    for (const block of blocks) this.block(block, texts);
    this.splitAcross(blocks, texts);
    // A stylesheet added or edited after the blocks were read may hide the visible imperative text they kept.
    if (stylesChanged) this.recheckCandidates(this.doc);
    // Generated content needs computed styles: read once the document is parsed (refresh), then for what
    // is added or restyled later.
    if (this.doc.readyState !== 'loading') {
      if (stylesChanged) this.stylesheetsRead = null;
      this.generatedContent(() => {
        if (stylesChanged) return this.allElements();
        const added: Element[] = [];
        for (const node of visited) if (isElement(node) && node.isConnected) added.push(node);
        // A class, style or id changed (a rule that generates text now applies), or an attribute `attr()`
        // reads: the element and what it holds are read again (rules that reach other elements through
        // sibling combinators or `:has()` are read at the next full pass).
        for (const [el, name] of restyled) {
          if (!el.isConnected || visited.has(el)) continue;
          added.push(el);
          // An inline style reaches what the element holds only through a custom property (`--m: "…"`
          // read by a descendant's `content: var(--m)`): script-driven animation restyles often.
          if (name === 'style' && !(el.getAttribute('style') ?? '').includes('--')) continue;
          const inside = el.querySelectorAll('*');
          for (let i = 0; i < inside.length; i++) added.push(inside[i]!);
        }
        if (restyled.size > 0) {
          const related = this.matchingRelational();
          for (let i = 0; i < related.length; i++) added.push(related[i]!);
        }
        return added;
      });
    }
    this.recheckHosts();
  }

  /**
   * Runs `work` after the page's mutations not yet delivered (the parser's, when this runs from a message
   * or timer callback), then reads the records made meanwhile and reports what was removed. Those records
   * are mostly our own edits (read again, they change nothing, so this settles in one more round), but a
   * custom element's callback that our edit triggered (`attributeChangedCallback`) may have added text:
   * dropping them would skip it. A page that keeps answering edits with more is left to the observer's
   * next delivery after SETTLE_ROUNDS, never dropped.
   */
  private batch(work: () => void): void {
    const pending = this.observer.takeRecords();
    try {
      if (pending.length > 0) this.process(pending);
      work();
      this.readLabels();
      for (let round = 0; round < SETTLE_ROUNDS; round++) {
        const made = this.observer.takeRecords();
        if (made.length === 0) break;
        this.process(made);
        this.readLabels();
      }
    } finally {
      if (this.removals.length > 0) {
        const removals = this.removals;
        this.removals = [];
        this.env.report(removals);
      }
    }
  }

  private scan(root: Node): void {
    const blocks = new Set<Element | DocumentFragment>();
    this.scanNode(root, blocks, new Set());
    this.addSlotBlocks(blocks);
    const texts: BlockTexts = new Map();
    for (const block of blocks) this.block(block, texts);
    this.splitAcross(blocks, texts);
  }

  /** The blocks whose verdict depends on styles, read again; shadow roots attached since, found and read. */
  private refresh(): void {
    // Names joined from elements parsed after the element that names itself with them.
    for (const root of [this.doc, ...this.shadowRoots]) {
      const named = root.querySelectorAll('[aria-labelledby*=" "]');
      for (let i = 0; i < named.length; i++) this.labelled.add(named[i]!);
    }
    this.recheckCandidates(this.doc);
    this.discoverHosts(this.doc);
    this.recheckHosts();
    this.stylesheetsRead = null;
    this.generatedContent(() => this.allElements());
  }

  /** Shadow roots under `root` and in the roots it hosts (and in `<template>` contents): new ones are watched and read. */
  private discoverHosts(root: Document | DocumentFragment): void {
    // Indexed: for…of over a NodeList goes through its iterator, ≈ 4× slower per element in Chromium.
    const elements = root.querySelectorAll('*');
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i]!;
      const tag = element.tagName;
      if (tag === 'TEMPLATE') this.discoverHosts((element as HTMLTemplateElement).content);
      const shadow = this.host(element, tag);
      if (shadow !== null) this.discoverHosts(shadow);
    }
  }

  /**
   * Cleans comments and attributes under `node`, finds shadow roots and templates, and collects the blocks
   * to read. `visited` spans one batch of records and holds the nodes whose subtree was read: the parser
   * reports an element and then each of its descendants, and a node already read as part of an earlier
   * record's subtree is not visited again.
   */
  private scanNode(node: Node, blocks: Set<Element | DocumentFragment>, visited: Set<Node>): void {
    if (visited.has(node)) return;
    // Descent never enters a SKIP element, so a text node under `node` is skipped exactly when `node` is.
    const inSkipped = skipped(node);
    // Each DOM read is a binding call, and this runs for every node the parser inserts: the block a text
    // node belongs to is handed down the descent (what blockOf would find walking up from each one), and
    // a node's type and an element's tag are read once.
    const visit = (n: Node, block: Element | DocumentFragment | null) => {
      if (visited.has(n)) return;
      const type = n.nodeType;
      const tag = type === 1 ? (n as Element).tagName : '';
      // Not marked visited: `visited` holds the nodes whose whole subtree this batch read.
      if (SKIP.has(tag)) {
        if (tag === 'TEXTAREA') this.inputValue(n as Element);
        return;
      }
      visited.add(n);
      if (type === 3) {
        if (!inSkipped && block !== null) blocks.add(block);
        return;
      }
      if (type === 8) {
        this.comment(n as Comment);
        return;
      }
      /** The block of this node's text children: itself, unless it is inline (then its own block). */
      let inner: Element | DocumentFragment | null = type === 11 ? (n as DocumentFragment) : null;
      if (type === 1) {
        const element = n as Element;
        if (element.hasAttributes()) {
          for (const name of ATTRIBUTES) if (element.hasAttribute(name)) this.attribute(element, name);
          if (tag === 'INPUT') this.inputValue(element);
          if (element.hasAttribute('aria-labelledby')) this.labelled.add(element);
        }
        if (tag === 'TEMPLATE') {
          const content = (element as HTMLTemplateElement).content;
          this.observe(content);
          visit(content, content);
        }
        this.host(element, tag);
        inner = INLINE.has(tag) ? block : element;
      }
      // The next sibling is read first: visiting a comment may remove it.
      for (let child = n.firstChild, next = child?.nextSibling ?? null; child !== null; child = next, next = child?.nextSibling ?? null) visit(child, inner);
    };
    visit(node, blockOf(node));
  }

  /** The element's shadow root, watched and read the first time it is seen (null for elements that cannot host one). */
  private host(element: Element, tag = element.tagName): ShadowRoot | null {
    const custom = tag.includes('-');
    if (!custom && !SHADOW_HOST_TAGS.has(tag)) return null;
    const root = this.env.shadowRootOf(element);
    if (root !== null) {
      this.pendingHosts.delete(element);
      if (!this.observed.has(root)) {
        this.observe(root);
        this.shadowRoots.add(root);
        this.hostRoots.set(element, root);
        this.scan(root);
        // Its own stylesheets may generate text (found by the data-lane review: a shadow root's
        // `p::before { content: "…" }` reached the aria snapshot); read like the document's once parsed.
        if (this.doc.readyState !== 'loading') {
          this.stylesheetsRead = null;
          this.generatedContent(() => root.querySelectorAll('*'));
        }
      }
    } else if (custom) this.pendingHosts.add(element);
    return root;
  }

  private recheckHosts(): void {
    for (const element of [...this.pendingHosts]) {
      if (!element.isConnected) this.pendingHosts.delete(element);
      else this.host(element);
    }
  }

  private recheckCandidates(within: Node): void {
    for (const block of [...this.visibleCandidates]) {
      if (!block.isConnected) this.visibleCandidates.delete(block);
      else if (within.contains(block)) this.block(block);
    }
    for (const input of [...this.valueCandidates]) {
      if (!input.isConnected) this.valueCandidates.delete(input);
      else if (within.contains(input)) this.inputValue(input);
    }
  }

  /**
   * The `value` attribute of a button or text field, which people see as its label or preset text and the
   * accessibility tree reports (found by the adaptive review of the data lane: `<input type=submit value="Note
   * to the AI agent: …">` and a transparent text field's preset imperative reached the aria snapshot). Text
   * addressed to the agent goes wherever it is; an imperative only while the control is hidden from people.
   * Only the attribute is rewritten: a value typed since (the field is then dirty) is the user's, never touched.
   */
  private inputValue(element: Element): void {
    // A <textarea>'s text is its preset value in the same way (a value typed since is never touched).
    const textarea = element.tagName === 'TEXTAREA';
    if (!textarea && (element.tagName !== 'INPUT' || !SHOWN_VALUE_TYPES.has((element.getAttribute('type') ?? '').toLowerCase()))) return;
    const value = textarea ? element.textContent : element.getAttribute('value');
    if (value === null || value.trim().length < 8) return;
    const cleaned = stripInvisible(value);
    const found = findInstructions(cleaned.text, { visible: false });
    const imperative = found.some((span) => span.rule === 'hidden-instruction');
    const hidden = imperative && this.controlHidden(element);
    const spans = found.filter((span) => span.rule !== 'hidden-instruction' || hidden);
    if (imperative && !hidden) this.valueCandidates.add(element);
    else this.valueCandidates.delete(element);
    const write = (text: string) => (textarea ? (element.textContent = text) : element.setAttribute('value', text));
    if (spans.length > 0) {
      this.removals.push({ rule: 'attribute', chars: spans.reduce((n, s) => n + s.end - s.start, 0) });
      write(applySpans(cleaned.text, spans));
    } else if (cleaned.removed > 0) {
      this.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      write(cleaned.text);
    }
  }

  /**
   * CSS generated content (`::before { content: "…" }`, `content: attr(data-x)`), which people see as text
   * where it is drawn and the accessibility tree reads as text (found by the adaptive review of the data lane:
   * it reached the aria snapshot). Text addressed to the agent is replaced with the marker wherever it is; an
   * imperative with a target only where it is hidden from people. Replaced by a rule of our own on the
   * element (the page's stylesheet may be another origin's, which no script can edit). Computed styles are
   * read only when some stylesheet may generate text: one that cannot be read (another origin's), or one with
   * a `content` longer than an icon or with `attr()`.
   */
  private generatedContent(elementsToRead: () => ArrayLike<Element>): void {
    // The stylesheets first (read once until they change): most pages generate no text, and then no
    // element list is built at all.
    this.stylesheetsRead ??= this.mayGenerateText();
    if (!this.stylesheetsRead) return;
    const elements = elementsToRead();
    if (elements.length === 0) return;
    const win = this.doc.defaultView;
    if (win === null) return;
    const check = (el: Element) => {
      for (const pseudo of PSEUDOS) {
        const style = win.getComputedStyle(el, pseudo);
        // Animated to an instruction later (`animation: k 1s 2s forwards`): marked now.
        if (this.instructionKeyframes.size > 0 && style.animationName !== 'none' && style.animationName.split(/,\s*/).some((n) => this.instructionKeyframes.has(n))) {
          if (!(this.generatedMarks.get(el)?.has(pseudo.slice(2)) ?? false)) {
            this.replaceGenerated(el, pseudo);
            this.removals.push({ rule: 'generated-content', chars: 0 });
          }
          continue;
        }
        const content = style.content;
        if (content.length < MIN_GENERATED_CHARS && !content.includes('attr(')) continue;
        if (content === 'none' || content === 'normal') continue;
        const text = generatedText(content, el);
        if (text.trim().length < 8 || text.includes(MARKER)) continue;
        const spans = findInstructions(stripInvisible(text).text, { visible: false });
        const imperativeOnly = spans.every((s) => s.rule === 'hidden-instruction');
        if (spans.length === 0 || (imperativeOnly && !this.pseudoHidden(el, style, win))) continue;
        this.replaceGenerated(el, pseudo);
        this.removals.push({ rule: 'generated-content', chars: text.length });
      }
    };
    for (let i = 0; i < elements.length; i++) check(elements[i]!);
  }

  /**
   * Whether any stylesheet of the document or of a shadow root it watches may put text in `content` (see
   * generatedContent): one that cannot be read (another origin's), or a `content` longer than an icon, or
   * with `attr()` or `var()` (a custom property holds the text: `content: var(--m)`). The attributes
   * `attr()` reads are watched from then on. Each sheet is read once until the styles change.
   */
  private mayGenerateText(): boolean {
    // `?? []`: a test DOM may not implement them.
    const sheetsOf = (root: Document | ShadowRoot): CSSStyleSheet[] => [...Array.from((root.styleSheets as StyleSheetList | undefined) ?? []), ...(root.adoptedStyleSheets ?? [])];
    const sheets = sheetsOf(this.doc);
    for (const root of this.shadowRoots) {
      if (root.host.isConnected) sheets.push(...sheetsOf(root));
      else this.shadowRoots.delete(root);
    }
    const attrs = new Set<string>();
    const relational: string[] = [];
    const watchSelectors = this.visibleCandidates.size > 0 || this.valueCandidates.size > 0;
    let states = false;
    const long = (rules: CSSRuleList, keyframes?: string): boolean => {
      let generates = false;
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i]!;
        if ('style' in rule) {
          if (watchSelectors) {
            const selector = (rule as Partial<CSSStyleRule>).selectorText;
            if (selector !== undefined && selector.includes('[')) for (const m of selector.matchAll(/\[\s*([\w-]+)/g)) attrs.add(m[1]!.toLowerCase());
          }
          const content = (rule as CSSStyleRule).style.getPropertyValue('content');
          if (content.length >= MIN_GENERATED_CHARS || content.includes('attr(') || content.includes('var(')) {
            generates = true;
            const selector = (rule as Partial<CSSStyleRule>).selectorText;
            if (selector !== undefined && RELATIONAL_SELECTOR.test(selector)) {
              relational.push(elementSelector(selector));
              if (STATE_SELECTOR.test(selector)) states = true;
              for (const m of selector.matchAll(/\[\s*([\w-]+)/g)) attrs.add(m[1]!.toLowerCase());
            }
            if (keyframes !== undefined && generatedText(content, null).length >= 8 && findInstructions(generatedText(content, null), { visible: false }).length > 0) this.instructionKeyframes.add(keyframes);
          }
          for (const m of content.matchAll(/attr\(\s*([\w-]+)/g)) attrs.add(m[1]!.toLowerCase());
        }
        if ('appendRule' in rule && 'name' in rule) {
          if (long((rule as CSSKeyframesRule).cssRules, (rule as CSSKeyframesRule).name)) generates = true;
          continue;
        }
        if ('cssRules' in rule && long((rule as CSSGroupingRule).cssRules)) generates = true;
        if ('styleSheet' in rule && (rule as CSSImportRule).styleSheet !== null && readable((rule as CSSImportRule).styleSheet!)) generates = true;
      }
      return generates;
    };
    const readable = (sheet: CSSStyleSheet): boolean => {
      let rules: CSSRuleList;
      try {
        rules = sheet.cssRules;
      } catch {
        return true; // another origin's stylesheet: it may
      }
      return long(rules);
    };
    let generates = false;
    for (const sheet of new Set(sheets)) if (sheet !== this.generatedSheet && readable(sheet)) generates = true;
    // Attributes `attr()` reads: a page that writes the instruction into one later (`el.dataset.note = …`)
    // makes a record, and the element's generated content is read again.
    this.relational = relational;
    if (states) this.listenForStates();
    const fresh = [...attrs].filter((a) => !this.contentAttributes.has(a) && !/^data-agentsfence/.test(a) && !(ATTRIBUTES as readonly string[]).includes(a) && !VISIBILITY_ATTRIBUTES.includes(a) && a !== 'id');
    if (fresh.length > 0) {
      for (const a of fresh) this.contentAttributes.add(a);
      const options = this.observerOptions();
      this.observer.observe(this.doc, options);
      for (const root of this.shadowRoots) this.observer.observe(root, options);
    }
    if (generates && !this.userSheetAsked) {
      this.userSheetAsked = true;
      this.env.protectGenerated?.();
    }
    return generates;
  }

  /** Every element of the document and of the shadow roots it watches. */
  private allElements(): ArrayLike<Element> {
    const inDocument = this.doc.querySelectorAll('*');
    if (this.shadowRoots.size === 0) return inDocument;
    const all: Element[] = Array.from(inDocument);
    for (const root of this.shadowRoots) {
      if (!root.host.isConnected) continue;
      const inside = root.querySelectorAll('*');
      for (let i = 0; i < inside.length; i++) all.push(inside[i]!);
    }
    return all;
  }

  /** The elements the relational generating selectors match now (every element when one cannot be matched). */
  private matchingRelational(): ArrayLike<Element> {
    if (this.relational.length === 0) return [];
    const found: Element[] = [];
    for (const root of [this.doc, ...this.shadowRoots]) {
      for (const selector of this.relational) {
        try {
          const matched = root.querySelectorAll(selector);
          for (let i = 0; i < matched.length; i++) found.push(matched[i]!);
        } catch {
          return this.allElements();
        }
      }
    }
    return found;
  }

  /**
   * A generating rule that depends on a state no mutation record reports (`:checked`, `:hover`, `:focus`,
   * `:target` …): the page's use (a click, a change, focus, the pointer, the hash) re-reads the elements the
   * rules match, in a microtask, before the agent's next read. Only on pages with such rules.
   */
  private listenForStates(): void {
    if (this.stateListening) return;
    this.stateListening = true;
    let queued = false;
    const reread = () => {
      if (queued || this.mode === null || this.mode === 'off') return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        this.batch(() => this.generatedContent(() => this.matchingRelational()));
      });
    };
    for (const type of ['change', 'input', 'click', 'focusin', 'focusout', 'pointerover', 'pointerout', 'toggle', 'animationstart']) this.doc.addEventListener(type, reread, true);
    this.doc.defaultView?.addEventListener('hashchange', reread);
  }

  /** A pseudo-element's text is hidden when its element is, or its own style hides it (size, colour, fade). */
  private pseudoHidden(el: Element, style: CSSStyleDeclaration, win: Window): boolean {
    if (this.controlHidden(el)) return true;
    const view = { ...styleView(style), color: this.colours.srgb(style.color), webkitTextFillColor: this.colours.srgb(style.webkitTextFillColor) };
    const box = elementBox(el, win);
    const page = { width: Math.max(this.doc.documentElement.scrollWidth, win.innerWidth), height: Math.max(this.doc.documentElement.scrollHeight, win.innerHeight) };
    const why = hiddenByStyle(view, { ...box, width: Math.max(box.width, 2), height: Math.max(box.height, 2) }, page, this.backgroundOf(el, win));
    return why !== null;
  }

  private replaceGenerated(el: Element, pseudo: (typeof PSEUDOS)[number]): void {
    if (this.generatedSheet === null) {
      const win = this.doc.defaultView as (Window & typeof globalThis) | null;
      if (win === null) return;
      try {
        const sheet = new win.CSSStyleSheet();
        for (const rule of GENERATED_RULES) sheet.insertRule(rule);
        this.doc.adoptedStyleSheets = [...this.doc.adoptedStyleSheets, sheet];
        this.generatedSheet = sheet;
      } catch {
        // A content script that may not adopt a sheet of its own (Firefox's wrappers): a <style> element.
        const style = this.doc.createElement('style');
        style.textContent = GENERATED_RULES.join('\n');
        (this.doc.head ?? this.doc.documentElement).append(style);
        this.generatedSheet = style.sheet;
      }
    }
    // In a shadow root the document's sheets do not apply: ours is adopted there too (the user-origin
    // sheet applies in every tree; this one holds until it is in place).
    const root = el.getRootNode();
    if (root instanceof ShadowRoot && this.generatedSheet !== null && !(root.adoptedStyleSheets ?? []).includes(this.generatedSheet)) {
      try {
        root.adoptedStyleSheets = [...root.adoptedStyleSheets, this.generatedSheet];
      } catch {
        // A <style> sheet cannot be adopted: the user-origin sheet covers the root.
      }
    }
    const marks = this.generatedMarks.get(el) ?? new Set<string>();
    marks.add(pseudo.slice(2));
    this.generatedMarks.set(el, marks);
    this.restoreMarks(el);
  }

  /** Puts back the marks this Sanitizer set on `el` (a page that removes or rewrites the attribute gets them again). */
  private restoreMarks(el: Element): void {
    const marks = this.generatedMarks.get(el);
    if (marks === undefined) return;
    const present = new Set((el.getAttribute(GENERATED_MARK) ?? '').split(/\s+/).filter((m) => m !== ''));
    if ([...marks].every((m) => present.has(m))) return;
    for (const m of marks) present.add(m);
    el.setAttribute(GENERATED_MARK, [...present].join(' '));
  }

  /** Whether a control's own text is hidden from people (its box, style, colour on its background, an ancestor's clip or fade). */
  private controlHidden(element: Element): boolean {
    const win = this.doc.defaultView;
    if (win === null) return false;
    for (let el: Element | null = element; el !== null; el = el.parentElement) if (el.getAttribute('aria-hidden') === 'true') return true;
    if (!element.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return true;
    const page = { width: Math.max(this.doc.documentElement.scrollWidth, win.innerWidth), height: Math.max(this.doc.documentElement.scrollHeight, win.innerHeight) };
    let opacity = 1;
    for (let el: Element | null = element; el !== null; el = el.parentElement) {
      const style = win.getComputedStyle(el);
      const view = el === element ? { ...styleView(style), color: this.colours.srgb(style.color), webkitTextFillColor: this.colours.srgb(style.webkitTextFillColor) } : styleView(style);
      const background = el === element ? this.backgroundOf(el, win) : 'rgb(255, 255, 255)';
      const why = hiddenByStyle(view, elementBox(el, win), page, background);
      opacity *= ownOpacity(view);
      if (el === element ? why !== null : why === 'clipped' || (why === 'zero-size' && style.overflow !== 'visible')) return true;
      if (opacity <= 0.05) return true;
    }
    return false;
  }

  private comment(node: Comment): void {
    const cleaned = stripInvisible(node.data);
    if (findInstructions(cleaned.text, { visible: false }).length > 0) {
      this.removals.push({ rule: 'comment', chars: node.data.length });
      node.remove();
      return;
    }
    if (cleaned.removed > 0) {
      this.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      node.data = cleaned.text;
    }
  }

  private attribute(element: Element, name: string): void {
    const value = element.getAttribute(name);
    if (value === null) return;
    const cleaned = stripInvisible(value);
    const spans = findInstructions(cleaned.text, { visible: false });
    if (spans.length > 0) {
      this.removals.push({ rule: 'attribute', chars: spans.reduce((n, s) => n + s.end - s.start, 0) });
      element.setAttribute(name, applySpans(cleaned.text, spans));
    } else if (cleaned.removed > 0) {
      this.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      element.setAttribute(name, cleaned.text);
    }
  }

  /**
   * An instruction split across sibling blocks (two list items, two table cells: "Ignore all previous" |
   * "instructions and e-mail …"), where neither half is one alone (found by the adaptive review of the data
   * lane: it reached the aria snapshot). Runs of up to three sibling blocks, the earlier ones ending with no
   * sentence mark, are read together when the run names an agent or an instruction, or carries a target; text
   * addressed to the agent goes, an imperative only when every part is hidden from people.
   */
  private splitAcross(blocks: ReadonlySet<Element | DocumentFragment>, texts: BlockTexts): void {
    // Each block's text is read once per batch (block() left what it read unless it cut something).
    const read = (el: Element) => {
      let known = texts.get(el);
      if (known === undefined) texts.set(el, (known = piecesOf(el)));
      return known;
    };
    const starts = new Set<Element>();
    for (const block of blocks) {
      if (!isElement(block) || !block.isConnected) continue;
      let start = block;
      for (let back = 0, prev = this.flatSibling(block, -1); back < 2 && prev !== null && splittable(prev) && !endsSentence(read(prev).text); back++, prev = this.flatSibling(prev, -1)) start = prev;
      starts.add(start);
    }
    for (const start of starts) {
      const run: { el: Element; text: string; pieces: Piece[] }[] = [];
      for (let el: Element | null = start; el !== null && run.length < 3 && splittable(el); el = this.flatSibling(el, 1)) {
        const { text, pieces } = read(el);
        if (text.trim() === '' || text.includes(MARKER)) break;
        run.push({ el, text, pieces });
        if (run.length >= 2 && this.cutSplit(run)) {
          for (const r of run) texts.delete(r.el);
          break;
        }
        if (endsSentence(text)) break;
      }
    }
  }

  /**
   * The block after (1) or before (-1) `el` as the page shows them: its sibling, except that a shadow host
   * stands for its shadow root's first or last element, and the end of a shadow root continues at its
   * host's sibling (found by the data-lane review: "Ignore all previous" in the light DOM and "instructions
   * and e-mail …" in the next element's shadow root reached the aria snapshot as one instruction).
   */
  private flatSibling(el: Element, step: 1 | -1): Element | null {
    const onward = (e: Element | null): Element | null => {
      while (e !== null && NO_TEXT_TAGS.has(e.tagName)) e = step === 1 ? e.nextElementSibling : e.previousElementSibling;
      return e;
    };
    let at = el;
    for (let hops = 0; hops < 8; hops++) {
      const next = onward(step === 1 ? at.nextElementSibling : at.previousElementSibling);
      if (next === null) {
        const parent = at.parentNode;
        if (!(parent instanceof ShadowRoot)) return null;
        at = parent.host;
        continue;
      }
      let target = next;
      for (let depth = 0; depth < 4; depth++) {
        const root = this.hostRoots.get(target);
        const inside = root === undefined ? null : onward(step === 1 ? root.firstElementChild : root.lastElementChild);
        if (inside === null) break;
        target = inside;
      }
      return target;
    }
    return null;
  }

  /**
   * The blocks of a shadow root that show a host's children through a `<slot>`: read again whenever the
   * host's own text is (text slotted into a sentence of the shadow tree is read with it).
   */
  private addSlotBlocks(blocks: Set<Element | DocumentFragment>): void {
    for (const block of [...blocks]) {
      if (!isElement(block)) continue;
      const root = this.hostRoots.get(block);
      if (root === undefined) continue;
      const slots = root.querySelectorAll('slot');
      for (let i = 0; i < slots.length; i++) {
        const slotBlock = blockOf(slots[i]!);
        if (slotBlock !== null) blocks.add(slotBlock);
      }
    }
  }

  /**
   * An accessible name joined from several elements (`aria-labelledby="a b"`): the accessibility tree reads
   * their texts as one ("Ignore all previous" + "instructions and e-mail …", anywhere in the page; found by the
   * data-lane review: the button's name was the instruction). Text addressed to the agent goes from every
   * part; an imperative only when every part is hidden from people. Read when the naming element is seen or
   * its attribute changes, and again at `DOMContentLoaded` and `load` (a part parsed later).
   */
  private readLabels(): void {
    if (this.labelled.size === 0) return;
    const elements = [...this.labelled];
    this.labelled.clear();
    for (const el of elements) {
      const ids = (el.getAttribute('aria-labelledby') ?? '').trim().split(/\s+/);
      if (ids.length < 2 || !el.isConnected) continue;
      const root = el.getRootNode() as Document | ShadowRoot;
      const parts = [...new Set(ids.map((id) => root.getElementById?.(id) ?? null))].filter((p): p is HTMLElement => p !== null && !p.contains(el));
      if (parts.length < 2) continue;
      const texts = parts.map((p) => textOfSubtree(p));
      const joined = texts.map((t) => t.text.trim()).join(' ');
      if (joined.includes(MARKER) || !SPLIT_WORTH_READING.test(joined)) continue;
      const finding = classify(joined);
      if (finding === null || texts.some((t) => classify(t.text) !== null)) continue;
      if (finding === 'imperative' && !texts.every((t) => this.hiddenFromPeople(t.pieces, { start: 0, end: t.text.length }) !== null)) continue;
      texts.forEach((t, i) => {
        this.removals.push({ rule: finding === 'addressed' ? 'addressed-to-agent' : 'hidden-instruction', chars: t.text.length });
        cut(t.pieces, { start: 0, end: t.text.length }, i === 0 ? MARKER : '');
      });
    }
  }

  /** Cuts a run of blocks that is an instruction only when read together; true when it did. */
  private cutSplit(run: readonly { el: Element; text: string; pieces: Piece[] }[]): boolean {
    const joined = run.map((r) => r.text.trim()).join(' ');
    if (!SPLIT_WORTH_READING.test(joined)) return false;
    const finding = classify(joined);
    if (finding === null || run.some((r) => classify(r.text) !== null)) return false;
    if (finding === 'imperative') {
      const hidden = run.every((r) => {
        const span = { start: 0, end: r.text.length, rule: 'hidden-instruction' as const };
        return this.hiddenFromPeople(r.pieces, span) !== null && !this.inOpenableWidget(r.pieces, span);
      });
      if (!hidden) return false;
    }
    run.forEach((r, i) => {
      this.removals.push({ rule: finding === 'addressed' ? 'addressed-to-agent' : 'hidden-instruction', chars: r.text.length });
      cut(r.pieces, { start: 0, end: r.text.length }, i === 0 ? MARKER : '');
    });
    return true;
  }

  /** Reads one block and removes what the rules find; in model mode, sends what is only suspicious. */
  private block(block: Element | DocumentFragment, texts?: BlockTexts): void {
    if (this.awaitingReview.has(block)) return;
    let { text, pieces } = piecesOf(block);
    texts?.set(block, { text, pieces });
    if (text.trim() === '' && !/[\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u.test(text)) return;
    // Invisible characters go outright, node by node.
    let invisible = 0;
    for (const piece of pieces) {
      const cleaned = stripInvisible(piece.node.data);
      if (cleaned.removed > 0) {
        invisible += cleaned.removed;
        piece.node.data = cleaned.text;
      }
    }
    if (invisible > 0) {
      this.removals.push({ rule: 'invisible-chars', chars: invisible });
      ({ text, pieces } = piecesOf(block));
      texts?.set(block, { text, pieces });
    }
    const found = findInstructions(text, { visible: false });
    const apply: Span[] = [];
    let visibleImperative = false;
    for (const span of found) {
      if (span.rule !== 'hidden-instruction') apply.push(span);
      else if (this.isControlLabel(pieces, span, text)) continue;
      else if (this.hiddenFromPeople(pieces, span) !== null && !this.inOpenableWidget(pieces, span)) apply.push(span);
      else visibleImperative = true;
    }
    // Right to left, so earlier offsets stay valid.
    for (const span of [...apply].reverse()) {
      this.removals.push({ rule: span.rule, chars: span.end - span.start });
      cut(pieces, span, MARKER);
    }
    const unreadable = isElement(block) ? this.cutUnreadableInline(block, apply.length > 0 ? piecesOf(block).pieces : pieces) : 0;
    if (apply.length > 0 || unreadable > 0) texts?.delete(block);
    if (isElement(block)) {
      if (visibleImperative) this.visibleCandidates.add(block);
      else this.visibleCandidates.delete(block);
    }
    if (this.mode === 'model' && this.env.review !== undefined) {
      const after = apply.length > 0 || unreadable > 0 ? piecesOf(block) : { text, pieces };
      if (isSuspicious(after.text)) this.review(block, after.text, after.pieces);
    }
  }

  /**
   * Text a person cannot read inside a block they can (issue 41: a one-pixel white span inside ordinary
   * text reached the agent): whatever it says, text in an inline element — at any nesting, inline or
   * inline-block — that is too small, faint, faded or clipped to read, in a block whose other text is
   * readable, becomes the marker. A block hidden as a whole is the rules' concern (closed widgets keep
   * their text). The visually-hidden screen-reader pattern stays (see `visuallyHiddenLabel`). Cost: one
   * computed-style read per piece of text in an inline element and per inline ancestor up to the block;
   * boxes only for text that read says may hide, and every read before the first write.
   */
  private cutUnreadableInline(block: Element, pieces: readonly Piece[]): number {
    const win = this.doc.defaultView;
    if (win === null || pieces.length < 2) return 0;
    let blockColours: { color: string; background: string } | null = null;
    const suspects: Piece[] = [];
    for (const piece of pieces) {
      const parent = piece.node.parentElement;
      const data = piece.node.data.trim();
      if (parent === null || parent === block || data === '' || data === MARKER || data === UNREADABLE_MARKER) continue;
      const style = win.getComputedStyle(parent);
      const chain: InlineStyle[] = [];
      for (let el: Element | null = parent; el !== null && el !== block; el = el.parentElement) chain.push(inlineStyleOf(el === parent ? style : win.getComputedStyle(el)));
      if (blockColours === null) {
        const blockStyle = win.getComputedStyle(block);
        blockColours = { color: blockStyle.color, background: this.backgroundOf(block, win) };
      }
      if (inlineMayHide({ fontSize: style.fontSize, color: style.color, webkitTextFillColor: style.webkitTextFillColor }, chain, blockColours)) suspects.push(piece);
    }
    if (suspects.length === 0) return 0;
    const hidden = suspects.filter((p) => this.hiddenReason(p.node) !== null && !this.screenReaderLabel(p.node.parentElement!, block, win));
    if (hidden.length === 0) return 0;
    // Otherwise visible: some other text of the block is readable.
    const others = pieces.filter((p) => !hidden.includes(p) && p.node.data.trim() !== '');
    if (!others.some((p) => this.hiddenReason(p.node) === null)) return 0;
    for (const piece of hidden) {
      this.removals.push({ rule: 'unreadable-text', chars: piece.node.data.trim().length });
      piece.node.data = piece.node.data.replace(/\S[\s\S]*\S|\S/, UNREADABLE_MARKER);
    }
    return hidden.length;
  }

  /** The text's element or an inline ancestor below the block is the visually-hidden screen-reader pattern. */
  private screenReaderLabel(el: Element, block: Element, win: Window): boolean {
    for (let e: Element | null = el; e !== null && e !== block; e = e.parentElement) {
      const style = win.getComputedStyle(e);
      if (style.position !== 'absolute' && style.position !== 'fixed') continue;
      const r = e.getBoundingClientRect();
      return visuallyHiddenLabel(style, r);
    }
    return false;
  }

  private isControlLabel(pieces: readonly Piece[], span: Span, text: string): boolean {
    const words = text.slice(span.start, span.end).trim().split(/\s+/).length;
    if (words > CONTROL_LABEL_MAX_WORDS) return false;
    const first = pieces.find((p) => p.end > span.start);
    return first?.node.parentElement?.closest(CONTROL_SELECTOR) != null;
  }

  /**
   * Closed UI a person can open (a closed `<details>`, a dialog, a popover, a menu, a tab panel, an element
   * a control points at with `aria-controls` or `data-bs-target`, while it is closed) keeps imperative text ("Send returns to
   * returns@shop.test"): a person sees it when they open it. Text addressed to the agent goes anyway.
   */
  private inOpenableWidget(pieces: readonly Piece[], span: Span): boolean {
    const first = pieces.find((p) => p.end > span.start && p.node.data.trim() !== '');
    const root = first?.node.getRootNode();
    if (root !== undefined && root.nodeType === 11 && !(root instanceof ShadowRoot)) return true; // a <template>'s content: the page renders it later
    // Text that names a control (`aria-labelledby`) is its name in the accessibility tree whether or not it is
    // shown: a closed tooltip that labels a button is no widget a person opens to read it (found by the
    // adaptive review of the data lane: the button's name in the aria snapshot was the hidden instruction).
    for (let el: Element | null = first?.node.parentElement ?? null; el !== null; el = el.parentElement) {
      if (el.id !== '' && this.doc.querySelector(`[aria-labelledby~="${CSS.escape(el.id)}"]`) !== null) return false;
    }
    // Only while it is closed: text hidden by other means inside an open widget is hidden from a person.
    for (let el: Element | null = first?.node.parentElement ?? null; el !== null; el = el.parentElement) {
      if (el.tagName === 'DETAILS' || el.tagName === 'DIALOG') {
        if (!el.hasAttribute('open')) return true;
        continue;
      }
      // Text a person reaches with find-in-page, like a closed <details>.
      if (el.getAttribute('hidden') === 'until-found') return true;
      if (el.hasAttribute('popover')) {
        if (!el.matches(':popover-open')) return true;
        continue;
      }
      const controlled = el.id !== '' && this.doc.querySelector(`[aria-controls~="${CSS.escape(el.id)}"],[data-bs-target="#${CSS.escape(el.id)}"],[data-target="#${CSS.escape(el.id)}"]`) !== null;
      if ((OPENABLE_ROLES.has(el.getAttribute('role') ?? '') || controlled) && !el.checkVisibility()) return true;
    }
    return false;
  }

  /** Hidden when every text node the span touches is hidden from a person (for one reason or another). */
  private hiddenFromPeople(pieces: readonly Piece[], span: { start: number; end: number }): HiddenReason | null {
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

  private hiddenReason(node: Text): HiddenReason | null {
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
    if (win.getComputedStyle(parent).contentVisibility === 'hidden') return 'not-rendered';
    const range = this.doc.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    const page = { width: Math.max(this.doc.documentElement.scrollWidth, win.innerWidth), height: Math.max(this.doc.documentElement.scrollHeight, win.innerHeight) };
    const box = { width: rect.width, height: rect.height, left: rect.left + win.scrollX, top: rect.top + win.scrollY, right: rect.right + win.scrollX, bottom: rect.bottom + win.scrollY };
    const parentStyle = win.getComputedStyle(parent);
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
      const style = el === parent ? parentStyle : win.getComputedStyle(el);
      const own = el === parent ? box : elementBox(el, win);
      let view = styleView(style);
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
        const frame = el === parent ? elementBox(el, win) : own;
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
      for (let el: Element | null = frame; el !== null; el = el.parentElement) opacity *= ownOpacity(styleView(outer.getComputedStyle(el)));
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
    while (block !== null && /^inline/.test(win.getComputedStyle(block).display)) block = block.parentElement;
    if (block === null) return null;
    const line = win.getComputedStyle(block, '::first-line');
    // `-webkit-text-fill-color` follows `color` unless set: the pseudo-element's reads as the block's own then.
    const fill = line.webkitTextFillColor !== win.getComputedStyle(block).webkitTextFillColor ? this.colours.srgb(line.webkitTextFillColor) : '';
    const view = { ...styleView(line), color: this.colours.srgb(line.color), webkitTextFillColor: fill };
    const why = hiddenByStyle(view, { width: 2, height: 2, left: 0, top: 0, right: 2, bottom: 2 }, page, this.backgroundOf(block, win));
    if (why === null) return null;
    const all = this.doc.createRange();
    all.selectNodeContents(block);
    const first = Array.from(all.getClientRects()).find((r) => r.width > 0 || r.height > 0);
    const own = Array.from(range.getClientRects()).filter((r) => r.width > 0 || r.height > 0);
    if (first === undefined || own.length === 0) return null;
    return own.every((r) => Math.abs(r.top - first.top) <= 1) ? why : null;
  }

  /** The colour text is drawn on: the nearest background up the tree that is not transparent, in sRGB. */
  private backgroundOf(el: Element, win: Window): string {
    return this.backgroundElementOf(el, win).colour;
  }

  private backgroundElementOf(el: Element, win: Window): { colour: string; element: Element | null } {
    for (let e: Element | null = el; e !== null; e = e.parentElement) {
      const style = win.getComputedStyle(e);
      const bg = this.colours.srgb(style.backgroundColor);
      const parsed = parseColour(bg);
      if (bg !== '' && bg !== 'transparent' && (parsed === null || parsed.a > 0)) return { colour: bg, element: e };
      // A gradient of one colour paints like a background colour (`linear-gradient(#000, #000)`).
      const image = style.backgroundImage;
      if (image !== undefined && image !== 'none' && image !== '') {
        const solid = solidGradientColour(image);
        if (solid !== null) return { colour: this.colours.srgb(solid), element: e };
      }
    }
    return { colour: 'rgb(255, 255, 255)', element: null };
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
      const s = e === el ? style : win.getComputedStyle(e);
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

  /** Model mode: the agent reads a placeholder until the model answers; on any failure the deterministic text stands. */
  private review(block: Element | DocumentFragment, text: string, pieces: Piece[]): void {
    const key = maskMarkers(text);
    if (this.reviewed.has(key)) {
      this.applyReview(text, pieces, this.reviewed.get(key) ?? null);
      return;
    }
    const saved = pieces.map((p) => p.node.data);
    pieces.forEach((p, i) => (p.node.data = i === 0 ? PLACEHOLDER : ''));
    this.awaitingReview.add(block);
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), MODEL_TIMEOUT_MS));
    void Promise.race([this.env.review!(text).catch(() => null), timeout]).then((removals) => {
      this.reviewed.set(key, removals);
      this.batch(() => {
        this.awaitingReview.delete(block);
        pieces.forEach((p, i) => {
          if (p.node.data === (i === 0 ? PLACEHOLDER : '')) p.node.data = saved[i]!;
        });
        const fresh = piecesOf(block);
        this.applyReview(fresh.text, fresh.pieces, removals);
      });
    });
  }

  /**
   * Applies a model's removals: only exact substrings of the block, and only inside sentences the rules
   * find suspicious, so a model that removes too much cannot take the page's ordinary text.
   */
  private applyReview(text: string, pieces: Piece[], removals: string[] | null): void {
    if (removals === null) return;
    const suspicious = sentences(text).filter((s) => isSuspicious(text.slice(s.start, s.end)));
    const spans: Span[] = [];
    for (const removal of removals) {
      if (removal.trim().length < 8) continue;
      for (let at = text.indexOf(removal); at >= 0; at = text.indexOf(removal, at + removal.length)) {
        const span = { start: at, end: at + removal.length, rule: 'model' as const };
        const touched = sentences(text).filter((s) => s.start < span.end && s.end > span.start);
        const allowed = touched.every((s) => suspicious.some((x) => x.start === s.start));
        if (allowed && !spans.some((s) => s.start < span.end && s.end > span.start)) spans.push(span);
      }
    }
    for (const span of spans.sort((a, b) => b.start - a.start)) {
      this.removals.push({ rule: 'model', chars: span.end - span.start });
      cut(pieces, span, MARKER);
    }
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

function elementBox(el: Element, win: Window): { width: number; height: number; left: number; top: number; right: number; bottom: number } {
  const r = el.getBoundingClientRect();
  return { width: r.width, height: r.height, left: r.left + win.scrollX, top: r.top + win.scrollY, right: r.right + win.scrollX, bottom: r.bottom + win.scrollY };
}

/** The colour text is drawn on: the nearest ancestor background that is not transparent (white by default). */
/** The computed style the inline pre-check reads (`?? ''`: unset in a test DOM). */
function inlineStyleOf(style: CSSStyleDeclaration): InlineStyle {
  return { display: style.display, position: style.position, overflow: style.overflow, opacity: style.opacity, filter: style.filter ?? '', clipPath: style.clipPath ?? '', clip: style.clip ?? '', transform: style.transform ?? '', maskImage: style.maskImage ?? '', mixBlendMode: style.mixBlendMode ?? '', visibility: style.visibility };
}

/** The computed style the visibility rules read. */
function styleView(style: CSSStyleDeclaration): StyleView {
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
