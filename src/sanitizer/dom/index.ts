import { GENERATED_MARK } from '../generated-style';
import { Blocks } from './blocks';
import { Generated } from './generated';
import { Hidden } from './hidden';
import { isElement, type Block } from './pieces';
import { Review } from './review';
import { ATTRIBUTES, VISIBILITY_ATTRIBUTES, type Mode, type Removal, type SanitizerEnv, type Shared } from './shared';
import { Walker } from './walker';

export type { Mode, Removal, SanitizerEnv } from './shared';

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
 *
 * Its rooms, one job each: the walker (walker.ts) visits each inserted node once and collects blocks;
 * the blocks (blocks.ts) apply the text rules; hidden.ts says whether a person can see flagged text;
 * generated.ts reads CSS generated content; review.ts is the model mode. This class owns the observer
 * and the batch every change is read in.
 */

/** Rounds of records made during one batch read before the rest is left to the observer's next delivery. */
const SETTLE_ROUNDS = 3;
/** Elements whose insertion changes the page's styles. */
const STYLE_TAGS = new Set(['STYLE', 'LINK']);

export class Sanitizer {
  private mode: Mode | null = null;
  private readonly observer: MutationObserver;
  private readonly observed = new WeakSet<Node>();
  private readonly removals: Removal[] = [];
  /** The shadow roots being watched (their own stylesheets and elements are read for generated content). */
  private readonly roots = new Set<ShadowRoot>();
  private readonly hidden: Hidden;
  private readonly blocks: Blocks;
  private readonly generated: Generated;
  private readonly walker: Walker;

  constructor(
    private readonly doc: Document,
    private readonly env: SanitizerEnv,
  ) {
    this.observer = new MutationObserver((records) => this.onRecords(records));
    const shared: Shared = { doc, env, removals: this.removals, mode: () => this.mode, batch: (work) => this.batch(work) };
    /** Each watched shadow root by its host (reading a run of blocks across a shadow boundary asks no native call). */
    const hostRoots = new WeakMap<Element, ShadowRoot>();
    const hidden = (this.hidden = new Hidden(doc));
    this.blocks = new Blocks(shared, hidden, new Review(shared), hostRoots);
    this.generated = new Generated(shared, hidden, this.roots, {
      candidatesWaiting: () => this.blocks.candidatesWaiting(),
      watchAttributes: () => {
        const options = this.observerOptions();
        this.observer.observe(this.doc, options);
        for (const root of this.roots) this.observer.observe(root, options);
      },
    });
    this.walker = new Walker(shared, this.blocks, this.generated, (root) => this.observe(root), this.roots, hostRoots);
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
    // At load, only when something may have changed since the DOMContentLoaded pass (`changedSinceRefresh`):
    // on a page that ran nothing and loaded nothing meanwhile, the pass would read the same page again
    // (two passes over every element and every candidate, ≈ a tenth of the Sanitizer's page cost at 20k
    // elements). A page that hides text later by a path no record, event or hook reports (a foreign
    // native's CSSOM) can do it after load just as well, where no pass runs.
    this.doc.defaultView?.addEventListener('load', () => {
      if (this.changedSinceRefresh) refresh();
    });
    // What changes styles or boxes with no mutation record: a subresource that loaded or failed (an image
    // takes its size), a web font, the viewport.
    const changed = () => {
      this.changedSinceRefresh = true;
    };
    this.doc.addEventListener('error', changed, true);
    this.doc.defaultView?.addEventListener('resize', changed);
    this.doc.fonts?.addEventListener?.('loadingdone', changed);
    // Styles that change later without a mutation record on the text: a stylesheet link that finished
    // loading, an animation or transition that ended (a delayed fade to opacity 0). Capture: these events
    // do not bubble.
    const restyled = (event: Event) => {
      this.changedSinceRefresh = true;
      if (event.type === 'load' && (event.target as Element | null)?.tagName !== 'LINK') return;
      if (this.mode !== null && this.mode !== 'off')
        this.batch(() => {
          this.blocks.recheckCandidates(this.doc);
          if (event.type === 'load') {
            this.generated.forgetStylesheets();
            this.generated.generatedContent(() => this.generated.allElements());
          }
        });
    };
    // An animation that starts or repeats later (`animation: fade 1s 2s infinite`, which never ends) too.
    for (const type of ['load', 'animationstart', 'animationiteration', 'animationend', 'transitionend']) this.doc.addEventListener(type, restyled, true);
  }

  /** The mode from the background: the whole document so far is processed now, then every mutation. */
  configure(mode: Mode): void {
    this.mode = mode;
    this.changedSinceRefresh = true;
    if (mode === 'off') {
      this.observer.disconnect();
      return;
    }
    this.batch(() => this.walker.scan(this.doc));
  }

  /**
   * A shadow root was just attached to `host` (announced by the MAIN hook on `attachShadow`): no mutation
   * record reports it, so it is watched and read from now on.
   */
  shadowAttached(host: Element): void {
    this.changedSinceRefresh = true;
    if (this.mode !== null && this.mode !== 'off') this.batch(() => this.walker.host(host));
  }

  private stylesQueued = false;
  /** The page may have changed since the last DOMContentLoaded/load pass (or none ran yet). */
  private changedSinceRefresh = true;

  /**
   * Rules changed through the CSSOM (announced by the MAIN hooks: `insertRule`, `replaceSync`, an
   * `adoptedStyleSheets` assignment), which make no mutation record (found by the second Sanitizer review:
   * generated text a rule added, and visible imperative text a rule turned white, reached the agent). Read
   * once per task, in a microtask (a sheet filled and then adopted is read adopted): visible imperative text
   * is checked again and, once parsed, generated content read.
   */
  stylesChanged(): void {
    this.changedSinceRefresh = true;
    if (this.stylesQueued || this.mode === null || this.mode === 'off') return;
    this.stylesQueued = true;
    queueMicrotask(() => {
      this.stylesQueued = false;
      if (this.mode === null || this.mode === 'off') return;
      this.batch(() => {
        this.blocks.recheckCandidates(this.doc);
        if (this.doc.readyState === 'loading') return;
        this.generated.forgetStylesheets();
        this.generated.generatedContent(() => this.generated.allElements());
      });
    });
  }

  /** Stops watching (the content script's context ended; tests). */
  stop(): void {
    this.mode = 'off';
    this.observer.disconnect();
  }

  /** The observer watches `root` from now on; false when it already did. */
  private observe(root: Node): boolean {
    if (this.observed.has(root)) return false;
    this.observed.add(root);
    this.observer.observe(root, this.observerOptions());
    return true;
  }

  private observerOptions(): MutationObserverInit {
    return { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: [...ATTRIBUTES, ...VISIBILITY_ATTRIBUTES, 'value', 'id', 'aria-labelledby', GENERATED_MARK, ...this.generated.contentAttributes] };
  }

  private onRecords(records: MutationRecord[]): void {
    this.changedSinceRefresh = true;
    if (this.mode === null || this.mode === 'off') return;
    this.batch(() => this.process(records));
  }

  private process(records: readonly MutationRecord[]): void {
    const blocks = new Set<Block>();
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
          this.walker.scanNode(node, blocks, visited);
        }
        if ((record.target as Element).tagName === 'STYLE') stylesChanged = true;
        if ((record.target as Element).tagName === 'TEXTAREA') this.blocks.inputValue(record.target as Element);
      } else if (record.type === 'characterData') {
        if (record.target.parentElement?.tagName === 'STYLE') stylesChanged = true;
        if (record.target.parentElement?.tagName === 'TEXTAREA') this.blocks.inputValue(record.target.parentElement);
        this.walker.scanNode(record.target, blocks, visited);
      } else if (record.type === 'attributes' && isElement(record.target)) {
        const name = record.attributeName ?? '';
        if (name === GENERATED_MARK) this.generated.restoreMarks(record.target);
        else if (name === 'aria-labelledby') this.blocks.label(record.target);
        else {
          if ((ATTRIBUTES as readonly string[]).includes(name)) this.blocks.attribute(record.target, name);
          else if (name === 'value') this.blocks.inputValue(record.target);
          else this.blocks.recheckCandidates(record.target);
          if (name !== 'value') restyled.set(record.target, name);
        }
      }
    }
    this.blocks.read(blocks);
    // A stylesheet added or edited after the blocks were read may hide the visible imperative text they kept.
    if (stylesChanged) this.blocks.recheckCandidates(this.doc);
    // Generated content needs computed styles: read once the document is parsed (refresh), then for what
    // is added or restyled later.
    if (this.doc.readyState !== 'loading') {
      if (stylesChanged) this.generated.forgetStylesheets();
      this.generated.generatedContent(() => {
        if (stylesChanged) return this.generated.allElements();
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
          const related = this.generated.matchingRelational();
          for (let i = 0; i < related.length; i++) added.push(related[i]!);
        }
        return added;
      });
    }
    this.walker.recheckHosts();
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
    // What was read of the page before this batch is stale (the page ran since); so is what a round read
    // once records say the page changed again.
    this.hidden.forget();
    this.blocks.pageRan();
    try {
      if (pending.length > 0) this.process(pending);
      work();
      this.blocks.readLabels();
      for (let round = 0; round < SETTLE_ROUNDS; round++) {
        const made = this.observer.takeRecords();
        if (made.length === 0) break;
        this.hidden.forget();
        this.blocks.pageRan();
        this.process(made);
        this.blocks.readLabels();
      }
    } finally {
      this.hidden.forget();
      if (this.removals.length > 0) this.env.report(this.removals.splice(0));
    }
  }

  /** The blocks whose verdict depends on styles, read again; shadow roots attached since, found and read. */
  private refresh(): void {
    this.changedSinceRefresh = false;
    // Names joined from elements parsed after the element that names itself with them.
    for (const root of [this.doc, ...this.roots]) {
      const named = root.querySelectorAll('[aria-labelledby*=" "]');
      for (let i = 0; i < named.length; i++) this.blocks.label(named[i]!);
    }
    this.blocks.recheckCandidates(this.doc);
    this.walker.discoverHosts(this.doc);
    this.walker.recheckHosts();
    this.generated.forgetStylesheets();
    this.generated.generatedContent(() => this.generated.allElements());
  }
}
