import { tokensInText } from '../taint/extract';
import { canonical, MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH } from '../taint/kinds';
import type { Send, TaintReport } from '../messages/protocol';

/**
 * The data-lane taint collector (ISOLATED world, every frame, from document_start). It records session
 * data as the page shows it or the agent types it, and reports batches to the background, which keeps
 * them for the task only when this tab is guarded (it ignores reports otherwise). Page script cannot
 * reach this world's listeners or its channel to the background, so a page can add junk (bounded by the
 * background's per-site quota) but cannot remove or hide what was recorded.
 *
 *  - typed values: password and one-time-code fields (4+ characters) as `secret-field`; e-mail,
 *    telephone, text, search fields and text areas as `typed` (e-mail any length, the rest 6+ letters
 *    and digits, so short words do not taint ordinary URLs), once the value settles or on change;
 *  - shown text: text nodes (initial parse and every later insertion, through one MutationObserver)
 *    and input values the page pre-filled, through `tokensInText` (codes, cards, IBANs, e-mail
 *    addresses, keys). Bounded CPU: at most SCAN_BUDGET characters per flush, each node cut at
 *    NODE_LIMIT; what is beyond is not recorded.
 */

export type SendReport = Send<'taint.report'>;

const FLUSH_MS = 150;
const SCAN_BUDGET = 300_000;
const NODE_LIMIT = 10_000;
const MAX_BATCH = 100;
const SKIPPED_PARENTS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
const TYPED_INPUTS = new Set(['text', 'search', 'email', 'tel', 'url', 'number', '']);
const OTP_NAME = /otp|one.?time|2fa|totp|mfa|verification|passcode|security.?code/i;

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

/** The collector's handle: `flush` reports what is pending now (before a proposal leaves, so the taint is ahead of it). */
export interface TaintCollector {
  flush(): void;
}

export function installTaintCollector(win: Window, send: SendReport): TaintCollector {
  const doc = win.document;
  const reported = new Set<string>();
  const pendingNodes: Node[] = [];
  const pendingTokens: Token[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  const queue = (token: Token) => {
    const key = `${token.kind}|${token.value}`;
    if (reported.has(key)) return;
    reported.add(key);
    pendingTokens.push(token);
  };

  const textOf = (root: Node, budget: { left: number }): string => {
    const parts: string[] = [];
    const take = (node: Node) => {
      const parent = node.parentElement;
      if (parent !== null && SKIPPED_PARENTS.has(parent.tagName)) return;
      const text = (node.nodeValue ?? '').slice(0, Math.min(NODE_LIMIT, budget.left));
      budget.left -= text.length;
      if (text.trim().length > 0) parts.push(text);
    };
    if (root.nodeType === Node.TEXT_NODE) take(root);
    else if (root.nodeType === Node.ELEMENT_NODE && !SKIPPED_PARENTS.has((root as Element).tagName)) {
      const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null && budget.left > 0; node = walker.nextNode()) take(node);
      for (const input of (root as Element).querySelectorAll('input[value]')) {
        const value = (input as HTMLInputElement).value;
        if (value.length >= 6 && budget.left > 0) {
          parts.push(value.slice(0, MAX_TOKEN_LENGTH));
          budget.left -= value.length;
        }
      }
    }
    return parts.join('\n');
  };

  // Shown text: everything the parser and scripts insert, from document_start on. Until the first flush
  // the whole document is pending (read then, as it is), so the parser's insertions need no entry each;
  // what is removed before that flush is kept for it instead (it was shown meanwhile).
  let wholeDocumentPending = true;
  const collect = (records: MutationRecord[]) => {
    for (const record of records) {
      if (record.type === 'characterData') {
        if (!wholeDocumentPending || !record.target.isConnected) pendingNodes.push(record.target);
      } else if (wholeDocumentPending) {
        for (let i = 0; i < record.removedNodes.length; i++) pendingNodes.push(record.removedNodes[i]!);
      } else {
        for (let i = 0; i < record.addedNodes.length; i++) pendingNodes.push(record.addedNodes[i]!);
      }
    }
  };

  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    collect(observer.takeRecords());
    // The document element as it is now (a page may have replaced it).
    if (wholeDocumentPending && doc.documentElement !== null) pendingNodes.unshift(doc.documentElement);
    wholeDocumentPending = false;
    const budget = { left: SCAN_BUDGET };
    const nodes = pendingNodes.splice(0);
    // The parser reports an element and then each of its descendants: a node under another pending node
    // is read with it (the same text nodes and inputs), not once more per ancestor.
    const pending = new Set(nodes);
    const coveredByAncestor = (node: Node) => {
      for (let p = node.parentNode; p !== null; p = p.parentNode) if (pending.has(p)) return true;
      return false;
    };
    for (const node of nodes) {
      if (budget.left <= 0) break;
      if (coveredByAncestor(node)) continue;
      for (const found of tokensInText(textOf(node, budget))) queue(found);
    }
    while (pendingTokens.length > 0) {
      const tokens = pendingTokens.splice(0, MAX_BATCH);
      void send({ type: 'taint.report', tokens }).catch(() => undefined);
    }
  };
  const soon = () => {
    if (timer === null) timer = setTimeout(flush, FLUSH_MS);
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

  const observer = new MutationObserver((records) => {
    collect(records);
    soon();
  });
  observer.observe(doc, { childList: true, subtree: true, characterData: true });
  soon();
  // The parsed document at once, not a flush delay later: without the page hooks the floor learns the page's
  // data only from these reports, and a script may load a URL as soon as the document is parsed.
  doc.addEventListener('DOMContentLoaded', flush);
  win.addEventListener('pagehide', flush);
  return { flush };
}
