import type { Reply, Request } from '../messages/protocol';
import { SHADOW_ATTACHED_EVENT, STYLES_CHANGED_EVENT } from '../content/bridge';
import type { SanitizerRule } from './text';
import { Sanitizer, type Mode, type Removal } from './dom';
import { readPreset } from './preset';

/** The extension messaging the Sanitizer needs (runtime.sendMessage in the content script), typed by the protocol map. */
export type SendMessage = <T extends 'sanitizer.config' | 'sanitizer.removed' | 'sanitizer.review' | 'sanitizer.style'>(message: Request<T> & { type: T }) => Promise<Reply<T> | undefined>;

/** Removals of one batch, counted per rule: what `sanitizer.removed` carries. */
export function countByRule(removals: readonly Removal[]): Array<{ rule: SanitizerRule; count: number; chars: number }> {
  const by = new Map<SanitizerRule, { rule: SanitizerRule; count: number; chars: number }>();
  for (const r of removals) {
    const row = by.get(r.rule) ?? { rule: r.rule, count: 0, chars: 0 };
    row.count++;
    row.chars += r.chars;
    by.set(r.rule, row);
  }
  return [...by.values()];
}

type DomApi = { dom?: { openOrClosedShadowRoot?(element: Element): ShadowRoot | null } };

/**
 * Starts the Sanitizer in this frame at document_start: in the mode the background registered
 * (src/sanitizer/preset.ts) from the first node on, then as the background's `sanitizer.config` answer
 * says (off outside the guarded tabs). Without a preset, nothing is touched until a well-formed answer.
 */
export function installSanitizer(doc: Document, send: SendMessage, chromeApi: DomApi | undefined): Sanitizer {
  const openOrClosed = chromeApi?.dom?.openOrClosedShadowRoot?.bind(chromeApi.dom);
  const sanitizer = new Sanitizer(doc, {
    shadowRootOf: (element) => {
      // chrome.dom throws for elements that cannot host a shadow root (html, img, …).
      try {
        return (openOrClosed ? openOrClosed(element) : element.shadowRoot) ?? null;
      } catch {
        return null;
      }
    },
    report: (removals) => void send({ type: 'sanitizer.removed', removals: countByRule(removals) }).catch(() => undefined),
    protectGenerated: () => void send({ type: 'sanitizer.style' }).catch(() => undefined),
    review: async (text) => {
      const answer = await send({ type: 'sanitizer.review', text: text.slice(0, 4_000) });
      if (answer?.ok !== true || !Array.isArray(answer.removals)) return null;
      return answer.removals.filter((r): r is string => typeof r === 'string');
    },
  });
  sanitizer.watch();
  // MAIN-dependent: a page that attaches a shadow root with a native from elsewhere (a fresh iframe's) is not announced.
  doc.defaultView?.addEventListener(
    SHADOW_ATTACHED_EVENT,
    (event) => {
      const host = event.composedPath()[0];
      event.stopImmediatePropagation();
      if (host instanceof Element) sanitizer.shadowAttached(host);
    },
    true,
  );
  // MAIN-dependent as well: rules added through the CSSOM (no mutation record) are announced by the hooks.
  doc.addEventListener(
    STYLES_CHANGED_EVENT,
    (event) => {
      event.stopImmediatePropagation();
      sanitizer.stylesChanged();
    },
    true,
  );
  // The registered preset starts it at once; the background's answer then says whether this tab is
  // guarded (it turns the Sanitizer off where not) and carries a mode changed since the registration.
  const preset = readPreset();
  let current: Mode | null = preset;
  if (preset !== null) sanitizer.configure(preset);
  const apply = (mode: Mode) => {
    if (mode === current) return;
    current = mode;
    sanitizer.configure(mode);
  };
  void send({ type: 'sanitizer.config' }).then(
    (answer) => {
      if (answer?.ok === true) apply(answer.mode === 'hidden' || answer.mode === 'model' ? (answer.mode as Mode) : 'off');
      else if (preset === null) apply('off');
    },
    // No answer: the registered preset stands (it came from the background); without one, nothing runs.
    () => {
      if (preset === null) apply('off');
    },
  );
  return sanitizer;
}
