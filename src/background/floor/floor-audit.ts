import type { RequestKind } from '../../core/call';

/**
 * Requests the network floor refused before any hook saw them reach the audit log through the browser's
 * error event (webRequest.onErrorOccurred, net::ERR_BLOCKED_BY_CLIENT). Top-level navigations are not
 * among them: they land on the blocked page, which is audited there.
 */

/** The request kind the classifier reads, from the browser's resource type (fetch and XHR look alike to it). */
export function requestKindOf(type: string): RequestKind {
  switch (type) {
    case 'xmlhttprequest':
      return 'fetch';
    case 'ping':
    case 'csp_report':
      return 'beacon';
    case 'websocket':
      return 'websocket';
    case 'image':
    case 'imageset':
      return 'image';
    case 'sub_frame':
      return 'frame';
    default:
      return 'other';
  }
}

/**
 * One entry per tab, destination origin and request kind in a window, and at most `perTab` entries per
 * tab in a window: a page that fires refused requests in a loop, or at many origins, must not push the
 * rest of the log out (the log keeps its newest 10,000 entries).
 */
export class FloorBlockLog {
  private readonly seen = new Map<string, number>();
  private readonly tabs = new Map<number, { since: number; count: number }>();

  constructor(private readonly windowMs = 10_000, private readonly perTab = 20) {}

  /** Whether to audit this block now; `now` in ms. */
  admit(tabId: number, url: string, kind: RequestKind, now: number): boolean {
    for (const [key, at] of this.seen) if (now - at >= this.windowMs) this.seen.delete(key);
    for (const [tab, w] of this.tabs) if (now - w.since >= this.windowMs) this.tabs.delete(tab);
    const key = `${tabId} ${kind} ${originOf(url)}`;
    if (this.seen.has(key)) return false;
    const window = this.tabs.get(tabId) ?? { since: now, count: 0 };
    if (window.count >= this.perTab) return false;
    this.tabs.set(tabId, { since: window.since, count: window.count + 1 });
    this.seen.set(key, now);
    return true;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url.slice(0, 200);
  }
}
