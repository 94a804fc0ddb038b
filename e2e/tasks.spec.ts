import { expect, test, type Page } from '@playwright/test';
import type { AgentBrowser } from '../src/harness';
import { launchFence } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * Real tasks as people write them, set through the harness (`setTask`, the rules compiler, the
 * extension's own window) and answered on the approval path the popup uses. The test server's request
 * log is the truth about what was sent.
 *
 *  - "Reply to Alice at alice@example.test …" names no mail site: the reply (a real form POST) on
 *    mail.example.test is held and asked once, naming site and recipient; "Allow for this task" releases
 *    it and lets repeats through; another recipient still asks.
 *  - "… Do not send, post or share anything." grants no write: a POST from the news site never leaves.
 *  - Negative control: without the extension both actions reach the server.
 * Both guarded tests also run on the build without MAIN-world hooks (the form guard and the network
 * floor carry them).
 */
const REPLY_TASK = 'Reply to Alice at alice@example.test and tell her I will attend the meeting on Friday.';
const NEWS_TASK = "Open the news site at news.example.test and summarize today's top story for me. Do not send, post or share anything.";

const composePage = (to: string) =>
  `<!doctype html><title>Compose</title><form method="post" action="/send"><input name="to" value="${to}"><input name="subject" value="Re: meeting"><textarea name="body">I will attend on Friday.</textarea><button type="submit">Send</button></form>`;

let server: TestServer;
let browser: AgentBrowser;
test.beforeEach(async () => {
  server = await startTestServer();
  server.setPage('/', '<!doctype html><title>Home</title><h1>Inbox</h1>');
  server.setPage('/compose-alice', composePage('alice@example.test'));
  server.setPage('/compose-bob', composePage('bob@corp.test'));
  server.setPage('/story/1', '<!doctype html><title>Top story</title><p>Today a cat was elected mayor.</p>');
});
test.afterEach(async () => {
  await browser?.close();
  await server.close();
});

const sentTo = (to: string) => server.hits('/send', 'mail.example.test').filter((r) => new URLSearchParams(r.body).get('to') === to).length;

/** Opens the compose page and clicks Send; the click returns at once, the submission may be held. */
async function submitReply(page: Page, who: 'alice' | 'bob'): Promise<void> {
  await page.goto(`${server.origin('mail.example.test')}/compose-${who}`);
  await page.getByRole('button', { name: 'Send' }).click({ noWaitAfter: true });
}

/** A POST from the news page (a comment), as page script would send it; resolves `sent:<status>` or `failed:…`. */
function postComment(page: Page): Promise<string> {
  return page.evaluate(async (url) => {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'text=nice' });
      return `sent:${r.status}`;
    } catch (err) {
      return `failed:${err instanceof Error ? err.message : String(err)}`;
    }
  }, `${server.origin('news.example.test')}/comments`);
}

for (const variant of ['full', 'nohooks'] as const) {
  test(`${variant}: site-less reply: asked once naming site and recipient; Allow for this task releases it and lets repeats through; another recipient still asks`, async () => {
    browser = await launchFence({ mainHooks: variant === 'full' });
    const state = await browser.setTask(REPLY_TASK);
    expect(state.task?.policy.domains).toBeNull();
    const agent = await browser.context.newPage();

    // Reading the unnamed mail site is possible: the compose page loads.
    await submitReply(agent, 'alice');
    const [asked] = await browser.waitForApprovals(1);
    expect(asked).toMatchObject({ check: 'site_binding', riskClass: 'COMMUNICATION' });
    expect(asked!.reason).toContain('send to alice@example.test on mail.example.test?');
    expect(sentTo('alice@example.test')).toBe(0);

    await browser.answer(asked!.id, 'task');
    await expect.poll(() => sentTo('alice@example.test'), { timeout: 10_000 }).toBe(1);
    // The released submission is a navigation: let it land before the agent opens the next page.
    await agent.waitForURL(/\/send$/);
    // The grant is exactly that site for that recipient (tool, capability, recipient, site).
    const grants = (await browser.snapshot()).task!.policy.grants;
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({ tool: 'browser.form_submit', capability: 'message.send', recipients: ['alice@example.test'], domains: ['example.test'], maxCalls: null });

    // Repeats to alice pass without a question.
    for (let i = 2; i <= 3; i++) {
      await submitReply(agent, 'alice');
      await expect.poll(() => sentTo('alice@example.test'), { timeout: 10_000 }).toBe(i);
      await agent.waitForURL(/\/send$/);
    }
    expect(await browser.pendingApprovals()).toEqual([]);

    // Another recipient on the same (now granted) site still asks, and is denied: it never leaves.
    await submitReply(agent, 'bob');
    const [other] = await browser.waitForApprovals(1);
    expect(other!.targets.recipients).toEqual(['bob@corp.test']);
    expect(other!.check).not.toBe('site_binding');
    await browser.answer(other!.id, 'deny');
    await agent.waitForTimeout(300);
    expect(sentTo('bob@corp.test')).toBe(0);
    const asks = await browser.audit({ decision: 'ASK_USER', check: 'site_binding' });
    expect(asks).toHaveLength(1);
  });

  test(`${variant}: read-only news request: reading works, no write class is granted and a POST never leaves`, async () => {
    browser = await launchFence({ mainHooks: variant === 'full' });
    const state = await browser.setTask(NEWS_TASK);
    expect(state.task?.policy.ceilings).toEqual({});
    expect(state.task?.policy.prohibitions.flatMap((p) => p.classes).sort()).toEqual(['COMMUNICATION', 'EXTERNAL_WRITE', 'PERMISSION_CHANGE']);
    const agent = await browser.context.newPage();
    await agent.goto(`${server.origin('news.example.test')}/story/1`);
    await expect(agent.getByText('Today a cat was elected mayor.')).toBeVisible();
    expect(await postComment(agent)).toMatch(/^failed:/);
    expect(server.hits('/comments')).toHaveLength(0);
    // With the hooks, the fetch is decided (and audited) by the prohibition; without them the floor refuses it.
    if (variant === 'full') {
      const blocked = await browser.audit({ decision: 'BLOCK' });
      expect(blocked.some((e) => e.record.check === 'prohibitions')).toBe(true);
    }
  });
}

test('negative control: without the extension the reply and the comment both reach the server', async () => {
  browser = await launchFence({ extension: false });
  const agent = await browser.context.newPage();
  await submitReply(agent, 'bob');
  await expect.poll(() => sentTo('bob@corp.test'), { timeout: 10_000 }).toBe(1);
  // The submission is a navigation: let it land before the agent opens the next page.
  await agent.waitForURL(/\/send$/);
  await agent.goto(`${server.origin('news.example.test')}/story/1`);
  expect(await postComment(agent)).toBe('sent:200');
  expect(server.hits('/comments')).toHaveLength(1);
});
