import { BROWSER_TOOLS, type ToolCall } from '../core/call';
import type { DecisionRecord } from '../core/decision';

/**
 * Browser guards: a guarded tab may not open browser internals (chrome://, devtools://, …), other
 * extensions' pages, or this extension's own pages (an agent must never reach the approval UI). The one
 * exception is the page a blocked navigation lands on. Downloads are checked as `browser.download`.
 */

/** The page a blocked navigation lands on; the only extension page a guarded tab may show. */
export const BLOCKED_PAGE_PATH = '/blocked.html';

/** Whether `url` is this extension's blocked-navigation page (query and fragment ignored). */
export function isBlockedPage(url: string, extensionOrigin: string): boolean {
  return url.startsWith(`${extensionOrigin}${BLOCKED_PAGE_PATH}`) && /^[?#]?$/.test(url.charAt(extensionOrigin.length + BLOCKED_PAGE_PATH.length));
}

const INTERNAL_SCHEMES = ['chrome:', 'chrome-untrusted:', 'devtools:', 'chrome-search:', 'view-source:', 'edge:', 'about:', 'file:', 'filesystem:'];
const ALLOWED_ABOUT = new Set(['about:blank', 'about:srcdoc']);

/** Why a guarded tab may not open this URL, or null when it may. */
export function forbiddenNavigation(url: string, extensionOrigin: string): string | null {
  const lower = url.trim().toLowerCase();
  if (lower.startsWith('chrome-extension:') || lower.startsWith('moz-extension:')) {
    if (!url.startsWith(`${extensionOrigin}/`)) return "another extension's page";
    return isBlockedPage(url, extensionOrigin) ? null : "this extension's own pages (the approval UI)";
  }
  if (ALLOWED_ABOUT.has(lower.split(/[?#]/)[0] ?? '')) return null;
  const scheme = INTERNAL_SCHEMES.find((s) => lower.startsWith(s));
  return scheme === undefined ? null : `browser internals (${scheme})`;
}

export function guardRecord(url: string, why: string): DecisionRecord {
  return {
    decision: 'BLOCK',
    check: 'guards',
    reason: `guarded tabs may not open ${why}`,
    tool: BROWSER_TOOLS.navigate,
    capability: 'browser.internal',
    riskClass: 'UNKNOWN',
    targets: { recipients: [], domains: [], paths: [], items: [] },
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
