import { emptyTargets } from '../../core/classification';
import { BROWSER_TOOLS, type ToolCall } from '../../core/call';
import type { DecisionRecord } from '../../core/decision';
import { schemeOf } from '../../core/schemes';

/**
 * Browser guards: a guarded tab may open only the schemes on the allowlist (core/schemes.ts): not browser
 * internals (chrome://, brave://, devtools://, …), not other extensions' pages, not this extension's own
 * pages (an agent must never reach the approval UI). The one exception is the page a blocked navigation
 * lands on. Downloads are checked as `browser.download`.
 */

/** The page a blocked navigation lands on; the only extension page a guarded tab may show. */
export const BLOCKED_PAGE_PATH = '/blocked.html';

/** Whether `url` is this extension's blocked-navigation page (query and fragment ignored). */
export function isBlockedPage(url: string, extensionOrigin: string): boolean {
  return url.startsWith(`${extensionOrigin}${BLOCKED_PAGE_PATH}`) && /^[?#]?$/.test(url.charAt(extensionOrigin.length + BLOCKED_PAGE_PATH.length));
}

/** Why a guarded tab may not open this URL, or null when it may. Schemes: the one allowlist in core/schemes.ts. */
export function forbiddenNavigation(url: string, extensionOrigin: string): string | null {
  const { scheme, use } = schemeOf(url);
  if (scheme === 'chrome-extension:' || scheme === 'moz-extension:') {
    if (!url.startsWith(`${extensionOrigin}/`)) return "another extension's page";
    return isBlockedPage(url, extensionOrigin) ? null : "this extension's own pages (the approval UI)";
  }
  return use === 'forbidden' ? `${scheme} URLs (only web, about:blank, data: and blob: pages)` : null;
}

export function guardRecord(url: string, why: string): DecisionRecord {
  return {
    decision: 'BLOCK',
    check: 'guards',
    reason: `guarded tabs may not open ${why}`,
    ruleRef: 'builtin:scheme-allowlist',
    tool: BROWSER_TOOLS.navigate,
    capability: 'browser.internal',
    riskClass: 'UNKNOWN',
    targets: emptyTargets(),
  };
}

/**
 * webNavigation.onErrorOccurred's `error` when an extension blocked the request: Chromium's net error,
 * and Firefox's NS_ERROR_ABORT (0x80004004), which Gecko uses when an extension's DNR or webRequest
 * cancels a channel (a user's or script's stop is NS_BINDING_ABORTED, 0x804B0002).
 */
const BLOCKED_BY_EXTENSION_ERRORS: ReadonlySet<string> = new Set(['net::ERR_BLOCKED_BY_CLIENT', 'Error code 2147500036']);

export function isBlockedByExtension(error: string): boolean {
  return BLOCKED_BY_EXTENSION_ERRORS.has(error);
}

/** The URL of the page a blocked navigation is shown on. The blocked URL goes last, raw, so the page can read it whole. */
export function blockedPageUrl(extensionOrigin: string, check: string, reason: string, url: string): string {
  return `${extensionOrigin}${BLOCKED_PAGE_PATH}?check=${encodeURIComponent(check)}&reason=${encodeURIComponent(reason)}&url=${url}`;
}

/**
 * The blocked page is sandboxed (manifest `sandbox.pages`: an opaque origin, no extension APIs), so code an
 * agent runs in it over DevTools — an init script runs in every document of its tab — cannot reach this
 * extension's pages or its worker. It asks by changing its own fragment to `#agentsfence-ask-N`, which the
 * worker sees (webNavigation.onReferenceFragmentUpdated) and proposes on the tab's behalf; a refusal comes
 * back as `#agentsfence-answer-<reason>`.
 */
export const ASK_FRAGMENT = 'agentsfence-ask-';
export const ANSWER_FRAGMENT = 'agentsfence-answer-';

/** The blocked page asking, as the worker reads it: the page's own URL without the ask and what it was blocked from. */
export function blockedPageAsk(url: string, extensionOrigin: string): { page: string; blocked: { check: string; reason: string; url: string } } | null {
  const ask = /#agentsfence-ask-\d+$/.exec(url);
  if (ask === null || !isBlockedPage(url, extensionOrigin)) return null;
  const page = url.slice(0, ask.index);
  const blocked = parseBlockedPageUrl(page);
  return blocked === null ? null : { page, blocked };
}

/** The blocked page's query: check, reason, and the blocked URL last and raw (it may contain `&`). */
export function parseBlockedPageUrl(href: string): { check: string; reason: string; url: string } | null {
  const marker = href.indexOf('&url=');
  if (marker < 0) return null;
  const url = href.slice(marker + '&url='.length);
  const params = new URLSearchParams(href.slice(href.indexOf('?') + 1, marker));
  return { check: params.get('check') ?? 'domain_allowlist', reason: params.get('reason') ?? '', url };
}

/** A download as a tool call: the URL it comes from and the file it writes. */
export function downloadCall(item: { url: string; finalUrl?: string; filename: string }): ToolCall {
  const url = item.finalUrl !== undefined && item.finalUrl !== '' ? item.finalUrl : item.url;
  const fallbackName = (() => {
    try {
      return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'download';
    } catch {
      return 'download';
    }
  })();
  return { tool: BROWSER_TOOLS.download, args: { url, path: item.filename !== '' ? item.filename : fallbackName } };
}
