import { expect, test, type Page } from '@playwright/test';
import { makePolicy } from '../tests/support/policy';
import type { AgentBrowser } from '../src/harness';
import { startOtlpReceiver, type OtlpReceiver } from '../tests/support/otlp-receiver';
import { quiet } from './background.helpers';
import { buildExtension, launchFence } from './fixtures/extension';
import { copyExtension, writeManagedPolicy, type ExtensionCopy, type ManagedPolicyFile } from './fixtures/managed-policy';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * The organisation's floor and collector, set for real by enterprise policy: the test writes Chromium's
 * managed-policy file (`/etc/chromium/policies/managed/`, as root) for a copy of the build whose id no
 * other browser on the machine has (see fixtures/managed-policy.ts), and removes it afterwards. The floor
 * runs on the nohooks build: what it stops here holds without the MAIN-world hooks.
 *
 * Run under the browser lock: `flock /tmp/af-browser.lock npx playwright test e2e/org.spec.ts`.
 */

let server: TestServer;
let collector: OtlpReceiver;
test.beforeAll(async () => {
  server = await startTestServer();
  collector = await startOtlpReceiver();
});
test.afterAll(async () => {
  await collector.close();
  await server.close();
});
test.beforeEach(() => {
  server.clearLog();
  collector.records.length = 0;
  collector.requests.length = 0;
  collector.errors.length = 0;
  collector.failNext(0);
});

/** The task allows paying on bank.test and reading shop.test: the organisation's floor does not. */
const payTask = makePolicy({
  taskId: 't-org',
  domains: ['bank.test', 'shop.test'],
  ceilings: { FINANCIAL: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['FINANCIAL'] },
});

const PAY_PAGE = `<!doctype html><title>bank</title>
<form method="post" action="/transfer"><input name="amount" value="10"><button>Pay</button></form>`;

async function withManaged<T>(policy: Record<string, unknown> | null, variant: 'full' | 'nohooks', run: (browser: AgentBrowser, copy: ExtensionCopy) => Promise<T>): Promise<T> {
  const copy = copyExtension(buildExtension(variant));
  let file: ManagedPolicyFile | null = null;
  let browser: AgentBrowser | null = null;
  try {
    if (policy !== null) file = writeManagedPolicy(copy.id, policy);
    browser = await launchFence({ extensionPath: copy.dir });
    expect(browser.extensionId).toBe(copy.id);
    return await run(browser, copy);
  } finally {
    await browser?.close();
    file?.remove();
    copy.remove();
  }
}

async function pay(browser: AgentBrowser): Promise<Page> {
  server.setPage('/pay', PAY_PAGE);
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('bank.test')}/pay`);
  await page.getByRole('button', { name: 'Pay' }).click();
  await quiet(page);
  return page;
}

/** The popup the person reads: the extension's own control window (the harness opened it for audit()). */
async function popupOf(browser: AgentBrowser): Promise<Page> {
  await browser.audit({ limit: 1 });
  const popup = browser.context.pages().find((p) => p.url().startsWith(`chrome-extension://${browser.extensionId}/popup.html`));
  if (popup === undefined) throw new Error('no control window');
  await popup.reload();
  return popup;
}

test('the managed floor blocks a payment the task allows and a site the task names; the popup says why', async () => {
  const org = { neverAllowClasses: ['FINANCIAL'], blockedSites: ['shop.test'], maxAskTimeoutSeconds: 30 };
  await withManaged(org, 'nohooks', async (browser) => {
    // Chromium gave the policy to this copy (3rdparty.extensions.<id>), and nothing else.
    const managed = await browser.serviceWorker!.evaluate(() => (globalThis as unknown as { chrome: { storage: { managed: { get(): Promise<unknown> } } } }).chrome.storage.managed.get());
    expect(managed).toEqual(org);
    await browser.setPolicy(payTask);

    await pay(browser);
    expect(server.hits('/transfer', 'bank.test')).toHaveLength(0);
    const [blocked] = await browser.audit({ check: 'org_floor' });
    expect(blocked?.record).toMatchObject({ decision: 'BLOCK', riskClass: 'FINANCIAL', reason: 'your organisation never allows FINANCIAL actions', ruleRef: 'org.neverAllow:FINANCIAL' });

    // A site the task names, blocked by the organisation: the browser refuses it (network floor) and the page says why.
    const page = await browser.context.newPage();
    await page.goto(`${server.origin('shop.test')}/cart`).catch(() => undefined);
    await expect(page).toHaveURL(new RegExp(`^chrome-extension://${browser.extensionId}/blocked.html\\?check=org_floor`));
    await expect(page).toHaveTitle('Blocked by AgentsFence (org_floor: your organisation blocks shop.test)');
    expect(server.hits('/cart', 'shop.test')).toHaveLength(0);

    const popup = await popupOf(browser);
    const limits = popup.getByRole('region', { name: 'Set by your organisation' });
    await expect(limits).toContainText('Never allowed: FINANCIAL');
    await expect(limits).toContainText('Blocked sites: shop.test');
    await expect(limits).toContainText('Approvals wait at most 30 s');
    await popup.getByRole('tab', { name: 'Audit log' }).click();
    await expect(popup.getByRole('tabpanel')).toContainText('your organisation never allows FINANCIAL actions');
    // The ask timeout in force is the organisation's cap; the stored option is the user's (setPolicy starts no
    // harness task, so the harness's own AGENT_ASK_TIMEOUT_SECONDS is not stored).
    expect((await browser.setOptions({})).askTimeoutSeconds).toBe(120);
  });
});

test('a policy pushed while the browser runs applies at once (storage.onChanged, area managed)', async () => {
  await withManaged({ maxAskTimeoutSeconds: 60 }, 'nohooks', async (browser, copy) => {
    await browser.setPolicy(payTask);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin('shop.test')}/cart`);
    expect(server.hits('/cart', 'shop.test')).toHaveLength(1);
    // Chromium watches the policy directory and reloads it after a settle delay of a few seconds.
    writeManagedPolicy(copy.id, { maxAskTimeoutSeconds: 60, blockedSites: ['shop.test'] });
    await expect
      .poll(async () => (await browser.floorRules()).some((r) => JSON.stringify(r).includes('"requestDomains":["shop.test"]')), { timeout: 30_000 })
      .toBe(true);
    await page.goto(`${server.origin('shop.test')}/cart?again`).catch(() => undefined);
    await expect(page).toHaveURL(new RegExp(`^chrome-extension://${browser.extensionId}/blocked.html\\?check=org_floor`));
    expect(server.hits('/cart', 'shop.test')).toHaveLength(1);
  });
});

test('control: the same task without the managed policy pays and opens the shop', async () => {
  await withManaged(null, 'nohooks', async (browser) => {
    await browser.setPolicy(payTask);
    await pay(browser);
    expect(server.hits('/transfer', 'bank.test')).toHaveLength(1);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin('shop.test')}/cart`);
    expect(server.hits('/cart', 'shop.test')).toHaveLength(1);
  });
});

test('negative control: without the extension the payment reaches the bank', async () => {
  const browser = await launchFence({ extension: false });
  try {
    await pay(browser);
    expect(server.hits('/transfer', 'bank.test')).toHaveLength(1);
  } finally {
    await browser.close();
  }
});

/** Page code on app.test: a read, a write the task allows, one it does not (each one audit entry or more). */
async function act(browser: AgentBrowser, n: number): Promise<void> {
  server.setPage('/app', '<!doctype html><title>app</title>');
  const page = await browser.context.newPage();
  await page.goto(`${server.origin('app.test')}/app?n=${n}`);
  await page.evaluate(
    ([api, evil]) => Promise.all([fetch(`${api}/w`, { method: 'POST', body: 'x=1' }).catch(() => 0), fetch(`${evil}/w`, { method: 'POST', body: 'x=1' }).catch(() => 0)]),
    [server.origin('api.test'), server.origin('evil.test')],
  );
  await page.close();
}

const writesTask = makePolicy({
  taskId: 't-collector',
  domains: ['app.test', 'api.test'],
  ceilings: { EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
});

async function waitForCollector(browser: AgentBrowser, timeoutMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = (await browser.audit()).map((e) => e.id).sort();
    const seen = collector.records.filter((r) => r.eventName === 'agentsfence.decision').map((r) => r.seq);
    if (ids.every((id) => seen.includes(id))) return ids;
    if (Date.now() > deadline) throw new Error(`collector has ${seen.length} of ${ids.length} audit entries`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('the collector receives every audit entry exactly once across worker restarts; the floor lets only the shipping through', async () => {
  await withManaged({ collectorUrl: collector.url }, 'full', async (browser, copy) => {
    await browser.setPolicy(writesTask);
    // The collector is down: entries wait in IndexedDB; the worker dies with them queued.
    collector.failNext(1_000, 503);
    await act(browser, 1);
    await expect.poll(() => collector.requests.length).toBeGreaterThan(0);
    expect(collector.records).toHaveLength(0);
    await browser.restartWorker();
    // Back up: the restarted worker ships what waited, once.
    collector.failNext(0);
    await act(browser, 2);
    await waitForCollector(browser);
    // A restart with nothing waiting sends nothing again; later entries still arrive. (The wait lets the
    // cursor write that follows the collector's 2xx commit: a worker killed inside that millisecond would
    // send the batch again — the one window src/org/collector.ts states.)
    await new Promise((r) => setTimeout(r, 500));
    await browser.restartWorker();
    await act(browser, 3);
    const ids = await waitForCollector(browser);
    const seen = collector.records.filter((r) => r.eventName === 'agentsfence.decision').map((r) => r.seq).sort();
    expect(seen).toEqual(ids);
    expect(new Set(collector.records.map((r) => r.instanceId)).size).toBe(1);
    expect(collector.errors).toEqual([]);

    // The floor does not block the extension's own shipping (above) and lets no page reach the collector.
    const page = await browser.context.newPage();
    await page.goto(`${server.origin('app.test')}/app`);
    const leaked = await page.evaluate((url) => fetch(url, { method: 'POST', body: '{}', mode: 'no-cors' }).then(() => 'sent', () => 'blocked'), collector.url);
    expect(leaked).toBe('blocked');
    await quiet(page);
    expect(collector.requests.filter((r) => r.origin !== `chrome-extension://${copy.id}`)).toEqual([]);
  });
});

test('negative control: without the extension a page reaches the collector', async () => {
  const browser = await launchFence({ extension: false });
  try {
    server.setPage('/app', '<!doctype html><title>app</title>');
    const page = await browser.context.newPage();
    await page.goto(`${server.origin('app.test')}/app`);
    await page.evaluate((url) => fetch(url, { method: 'POST', body: '{}', mode: 'no-cors' }).catch(() => undefined), collector.url);
    await expect.poll(() => collector.requests.length).toBe(1);
  } finally {
    await browser.close();
  }
});
