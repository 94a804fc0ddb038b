import { isSuspicious, MARKER, maskMarkers, PLACEHOLDER, sentences, type Span } from '../text';
import { cut, piecesOf, type Block, type Piece } from './pieces';
import type { Shared } from './shared';

const MODEL_TIMEOUT_MS = 10_000;

/**
 * Model mode (src/sanitizer/dom): a visible block the rules call only suspicious goes to the model
 * (`env.review`); the agent reads a placeholder meanwhile. One question per block text per document.
 */
export class Review {
  private readonly awaitingReview = new WeakSet<Block>();
  private readonly reviewed = new Map<string, string[] | null>();

  constructor(private readonly shared: Shared) {}

  /** The block shows the placeholder while the model is asked: it is not read again until the answer. */
  awaiting(block: Block): boolean {
    return this.awaitingReview.has(block);
  }

  /** The agent reads a placeholder until the model answers; on any failure the deterministic text stands. */
  review(block: Block, text: string, pieces: Piece[]): void {
    const key = maskMarkers(text);
    if (this.reviewed.has(key)) {
      this.applyReview(text, pieces, this.reviewed.get(key) ?? null);
      return;
    }
    const saved = pieces.map((p) => p.node.data);
    pieces.forEach((p, i) => (p.node.data = i === 0 ? PLACEHOLDER : ''));
    this.awaitingReview.add(block);
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), MODEL_TIMEOUT_MS));
    void Promise.race([this.shared.env.review!(text).catch(() => null), timeout]).then((removals) => {
      this.reviewed.set(key, removals);
      this.shared.batch(() => {
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
      this.shared.removals.push({ rule: 'model', chars: span.end - span.start });
      cut(pieces, span, MARKER);
    }
  }
}
