import { chromium, expect, test, type Browser as PwBrowser } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import { extensionDir } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * `agentsfence browser`: a Playwright script (connectOverCDP) and a Puppeteer script (connect
 * {browserURL}) attach to the printed endpoint, finish a benign task, get a recognisable error on a
 * blocked one, and cannot list, attach to or evaluate in any extension target; a held request is
 * answered from the terminal. Negative control: Chromium's raw port (not the proxy) shows the service
 * worker. The test server's log is the truth for what left the browser.
 */

const ROOT = resolve(import.meta.dirname, '..');
test.setTimeout(120_000);

let server: TestServer;
let cli: ChildProcessWithoutNullStreams;
let cdpUrl: string;
let rawUrl: string;
let stderr = '';

test.beforeAll(async () => {
  server = await startTestServer();
  server.setPage('/', '<!doctype html><title>news</title><h1>Front page</h1>');
  cli = spawn(process.execPath, [join(ROOT, 'bin/agentsfence.mjs'), 'browser', '--task', 'Read the front page of news.test', '--ask-timeout', '20'], {
    env: { ...process.env, AF_EXTENSION: extensionDir('full') },
  });
  cli.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  cdpUrl = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    cli.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = /^cdp: (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (line) resolveUrl(line[1]!);
    });
    cli.once('exit', (code) => reject(new Error(`agentsfence browser exited ${code}: ${stderr}`)));
    setTimeout(() => reject(new Error(`no cdp line within 60 s: ${stderr}`)), 60_000);
  });
  // The raw port, for the negative control only: Chromium writes it into the fresh profile, the
  // --user-data-dir of the browser this CLI started (other browsers run at the same time).
  const profile = profileOf(chromiumUnder(cli.pid!));
  rawUrl = `http://127.0.0.1:${readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]}`;
});

/** The command line (NUL-separated arguments) of every process, by parent: /proc, Linux only, as the suite is. */
function processesByParent(): Map<number, { pid: number; args: string[] }[]> {
  const byParent = new Map<number, { pid: number; args: string[] }[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // "pid (comm) state ppid …"
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      byParent.set(parent, [...(byParent.get(parent) ?? []), { pid: Number(entry), args }]);
    } catch {
      // The process ended while we looked.
    }
  }
  return byParent;
}

/** The arguments of the Chromium browser process started (directly or not) by process `root`. */
function chromiumUnder(root: number): string[] {
  const byParent = processesByParent();
  for (const queue = [root]; queue.length > 0; ) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      if (child.args.some((a) => a.startsWith('--user-data-dir=')) && !child.args.some((a) => a.startsWith('--type='))) return child.args;
      queue.push(child.pid);
    }
  }
  throw new Error(`no Chromium under process ${root}`);
}

function profileOf(args: string[]): string {
  const profile = args.find((a) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
  if (!existsSync(join(profile, 'DevToolsActivePort'))) throw new Error(`${profile} has no DevToolsActivePort`);
  return profile;
}

test.afterAll(async () => {
  cli.kill('SIGTERM');
  await new Promise((r) => cli.once('exit', r));
  await server.close();
});
test.beforeEach(() => server.clearLog());

const isExtensionUrl = (url: string) => url.startsWith('chrome-extension://') || url.startsWith('chrome://');
const evilHits = () => server.requests().filter((r) => r.host === 'evil.test');

test('negative control: the raw Chromium port exposes the extension service worker', async () => {
  const list = (await (await fetch(`${rawUrl}/json/list`)).json()) as Array<{ type: string; url: string }>;
  expect(list.some((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'))).toBe(true);
  const proxied = (await (await fetch(`${cdpUrl}/json/list`)).json()) as Array<{ type: string; url: string; webSocketDebuggerUrl: string }>;
  expect(proxied.length).toBeGreaterThan(0);
  expect(proxied.filter((t) => isExtensionUrl(t.url))).toEqual([]);
  for (const t of proxied) expect(t.webSocketDebuggerUrl.startsWith(cdpUrl.replace('http', 'ws'))).toBe(true);
});

test('Playwright connectOverCDP: benign task works, blocked goto rejects, no extension target can be listed, attached to or evaluated', async () => {
  const browser: PwBrowser = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = browser.contexts()[0]!;
    expect(context.serviceWorkers()).toEqual([]);
    expect(context.pages().filter((p) => isExtensionUrl(p.url()))).toEqual([]);
    const page = await context.newPage();
    const ok = await page.goto(`${server.origin('news.test')}/`);
    expect(ok?.status()).toBe(200);
    await expect(page.locator('h1')).toHaveText('Front page');

    const blocked = await page.goto(`${server.origin('evil.test')}/landing`).then(() => 'resolved', (e: Error) => e.message);
    expect(blocked).toContain('net::ERR_BLOCKED_BY_CLIENT');
    expect(evilHits()).toEqual([]);

    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: Array<{ targetId: string; type: string; url: string }> };
    expect(targetInfos.filter((t) => isExtensionUrl(t.url))).toEqual([]);
    const raw = (await (await fetch(`${rawUrl}/json/list`)).json()) as Array<{ id: string; type: string; url: string }>;
    const worker = raw.find((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'))!;
    const extensionId = new URL(worker.url).host;
    const refused = (p: Promise<unknown>) => p.then(() => 'sent', (e: Error) => e.message);
    expect(await refused(cdp.send('Target.attachToTarget', { targetId: worker.id, flatten: true }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Target.createTarget', { url: `chrome-extension://${extensionId}/popup.html` }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Target.createTarget', { url: 'chrome://extensions' }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Extensions.loadUnpacked' as 'Target.getTargets', { path: '/tmp' } as never))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('ServiceWorker.stopAllWorkers' as 'Target.getTargets'))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Storage.clearDataForOrigin', { origin: `chrome-extension://${extensionId}`, storageTypes: 'all' }))).toMatch(/refused by AgentsFence/);
    expect(await refused(browser.newContext())).toMatch(/refused by AgentsFence/);

    // The agent's tab now shows the blocked page (an extension page): no session on it, no evaluation there.
    await expect
      .poll(async () => refused(context.newCDPSession(page).then((s) => s.send('Runtime.evaluate', { expression: 'document.title' }))), { timeout: 10_000 })
      .toMatch(/refused by AgentsFence/);
    const title = await Promise.race([page.evaluate(() => document.title).catch((e: Error) => e.message), new Promise((r) => setTimeout(() => r('timed out'), 3_000))]);
    expect(title).not.toContain('Blocked by AgentsFence');
    const pageCdp = await context.newCDPSession(await context.newPage());
    expect(await refused(pageCdp.send('Page.navigate', { url: `chrome-extension://${extensionId}/options.html` }))).toMatch(/refused by AgentsFence/);
    expect(await refused(pageCdp.send('IndexedDB.requestDatabaseNames', { securityOrigin: `chrome-extension://${extensionId}` }))).toMatch(/refused by AgentsFence/);
    // …and navigating away works.
    expect((await page.goto(`${server.origin('news.test')}/`))?.status()).toBe(200);
    expect(await page.evaluate(() => document.title)).toBe('news');
  } finally {
    await browser.close();
  }
});

test('Puppeteer connect({browserURL}): benign task works, blocked goto rejects, no extension target is visible', async () => {
  const browser = await puppeteer.connect({ browserURL: cdpUrl, defaultViewport: null });
  try {
    expect(browser.targets().filter((t) => isExtensionUrl(t.url()))).toEqual([]);
    expect(browser.targets().filter((t) => t.type() === 'service_worker')).toEqual([]);
    const page = await browser.newPage();
    const ok = await page.goto(`${server.origin('news.test')}/`);
    expect(ok?.status()).toBe(200);
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('Front page');
    const blocked = await page.goto(`${server.origin('evil.test')}/landing`).then(() => 'resolved', (e: Error) => e.message);
    expect(blocked).toContain('net::ERR_BLOCKED_BY_CLIENT');
    const found = await browser.waitForTarget((t) => isExtensionUrl(t.url()) || t.type() === 'service_worker', { timeout: 2_000 }).then(() => 'found', () => 'none');
    expect(found).toBe('none');
    expect(evilHits()).toEqual([]);
  } finally {
    await browser.disconnect();
  }
});

test('headless approvals come from the terminal: a held POST is printed and "y" lets it through', async () => {
  const browser = await puppeteer.connect({ browserURL: cdpUrl, defaultViewport: null });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin('news.test')}/`);
    const before = stderr.length;
    const sent = page.evaluate((url) => fetch(url, { method: 'POST', body: 'x=1' }).then((r) => r.status, (e: Error) => e.message), `${server.origin('evil.test')}/post`);
    await expect.poll(() => stderr.slice(before), { timeout: 15_000 }).toContain('AgentsFence asks:');
    expect(stderr.slice(before)).toContain('evil.test');
    cli.stdin.write('y\n');
    expect(await sent).toBe(200);
    expect(evilHits().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /post']);
  } finally {
    await browser.disconnect();
  }
});
