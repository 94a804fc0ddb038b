import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/extension';
import type { TaskPolicyInput } from '../src/core/policy';
import { openApp, quiet } from './background.helpers';
import type { AgentBrowser } from '../src/harness';
import type { TestServer } from './fixtures/server';

/**
 * Browser guards: a guarded tab may not open browser internals or this extension's own pages (the
 * approval UI), and downloads are decided as browser.download before a byte is written.
 */

test.beforeAll(({ server }) => {
  server.setPage('/file.bin', { body: 'payload', contentType: 'application/octet-stream', headers: { 'content-disposition': 'attachment; filename="file.bin"' } });
});

const noDownloads: TaskPolicyInput = { version: 1, taskId: 't-guards', issuedAt: 0, expiresAt: null, domains: ['app.test'], ceilings: { LOCAL_WRITE: 'block' } };

async function tryGoto(page: Page, url: string): Promise<void> {
  await page.goto(url, { timeout: 5_000 }).catch(() => undefined);
}

test('guarded tabs are taken off chrome:// and the extension popup; the audit says so', async ({ launchFence }) => {
  const browser = await launchFence();
  await browser.setPolicy(noDownloads);
  const internals = await browser.context.newPage();
  await tryGoto(internals, 'chrome://version');
  await expect.poll(() => internals.url()).toBe('about:blank');
  const popup = await browser.context.newPage();
  await tryGoto(popup, `chrome-extension://${browser.extensionId}/popup.html`);
  await expect.poll(() => popup.url()).toBe('about:blank');
  const guards = await browser.audit({ check: 'guards' });
  expect(guards.filter((e) => e.record.decision === 'BLOCK').length).toBeGreaterThanOrEqual(2);
});

test('negative control: with no task running, chrome:// stays open', async ({ launchFence }) => {
  const browser = await launchFence();
  const page = await browser.context.newPage();
  await tryGoto(page, 'chrome://version');
  await quiet(page, 1_000);
  expect(page.url()).toBe('chrome://version/');
});

type DownloadsApi = { chrome: { downloads: { search(q: object): Promise<Array<{ id: number; state: string; error?: string }>> } } };

/** Starts a download with a click and returns how Chrome's own download manager says it ended (`complete`, `interrupted:FILE_BLOCKED`). */
async function download(browser: AgentBrowser, server: TestServer, page: Page): Promise<string> {
  const worker = browser.serviceWorker!;
  const latest = () =>
    worker.evaluate(async () => {
      const [item] = await (globalThis as unknown as DownloadsApi).chrome.downloads.search({ orderBy: ['-startTime'], limit: 1 });
      return item === undefined ? null : { id: item.id, state: item.state === 'interrupted' ? `interrupted:${item.error ?? ''}` : item.state };
    });
  const before = (await latest())?.id ?? -1;
  await page.setContent(`<a id="d" href="${server.origin('app.test')}/file.bin" download>file</a>`);
  await page.click('#d');
  for (let i = 0; i < 100; i++) {
    const item = await latest();
    if (item !== null && item.id !== before && item.state !== 'in_progress') return item.state;
    await page.waitForTimeout(100);
  }
  return 'none or still in progress';
}

// The network floor stops the download by its response headers (Content-Disposition: attachment) when the
// task does not allow LOCAL_WRITE. That matters under Playwright: CDP-managed downloads skip the downloads
// API's onDeterminingFilename and finish even after a cancel, so the downloads API guard alone decides and
// audits but cannot stop them. A task that allows LOCAL_WRITE to some paths gets no floor rule, and there
// the path check is the downloads API guard's alone (docs/limits.md, limit 22).
test('a download the task does not allow is stopped, decided BLOCK and audited; without a task it completes', async ({ launchFence, server }) => {
  const browser = await launchFence();
  const page = await openApp(browser, server);
  expect(await download(browser, server, page)).toBe('complete');
  expect((await browser.audit({})).some((e) => e.record.tool === 'browser.download')).toBe(false);
  await browser.setPolicy(noDownloads);
  expect(await download(browser, server, page)).toMatch(/^interrupted:/);
  const blocked = await browser.audit({ decision: 'BLOCK' });
  expect(blocked.some((e) => e.record.tool === 'browser.download' && e.record.check === 'ceiling')).toBe(true);
});

test('setTask acts as the user: the compiled policy is enforced, and the control window may answer approvals', async ({ launchFence, server }) => {
  const browser = await launchFence();
  const state = await browser.setTask('Read the front page of news.test and summarise it.');
  expect(state.task?.policy.domains).toContain('news.test');
  expect(state.approvalsAllowed).toBe(true);
  const page = await browser.context.newPage();
  await tryGoto(page, `${server.origin('evil.test')}/away`);
  await expect(page).toHaveURL(/blocked\.html\?check=domain_allowlist/);
  expect(server.hits('/away', 'evil.test')).toHaveLength(0);
  await browser.endTask();
  expect((await browser.snapshot()).task).toBeNull();
});
