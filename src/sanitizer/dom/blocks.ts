import { applySpans, classify, findInstructions, isSuspicious, MARKER, stripInvisible, UNREADABLE_MARKER, type Span } from '../text';
import type { Hidden } from './hidden';
import { blockOf, cut, isElement, piecesOf, textOfSubtree, type Block, type BlockTexts, type Piece } from './pieces';
import type { Review } from './review';
import type { Shared } from './shared';

/**
 * Inputs whose `value` attribute people and the accessibility tree read: a button's label, a text field's
 * preset text. Hidden inputs (a CSRF token), passwords and choices are the page's data, never read.
 */
const SHOWN_VALUE_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'submit', 'button', 'reset']);
/** Short labels of controls (menu items, buttons, tabs) are never removed for looking imperative. */
const CONTROL_SELECTOR = 'a,button,summary,option,label,[role=menuitem],[role=tab],[role=button],[role=link],[role=option],[role=menuitemradio],[role=menuitemcheckbox]';
const CONTROL_LABEL_MAX_WORDS = 6;
const OPENABLE_ROLES = new Set(['dialog', 'alertdialog', 'tabpanel', 'menu', 'menubar', 'listbox', 'tooltip', 'tree', 'region']);

/** Elements that show no text of their own: stepped over when reading a run of blocks. */
const NO_TEXT_TAGS = new Set(['STYLE', 'SCRIPT', 'LINK', 'TEMPLATE']);
/** Blocks an instruction can be split across: list items, cells, paragraphs, plain boxes. */
const SPLIT_TAGS = new Set(['LI', 'TD', 'TH', 'P', 'DIV', 'DT', 'DD', 'SPAN', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'SECTION']);
/** Words or targets without which a run of blocks is no instruction (a cheap test before the rules read it). */
const SPLIT_WORTH_READING = /@|:\/\/|assistant|agent|\bai\b|a\.i\.|llm|language model|gpt|claude|gemini|copilot|\bbots?\b|crawler|ignore|disregard|override|bypass|instruction|prompt|directive|the user|you are now|you (?:must|will) now|you have been|\.(?:pdf|docx?|xlsx?|csv|zip|json)\b|[€$£]\s?\d|\b[A-Z]{2}\d{2}[A-Z0-9 ]{11,}|password|passcode|sign-?in code|api[\s_-]?key|token|credential/i;

function splittable(el: Element): boolean {
  return SPLIT_TAGS.has(el.tagName);
}

function endsSentence(text: string): boolean {
  return /[.!?]["')\]]*\s*$/.test(text);
}

/**
 * The text rules on a document's blocks, attributes, comments and form values (src/sanitizer/dom): what
 * they find is cut; imperative text is cut where a person cannot see it (src/sanitizer/dom/hidden.ts). A
 * block read is its text nodes joined (src/sanitizer/dom/pieces.ts), so an instruction split over
 * `<b>`/`<span>` is read whole and cut precisely; runs of sibling blocks and joined accessible names too.
 */
export class Blocks {
  /** Blocks with visible imperative text: hidden later by a class or style change, they are checked again. */
  private readonly visibleCandidates = new Set<Element>();
  /** Inputs whose shown value is imperative and visible: checked again like the blocks above. */
  private readonly valueCandidates = new Set<Element>();
  /** Elements named by several others (`aria-labelledby="a b"`) seen in this batch: their joined name is read. */
  private readonly labelled = new Set<Element>();
  /**
   * Blocks and inputs read since the page last ran (`pageRan`): a recheck in the same batch would read the
   * same styles and boxes again (at DOMContentLoaded the parser's last records are read just before the
   * recheck; on a page parsed in one go, that is every candidate).
   */
  private readonly readSincePageRan = new Set<Element>();

  constructor(
    private readonly shared: Shared,
    private readonly hidden: Hidden,
    private readonly reviews: Review,
    /** Each watched shadow root by its host (reading a run of blocks across a shadow boundary asks no native call). */
    private readonly hostRoots: WeakMap<Element, ShadowRoot>,
  ) {}

  /** Visible imperative text or values wait to be rechecked when styles change. */
  candidatesWaiting(): boolean {
    return this.visibleCandidates.size > 0 || this.valueCandidates.size > 0;
  }

  /** An element named by others (`aria-labelledby`): its joined name is read at the end of the batch. */
  label(element: Element): void {
    this.labelled.add(element);
  }

  /** Reads the blocks a walk collected (and the slots that show their text), then runs of them. */
  read(blocks: Set<Block>): void {
    this.addSlotBlocks(blocks);
    const texts: BlockTexts = new Map();
    for (const block of blocks) this.block(block, texts);
    this.splitAcross(blocks, texts);
  }

  /**
   * The page may have run since the last read (a new batch; records made during one, which a custom
   * element's reaction to our edit can make): what was read before is read again when rechecked.
   */
  pageRan(): void {
    this.readSincePageRan.clear();
  }

  recheckCandidates(within: Node): void {
    for (const block of [...this.visibleCandidates]) {
      if (!block.isConnected) this.visibleCandidates.delete(block);
      else if (!this.readSincePageRan.has(block) && within.contains(block)) this.block(block);
    }
    for (const input of [...this.valueCandidates]) {
      if (!input.isConnected) this.valueCandidates.delete(input);
      else if (!this.readSincePageRan.has(input) && within.contains(input)) this.inputValue(input);
    }
  }

  /**
   * The `value` attribute of a button or text field, which people see as its label or preset text and the
   * accessibility tree reports (found by the adaptive review of the data lane: `<input type=submit value="Note
   * to the AI agent: …">` and a transparent text field's preset imperative reached the aria snapshot). Text
   * addressed to the agent goes wherever it is; an imperative only while the control is hidden from people.
   * Only the attribute is rewritten: a value typed since (the field is then dirty) is the user's, never touched.
   */
  inputValue(element: Element): void {
    // A <textarea>'s text is its preset value in the same way (a value typed since is never touched).
    const textarea = element.tagName === 'TEXTAREA';
    if (!textarea && (element.tagName !== 'INPUT' || !SHOWN_VALUE_TYPES.has((element.getAttribute('type') ?? '').toLowerCase()))) return;
    const value = textarea ? element.textContent : element.getAttribute('value');
    if (value === null || value.trim().length < 8) return;
    this.readSincePageRan.add(element);
    const cleaned = stripInvisible(value);
    const found = findInstructions(cleaned.text, { visible: false });
    const imperative = found.some((span) => span.rule === 'hidden-instruction');
    const hidden = imperative && this.hidden.controlHidden(element);
    const spans = found.filter((span) => span.rule !== 'hidden-instruction' || hidden);
    if (imperative && !hidden) this.valueCandidates.add(element);
    else this.valueCandidates.delete(element);
    const write = (text: string) => {
      if (textarea) element.textContent = text;
      else element.setAttribute('value', text);
      this.hidden.forget();
    };
    if (spans.length > 0) {
      this.shared.removals.push({ rule: 'attribute', chars: spans.reduce((n, s) => n + s.end - s.start, 0) });
      write(applySpans(cleaned.text, spans));
    } else if (cleaned.removed > 0) {
      this.shared.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      write(cleaned.text);
    }
  }

  comment(node: Comment): void {
    const cleaned = stripInvisible(node.data);
    if (findInstructions(cleaned.text, { visible: false }).length > 0) {
      this.shared.removals.push({ rule: 'comment', chars: node.data.length });
      node.remove();
      this.hidden.forget();
      return;
    }
    if (cleaned.removed > 0) {
      this.shared.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      node.data = cleaned.text;
      this.hidden.forget();
    }
  }

  attribute(element: Element, name: string): void {
    const value = element.getAttribute(name);
    if (value === null) return;
    const cleaned = stripInvisible(value);
    const spans = findInstructions(cleaned.text, { visible: false });
    if (spans.length > 0) {
      this.shared.removals.push({ rule: 'attribute', chars: spans.reduce((n, s) => n + s.end - s.start, 0) });
      element.setAttribute(name, applySpans(cleaned.text, spans));
      this.hidden.forget();
    } else if (cleaned.removed > 0) {
      this.shared.removals.push({ rule: 'invisible-chars', chars: cleaned.removed });
      element.setAttribute(name, cleaned.text);
      this.hidden.forget();
    }
  }

  /**
   * An instruction split across sibling blocks (two list items, two table cells: "Ignore all previous" |
   * "instructions and e-mail …"), where neither half is one alone (found by the adaptive review of the data
   * lane: it reached the aria snapshot). Runs of up to three sibling blocks, the earlier ones ending with no
   * sentence mark, are read together when the run names an agent or an instruction, or carries a target; text
   * addressed to the agent goes, an imperative only when every part is hidden from people.
   */
  private splitAcross(blocks: ReadonlySet<Block>, texts: BlockTexts): void {
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
  private addSlotBlocks(blocks: Set<Block>): void {
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
  readLabels(): void {
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
      if (finding === 'imperative' && !texts.every((t) => this.hidden.hiddenFromPeople(t.pieces, { start: 0, end: t.text.length }) !== null)) continue;
      texts.forEach((t, i) => {
        this.shared.removals.push({ rule: finding === 'addressed' ? 'addressed-to-agent' : 'hidden-instruction', chars: t.text.length });
        cut(t.pieces, { start: 0, end: t.text.length }, i === 0 ? MARKER : '');
      });
      this.hidden.forget();
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
        return this.hidden.hiddenFromPeople(r.pieces, span) !== null && !this.inOpenableWidget(r.pieces, span);
      });
      if (!hidden) return false;
    }
    run.forEach((r, i) => {
      this.shared.removals.push({ rule: finding === 'addressed' ? 'addressed-to-agent' : 'hidden-instruction', chars: r.text.length });
      cut(r.pieces, { start: 0, end: r.text.length }, i === 0 ? MARKER : '');
    });
    this.hidden.forget();
    return true;
  }

  /** Reads one block and removes what the rules find; in model mode, sends what is only suspicious. */
  block(block: Block, texts?: BlockTexts): void {
    if (this.reviews.awaiting(block)) return;
    if (isElement(block)) this.readSincePageRan.add(block);
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
      this.shared.removals.push({ rule: 'invisible-chars', chars: invisible });
      this.hidden.forget();
      ({ text, pieces } = piecesOf(block));
      texts?.set(block, { text, pieces });
    }
    const found = findInstructions(text, { visible: false });
    const apply: Span[] = [];
    let visibleImperative = false;
    for (const span of found) {
      if (span.rule !== 'hidden-instruction') apply.push(span);
      else if (this.isControlLabel(pieces, span, text)) continue;
      else if (this.hidden.hiddenFromPeople(pieces, span) !== null && !this.inOpenableWidget(pieces, span)) apply.push(span);
      else visibleImperative = true;
    }
    // Right to left, so earlier offsets stay valid.
    for (const span of [...apply].reverse()) {
      this.shared.removals.push({ rule: span.rule, chars: span.end - span.start });
      cut(pieces, span, MARKER);
    }
    if (apply.length > 0) this.hidden.forget();
    const unreadable = isElement(block) ? this.cutUnreadable(block, apply.length > 0 ? piecesOf(block).pieces : pieces) : 0;
    if (apply.length > 0 || unreadable > 0) texts?.delete(block);
    if (isElement(block)) {
      if (visibleImperative) this.visibleCandidates.add(block);
      else this.visibleCandidates.delete(block);
    }
    if (this.shared.mode() === 'model' && this.shared.env.review !== undefined) {
      const after = apply.length > 0 || unreadable > 0 ? piecesOf(block) : { text, pieces };
      if (isSuspicious(after.text)) {
        // Either puts the placeholder in or applies a cached answer: a write.
        this.reviews.review(block, after.text, after.pieces);
        this.hidden.forget();
      }
    }
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
      if (el.id !== '' && this.shared.doc.querySelector(`[aria-labelledby~="${CSS.escape(el.id)}"]`) !== null) return false;
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
      const controlled = el.id !== '' && this.shared.doc.querySelector(`[aria-controls~="${CSS.escape(el.id)}"],[data-bs-target="#${CSS.escape(el.id)}"],[data-target="#${CSS.escape(el.id)}"]`) !== null;
      if ((OPENABLE_ROLES.has(el.getAttribute('role') ?? '') || controlled) && !el.checkVisibility()) return true;
    }
    return false;
  }

  /** Text a person cannot read inside a block they can (src/sanitizer/dom/hidden.ts unreadableInline) becomes the marker. */
  private cutUnreadable(block: Element, pieces: readonly Piece[]): number {
    const hidden = this.hidden.unreadableInline(block, pieces);
    for (const piece of hidden) {
      this.shared.removals.push({ rule: 'unreadable-text', chars: piece.node.data.trim().length });
      piece.node.data = piece.node.data.replace(/\S[\s\S]*\S|\S/, UNREADABLE_MARKER);
    }
    if (hidden.length > 0) this.hidden.forget();
    return hidden.length;
  }
}
