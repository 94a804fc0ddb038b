import { ANSWER_FRAGMENT, ASK_FRAGMENT, parseBlockedPageUrl } from './guards';

/**
 * The page a blocked top-level navigation is shown on (after the navigation itself failed with
 * net::ERR_BLOCKED_BY_CLIENT). Its title says "Blocked by AgentsFence (check: reason)", the words a
 * blocked fetch rejects with, so an agent reading the page learns why. It states the check and reason and
 * offers "Ask the user": the worker proposes browser.navigate for the tab (see guards.ts, ASK_FRAGMENT),
 * which the evaluator answers with ASK_USER for a site the task does not name (an exfiltration-shaped URL
 * stays blocked: no approval covers it). On ALLOW the worker opens the page; the answer comes from the
 * popup, which this sandboxed page cannot reach.
 */
export function showBlockedPage(doc: Document, href: string): void {
  const parsed = parseBlockedPageUrl(href.replace(/#.*$/, ''));
  const text = (id: string, value: string) => {
    const el = doc.getElementById(id);
    if (el) el.textContent = value;
  };
  text('url', parsed?.url ?? '(unknown)');
  text('check', parsed?.check ?? '(unknown)');
  text('reason', parsed?.reason ?? '');
  if (parsed !== null) doc.title = `Blocked by AgentsFence (${parsed.check}: ${parsed.reason})`;
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
