import { tokensInText } from '../taint/extract';
import { canonical, MAX_DISPLAYED_PER_SITE, MAX_OVERFLOW_PER_SITE, MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH } from '../taint/kinds';
import type { Send, TaintReport } from '../messages/protocol';

/**
 * The data-lane taint collector (ISOLATED world, every frame, from document_start). It records session
 * data as the page holds it or the agent types it, and reports batches to the background, which keeps
 * them for the task only when this tab is guarded (it ignores reports otherwise). Page script cannot
 * reach this world's listeners or its channel to the background, so a page can add junk (bounded by the
 * background's per-site quota) but cannot remove or hide what was recorded.
 *
 *  - typed values: password and one-time-code fields (4+ characters) as `secret-field`; e-mail,
 *    telephone, text, search fields and text areas as `typed` (e-mail any length, the rest 6+ letters
 *    and digits, so short words do not taint ordinary URLs), once the value settles or on change;
 *  - held data, through `tokensInText` (codes, cards, IBANs, e-mail addresses, keys): whatever the
 *    document and its storage give any script that reads them, shown or not (without the page hooks a
 *    page script or the agent reads it and loads it in a URL; 2026-12-03 red team):
 *     - text nodes (initial parse and every later insertion, through one MutationObserver), also those
 *       of open shadow roots (observed too, found when their host is read and, for those attached
 *       later, by a look through the document at most once a second) and of template contents;
 *     - attribute values (meta content, data-*, title, alt, aria-*, value, …; any attribute, at insertion
 *       and when it changes) but those that hold URLs, style, class names, ids, handlers or SVG geometry
 *       (see SKIPPED_ATTRIBUTES), and any value that is itself a URL: a page's own dependency URLs carry
 *       content hashes, and a hash recorded as taint would refuse the page's own assets on its CDN;
 *     - the text of data scripts (application/json, ld+json, text/template …; not JavaScript, import
 *       maps or speculation rules, which are code and URLs) and the strings of `content:` declarations
 *       in <style> elements (what CSS shows as generated content);
 *     - input values the page pre-filled;
 *     - document.cookie (not HttpOnly cookies: no script reads those), localStorage and sessionStorage
 *       values, re-read at every flush (a string compare for the cookie, one value compare per key):
 *       a storage event fires only in the other documents of the origin, and a write hook would need
 *       the MAIN world this build may lack.
 *   Bounded CPU: at most SCAN_BUDGET characters per reading (from its first node to the report that ends
 *   it) and MAX_SHOWN shown tokens per document; a long text is read in overlapping windows of CHUNK
 *   characters (a token never falls between two), so its end counts as much as its start. Off the page
 *   load: the parsed document is read for PARSED_SLICE_MS at DOMContentLoaded and the rest in idle slices
 *   (the observer's records too); `flush` reads all that is left, so a proposal leaves knowing everything
 *   the frame showed before it.
 *
 * Not read: generated content a stylesheet gives through the CSSOM (insertRule) or a linked stylesheet
 * (getComputedStyle per element and pseudo-element would force a style recalculation of every
 * element), closed shadow roots (page script holds them alone), and a storage write followed by no
 * change to the document (read at the next flush: the next mutation, input, proposal or pagehide).
 */

export type SendReport = Send<'taint.report'>;

const FLUSH_MS = 150;
const SCAN_BUDGET = 300_000;
/** Text handed to tokensInText at once (its token limit is per call); a longer text is cut in windows overlapping by a token's length. */
const CHUNK = 10_000;
const MAX_BATCH = 100;
/** Shown tokens reported per document: the background keeps no more for one site (field and typed values are not counted). */
const MAX_SHOWN = MAX_DISPLAYED_PER_SITE + MAX_OVERFLOW_PER_SITE;
/** How often a flush looks through the whole document for shadow roots attached after their host was read. */
const SHADOW_SCAN_MS = 1_000;
const SKIPPED_PARENTS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
/**
 * Attributes whose values are not session data the page holds but its structure: URLs (a page's own
 * asset URLs carry content hashes that would refuse its CDN), style and class names (generated class
 * hashes), ids and names, handlers (code), integrity hashes and nonces, SVG geometry (digit runs).
 */
const SKIPPED_ATTRIBUTES = new Set([
  'href', 'src', 'srcset', 'imagesrcset', 'action', 'formaction', 'poster', 'cite', 'data', 'codebase', 'background', 'longdesc', 'manifest', 'ping', 'xlink:href', 'srcdoc',
  'style', 'class', 'id', 'for', 'form', 'name', 'slot', 'part', 'is', 'rel', 'type', 'lang', 'dir', 'role', 'integrity', 'nonce',
  'd', 'points', 'viewbox', 'transform', 'path', 'x', 'y', 'x1', 'x2', 'y1', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'width', 'height', 'fill', 'stroke', 'offset', 'stop-color', 'gradienttransform',
]);
/** A value that is itself a URL (absolute, scheme-relative or rooted at the site). */
const URL_VALUE = /^\s*(?:[a-z][a-z0-9+.-]*:\/\/|\/\/|\/(?!\/)\S*$|data:|blob:)/i;
/** Script types that run (JavaScript) or are URLs: every other type is data a script reads. */
const CODE_SCRIPT_TYPES = /^(?:|module|importmap|speculationrules|(?:text|application)\/(?:x-)?(?:java|ecma)script|text\/(?:jscript|livescript)|text\/javascript1\.[0-5])$/i;
const CSS_CONTENT = /content\s*:\s*(["'])((?:\\.|(?!\1)[^\\])*)\1/gi;
const TYPED_INPUTS = new Set(['text', 'search', 'email', 'tel', 'url', 'number', '']);
const OTP_NAME = /otp|one.?time|2fa|totp|mfa|verification|passcode|security.?code/i;
/** The shortest value any taint shape can have (six digits): shorter attribute values are not read. */
const SHORTEST = 6;

type Token = TaintReport['tokens'][number];

function fieldToken(el: Element): Token | null {
  if (el instanceof HTMLInputElement) {
    const type = el.type.toLowerCase();
    const value = el.value.trim().slice(0, MAX_TOKEN_LENGTH);
    const secret = type === 'password' || el.autocomplete === 'one-time-code' || OTP_NAME.test(`${el.name} ${el.id}`);
    if (secret) return value.length >= MIN_TOKEN_LENGTH ? { value, kind: 'secret-field' } : null;
    if (!TYPED_INPUTS.has(type)) return null;
    if (type === 'email') return value.length >= MIN_TOKEN_LENGTH ? { value, kind: 'typed' } : null;
    return canonical(value).length >= 6 ? { value, kind: 'typed' } : null;
  }
  if (el instanceof HTMLTextAreaElement) {
    const value = el.value.trim().slice(0, MAX_TOKEN_LENGTH);
    return canonical(value).length >= 6 ? { value, kind: 'typed' } : null;
  }
  return null;
}

/** Whether an attribute's value is data the page holds (see SKIPPED_ATTRIBUTES). */
export function isDataAttribute(name: string, value: string): boolean {
  const n = name.toLowerCase();
  return value.length >= SHORTEST && !SKIPPED_ATTRIBUTES.has(n) && !n.startsWith('on') && !URL_VALUE.test(value);
}

/** The collector's handle: `flush` reports what is pending now (before a proposal leaves, so the taint is ahead of it). */
export interface TaintCollector {
  flush(): void;
}

/** One flush's reading: text in, tokens out, within the flush's budget. */
class Scan {
  left = SCAN_BUDGET;
  private buffer = '';

  constructor(private readonly found: (token: Token) => void) {}

  add(text: string): void {
    if (this.left <= 0 || text.length < SHORTEST || text.trim().length === 0) return;
    const taken = text.slice(0, this.left);
    this.left -= taken.length;
    if (taken.length > CHUNK) {
      this.end();
      for (let at = 0; ; at += CHUNK - MAX_TOKEN_LENGTH) {
        this.tokens(taken.slice(at, at + CHUNK));
        if (at + CHUNK >= taken.length) break;
      }
      return;
    }
    if (this.buffer.length + taken.length > CHUNK) this.end();
    this.buffer = this.buffer === '' ? taken : `${this.buffer}\n${taken}`;
  }

  end(): void {
    if (this.buffer !== '') this.tokens(this.buffer);
    this.buffer = '';
  }

  private tokens(text: string): void {
    for (const token of tokensInText(text)) this.found(token);
  }
}

/**
 * The elements that can host a shadow root (DOM standard, "valid shadow host name"), besides custom
 * elements (a hyphen in the name): no other element is asked for one (a binding call per element).
 */
const SHADOW_HOSTS = new Set(['ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'DIV', 'FOOTER', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'MAIN', 'NAV', 'P', 'SECTION', 'SPAN']);
/** Work of one idle slice at most (ms): the rest waits for the next idle period. */
const SLICE_MS = 5;
/** What the DOMContentLoaded slice reads at once (ms): a small page whole, a large one's start (the rest in idle slices). */
const PARSED_SLICE_MS = 2;
/** Nodes read between two looks at the clock. */
const CLOCK_EVERY = 32;
/** Node types (Node.ELEMENT_NODE …), as literals: a global's property read per node otherwise. */
const ELEMENT = 1;
const TEXT = 3;
const DOCUMENT = 9;
const FRAGMENT = 11;

type Idle = { requestIdleCallback?(fn: (deadline: { timeRemaining(): number; didTimeout: boolean }) => void, options?: { timeout: number }): number };

export function installTaintCollector(win: Window, send: SendReport): TaintCollector {
  const doc = win.document;
  const installed = performance.now();
  const reported = new Set<string>();
  /** Nodes whose subtrees are still to be read, the next on top: the document's walk and what was inserted since. */
  const stack: Node[] = [];
  /** Nodes the observer reported, not yet on the stack. */
  const incoming: Node[] = [];
  const pendingAttributes: Attr[] = [];
  const pendingTokens: Token[] = [];
  const shadowRoots = new WeakSet<ShadowRoot>();
  /** The shadow roots in the document now, searched for shadow roots attached later (the WeakSet: every one ever observed). */
  const liveRoots = new Set<ShadowRoot>();

  let shown = 0;
  const queue = (token: Token) => {
    const key = `${token.kind}|${token.value}`;
    const typed = token.kind === 'secret-field' || token.kind === 'typed';
    if (reported.has(key) || (!typed && shown >= MAX_SHOWN)) return;
    if (!typed) shown++;
    reported.add(key);
    pendingTokens.push(token);
  };

  /** What an element holds itself (attributes, a data script's text, a style sheet's strings, a value); whether its children are read as text. */
  const readElement = (el: Element, scan: Scan): boolean => {
    if (el.hasAttributes()) {
      // The names first: most attributes are skipped by name, and their values are never read.
      for (const name of el.getAttributeNames()) {
        if (SKIPPED_ATTRIBUTES.has(name) || name.startsWith('on')) continue;
        const value = el.getAttribute(name);
        if (value !== null && isDataAttribute(name, value)) scan.add(value);
      }
    }
    const tag = el.tagName;
    if (SKIPPED_PARENTS.has(tag)) {
      if (tag === 'SCRIPT') {
        if (!CODE_SCRIPT_TYPES.test((el.getAttribute('type') ?? '').trim())) scan.add(el.textContent ?? '');
      } else if (tag === 'STYLE') for (const m of (el.textContent ?? '').matchAll(CSS_CONTENT)) scan.add(m[2]!);
      else if (tag === 'TEMPLATE') stack.push((el as HTMLTemplateElement).content);
      return false;
    }
    if (tag === 'INPUT') scan.add((el as HTMLInputElement).value.slice(0, MAX_TOKEN_LENGTH));
    else if (!SHADOW_HOSTS.has(tag) && !tag.includes('-')) return true;
    const shadow = el.shadowRoot;
    if (shadow === null) return true;
    if (!shadowRoots.has(shadow)) {
      watchRoot(shadow);
      stack.push(shadow);
    } else liveRoots.add(shadow); // back in the document: its changes were observed meanwhile
    return true;
  };

  /**
   * Reads the stack until it is empty (true) or `deadline` (performance.now()) has passed (false). The
   * text nodes on it are shown text (those under scripts, styles and templates are never pushed).
   */
  const readStack = (scan: Scan, deadline: number): boolean => {
    for (let count = 0; stack.length > 0; count++) {
      if (scan.left <= 0) {
        stack.length = 0;
        break;
      }
      if (count % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() >= deadline) return false;
      const node = stack.pop()!;
      const type = node.nodeType;
      if (type === TEXT) {
        scan.add((node as Text).data);
        continue;
      }
      if (type === ELEMENT) {
        if (!readElement(node as Element, scan)) continue;
      } else if (type !== FRAGMENT && type !== DOCUMENT) continue;
      // Children pushed last first, so the page is read in document order.
      for (let child = node.lastChild; child !== null; child = child.previousSibling) {
        const t = child.nodeType;
        if (t === ELEMENT || t === TEXT) stack.push(child);
      }
    }
    return true;
  };

  /**
   * The observer's nodes onto the stack. The parser reports an element and then each of its descendants:
   * a node under another reported node is read with it, not once more per ancestor. A text node of a data
   * script or a style sheet stands for its element (what it holds now); one of a template or noscript is none.
   */
  const takeIncoming = () => {
    if (incoming.length === 0) return;
    const nodes = incoming.splice(0);
    const pending = new Set(nodes);
    const coveredByAncestor = (node: Node) => {
      for (let p = node.parentNode; p !== null; p = p.parentNode) if (pending.has(p)) return true;
      return false;
    };
    for (let i = nodes.length - 1; i >= 0; i--) {
      let node = nodes[i]!;
      if (coveredByAncestor(node)) continue;
      if (node.nodeType === Node.TEXT_NODE) {
        const parent = node.parentElement;
        if (parent !== null && SKIPPED_PARENTS.has(parent.tagName)) {
          if (parent.tagName !== 'SCRIPT' && parent.tagName !== 'STYLE') continue;
          node = parent;
        }
      }
      stack.push(node);
    }
  };

  // Shown text: everything the parser and scripts insert, from document_start on. Until the document's
  // walk starts (in idle time, at DOMContentLoaded or at an earlier flush) the whole document is pending
  // (read then, as it is), so the parser's insertions need no entry each; what is removed before the walk
  // has read it is kept for it instead (it was shown meanwhile).
  let wholeDocumentPending = true;
  /** The document's walk is under way: nodes removed now may not have been read yet. */
  let walking = false;
  /** A record made since the walk started. */
  const collect = (record: MutationRecord) => {
    if (record.type === 'attributes') {
      const attr = (record.target as Element).getAttributeNode(record.attributeName ?? '');
      if (attr !== null && isDataAttribute(attr.name, attr.value)) pendingAttributes.push(attr);
    } else if (record.type === 'characterData') incoming.push(record.target);
    else {
      if (walking) for (let i = 0; i < record.removedNodes.length; i++) incoming.push(record.removedNodes[i]!);
      for (let i = 0; i < record.addedNodes.length; i++) incoming.push(record.addedNodes[i]!);
    }
  };
  /**
   * The observer's records, in order, each list marked early when it was made before the walk started (the
   * parser's, one per node: only what they removed counts, the rest is in the document the walk reads).
   */
  const records: { list: MutationRecord[]; early: boolean }[] = [];
  let recordAt = 0;
  /** Reads the records `CLOCK_EVERY` at a time until `deadline`; true when none is left. */
  const collectRecords = (deadline: number): boolean => {
    while (records.length > 0) {
      const { list, early } = records[0]!;
      for (; recordAt < list.length; recordAt++) {
        if (recordAt % CLOCK_EVERY === CLOCK_EVERY - 1 && performance.now() >= deadline) return false;
        const record = list[recordAt]!;
        if (!early) collect(record);
        else {
          // An attribute or text change has no removed nodes (a text node changed once removed was reported removed).
          const removed = record.removedNodes;
          for (let i = 0; i < removed.length; i++) incoming.push(removed[i]!);
        }
      }
      records.shift();
      recordAt = 0;
    }
    return true;
  };

  // The storage values as last read, so a flush reads again only what changed.
  let cookieRead = '';
  const storageRead = new Map<string, string>();
  const readStorage = (scan: Scan) => {
    try {
      const cookie = doc.cookie;
      if (cookie !== cookieRead) {
        for (const pair of cookie.split(';')) scan.add(pair.slice(pair.indexOf('=') + 1));
        cookieRead = cookie;
      }
    } catch {
      // An opaque origin (sandboxed frame) has no cookies.
    }
    for (const [label, area] of [['l', () => win.localStorage], ['s', () => win.sessionStorage]] as const) {
      try {
        const storage = area();
        for (let i = 0; i < storage.length && scan.left > 0; i++) {
          const key = storage.key(i);
          const value = key === null ? null : storage.getItem(key);
          if (key === null || value === null || storageRead.get(`${label}|${key}`) === value) continue;
          scan.add(value);
          storageRead.set(`${label}|${key}`, value);
        }
      } catch {
        // Storage denied (sandboxed frame, blocked third-party storage): nothing a script there reads either.
      }
    }
  };

  /** Shadow roots attached after their host was read (a custom element upgraded later): found at each flush. */
  let lastShadowScan = -Infinity;
  const newShadowRoots = (): ShadowRoot[] => {
    const found: ShadowRoot[] = [];
    // A root whose host left the document is not searched (nor kept alive here); readElement puts it back.
    for (const shadow of liveRoots) if (!shadow.host.isConnected) liveRoots.delete(shadow);
    for (const scope of [doc, ...liveRoots]) {
      const elements = scope.querySelectorAll('*');
      for (let i = 0; i < elements.length; i++) {
        const shadow = elements[i]!.shadowRoot;
        if (shadow !== null && !shadowRoots.has(shadow)) found.push(shadow);
      }
    }
    return found;
  };

  /** The reading under way: one budget from the first node it reads to the report that ends it. */
  let scan: Scan | null = null;
  const report = () => {
    while (pendingTokens.length > 0) {
      const tokens = pendingTokens.splice(0, MAX_BATCH);
      void send({ type: 'taint.report', tokens }).catch(() => undefined);
    }
  };

  /**
   * Reads what is pending until `deadline`: true when all of it was read and reported. What it found is
   * reported either way, so the floor learns the start of a large page before the rest is read.
   */
  const work = (deadline: number): boolean => {
    // The walk starts once the document is parsed, at a flush, or FLUSH_MS into a long parse (a page that
    // streams): earlier idle slices read only the parser's records, so most pages are walked once, whole.
    records.push({ list: observer.takeRecords(), early: wholeDocumentPending });
    if (wholeDocumentPending && (deadline === Infinity || doc.readyState !== 'loading' || performance.now() - installed >= FLUSH_MS)) {
      wholeDocumentPending = false;
      // The document element as it is now (a page may have replaced it).
      if (doc.documentElement !== null) {
        stack.unshift(doc.documentElement);
        walking = true;
      }
    }
    // Before the walk: only the parser's records, until more come (the observer asks for the next slice).
    if (wholeDocumentPending) return collectRecords(deadline);
    scan ??= new Scan(queue);
    let done = collectRecords(deadline);
    takeIncoming();
    done &&= readStack(scan, deadline);
    if (done) {
      walking = false;
      for (const attr of pendingAttributes.splice(0)) scan.add(attr.value);
      // O(elements): at most once a SHADOW_SCAN_MS (the document's walk meets every root there is then).
      const now = Date.now();
      if (now - lastShadowScan >= SHADOW_SCAN_MS) {
        const first = lastShadowScan === -Infinity;
        lastShadowScan = now;
        if (!first) {
          for (const shadow of newShadowRoots()) {
            watchRoot(shadow);
            stack.push(shadow);
          }
          done = readStack(scan, deadline);
        }
      }
    }
    if (done) {
      readStorage(scan);
      scan.end();
      scan = null;
    } else scan.end();
    report();
    return done;
  };

  /**
   * Everything pending, read and reported now: before a proposal leaves (so the background decides it
   * knowing all the frame showed so far), on a change and at pagehide. It pays for what idle time left.
   */
  const flush = () => {
    cancelIdle();
    work(Infinity);
  };

  // Idle slices: the reading a page load or a burst of insertions leaves waits for idle time (or, on a page
  // that is never idle, FLUSH_MS at most), SLICE_MS at a time.
  const idle = (win as Window & Idle).requestIdleCallback?.bind(win);
  let handle: { cancel(): void } | null = null;
  const cancelIdle = () => {
    handle?.cancel();
    handle = null;
  };
  const slice = (remaining: number) => {
    handle = null;
    if (!work(performance.now() + Math.max(1, Math.min(SLICE_MS, remaining)))) soon();
  };
  const soon = () => {
    if (handle !== null) return;
    if (idle !== undefined) {
      // A callback the timeout forced (a busy page) has no idle time left, and takes a whole slice.
      const id = idle((deadline) => slice(deadline.didTimeout ? SLICE_MS : deadline.timeRemaining()), { timeout: FLUSH_MS });
      handle = { cancel: () => win.cancelIdleCallback(id) };
    } else {
      const id = setTimeout(() => slice(SLICE_MS), FLUSH_MS);
      handle = { cancel: () => clearTimeout(id) };
    }
  };

  // Typed values: on input (settled by the flush delay) and on change.
  const onField = (event: Event) => {
    // What the agent types arrives as trusted events; a page's own dispatched ones could flood the task's
    // taint with junk "typed secrets" and push out what was shown and typed before.
    if (!event.isTrusted) return;
    const target = event.composedPath()[0];
    if (!(target instanceof Element)) return;
    const token = fieldToken(target);
    if (token === null) return;
    queue(token);
    if (event.type === 'change') flush();
    else soon();
  };
  win.addEventListener('input', onField, true);
  win.addEventListener('change', onField, true);
  // Another document of the origin wrote storage (this one's own writes fire nothing: read at each flush).
  win.addEventListener('storage', soon);

  // The observer's records are read when the reading is (idle time, a flush), not as they are delivered:
  // the parser makes one per node, delivered between its chunks, so reading them then is page-load time.
  const observer = new MutationObserver((list) => {
    records.push({ list, early: wholeDocumentPending });
    soon();
  });
  const OBSERVED: MutationObserverInit = { childList: true, subtree: true, characterData: true, attributes: true };
  const watchRoot = (shadow: ShadowRoot) => {
    shadowRoots.add(shadow);
    liveRoots.add(shadow);
    observer.observe(shadow, OBSERVED);
  };
  observer.observe(doc, OBSERVED);
  soon();
  // The parsed document's start at once, not a flush delay later: without the page hooks the floor learns
  // the page's data only from these reports, and a script may load a URL as soon as the document is parsed.
  // A small page is read whole here; a large one's rest in idle slices (a proposal pays for what is left).
  doc.addEventListener('DOMContentLoaded', () => {
    cancelIdle();
    if (!work(performance.now() + PARSED_SLICE_MS)) soon();
  });
  win.addEventListener('pagehide', flush);
  return { flush };
}
