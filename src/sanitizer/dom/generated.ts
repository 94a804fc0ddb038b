import { findInstructions, MARKER, stripInvisible } from '../text';
import { GENERATED_MARK, GENERATED_PSEUDOS as PSEUDOS, GENERATED_RULES } from '../generated-style';
import type { Hidden } from './hidden';
import { ATTRIBUTES, VISIBILITY_ATTRIBUTES, type Shared } from './shared';

/** A `content` value this short carries no instruction (icons, quotes, counters, clearfix `""`). */
const MIN_GENERATED_CHARS = 12;
const CONTENT_TOKEN = /"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)/g;

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

/**
 * CSS generated content in a document and the shadow roots it watches (src/sanitizer/dom): which
 * stylesheets may draw text, which elements draw an instruction, and our own rule that replaces it.
 */
export class Generated {
  /** Our own rules that replace flagged generated content with the marker (adopted once needed). */
  private generatedSheet: CSSStyleSheet | null = null;
  /** Whether the stylesheets may generate text, as last read (null: read again, they changed). */
  private stylesheetsRead: boolean | null = null;
  /** The user-origin sheet was asked for (src/sanitizer/generated-style.ts). */
  private userSheetAsked = false;
  /** The pseudo-elements this Sanitizer marked on each element: a page that removes the mark gets it back. */
  private readonly generatedMarks = new WeakMap<Element, Set<string>>();
  /**
   * Attributes the stylesheets read with `attr()` in generated content, or test in the selector of a rule
   * that generates text, or — while visible imperative text waits to be rechecked — in any selector
   * (`[data-hide=y] p { color: #fff }` hides it with no record on the text or its class; found by the second
   * Sanitizer review): changes to them are watched.
   */
  readonly contentAttributes = new Set<string>();
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
    private readonly shared: Shared,
    private readonly hidden: Hidden,
    /** The shadow roots being watched (their own stylesheets and elements are read for generated content). */
    private readonly roots: Set<ShadowRoot>,
    private readonly hooks: {
      /** Visible imperative text waits to be rechecked (then every selector's attributes are watched). */
      candidatesWaiting(): boolean;
      /** `contentAttributes` grew: the observer watches them from now on. */
      watchAttributes(): void;
    },
  ) {}

  /** The stylesheets changed: they are read again before generated content is. */
  forgetStylesheets(): void {
    this.stylesheetsRead = null;
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
  generatedContent(elementsToRead: () => ArrayLike<Element>): void {
    // The stylesheets first (read once until they change): most pages generate no text, and then no
    // element list is built at all.
    this.stylesheetsRead ??= this.mayGenerateText();
    if (!this.stylesheetsRead) return;
    const elements = elementsToRead();
    if (elements.length === 0) return;
    const win = this.shared.doc.defaultView;
    if (win === null) return;
    const check = (el: Element) => {
      for (const pseudo of PSEUDOS) {
        const style = win.getComputedStyle(el, pseudo);
        // Animated to an instruction later (`animation: k 1s 2s forwards`): marked now.
        if (this.instructionKeyframes.size > 0 && style.animationName !== 'none' && style.animationName.split(/,\s*/).some((n) => this.instructionKeyframes.has(n))) {
          if (!(this.generatedMarks.get(el)?.has(pseudo.slice(2)) ?? false)) {
            this.replaceGenerated(el, pseudo);
            this.shared.removals.push({ rule: 'generated-content', chars: 0 });
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
        if (spans.length === 0 || (imperativeOnly && !this.hidden.pseudoHidden(el, style, win))) continue;
        this.replaceGenerated(el, pseudo);
        this.shared.removals.push({ rule: 'generated-content', chars: text.length });
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
    const sheets = sheetsOf(this.shared.doc);
    for (const root of this.roots) {
      if (root.host.isConnected) sheets.push(...sheetsOf(root));
      else this.roots.delete(root);
    }
    const attrs = new Set<string>();
    const relational: string[] = [];
    const watchSelectors = this.hooks.candidatesWaiting();
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
      this.hooks.watchAttributes();
    }
    if (generates && !this.userSheetAsked) {
      this.userSheetAsked = true;
      this.shared.env.protectGenerated?.();
    }
    return generates;
  }

  /** Every element of the document and of the shadow roots it watches. */
  allElements(): ArrayLike<Element> {
    const inDocument = this.shared.doc.querySelectorAll('*');
    if (this.roots.size === 0) return inDocument;
    const all: Element[] = Array.from(inDocument);
    for (const root of this.roots) {
      if (!root.host.isConnected) continue;
      const inside = root.querySelectorAll('*');
      for (let i = 0; i < inside.length; i++) all.push(inside[i]!);
    }
    return all;
  }

  /** The elements the relational generating selectors match now (every element when one cannot be matched). */
  matchingRelational(): ArrayLike<Element> {
    if (this.relational.length === 0) return [];
    const found: Element[] = [];
    for (const root of [this.shared.doc, ...this.roots]) {
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
      if (queued || this.shared.mode() === null || this.shared.mode() === 'off') return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        this.shared.batch(() => this.generatedContent(() => this.matchingRelational()));
      });
    };
    for (const type of ['change', 'input', 'click', 'focusin', 'focusout', 'pointerover', 'pointerout', 'toggle', 'animationstart']) this.shared.doc.addEventListener(type, reread, true);
    this.shared.doc.defaultView?.addEventListener('hashchange', reread);
  }

  private replaceGenerated(el: Element, pseudo: (typeof PSEUDOS)[number]): void {
    if (this.generatedSheet === null) {
      const win = this.shared.doc.defaultView as (Window & typeof globalThis) | null;
      if (win === null) return;
      try {
        const sheet = new win.CSSStyleSheet();
        for (const rule of GENERATED_RULES) sheet.insertRule(rule);
        this.shared.doc.adoptedStyleSheets = [...this.shared.doc.adoptedStyleSheets, sheet];
        this.generatedSheet = sheet;
      } catch {
        // A content script that may not adopt a sheet of its own (Firefox's wrappers): a <style> element.
        const style = this.shared.doc.createElement('style');
        style.textContent = GENERATED_RULES.join('\n');
        (this.shared.doc.head ?? this.shared.doc.documentElement).append(style);
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
    // Our sheet adopted, a mark set: styles changed.
    this.hidden.forget();
  }

  /** Puts back the marks this Sanitizer set on `el` (a page that removes or rewrites the attribute gets them again). */
  restoreMarks(el: Element): void {
    const marks = this.generatedMarks.get(el);
    if (marks === undefined) return;
    const present = new Set((el.getAttribute(GENERATED_MARK) ?? '').split(/\s+/).filter((m) => m !== ''));
    if ([...marks].every((m) => present.has(m))) return;
    for (const m of marks) present.add(m);
    el.setAttribute(GENERATED_MARK, [...present].join(' '));
    this.hidden.forget();
  }

}
