import { blockOf, INLINE, SKIP, skipped, type Block } from './pieces';
import type { Blocks } from './blocks';
import type { Generated } from './generated';
import { ATTRIBUTES, type Shared } from './shared';

/**
 * The built-in elements that can host a shadow root (DOM standard, "valid shadow host name"; declarative
 * shadow roots too); any other can only if it is a custom element (a name with a hyphen). Every other
 * element is never asked for one: `chrome.dom.openOrClosedShadowRoot` is a native call per element.
 */
const SHADOW_HOSTS = ['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span'];
const SHADOW_HOST_TAGS = new Set(SHADOW_HOSTS.map((t) => t.toUpperCase()));

/**
 * The descent over what the parser and the page insert (src/sanitizer/dom): one visit per node cleans
 * comments and attributes and collects the blocks to read; shadow roots (closed ones through
 * `chrome.dom`) and `<template>` contents are found on the way and watched.
 */
export class Walker {
  /** Custom elements that had no shadow root yet (upgraded later). */
  private readonly pendingHosts = new Set<Element>();

  constructor(
    private readonly shared: Shared,
    private readonly blocks: Blocks,
    private readonly generated: Generated,
    /** The observer watches `root` from now on; false when it already did. */
    private readonly observe: (root: Node) => boolean,
    /** The shadow roots being watched, and each by its host. */
    private readonly roots: Set<ShadowRoot>,
    private readonly hostRoots: WeakMap<Element, ShadowRoot>,
  ) {}

  /** Reads `root` (a document, a shadow root) whole. */
  scan(root: Node): void {
    const blocks = new Set<Block>();
    this.scanNode(root, blocks, new Set());
    this.blocks.read(blocks);
  }

  /** Shadow roots under `root` and in the roots it hosts (and in `<template>` contents): new ones are watched and read. */
  discoverHosts(root: Document | DocumentFragment): void {
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
  scanNode(node: Node, blocks: Set<Block>, visited: Set<Node>): void {
    if (visited.has(node)) return;
    // Descent never enters a SKIP element, so a text node under `node` is skipped exactly when `node` is.
    const inSkipped = skipped(node);
    // Each DOM read is a binding call, and this runs for every node the parser inserts: the block a text
    // node belongs to is handed down the descent (what blockOf would find walking up from each one), and
    // a node's type and an element's tag are read once.
    const visit = (n: Node, block: Block | null) => {
      if (visited.has(n)) return;
      const type = n.nodeType;
      const tag = type === 1 ? (n as Element).tagName : '';
      // Not marked visited: `visited` holds the nodes whose whole subtree this batch read.
      if (SKIP.has(tag)) {
        if (tag === 'TEXTAREA') this.blocks.inputValue(n as Element);
        return;
      }
      visited.add(n);
      if (type === 3) {
        if (!inSkipped && block !== null) blocks.add(block);
        return;
      }
      if (type === 8) {
        this.blocks.comment(n as Comment);
        return;
      }
      /** The block of this node's text children: itself, unless it is inline (then its own block). */
      let inner: Block | null = type === 11 ? (n as DocumentFragment) : null;
      if (type === 1) {
        const element = n as Element;
        if (element.hasAttributes()) {
          // One call for the names (most elements have one or two), not one per attribute read as text.
          const names = element.getAttributeNames();
          for (const name of ATTRIBUTES) if (names.includes(name)) this.blocks.attribute(element, name);
          if (tag === 'INPUT') this.blocks.inputValue(element);
          if (names.includes('aria-labelledby')) this.blocks.label(element);
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
  host(element: Element, tag = element.tagName): ShadowRoot | null {
    const custom = tag.includes('-');
    if (!custom && !SHADOW_HOST_TAGS.has(tag)) return null;
    const root = this.shared.env.shadowRootOf(element);
    if (root !== null) {
      this.pendingHosts.delete(element);
      if (this.observe(root)) {
        this.roots.add(root);
        this.hostRoots.set(element, root);
        this.scan(root);
        // Its own stylesheets may generate text (found by the data-lane review: a shadow root's
        // `p::before { content: "…" }` reached the aria snapshot); read like the document's once parsed.
        if (this.shared.doc.readyState !== 'loading') {
          this.generated.forgetStylesheets();
          this.generated.generatedContent(() => root.querySelectorAll('*'));
        }
      }
    } else if (custom) this.pendingHosts.add(element);
    return root;
  }

  recheckHosts(): void {
    for (const element of [...this.pendingHosts]) {
      if (!element.isConnected) this.pendingHosts.delete(element);
      else this.host(element);
    }
  }
}
