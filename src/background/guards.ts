import { emptyTargets } from '../core/classification';
import { BROWSER_TOOLS, type ToolCall } from '../core/call';
import type { DecisionRecord } from '../core/decision';
import { schemeOf } from '../core/schemes';

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

/** The URL of the page a blocked navigation is shown on. The blocked URL goes last, raw, so the page can read it whole. */
export function blockedPageUrl(extensionOrigin: string, check: string, reason: string, url: string): string {
  return `${extensionOrigin}${BLOCKED_PAGE_PATH}?check=${encodeURIComponent(check)}&reason=${encodeURIComponent(reason)}&url=${url}`;
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
