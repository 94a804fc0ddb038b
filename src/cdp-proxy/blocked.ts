import { blockedNavigationWords } from '../background/floor/blockedPage';
import { isBlockedPage, parseBlockedPageUrl } from '../background/floor/guards';
import type { CdpRouter } from './upstream';

/**
 * The blocked page, readable by agents. A blocked top-level navigation lands the tab on the extension's
 * blocked.html, which says what was blocked and why — but an agent behind the proxy may read no extension
 * page (./rules.ts: its session can only navigate away), so Playwright MCP's next snapshot waited 30 s for
 * a page it could never read, and Puppeteer's next evaluate failed. The proxy sends such a tab on to a
 * data: page with the same words: an opaque origin with no script and no control (the "Ask the user"
 * button stays on the extension's page, which agents never reach), so every client's snapshot, DOM or
 * accessibility read of the tab answers at once with the reason.
 *
 * Why a data: page the proxy opens, over letting agents read blocked.html: the rules stay "no extension
 * page, ever" (a read-only exception for one extension page would have to hold against every CDP command
 * that runs script), and the extension keeps its page for agents that drive the browser without the proxy.
 */

/** The data: page for the blocked page at `href`, or null when `href` is not this extension's blocked page. */
export function readableBlockedPage(href: string, extensionOrigin: string): string | null {
  if (!isBlockedPage(href, extensionOrigin)) return null;
  const parsed = parseBlockedPageUrl(href.replace(/#.*$/, ''));
  if (parsed === null) return null;
  const w = blockedNavigationWords(parsed);
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    // No script, no form, no fetch: the page is words only.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(w.title)}</title>`,
    '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}h1{font-size:1.4rem;color:#b3261e}code{word-break:break-all}</style>',
    '</head><body><main>',
    '<h1>AgentsFence blocked this navigation</h1>',
    `<p role="alert">${escapeHtml(w.summary)}</p>`,
    `<p>${escapeHtml(w.next)}</p>`,
    '</main></body></html>',
  ].join('');
  return `${READABLE_PREFIX}${encodeURIComponent(html)}`;
}

const READABLE_PREFIX = 'data:text/html;charset=utf-8,';
const READABLE_MARK = encodeURIComponent('<h1>AgentsFence blocked this navigation</h1>');

/** Whether `url` is a readable blocked page (how the proxy recognises its own page in a tab's history). */
export function isReadableBlockedPage(url: string): boolean {
  return url.startsWith(READABLE_PREFIX) && url.includes(READABLE_MARK);
}

interface History {
  currentIndex: number;
  entries: { id: number; url: string }[];
}

/**
 * Sends the tab `targetId`, now on the blocked page `href`, to its readable copy — or, when the agent came
 * back to the blocked page from that copy (history), on back past the block, so "go back" still leaves it.
 */
export async function showReadableBlockedPage(router: CdpRouter, targetId: string, href: string, extensionOrigin: string, stillThere: () => boolean): Promise<void> {
  const readable = readableBlockedPage(href, extensionOrigin);
  if (readable === null) return;
  const blockedUrl = parseBlockedPageUrl(href.replace(/#.*$/, ''))?.url;
  const { sessionId } = (await router.call('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
  try {
    if (!stillThere()) return;
    const history = (await router.call('Page.getNavigationHistory', {}, sessionId)) as unknown as History;
    const cameBack = isReadableBlockedPage(history.entries[history.currentIndex + 1]?.url ?? '');
    const before = history.entries
      .slice(0, history.currentIndex)
      .reverse()
      .find((e) => e.url !== blockedUrl && !e.url.startsWith('chrome-error:') && !isBlockedPage(e.url, extensionOrigin) && !isReadableBlockedPage(e.url));
    if (cameBack && before !== undefined) await router.call('Page.navigateToHistoryEntry', { entryId: before.id }, sessionId);
    else await navigateAndParse(router, sessionId, readable);
  } finally {
    await router.call('Target.detachFromTarget', { sessionId }).catch(() => undefined);
  }
}

/** How long the proxy waits for its copy to be parsed (a few ms: it is one short data: page). */
const PARSED_WITHIN_MS = 2_000;

/**
 * Navigates the session's tab to `url` and resolves once that document is parsed (its DOMContentLoaded), so
 * whoever waits on the copy (a refused navigation's answer, proxy.ts) finds its words in place.
 */
async function navigateAndParse(router: CdpRouter, sessionId: string, url: string): Promise<void> {
  const parsed = new Set<string>();
  let wake = () => undefined as void;
  const stop = router.onEvent((m) => {
    if (m.sessionId !== sessionId || m.method !== 'Page.lifecycleEvent' || m.params?.name !== 'DOMContentLoaded') return;
    parsed.add(String(m.params.loaderId));
    wake();
  });
  try {
    await router.call('Page.enable', {}, sessionId);
    await router.call('Page.setLifecycleEventsEnabled', { enabled: true }, sessionId);
    const { loaderId } = await router.call('Page.navigate', { url }, sessionId);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PARSED_WITHIN_MS);
      wake = () => {
        if (!parsed.has(String(loaderId))) return;
        clearTimeout(timer);
        resolve();
      };
      wake();
    });
  } finally {
    stop();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
