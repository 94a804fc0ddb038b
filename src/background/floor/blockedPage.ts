import { ANSWER_FRAGMENT, ASK_FRAGMENT, parseBlockedPageUrl } from './guards';

/** What a blocked navigation's page says, in one place: the extension's blocked.html and the CDP proxy's readable copy. */
export interface BlockedNavigationWords {
  /** "Blocked by AgentsFence (check: reason)": the words a blocked fetch rejects with. */
  title: string;
  url: string;
  check: string;
  reason: string;
  /** One sentence: what was blocked and why (the alert both pages carry). */
  summary: string;
  /** What an agent (or a person) can do now. */
  next: string;
}

/** Longest blocked address shown: an exfiltration-shaped URL can be kilobytes of data. */
const SHOWN_URL_CHARS = 300;

export function blockedNavigationWords(blocked: { check: string; reason: string; url: string }): BlockedNavigationWords {
  const url = blocked.url.length > SHOWN_URL_CHARS ? `${blocked.url.slice(0, SHOWN_URL_CHARS)}…` : blocked.url;
  return {
    title: `Blocked by AgentsFence (${blocked.check}: ${blocked.reason})`,
    url,
    check: blocked.check,
    reason: blocked.reason,
    summary: `Blocked: ${url}. Why: ${blocked.reason} (check: ${blocked.check}).`,
    next: 'The task the user started does not allow this page. Retrying will not open it: continue with the pages the task allows, or tell the user what you needed.',
  };
}

/**
 * The page a blocked top-level navigation is shown on (after the navigation itself failed with
 * net::ERR_BLOCKED_BY_CLIENT). Its title says "Blocked by AgentsFence (check: reason)", the words a
 * blocked fetch rejects with, so an agent reading the page learns why. It states the check and reason and
 * offers "Ask the user": the worker proposes browser.navigate for the tab (see guards.ts, ASK_FRAGMENT),
 * which the evaluator answers with ASK_USER for a site the task does not name (an exfiltration-shaped URL
 * stays blocked: no approval covers it). On ALLOW the worker opens the page; the answer comes from the
 * popup, which this sandboxed page cannot reach. Agents behind `agentsfence browser`'s CDP proxy may not
 * read extension pages: the proxy shows them the same words on a data: page (src/cdp-proxy/blocked.ts).
 */
export function showBlockedPage(doc: Document, href: string): void {
  const parsed = parseBlockedPageUrl(href.replace(/#.*$/, ''));
  const text = (id: string, value: string) => {
    const el = doc.getElementById(id);
    if (el) el.textContent = value;
  };
  const words = parsed === null ? null : blockedNavigationWords(parsed);
  text('url', words?.url ?? '(unknown)');
  text('check', words?.check ?? '(unknown)');
  text('reason', words?.reason ?? '');
  text('summary', words?.summary ?? '');
  if (words !== null) doc.title = words.title;
  const button = doc.getElementById('ask') as HTMLButtonElement | null;
  const view = doc.defaultView;
  if (button === null || parsed === null || view === null) return;
  let asks = 0;
  button.addEventListener('click', () => {
    button.disabled = true;
    text('status', 'Waiting for the user to answer in the AgentsFence popup…');
    view.location.hash = `${ASK_FRAGMENT}${(asks += 1)}`;
  });
  view.addEventListener('hashchange', () => {
    const hash = view.location.hash.slice(1);
    if (!hash.startsWith(ANSWER_FRAGMENT)) return;
    text('status', `Not allowed: ${decodeURIComponent(hash.slice(ANSWER_FRAGMENT.length))}`);
    button.disabled = false;
  });
}
