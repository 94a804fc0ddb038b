import type { Reply, Request } from '../messages/protocol';
import type { SanitizerRule } from './text';
import { Sanitizer, type Mode, type Removal } from './dom';

/** The extension messaging the Sanitizer needs (runtime.sendMessage in the content script), typed by the protocol map. */
export type SendMessage = <T extends 'sanitizer.config' | 'sanitizer.removed' | 'sanitizer.review'>(message: Request<T> & { type: T }) => Promise<Reply<T> | undefined>;

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
 * Starts the Sanitizer in this frame at document_start: watches at once, asks the background for the
 * mode, then processes everything parsed so far and every mutation after. Anything but a well-formed
 * answer from the background leaves the page as it is (the Sanitizer only runs in guarded tabs during
 * a task, and the background is the only one who knows).
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
    review: async (text) => {
      const answer = await send({ type: 'sanitizer.review', text: text.slice(0, 4_000) });
      if (answer?.ok !== true || !Array.isArray(answer.removals)) return null;
      return answer.removals.filter((r): r is string => typeof r === 'string');
    },
  });
  sanitizer.watch();
  void send({ type: 'sanitizer.config' }).then(
    (answer) => {
      const mode = answer?.ok === true ? answer.mode : 'off';
      sanitizer.configure(mode === 'hidden' || mode === 'model' ? (mode as Mode) : 'off');
    },
    () => sanitizer.configure('off'),
  );
  return sanitizer;
}
