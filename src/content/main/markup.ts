import { cssUrls, loadAttribute, loadAttributeNames, type LoadAttribute } from '../loads';
import type { PageWindow } from './channel';
import type { ElementLoads } from './elements';
import type { LoadGate } from './gate';
import { invoke, type Natives } from './natives';

/**
 * Markup a page turns into elements: `innerHTML`/`outerHTML`/`setHTMLUnsafe` (elements and shadow
 * roots), `insertAdjacentHTML`, `Range.createContextualFragment`, `DOMParser.parseFromString` and
 * `Document.parseHTMLUnsafe`. The markup is parsed first where nothing loads (a `<template>`'s inert
 * content, or the DOMParser's own document, which has no browsing context); every attribute that would
 * load a cross-origin URL (and every `<style>` whose text does) is moved into HOLD_ATTRIBUTE, so the
 * inserted elements start no load; then each held value goes through the load gate and is set back on
 * ALLOW — at once for markup set into an element, when the nodes enter the document (a MutationObserver
 * on the document and on every shadow root) for fragments and parsed documents, which a page may clone
 * first. Markup without such URLs is passed on unchanged.
 */
export const HOLD_ATTRIBUTE = 'data-agentsfence-hold';

const STYLE_TEXT = '#text';
const STYLE_LOAD: LoadAttribute = { kind: 'other', syntax: 'css' };
const RAW_TEXT = new Set(['style', 'script', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

export function hookMarkup(win: PageWindow, n: Natives, gate: LoadGate, elements: ElementLoads): void {
  const { getOwnPropertyDescriptor, defineProperty } = Reflect;
  const element = win.Element.prototype;
  const getterOf = (proto: object, name: string) => getOwnPropertyDescriptor(proto, name)?.get;
  const innerHtml = getOwnPropertyDescriptor(element, 'innerHTML');
  const shadowInnerHtml = getOwnPropertyDescriptor(win.ShadowRoot.prototype, 'innerHTML');
  const outerHtml = getOwnPropertyDescriptor(element, 'outerHTML');
  const localNameOf = getterOf(element, 'localName');
  const templateContent = getterOf(win.HTMLTemplateElement.prototype, 'content');
  const textContent = getOwnPropertyDescriptor(win.Node.prototype, 'textContent');
  const parentNodeOf = getterOf(win.Node.prototype, 'parentNode');
  const { querySelectorAll } = win.DocumentFragment.prototype;
  const elementQuerySelectorAll = element.querySelectorAll;
  const documentQuerySelectorAll = win.Document.prototype.querySelectorAll;
  const { getAttribute, hasAttribute, removeAttribute, setAttribute } = element;
  const createElement = win.Document.prototype.createElement;
  const insertAdjacentHTML = element.insertAdjacentHTML;
  const setHtmlUnsafe = (element as { setHTMLUnsafe?: unknown }).setHTMLUnsafe;
  const shadowSetHtmlUnsafe = (win.ShadowRoot.prototype as { setHTMLUnsafe?: unknown }).setHTMLUnsafe;
  const createContextualFragment = win.Range.prototype.createContextualFragment;
  const parseFromString = win.DOMParser.prototype.parseFromString;
  const parseHtmlUnsafe = (win.Document as unknown as { parseHTMLUnsafe?: unknown }).parseHTMLUnsafe;
  const { stringify, parse } = JSON;
  const isArray = Array.isArray;
  if (innerHtml?.set === undefined || innerHtml.get === undefined || textContent?.set === undefined || textContent.get === undefined) return;
  const setInnerHtml = innerHtml.set;
  const getInnerHtml = innerHtml.get;
  const setText = textContent.set;
  const getText = textContent.get;

  const localName = (node: Element): string => invoke<string>(localNameOf, node);
  const elementsIn = (root: ParentNode, selector: string): Element[] => {
    const type = (root as Node).nodeType;
    const query = type === 9 ? documentQuerySelectorAll : type === 11 ? querySelectorAll : elementQuerySelectorAll;
    return Array.from(invoke<NodeListOf<Element>>(query, root, [selector]));
  };

  /** Moves every cross-origin load below `root` into HOLD_ATTRIBUTE; true when something was held. */
  const neutralise = (root: ParentNode): boolean => {
    let held = false;
    for (const node of elementsIn(root, '*')) {
      const name = localName(node);
      const values: [string, string][] = [];
      for (const attribute of loadAttributeNames(name)) {
        if (!invoke<boolean>(hasAttribute, node, [attribute])) continue;
        const value = invoke<string>(getAttribute, node, [attribute]);
        const load = loadAttribute(name, attribute);
        if (load === undefined || gate.crossOriginUrls(load, value).length === 0) continue;
        values.push([attribute, value]);
        invoke(removeAttribute, node, [attribute]);
      }
      if (name === 'style') {
        const text = invoke<string>(getText, node);
        if (gate.crossOriginUrls(STYLE_LOAD, text).length > 0) {
          values.push([STYLE_TEXT, text]);
          invoke(setText, node, ['']);
        }
      }
      if (name === 'template') held = neutralise(invoke<DocumentFragment>(templateContent, node)) || held;
      if (values.length === 0) continue;
      invoke(setAttribute, node, [HOLD_ATTRIBUTE, stringify(values)]);
      held = true;
    }
    return held;
  };

  /** Puts held values below (and on) `root` back, each through the gate. */
  const release = (root: Node | null): void => {
    if (root === null) return;
    const nodes = elementsIn(root as ParentNode, `[${HOLD_ATTRIBUTE}]`);
    if (root.nodeType === 1 && invoke<boolean>(hasAttribute, root, [HOLD_ATTRIBUTE])) nodes.push(root as Element);
    for (const node of nodes) {
      let values: unknown;
      try {
        values = parse(invoke<string>(getAttribute, node, [HOLD_ATTRIBUTE]));
      } catch {
        values = [];
      }
      invoke(removeAttribute, node, [HOLD_ATTRIBUTE]);
      if (!isArray(values)) continue;
      for (const entry of values as unknown[]) {
        if (!isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') continue;
        const [attribute, value] = entry as [string, string];
        if (attribute === STYLE_TEXT) {
          gate.hold(node, STYLE_TEXT, STYLE_LOAD, value, () => invoke(setText, node, [value]), () => undefined);
        } else {
          elements.setAttribute(node, attribute, value);
        }
      }
    }
  };

  // One query per subtree a batch added: the parser reports an element and then each descendant, and an
  // insertion into a node the same batch added is inside that node's subtree (or was moved on, and then
  // reported again where it went), so only insertions into nodes not added in this batch are queried.
  const observer = new n.MutationObserver((records) => {
    const added = new n.WeakMap<Node, true>();
    for (const record of records) for (const node of Array.from(record.addedNodes)) invoke(n.weakMapSet, added, [node, true]);
    for (const record of records) {
      if (invoke<boolean | undefined>(n.weakMapGet, added, [record.target]) === true) continue;
      for (const node of Array.from(record.addedNodes)) if (node.nodeType === 1) release(node);
    }
  });
  const observe = (root: Node): void => invoke(n.mutationObserverObserve, observer, [root, { childList: true, subtree: true }]);
  // The document's insertions are watched only once this realm has made held nodes (a fragment, a parsed
  // document or a template's content that a page may insert, clone or adopt later): until then no node in
  // it can carry a value to release, and watching every insertion cost each page load a callback per
  // parser batch. A page's own markup that spells HOLD_ATTRIBUTE is not released: it loads nothing.
  let watchingDocument = false;
  const watchDocument = (): void => {
    if (watchingDocument) return;
    watchingDocument = true;
    observe(n.document);
  };

  /** The markup with its cross-origin loads held, or the markup itself when it has none. */
  const inert = (html: string): string => {
    if (cssUrls(html).length === 0 && !/(src|href|data|poster|background)\s*=/i.test(html)) return html; // fast path: nothing could load
    const template = invoke<HTMLTemplateElement>(createElement, n.document, ['template']);
    invoke(setInnerHtml, template, [html]);
    if (!neutralise(invoke<DocumentFragment>(templateContent, template))) return html;
    watchDocument();
    return invoke<string>(getInnerHtml, template);
  };

  /** A raw-text element's markup is its text: only a `<style>`'s can load (CSS). */
  const rawText = (node: Element): boolean => RAW_TEXT.has(localName(node));

  const setMarkup = (node: Element | ShadowRoot, html: string, set: (markup: string) => void): void => {
    if (node.nodeType === 1 && rawText(node as Element)) {
      if (localName(node as Element) === 'style') gate.hold(node, STYLE_TEXT, STYLE_LOAD, html, () => set(html), () => undefined);
      else set(html);
      return;
    }
    const markup = inert(html);
    set(markup);
    if (markup !== html) release(node);
  };

  defineProperty(element, 'innerHTML', {
    ...innerHtml,
    set(this: Element, value: unknown) {
      setMarkup(this, n.String(value), (markup) => invoke(setInnerHtml, this, [markup]));
    },
  });
  const setShadowInnerHtml = shadowInnerHtml?.set;
  if (shadowInnerHtml !== undefined && setShadowInnerHtml !== undefined) {
    defineProperty(win.ShadowRoot.prototype, 'innerHTML', {
      ...shadowInnerHtml,
      set(this: ShadowRoot, value: unknown) {
        setMarkup(this, n.String(value), (markup) => invoke(setShadowInnerHtml, this, [markup]));
      },
    });
  }
  const setOuterHtml = outerHtml?.set;
  if (outerHtml !== undefined && setOuterHtml !== undefined) {
    defineProperty(element, 'outerHTML', {
      ...outerHtml,
      set(this: Element, value: unknown) {
        const parent = invoke<Node | null>(parentNodeOf, this);
        const html = n.String(value);
        const markup = inert(html);
        invoke(setOuterHtml, this, [markup]);
        if (markup !== html) release(parent);
      },
    });
  }
  element.insertAdjacentHTML = function (this: Element, position: InsertPosition, text: string): void {
    const html = n.String(text);
    const markup = inert(html);
    invoke(insertAdjacentHTML, this, [position, markup]);
    if (markup === html) return;
    release(this);
    release(invoke<Node | null>(parentNodeOf, this));
  };
  if (typeof setHtmlUnsafe === 'function') {
    (element as { setHTMLUnsafe?: unknown }).setHTMLUnsafe = function (this: Element, html: unknown, ...rest: unknown[]): void {
      setMarkup(this, n.String(html), (markup) => invoke(setHtmlUnsafe, this, [markup, ...rest]));
    };
  }
  if (typeof shadowSetHtmlUnsafe === 'function') {
    (win.ShadowRoot.prototype as { setHTMLUnsafe?: unknown }).setHTMLUnsafe = function (this: ShadowRoot, html: unknown, ...rest: unknown[]): void {
      setMarkup(this, n.String(html), (markup) => invoke(shadowSetHtmlUnsafe, this, [markup, ...rest]));
    };
  }
  win.Range.prototype.createContextualFragment = function (this: Range, html: string): DocumentFragment {
    const text = n.String(html);
    const markup = inert(text);
    // Released when its nodes enter the document (a page may clone the fragment first).
    return invoke<DocumentFragment>(createContextualFragment, this, [markup]);
  };
  // A parsed document has no browsing context, so nothing in it loads until a page adopts (or clones)
  // its nodes: they keep HOLD_ATTRIBUTE and are released when they enter this document.
  const heldDocument = (document: Document): Document => {
    if (neutralise(document)) watchDocument();
    return document;
  };
  const attachShadow = element.attachShadow;
  element.attachShadow = function (this: Element, init: ShadowRootInit): ShadowRoot {
    const root = invoke<ShadowRoot>(attachShadow, this, [init]);
    observe(root);
    return root;
  };
  win.DOMParser.prototype.parseFromString = function (this: DOMParser, ...args: unknown[]): Document {
    return heldDocument(invoke<Document>(parseFromString, this, args));
  } as typeof win.DOMParser.prototype.parseFromString;
  if (typeof parseHtmlUnsafe === 'function') {
    (win.Document as unknown as { parseHTMLUnsafe: unknown }).parseHTMLUnsafe = function (...args: unknown[]): Document {
      return heldDocument(invoke<Document>(parseHtmlUnsafe, win.Document, args));
    };
  }

  // `<style>` text set as text.
  defineProperty(win.Node.prototype, 'textContent', {
    ...textContent,
    set(this: Node, value: unknown) {
      if (this.nodeType !== 1 || localName(this as Element) !== 'style' || value === null) {
        invoke(setText, this, [value]);
        return;
      }
      const css = n.String(value);
      gate.hold(this, STYLE_TEXT, STYLE_LOAD, css, () => invoke(setText, this, [css]), () => undefined);
    },
  });
}
