import type { SanitizerRule } from '../text';

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

/** What the Sanitizer's rooms share (src/sanitizer/dom/index.ts owns it). */
export interface Shared {
  readonly doc: Document;
  readonly env: SanitizerEnv;
  /** The removals of the batch under way: reported, and emptied, when it ends. */
  readonly removals: Removal[];
  /** The mode the background set (null until it is known). */
  mode(): Mode | null;
  /** Runs `work` as one batch: the mutations made meanwhile are read, the removals reported. */
  batch(work: () => void): void;
}

/** Attributes people or the accessibility tree read as text (`label`: an `<option>`'s or `<optgroup>`'s shown text). */
export const ATTRIBUTES = ['alt', 'title', 'aria-label', 'aria-description', 'aria-roledescription', 'placeholder', 'aria-placeholder', 'aria-valuetext', 'label'] as const;
export const VISIBILITY_ATTRIBUTES = ['style', 'class', 'hidden', 'aria-hidden', 'open'];
