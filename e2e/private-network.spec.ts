import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/extension';
import { MAX_PRIVATE_HOST_LENGTH, MAX_PRIVATE_HOSTS, MAX_PRIVATE_PORTS, PRIVATE_HOST_PATTERNS } from '../src/background/floor/dnr';
import { GRANT_FLOOR_WINDOW_MS } from '../src/background/decide/decider';
import type { TaskPolicyInput } from '../src/core/policy';
import type { AgentBrowser } from '../src/harness';
import { openApp, quiet } from './background.helpers';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * The private network by the network floor alone (the AF_NO_MAIN_HOOKS build): a read-only open-web task
 * cannot reach a loopback "admin page" by any spelling of its address, by `localhost`, or through a
 * redirect from an ordinary page; it can when the task names the host. The test server listens on
 * 127.0.0.1 only, and its request log is the truth. Negative control: without the extension every
 * attempt reaches the server.
 */

test.beforeAll(({ server }) => {
  server.setPage('/admin', '<!doctype html><title>router admin</title><h1>admin</h1>');
});

const openWeb: TaskPolicyInput = { version: 1, taskId: 't-open-web', issuedAt: 0, expiresAt: null, domains: null };

/** Each way in, tagged by `via` so the server log says which one arrived. */
function navigations(server: TestServer) {
  const admin = (host: string, via: string) => `http://${host}:${server.port}/admin?via=${via}`;
  return {
    dotted: admin('127.0.0.1', 'dotted'),
    decimal: admin('2130706433', 'decimal'),
    hex: admin('0x7f.1', 'hex'),
    octal: admin('0177.0.0.1', 'octal'),
    localhost: admin('localhost', 'localhost'),
    redirect: `${server.origin('app.test')}/redirect?to=${encodeURIComponent(admin('127.0.0.1', 'redirect'))}`,
  };
}
const SUBRESOURCES = ['fetch', 'image', 'iframe'] as const;

async function subresources(page: Page, port: number): Promise<void> {
  await page.evaluate((p) => {
    const url = (via: string) => `http://0x7f000001:${p}/admin?via=${via}`;
    const img = new Promise((done) => {
      const i = new Image();
      i.onload = i.onerror = done;
      i.src = url('image');
    });
    const frame = document.createElement('iframe');
    frame.src = url('iframe');
    document.body.appendChild(frame);
    return Promise.all([fetch(url('fetch')).catch(() => 0), img]);
  }, port);
}

/** Every way in, each from a fresh page; returns the admin hits per way. */
async function reachAll(browser: AgentBrowser, server: TestServer): Promise<Record<string, number>> {
  const reached: Record<string, number> = {};
  for (const url of Object.values(navigations(server))) {
    const page = await browser.context.newPage();
    await page.goto(url).catch(() => undefined);
    await quiet(page, 300);
    await page.close();
  }
  const app = await openApp(browser, server);
  await subresources(app, server.port);
  await quiet(app);
  await app.close();
  for (const via of [...Object.keys(navigations(server)), ...SUBRESOURCES]) reached[via] = server.hits('/admin').filter((r) => r.query.includes(`via=${via}`)).length;
  return reached;
}

test('an open-web task (floor alone) reaches no loopback admin page: IP spellings, localhost, redirect, subresources', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(openWeb);
  // RE2 in Chromium accepts every pattern, and the floor holds all of them.
  const supported = await browser.serviceWorker!.evaluate(
    (patterns) => Promise.all(patterns.map((regex) => (globalThis as unknown as { chrome: { declarativeNetRequest: { isRegexSupported(o: { regex: string }): Promise<{ isSupported: boolean }> } } }).chrome.declarativeNetRequest.isRegexSupported({ regex }))),
    PRIVATE_HOST_PATTERNS,
  );
  expect(supported.map((s) => s.isSupported)).toEqual(PRIVATE_HOST_PATTERNS.map(() => true));
  const rules = (await browser.floorRules()) as { id: number; action: { type: string }; condition: { regexFilter?: string; requestDomains?: string[] } }[];
  for (const pattern of PRIVATE_HOST_PATTERNS) expect(rules.some((r) => r.condition.regexFilter === pattern)).toBe(true);
  expect(rules.some((r) => r.condition.requestDomains?.includes('localhost'))).toBe(true);
  // A single-label name with the root's dot (`router.`) asks the resolver what `router` does: Chromium's
  // own matcher blocks it as a navigation and as a request (nothing here resolves it, so it is asked).
  const outcome = (url: string, type: string) =>
    browser.serviceWorker!.evaluate(
      ({ url, type }) => (globalThis as unknown as { chrome: { declarativeNetRequest: { testMatchOutcome(r: object): Promise<{ matchedRules: { ruleId: number }[] }> } } }).chrome.declarativeNetRequest.testMatchOutcome({ url, type, tabId: 1, method: 'get' }),
      { url, type },
    );
  for (const url of [`http://router.:${server.port}/admin`, 'http://_gateway./', `http://router:${server.port}/admin`]) {
    for (const type of ['main_frame', 'xmlhttprequest']) expect((await outcome(url, type)).matchedRules.length, `${type} ${url}`).toBeGreaterThan(0);
  }
  // An ordinary site's request matches no block (only the floor's header rules: no Referer to an unnamed site).
  const actions = (await outcome(`${server.origin('app.test')}/`, 'xmlhttprequest')).matchedRules.map((m) => rules.find((r) => r.id === m.ruleId)?.action.type);
  expect(actions.filter((a) => a !== 'modifyHeaders')).toEqual([]);

  const reached = await reachAll(browser, server);
  expect(reached).toEqual(Object.fromEntries(Object.keys(reached).map((via) => [via, 0])));

  // DNR sees the canonical URL: the decimal spelling lands on the blocked page as 127.0.0.1.
  const page = await browser.context.newPage();
  await page.goto(navigations(server).decimal).catch(() => undefined);
  await expect(page).toHaveURL(new RegExp(`^chrome-extension://${browser.extensionId}/blocked.html\\?check=private_network`));
  await expect(page.locator('#url')).toHaveText(`http://127.0.0.1:${server.port}/admin?via=decimal`);
  const entries = await browser.audit({ check: 'private_network', decision: 'BLOCK' });
  expect(entries.some((e) => e.layer === 'network')).toBe(true);
});

test('negative control: without the extension every way in reaches the admin page', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const reached = await reachAll(browser, server);
  for (const [via, count] of Object.entries(reached)) expect(count, via).toBeGreaterThan(0);
});

test('a task that names the host reaches it, in every spelling and through a redirect', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy({ ...openWeb, taskId: 't-named', domains: [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'app.test'] });
  const reached = await reachAll(browser, server);
  for (const [via, count] of Object.entries(reached)) expect(count, via).toBeGreaterThan(0);
});

/**
 * Exact-target grants. "Check the build status on my dev server at localhost:PORT" names that host and
 * port, nothing else on the machine: a page there (or an agent it instructs) still cannot reach another
 * local service — here a second server standing in for Chromium's debugging port or a database — by
 * fetch, WebSocket, navigation or a redirect from the named port, nor the named port under another name
 * (`admin.localhost`, `127.0.0.1`). The policy allows writes, so the named server's own WebSocket works.
 */
async function beyondTheDevServer(browser: AgentBrowser, dev: TestServer, debug: TestServer): Promise<Record<string, number>> {
  dev.setPage('/build', '<!doctype html><title>build</title><p>build: green</p>');
  const page = await browser.context.newPage();
  await page.goto(`http://localhost:${dev.port}/build`);
  await page.evaluate(
    ({ devPort, debugPort }) => {
      const at = (host: string, port: number, via: string) => `http://${host}:${port}/json?via=${via}`;
      const get = (url: string) => fetch(url, { mode: 'no-cors' }).catch(() => 0);
      const image = (src: string) =>
        new Promise((done) => {
          const i = new Image();
          i.onload = i.onerror = done;
          i.src = src;
        });
      const socket = (url: string) =>
        new Promise((done) => {
          const s = new WebSocket(url);
          s.onopen = () => (s.close(), done(1));
          s.onerror = () => done(0);
          setTimeout(done, 2_000);
        });
      // A shared worker's requests have no tab: the floor judges them by the page's site that started it.
      new SharedWorker(URL.createObjectURL(new Blob([`fetch(${JSON.stringify(at('localhost', debugPort, 'worker-other-port'))}, { mode: 'no-cors' }).catch(() => 0);`], { type: 'text/javascript' })));
      return Promise.all([
        get(at('localhost', debugPort, 'other-port')),
        socket(`ws://localhost:${debugPort}/devtools?via=ws-other-port`),
        get(`http://localhost:${devPort}/redirect?to=${encodeURIComponent(at('localhost', debugPort, 'redirect'))}`),
        image(at('admin.localhost', devPort, 'subdomain')),
        get(at('127.0.0.1', devPort, 'other-name')),
        get(at('localhost', devPort, 'named')),
        socket(`ws://localhost:${devPort}/hmr?via=ws-named`),
      ]);
    },
    { devPort: dev.port, debugPort: debug.port },
  );
  const nav = await browser.context.newPage();
  await nav.goto(`http://localhost:${debug.port}/json?via=navigation`).catch(() => undefined);
  await quiet(page);
  const count = (server: TestServer, via: string) => server.requests().filter((r) => r.query.includes(`via=${via}`)).length;
  return {
    ...Object.fromEntries(['other-port', 'ws-other-port', 'worker-other-port', 'redirect', 'navigation'].map((via) => [via, count(debug, via)])),
    ...Object.fromEntries(['subdomain', 'other-name', 'named', 'ws-named'].map((via) => [via, count(dev, via)])),
  };
}

const devServerTask = (port: number): TaskPolicyInput => ({
  ...openWeb,
  taskId: 't-dev-server',
  domains: [`localhost:${port}`],
  ceilings: { EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
});

test('a task naming localhost:PORT reaches that port only: not another port, a subdomain, 127.0.0.1, nor a redirect away (floor alone)', async ({ launchFence, server }) => {
  const debug = await startTestServer();
  try {
    const browser = await launchFence({ mainHooks: false });
    // Chromium compiles every rule of the most a policy can name (RE2's 2 KB per regex, 1,000 regexes), or the update fails.
    const hosts = Array.from({ length: MAX_PRIVATE_HOSTS }, (_, i) => (i % 2 === 0 ? `${i}-printer.office.internal`.padStart(MAX_PRIVATE_HOST_LENGTH, 'a') : `[fd12:3456:789a:1::${i}]`));
    const most = hosts.flatMap((host) => Array.from({ length: MAX_PRIVATE_PORTS }, (_, p) => `${host}:${10007 + p * 7307}`));
    const grant = { id: 'g', tool: 'browser.request', capability: 'web.read', riskClass: 'READ' as const, domains: most, maxCalls: null, issuedAt: 0 };
    await browser.setPolicy({ ...devServerTask(server.port), domains: most, grants: [grant, { ...grant, id: 'w', capability: 'web.write', riskClass: 'EXTERNAL_WRITE' }] });
    await browser.setPolicy(devServerTask(server.port));
    expect(await beyondTheDevServer(browser, server, debug)).toEqual({ 'other-port': 0, 'ws-other-port': 0, 'worker-other-port': 0, redirect: 0, navigation: 0, subdomain: 0, 'other-name': 0, named: 1, 'ws-named': 1 });

    // Chromium's own matcher over the spellings a page can write (nothing is sent): the named port in any
    // of them goes, every other port, name or subdomain is blocked; a grant opens its host and port only.
    const blocked = async (url: string, type = 'xmlhttprequest') => {
      const rules = (await browser.floorRules()) as { id: number; action: { type: string } }[];
      const { matchedRules } = await browser.serviceWorker!.evaluate(
        ({ url, type }) => (globalThis as unknown as { chrome: { declarativeNetRequest: { testMatchOutcome(r: object): Promise<{ matchedRules: { ruleId: number }[] }> } } }).chrome.declarativeNetRequest.testMatchOutcome({ url, type, tabId: 1, method: 'get' }),
        { url, type },
      );
      return matchedRules.some((m) => rules.find((r) => r.id === m.ruleId)?.action.type === 'block');
    };
    const [dev, other] = [server.port, debug.port];
    for (const url of [`http://localhost:${dev}/`, `http://LOCALHOST.:${dev}/x`, `ws://localhost:${dev}/hmr`, `https://localhost:${dev}/`]) expect(await blocked(url), url).toBe(false);
    for (const url of [`http://localhost.:${other}/`, `http://u:p@localhost:${other}/`, `ws://localhost:${other}/`, 'http://localhost/', 'https://localhost/', `http://localhost:${Math.floor(dev / 10)}/`, `http://admin.localhost.:${dev}/`, `http://[::1]:${dev}/`, `http://0.0.0.0:${dev}/`, `http://2130706433:${dev}/`]) {
      expect(await blocked(url), url).toBe(true);
    }
    await browser.setPolicy({ ...openWeb, taskId: 't-granted', grants: [{ id: 'g', tool: 'browser.navigate', capability: 'web.read', riskClass: 'READ', domains: [`localhost:${other}`], maxCalls: null, issuedAt: 0 }] });
    expect(await blocked(`http://localhost:${other}/json`, 'main_frame')).toBe(false);
    for (const url of [`http://localhost:${dev}/`, `http://admin.localhost:${other}/`, `http://127.0.0.1:${other}/`]) expect(await blocked(url, 'main_frame'), url).toBe(true);
  } finally {
    await debug.close();
  }
});

test('negative control: without the extension the page on the dev server reaches every other local service', async ({ launchFence, server }) => {
  const debug = await startTestServer();
  try {
    const browser = await launchFence({ extension: false });
    const reached = await beyondTheDevServer(browser, server, debug);
    for (const [via, count] of Object.entries(reached)) expect(count, via).toBeGreaterThan(0);
  } finally {
    await debug.close();
  }
});

test('"Ask the user" on the blocked page: the prompt says why, and "Allow once" reaches exactly that host', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy(openWeb);
  const page = await browser.context.newPage();
  await page.goto(navigations(server).hex).catch(() => undefined);
  await expect(page).toHaveURL(/blocked\.html\?check=private_network/);
  await page.getByRole('button', { name: 'Ask the user' }).click();
  const [ask] = await browser.waitForApprovals(1);
  expect(ask!.reason).toBe(`http://127.0.0.1:${server.port}/ is on the private network (loopback) and the task does not name it`);
  await browser.answer(ask!.id, 'once');
  await expect(page).toHaveURL(`http://127.0.0.1:${server.port}/admin?via=hex`);
  expect(server.hits('/admin').filter((r) => r.query === '?via=hex')).toHaveLength(1);
  // Once means once at the floor too: shortly after, the host is closed again to what the hooks never see.
  await page.waitForTimeout(GRANT_FLOOR_WINDOW_MS + 1_000);
  const app = await openApp(browser, server);
  await subresources(app, server.port);
  await quiet(app);
  const again = await browser.context.newPage();
  await again.goto(`http://127.0.0.1:${server.port}/admin?via=again`).catch(() => undefined);
  await expect(again).toHaveURL(/blocked\.html\?check=private_network/);
  expect(server.hits('/admin').filter((r) => !r.query.includes('via=hex'))).toEqual([]);
});

test('Chromium accepts the rules for a task naming an IPv6 literal; a name that resolves to loopback is audited once, after the fact', async ({ launchFence, server }) => {
  const browser = await launchFence();
  await browser.setPolicy({ ...openWeb, taskId: 't-v6', domains: ['::1', 'news.test'] });
  const rules = (await browser.floorRules()) as { condition: { excludedRequestDomains?: string[] } }[];
  expect(rules.some((r) => r.condition.excludedRequestDomains?.includes('[::1]'))).toBe(true);
  // And Chromium matches it: the named literal (its default ports) passes the navigation list, another port does not.
  for (const [url, blocked] of [['http://[::1]/', false], ['https://[::1]/x', false], ['http://[::1]:3001/', true]] as const) {
    const { matchedRules } = await browser.serviceWorker!.evaluate(
      (u) => (globalThis as unknown as { chrome: { declarativeNetRequest: { testMatchOutcome(r: object): Promise<{ matchedRules: { ruleId: number }[] }> } } }).chrome.declarativeNetRequest.testMatchOutcome({ url: u, type: 'main_frame', tabId: 1, method: 'get' }),
      url,
    );
    const all = (await browser.floorRules()) as { id: number; action: { type: string } }[];
    expect(matchedRules.some((m) => all.find((r) => r.id === m.ruleId)?.action.type === 'block'), url).toBe(blocked);
  }

  // app.test is not named and resolves to 127.0.0.1 (--host-resolver-rules): recorded once per task and site.
  await browser.setPolicy(openWeb);
  for (let i = 0; i < 2; i++) await (await openApp(browser, server)).close();
  const after = await browser.audit({ check: 'private_network' });
  const rebinding = after.filter((e) => e.record.decision === 'ALLOW' && e.record.targets.domains[0] === 'app.test');
  expect(rebinding).toHaveLength(1);
  expect(rebinding[0]!.layer).toBe('network');
  expect(rebinding[0]!.record.reason).toMatch(/app\.test resolved to 127\.0\.0\.1 \(loopback\)/);
});

test('a task that reads from a list: a dependency from an unnamed name that resolves to loopback is audited after the fact (the rebinding listener asks for dependencies only)', async ({ launchFence, server }) => {
  const browser = await launchFence();
  await browser.setPolicy({ ...openWeb, taskId: 't-listed', domains: ['news.test'] });
  server.setPage('/pic.png', { body: 'png', contentType: 'image/png' });
  server.setPage('/news', `<!doctype html><title>news</title><img src="${server.origin('cdn.test')}/pic.png">`);
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('news.test')}/news`);
  await expect.poll(async () => server.hits('/pic.png').length).toBe(1);
  await expect
    .poll(async () => (await browser.audit({ check: 'private_network' })).filter((e) => e.record.decision === 'ALLOW').map((e) => e.record.targets.domains[0]))
    .toEqual(['cdn.test']);
});

/**
 * Requests the browser makes itself on a page's behalf pass no declarativeNetRequest rule: PaymentRequest
 * fetches the payment method's manifest (`HEAD` the method URL, `http:` allowed on loopback) and FedCM the
 * identity provider's `/.well-known/web-identity` and config URL. Each carries whatever path and query the
 * page chose. The guarded documents' Permissions-Policy turns both APIs off, also when the page's own
 * header enables them, or is malformed (Chromium then drops the whole header: the Feature-Policy holds).
 */
async function browserMadeRequests(browser: AgentBrowser, server: TestServer): Promise<string[]> {
  server.setPage('/own-policy', { body: '<!doctype html><title>shop</title><p>code 482913</p>', headers: { 'permissions-policy': 'payment=*, identity-credentials-get=*' } });
  server.setPage('/malformed-policy', { body: '<!doctype html><title>shop</title><p>code 482913</p>', headers: { 'permissions-policy': '"', 'feature-policy': "payment *; '" } });
  for (const path of ['/own-policy', '/malformed-policy']) await browserMadeRequestsFrom(browser, server, path);
  return server.requests().filter((r) => r.host === '127.0.0.1').map((r) => `${r.method} ${r.path}`);
}

async function browserMadeRequestsFrom(browser: AgentBrowser, server: TestServer, path: string): Promise<void> {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('shop.localhost')}${path}`);
  await page.evaluate(async (loopback) => {
    try {
      const request = new PaymentRequest([{ supportedMethods: `${loopback}/pay?c=482913` }], { total: { label: 'x', amount: { currency: 'EUR', value: '1' } } });
      await request.canMakePayment().catch(() => false);
    } catch {
      // refused: the permissions policy
    }
    const identity = { providers: [{ configURL: `${loopback}/idp.json?c=482913`, clientId: 'x' }] };
    await Promise.race([navigator.credentials.get({ identity } as CredentialRequestOptions).catch(() => null), new Promise((done) => setTimeout(done, 1_000))]);
  }, `http://127.0.0.1:${server.port}`);
  await quiet(page, 1_000);
}

test('a page cannot make the browser itself reach a loopback service: no payment-manifest or FedCM fetch (floor alone)', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setPolicy({ ...openWeb, taskId: 't-browser-made', domains: [`shop.localhost:${server.port}`] });
  expect(await browserMadeRequests(browser, server)).toEqual([]);
});

test('negative control: without the extension the payment manifest and the FedCM config are fetched from loopback', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const reached = await browserMadeRequests(browser, server);
  expect(reached).toContain('HEAD /pay');
  expect(reached).toContain('GET /idp.json');
});

/**
 * Guard scope `task-tabs`: a task page holds a reference to a tab outside the task (its opener) and navigates
 * it. The navigation floor guards the task's tabs only, but the private network's navigation rules hold in
 * every tab: the opener cannot be sent to a loopback service (a router's GET-triggered setting); the same
 * navigation to an ordinary site goes.
 */
async function navigateOpener(browser: AgentBrowser, server: TestServer, guarded: boolean): Promise<Record<'loopback' | 'ordinary', number>> {
  const outside = await browser.context.newPage();
  await outside.goto(`${server.origin('other.test')}/app`);
  const [taskTab] = await Promise.all([browser.context.waitForEvent('page'), outside.evaluate((u) => void window.open(u), `${server.origin('app.test')}/app`)]);
  await taskTab.waitForLoadState();
  if (guarded) {
    await browser.setOptions({ guardScope: 'task-tabs' });
    await taskTab.bringToFront();
    await browser.setPolicy({ ...openWeb, taskId: 't-opener' }); // the task starts in the active tab; its opener is outside it
    await taskTab.reload();
  }
  const go = (url: string) => taskTab.evaluate((u) => void ((window.opener as Window).location.href = u), url);
  await go(`http://127.0.0.1:${server.port}/admin?via=opener`);
  await quiet(taskTab, 1_000);
  await go(`${server.origin('other.test')}/landing?via=opener`);
  await server.waitFor('/landing', 'other.test').catch(() => undefined);
  return { loopback: server.hits('/admin', '127.0.0.1').length, ordinary: server.hits('/landing', 'other.test').length };
}

test('task-tabs: a task page cannot navigate its opener, outside the task, to a loopback service; to an ordinary site it goes (floor alone)', async ({ launchFence, server }) => {
  const browser = await launchFence({ mainHooks: false });
  server.setPage('/app', '<!doctype html><title>app</title><p>app</p>');
  expect(await navigateOpener(browser, server, true)).toEqual({ loopback: 0, ordinary: 1 });
});

test('negative control: without the extension the opener reaches the loopback service', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  server.setPage('/app', '<!doctype html><title>app</title><p>app</p>');
  expect(await navigateOpener(browser, server, false)).toEqual({ loopback: 1, ordinary: 1 });
});
