import { browser } from 'wxt/browser';
import { BROWSER_TOOLS } from '../core/call';
import { ProposalAnswerSchema } from '../messages/protocol';
import { parseBlockedPageUrl } from './guards';

/**
 * The page a blocked top-level navigation is shown on (after the navigation itself failed with
 * net::ERR_BLOCKED_BY_CLIENT). Its title says "Blocked by AgentsFence (check: reason)", the words a
 * blocked fetch rejects with, so an agent reading the page learns why. It states the check and reason and
 * offers "Ask the user": a proposal for browser.navigate, which the evaluator answers with ASK_USER for
 * a site the task does not name (an exfiltration-shaped URL stays blocked: no approval covers it). The
 * page can only ask; the answer comes from the popup, which this page cannot reach.
 */
export function showBlockedPage(doc: Document, href: string): void {
  const parsed = parseBlockedPageUrl(href);
  const text = (id: string, value: string) => {
    const el = doc.getElementById(id);
    if (el) el.textContent = value;
  };
  text('url', parsed?.url ?? '(unknown)');
  text('check', parsed?.check ?? '(unknown)');
  text('reason', parsed?.reason ?? '');
  if (parsed !== null) doc.title = `Blocked by AgentsFence (${parsed.check}: ${parsed.reason})`;
  const button = doc.getElementById('ask') as HTMLButtonElement | null;
  if (button === null || parsed === null) return;
  button.addEventListener('click', () => {
    button.disabled = true;
    text('status', 'Waiting for the user to answer in the AgentsFence popup…');
    const proposal = { type: 'proposal', id: crypto.randomUUID(), call: { tool: BROWSER_TOOLS.navigate, args: { url: parsed.url } }, layer: 'isolated' };
    browser.runtime
      .sendMessage(proposal)
      .then((raw: unknown) => {
        const answer = ProposalAnswerSchema.safeParse(raw);
        if (answer.success && answer.data.decision === 'ALLOW') {
          text('status', 'Allowed. Opening the page…');
          location.replace(parsed.url);
        } else {
          text('status', `Not allowed: ${answer.success ? answer.data.reason : 'no valid answer'}`);
          button.disabled = false;
        }
      })
      .catch((err: unknown) => {
        text('status', `No answer: ${String(err)}`);
        button.disabled = false;
      });
  });
}
