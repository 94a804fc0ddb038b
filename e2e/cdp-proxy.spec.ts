import { chromium, expect, test, type Browser as PwBrowser } from '@playwright/test';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import { launchAgentBrowser, type FenceEvent } from '../src/harness';
import { buildCli } from '../tests/cli/run';
import { extensionDir } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * `agentsfence browser`: a Playwright script (connectOverCDP) and a Puppeteer script (connect
 * {browserURL}) attach to the printed endpoint, finish a benign task, get a recognisable error on a
 * blocked one, and cannot list, attach to or evaluate in any extension target; a held request is
 * answered from the terminal. The browser speaks CDP over its pipe to the CLI only: no TCP port of it
 * serves CDP. Negative control: Chromium launched with --remote-debugging-port (the harness's option) does
 * serve CDP on a port the same probe finds, and lists the service worker there. The test server's log is
 * the truth for what left the browser.
 */

const ROOT = resolve(import.meta.dirname, '..');
test.setTimeout(120_000);

interface Target {
  targetId: string;
  type: string;
  url: string;
}

let server: TestServer;
let cli: ChildProcessWithoutNullStreams;
let cdpUrl: string;
let stderr = '';
/** Every target of the CLI's browser when the task started, hidden ones included (AF_E2E_TARGETS_FILE). */
let allTargets: Target[];
const targetsFile = join(tmpdir(), `af-cdp-targets-${process.pid}-${Date.now()}.json`);

test.beforeAll(async () => {
  buildCli();
  server = await startTestServer();
  server.setPage('/', '<!doctype html><title>news</title><h1>Front page</h1>');
  cli = spawn(process.execPath, [join(ROOT, 'bin/agentsfence.mjs'), 'browser', '--task', 'Read the front page of news.test', '--ask-timeout', '20'], {
    env: { ...process.env, AF_EXTENSION: extensionDir('full'), AF_E2E_TARGETS_FILE: targetsFile },
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
  allTargets = JSON.parse(readFileSync(targetsFile, 'utf8')) as Target[];
  rmSync(targetsFile, { force: true });
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

/** The processes under `root` (not `root` itself), breadth first. */
function descendants(root: number): { pid: number; args: string[] }[] {
  const byParent = processesByParent();
  const found: { pid: number; args: string[] }[] = [];
  for (const queue = [root]; queue.length > 0; ) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The Chromium browser processes started (directly or not) by process `root`. */
function chromiumsUnder(root: number): { pid: number; args: string[] }[] {
  return descendants(root).filter((p) => p.args.some((a) => a.startsWith('--user-data-dir=')) && !p.args.some((a) => a.startsWith('--type=')));
}

/** The TCP ports a browser process or any of its children listens on (/proc/net/tcp{,6}, state 0A). */
function listeningPorts(browserPid: number): number[] {
  const inodes = new Set<string>();
  for (const pid of [browserPid, ...descendants(browserPid).map((p) => p.pid)]) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const link = (() => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`);
          } catch {
            return '';
          }
        })();
        const socket = /^socket:\[(\d+)\]$/.exec(link);
        if (socket) inodes.add(socket[1]!);
      }
    } catch {
      // The process ended while we looked.
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9]!)) continue;
      ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports];
}

/** The ports among these that answer /json/version with a debugger URL, as Chromium's debugging port does. */
async function cdpPorts(ports: number[]): Promise<number[]> {
  const serving: number[] = [];
  for (const port of ports) {
    const body = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.text(), () => '');
    if (body.includes('webSocketDebuggerUrl')) serving.push(port);
  }
  return serving;
}

test.afterAll(async () => {
  cli.kill('SIGTERM');
  await new Promise((r) => cli.once('exit', r));
  await server.close();
});
test.beforeEach(() => server.clearLog());

const isExtensionUrl = (url: string) => url.startsWith('chrome-extension://') || url.startsWith('chrome://');
const evilHits = () => server.requests().filter((r) => r.host === 'evil.test');

test('the agentsfence browser has no debugging port: CDP over its pipe only, no DevToolsActivePort, no TCP port of it serves CDP', async () => {
  const [browser, ...others] = chromiumsUnder(cli.pid!);
  expect(others).toEqual([]);
  expect(browser!.args).toContain('--remote-debugging-pipe');
  expect(browser!.args.filter((a) => a.startsWith('--remote-debugging-port') || a.startsWith('--remote-debugging-address'))).toEqual([]);
  const profile = browser!.args.find((a) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
  expect(existsSync(join(profile, 'DevToolsActivePort'))).toBe(false);
  expect(await cdpPorts(listeningPorts(browser!.pid))).toEqual([]);
  // The only CDP on offer is the proxy's, and it shows no extension target.
  const proxied = (await (await fetch(`${cdpUrl}/json/list`)).json()) as Array<{ type: string; url: string; webSocketDebuggerUrl: string }>;
  expect(proxied.length).toBeGreaterThan(0);
  expect(proxied.filter((t) => isExtensionUrl(t.url))).toEqual([]);
  for (const t of proxied) expect(t.webSocketDebuggerUrl.startsWith(cdpUrl.replace('http', 'ws'))).toBe(true);
  // …while the browser does run the extension's service worker.
  expect(allTargets.some((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'))).toBe(true);
});

test('negative control: Chromium launched with --remote-debugging-port serves CDP on a TCP port that lists the extension service worker', async () => {
  const raw = await launchAgentBrowser({ extensionPath: extensionDir('full'), remoteDebuggingPort: 0 });
  try {
    const browser = chromiumsUnder(process.pid).find((p) => p.args.some((a) => a.startsWith('--remote-debugging-port=')))!;
    const [port] = await cdpPorts(listeningPorts(browser.pid));
    expect(`http://127.0.0.1:${port}`).toBe(raw.cdpEndpoint);
    const list = (await (await fetch(`${raw.cdpEndpoint}/json/list`)).json()) as Array<{ type: string; url: string }>;
    expect(list.some((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${raw.extensionId}/`))).toBe(true);
  } finally {
    await raw.close();
  }
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
    const worker = allTargets.find((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'))!;
    const extensionId = new URL(worker.url).host;
    const refused = (p: Promise<unknown>) => p.then(() => 'sent', (e: Error) => e.message);
    expect(await refused(cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Target.createTarget', { url: `chrome-extension://${extensionId}/popup.html` }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Target.createTarget', { url: 'chrome://extensions' }))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Extensions.loadUnpacked' as 'Target.getTargets', { path: '/tmp' } as never))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('ServiceWorker.stopAllWorkers' as 'Target.getTargets'))).toMatch(/refused by AgentsFence/);
    expect(await refused(cdp.send('Storage.clearDataForOrigin', { origin: `chrome-extension://${extensionId}`, storageTypes: 'all' }))).toMatch(/refused by AgentsFence/);
    expect(await refused(browser.newContext())).toMatch(/refused by AgentsFence/);

    // The agent's tab goes on from the blocked page (an extension page, never the agent's to read) to its
    // readable copy: a data: page with the reason, no control, and no extension API in reach.
    await expect.poll(() => page.title().catch((e: Error) => e.message), { timeout: 10_000 }).toMatch(/^Blocked by AgentsFence \(/);
    expect(page.url()).toMatch(/^data:text\/html/);
    expect(await page.locator('[role=alert]').textContent()).toContain(`${server.origin('evil.test')}/landing`);
    expect(await page.locator('button, a, form, input').count()).toBe(0);
    expect(await page.evaluate(() => typeof (globalThis as { chrome?: { runtime?: unknown } }).chrome?.runtime)).toBe('undefined');
    // "Back" from the copy returns past the block, to the page before it.
    await page.goBack().catch(() => undefined);
    await expect.poll(() => page.url(), { timeout: 10_000 }).toBe(`${server.origin('news.test')}/`);
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
    // The tab then reads what was blocked and why (no "Execution context was destroyed" on the next read).
    await expect.poll(() => page.title().catch((e: Error) => e.message), { timeout: 10_000 }).toMatch(/^Blocked by AgentsFence \(/);
    expect(await page.$eval('[role=alert]', (el) => el.textContent)).toContain(`${server.origin('evil.test')}/landing`);
    const found = await browser.waitForTarget((t) => isExtensionUrl(t.url()) || t.type() === 'service_worker', { timeout: 2_000 }).then(() => 'found', () => 'none');
    expect(found).toBe('none');
    expect(evilHits()).toEqual([]);
  } finally {
    await browser.disconnect();
  }
});

test('headless approvals come from the terminal: a held POST is printed with its number, and "<number> y" lets it through', async () => {
  const browser = await puppeteer.connect({ browserURL: cdpUrl, defaultViewport: null });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.origin('news.test')}/`);
    const before = stderr.length;
    const sent = page.evaluate((url) => fetch(url, { method: 'POST', body: 'x=1' }).then((r) => r.status, (e: Error) => e.message), `${server.origin('evil.test')}/post`);
    const number = () => /AgentsFence #(\d+): /.exec(stderr.slice(before))?.[1];
    await expect.poll(number, { timeout: 15_000 }).toBeDefined();
    expect(stderr.slice(before)).toContain('evil.test');
    cli.stdin.write(`${number()} y\n`);
    expect(await sent).toBe(200);
    expect(evilHits().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /post']);
  } finally {
    await browser.disconnect();
  }
});

test('the harness hears asks and decisions as they happen (watch): a held POST is an ask, the deny settles it and its BLOCK follows', async () => {
  const fence = await launchAgentBrowser({ extensionPath: extensionDir('full') });
  const events: FenceEvent[] = [];
  const stop = fence.watch((e) => events.push(e));
  try {
    await fence.setTask('Read the front page of news.test');
    const page = await fence.context.newPage();
    await page.goto(`${server.origin('news.test')}/`);
    const sent = page.evaluate((url) => fetch(url, { method: 'POST', body: 'x=1' }).then((r) => String(r.status), (e: Error) => e.message), `${server.origin('evil.test')}/watched`);
    await expect.poll(() => events.find((e) => e.type === 'ask'), { timeout: 10_000 }).toBeDefined();
    const ask = events.find((e): e is Extract<FenceEvent, { type: 'ask' }> => e.type === 'ask')!;
    expect(ask.approval.destination).toContain('evil.test');
    await fence.answer(ask.approval.id, 'deny');
    expect(await sent).toMatch(/blocked by AgentsFence/);
    await expect.poll(() => events.some((e) => e.type === 'settled' && e.id === ask.approval.id)).toBe(true);
    await expect.poll(() => events.some((e) => e.type === 'decision' && e.entry.record.decision === 'BLOCK' && (e.entry.destination ?? '').includes('evil.test'))).toBe(true);
    expect(server.hits('/watched', 'evil.test')).toEqual([]);
  } finally {
    stop();
    await fence.close();
  }
});
