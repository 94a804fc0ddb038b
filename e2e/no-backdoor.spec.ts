import type { Page, Worker } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { AgentBrowser } from '../src/harness';
import { expect, extensionDir, test } from './fixtures/extension';
import type { TestServer } from './fixtures/server';

/**
 * No backdoor in production. The harness drives the extension through the harness channel
 * (`globalThis.__agentsfence` in the service worker: setPolicy, a message handler that takes any
 * sender, snapshot, session rules, control windows), which only the harness builds contain
 * (src/background/platform/harness-channel.ts, `__AF_HARNESS__`). The production build (`npm run build`, built
 * here into .output/e2e-production) must expose nothing of it: not in its files, not to a page, not to
 * a page's worker, not even in the extension's own service worker. Positive control: the same checks
 * find the channel in the harness build, so they can fail.
 */

const ROOT = resolve(import.meta.dirname, '..');
const checkBundle = (dir: string) => execFileSync(process.execPath, [resolve(ROOT, 'scripts/check-production-bundle.mjs'), dir], { stdio: 'pipe', encoding: 'utf8' });

/** Everything named like AgentsFence on a global, and whether `__agentsfence` is there (evaluated in any JS context). */
const EXPOSED = () => {
  const scope = globalThis as unknown as Record<string, unknown> & { chrome?: { runtime?: { sendMessage?: unknown } } };
  const names = Object.getOwnPropertyNames(globalThis).filter((n) => /agentsfence/i.test(n));
  return { names, channel: typeof scope.__agentsfence, sendMessage: typeof scope.chrome?.runtime?.sendMessage };
};
type Exposed = ReturnType<typeof EXPOSED>;

async function pageAndWorker(browser: AgentBrowser, server: TestServer): Promise<{ page: Exposed; pageWorker: Exposed }> {
  server.setPage('/app', '<!doctype html><title>app</title><body>app</body>');
  server.setPage('/worker.js', { body: 'onmessage = () => postMessage(1);', contentType: 'text/javascript' });
  const page: Page = await browser.context.newPage();
  await page.goto(`${server.origin('app.test')}/app`);
  // The MAIN-world hooks start dedicated workers from a blob: bootstrap, so any worker of this page is it.
  const started = page.waitForEvent('worker');
  await page.evaluate(() => {
    (window as unknown as { w: globalThis.Worker }).w = new Worker('/worker.js');
  });
  const worker: Worker = await started;
  return { page: await page.evaluate(EXPOSED), pageWorker: await worker.evaluate(EXPOSED) };
}

const NOTHING: Exposed = { names: [], channel: 'undefined', sendMessage: 'undefined' };

test('the production bundle holds no harness channel; the harness build does (positive control)', () => {
  expect(checkBundle(extensionDir('production'))).toContain('no harness channel');
  expect(() => checkBundle(extensionDir('full'))).toThrow(/contains the harness channel/);
});

test('production build: a page, its worker and the extension service worker expose nothing callable', async ({ launchFence, server }) => {
  const fence = await launchFence({ extensionPath: extensionDir('production') });
  const { page, pageWorker } = await pageAndWorker(fence, server);
  expect(page).toEqual(NOTHING);
  expect(pageWorker).toEqual(NOTHING);
  const serviceWorker = await fence.serviceWorker!.evaluate(EXPOSED);
  // The worker has chrome.runtime (it is the extension), but no channel and nothing named after us.
  expect({ names: serviceWorker.names, channel: serviceWorker.channel }).toEqual({ names: [], channel: 'undefined' });
  // The harness refuses it with a clear error rather than hanging.
  await expect(fence.snapshot()).rejects.toThrow(/no harness channel/);
});

test('harness build (positive control): the channel is in the service worker only, never in a page or its worker', async ({ fence, server }) => {
  const { page, pageWorker } = await pageAndWorker(fence, server);
  expect(page).toEqual(NOTHING);
  expect(pageWorker).toEqual(NOTHING);
  const serviceWorker = await fence.serviceWorker!.evaluate(() => {
    const channel = (globalThis as unknown as { __agentsfence?: Record<string, unknown> }).__agentsfence;
    return { names: Object.getOwnPropertyNames(globalThis).filter((n) => /agentsfence/i.test(n)), setPolicy: typeof channel?.setPolicy, handleMessage: typeof channel?.handleMessage };
  });
  expect(serviceWorker).toEqual({ names: ['__agentsfence'], setPolicy: 'function', handleMessage: 'function' });
  expect((await fence.snapshot()).task).toBeNull();
});
