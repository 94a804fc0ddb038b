import { MARKER } from './text';

/**
 * The rules that replace flagged CSS generated content with the marker. The Sanitizer marks the element
 * (`data-agentsfence-generated="before after"`); these rules then put the marker in its `::before` /
 * `::after`. They are applied twice: in an author sheet the content script adopts at once (the document's
 * and each shadow root's), and in a **user-origin** sheet the background inserts into the frame
 * (`scripting.insertCSS`, origin `USER`) as soon as the frame's stylesheets may generate text. An author
 * sheet loses to a page's `!important` in a cascade layer and is one assignment away from removal
 * (`document.adoptedStyleSheets = []`); a user-origin `!important` declaration outranks every author
 * declaration, layered or not, and animations, applies inside open and closed shadow roots, and is not in
 * any list the page can edit (found by the data-lane review: both put the instruction back in the aria
 * snapshot).
 */
export const GENERATED_MARK = 'data-agentsfence-generated';
export const GENERATED_PSEUDOS = ['::before', '::after'] as const;

export const GENERATED_RULES: readonly string[] = GENERATED_PSEUDOS.map(
  // The attribute twice: in the author sheet, more specific than a page's rule of one id and one attribute.
  (p) => `[${GENERATED_MARK}~="${p.slice(2)}"][${GENERATED_MARK}~="${p.slice(2)}"]${p} { content: ${JSON.stringify(MARKER)} !important; }`,
);

/** The user-origin sheet's text. */
export const GENERATED_USER_CSS = GENERATED_RULES.join('\n');
