/**
 * A block's text as the Sanitizer reads it (src/sanitizer/dom): the text nodes that make it up, each with
 * its offsets in the joined text, so a span the rules find is cut from the nodes that hold it.
 */

/** Inline elements: their text belongs to the enclosing block. */
export const INLINE = new Set([
  'A', 'ABBR', 'B', 'BDI', 'BDO', 'CITE', 'CODE', 'DATA', 'DFN', 'EM', 'FONT', 'I', 'KBD', 'MARK', 'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TIME', 'U', 'VAR', 'WBR', 'BR', 'LABEL', 'BIG', 'TT', 'STRIKE', 'DEL', 'INS',
  // A shadow tree's <slot> shows the host's children in its place: its block reads them (piecesOf).
  'SLOT',
]);
/** Never text for a reader: code and styles, and form values (the user's data). */
export const SKIP = new Set(['SCRIPT', 'STYLE', 'TEXTAREA']);

export interface Piece {
  node: Text;
  start: number;
  end: number;
}

/** A block: the nearest non-inline ancestor of text (a shadow root or a template's content when none). */
export type Block = Element | DocumentFragment;

/** What a batch read of each block (piecesOf), so reading runs of sibling blocks reads none twice. */
export type BlockTexts = Map<Block, { text: string; pieces: Piece[] }>;

export function isElement(node: Node): node is Element {
  return node.nodeType === 1;
}

/** The block a text node belongs to: its nearest non-inline ancestor (a shadow root or fragment when none). */
export function blockOf(node: Node): Block | null {
  let parent: Node | null = node.parentNode;
  while (parent !== null && isElement(parent) && INLINE.has(parent.tagName)) parent = parent.parentNode;
  if (parent === null) return null;
  return isElement(parent) || parent.nodeType === 11 ? (parent as Block) : null;
}

export function skipped(node: Node): boolean {
  for (let p = node.parentNode; p !== null && isElement(p); p = p.parentNode) if (SKIP.has(p.tagName)) return true;
  return false;
}

/** The block's own text nodes, in order: its text and that of its inline descendants. */
export function piecesOf(block: Block): { text: string; pieces: Piece[] } {
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
export function textOfSubtree(el: Element): { text: string; pieces: Piece[] } {
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
export function cut(pieces: readonly Piece[], span: { start: number; end: number }, marker: string): void {
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
