import { expect, test, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AuditEntrySchema, type AuditEntry } from '../src/messages/protocol';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { buildExtension } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * The popup as the user drives it: a real Chromium with the built extension, the popup opened as the
 * extension's own window (so the background accepts its answers), an agent tab on mail.test that
 * sends e-mail through the site's JSON API. The test server's request log is the truth about what
 * was sent; the popup is driven only by role and accessible name, as a keyboard or screen-reader
 * user would find its controls. `AF_SCREENSHOTS=1` refreshes docs/screenshots/ (popup-*.png, audit-*.png).
 */

/** The screenshots docs/approving.md shows are refreshed only on request (AF_SCREENSHOTS=1), so a test run leaves the tree clean. */
const SCREENSHOTS = process.env.AF_SCREENSHOTS === '1' ? resolve(import.meta.dirname, '../docs/screenshots') : null;

async function screenshot(popup: Page, name: string): Promise<void> {
  const path = SCREENSHOTS === null ? test.info().outputPath(name) : join(SCREENSHOTS, name);
  await popup.locator('.popup').screenshot({ path });
}
/** Distinctive message content: the exported audit log must not contain it (redaction). */
const SUBJECT = 'Subj-91ab';
const BODY = 'Body-7f3c';
const TASK = 'Read my inbox on mail.test and email bob@corp.test a summary of the offsite message.';

interface Session {
  browser: AgentBrowser;
  context: BrowserContext;
  worker: Worker;
  extensionId: string;
  server: TestServer;
}

let extension: string;
test.beforeAll(() => {
  test.setTimeout(240_000);
  extension = buildExtension('full');
});

async function launch(): Promise<Session> {
  const server = await startTestServer();
  server.setPage('/', '<!doctype html><title>Mail</title><h1>Inbox</h1>');
  const browser = await launchAgentBrowser({ extensionPath: extension });
  if (browser.serviceWorker === null || browser.extensionId === null) throw new Error('the extension did not load');
  return { browser, context: browser.context, worker: browser.serviceWorker, extensionId: browser.extensionId, server };
}

async function close(s: Session): Promise<void> {
  await s.browser.close();
  await s.server.close();
}

/** Open an extension page the way the extension itself does: a window it opened, which may answer approvals. */
async function openControlWindow(s: Session, path = '/popup.html'): Promise<Page> {
  const before = new Set(s.context.pages());
  await s.worker.evaluate((p) => (globalThis as unknown as { __agentsfence: { openControlWindow(path: string): Promise<number> } }).__agentsfence.openControlWindow(p), path);
  // The window exists once the worker answers; its page may still be committing the URL, so poll.
  let page: Page | undefined;
  const opened = () => s.context.pages().find((p) => !before.has(p) && p.url().endsWith(path));
  await expect.poll(() => (page = opened()) !== undefined, { timeout: 20_000 }).toBe(true);
  await page!.waitForLoadState('domcontentloaded');
  return page!;
}

async function startTask(popup: Page, task = TASK): Promise<void> {
  await popup.getByRole('textbox', { name: 'Task' }).fill(task);
  await popup.getByRole('button', { name: 'Start task' }).click();
  await expect(popup.getByText(/^Compiled by/)).toBeVisible();
}

async function agentTab(s: Session): Promise<Page> {
  const agent = await s.context.newPage();
  await agent.goto(`${s.server.origin('mail.test')}/`);
  return agent;
}

/** The agent sends an e-mail through the site's API; resolves to `sent:<status>` or `failed:<message>`, never throws. */
function send(agent: Page, s: Session, to: string): Promise<string> {
  return agent.evaluate(
    async ([url, recipient, subject, body]) => {
      try {
        const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: recipient, subject, body }) });
        return `sent:${r.status}`;
      } catch (err) {
        return `failed:${err instanceof Error ? err.message : String(err)}`;
      }
    },
    [`${s.server.origin('mail.test')}/api/send`, to, SUBJECT, BODY] as const,
  );
}

/** Resolves to the value, or to `pending` if it has not settled within `ms` (the action is still held). */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

/** The part of `chrome` an extension page has that these tests call. */
interface ExtensionPage {
  chrome: { runtime: { sendMessage(message: unknown): Promise<unknown> } };
}

/** Press Tab until the focused element is the control with this role and name; fails if it is not reachable. */
async function tabTo(page: Page, role: 'button' | 'textbox' | 'tab', name: string): Promise<void> {
  const target = page.getByRole(role, { name, exact: true }).first();
  for (let i = 0; i < 60; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${role} "${name}" is not reachable with Tab`);
}

/** Every form control on the page has an accessible name. */
async function expectNamedControls(page: Page): Promise<void> {
  const controls = page.locator('button, select, textarea, input, [tabindex="0"]');
  const count = await controls.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) await expect(controls.nth(i)).not.toHaveAccessibleName('');
}

/** The audit table's entry rows (newest first), in the popup's tab or on the full page. */
const auditRows = (page: Page) => page.getByRole('table', { name: 'Audit log, newest first' }).locator('tbody tr');

const sentTo = (s: Session, to: string) => s.server.hits('/api/send').filter((r) => JSON.parse(r.body).to === to).length;
const approvalFor = (popup: Page, to: string) => popup.getByRole('article', { name: `The agent wants to send messages to ${to} on mail.test.` });

let s: Session;
test.beforeEach(async () => {
  s = await launch();
});
test.afterEach(async () => {
  await close(s);
});

test('start task → the policy in words → Allow once lets one send through; the identical second send asks again; Deny blocks it cleanly', async () => {
  const popup = await openControlWindow(s);
  await expect(popup.getByText('Nothing is waiting for you.')).toBeVisible();
  await startTask(popup);
  // The policy in plain words, with the user's own words behind the permission.
  await expect(popup.getByRole('region', { name: 'May do' }).getByText('May send messages.')).toBeVisible();
  await expect(popup.getByRole('region', { name: 'May do' }).getByText('and email bob@corp.test a summary of the offsite message')).toBeVisible();
  await expect(popup.getByRole('region', { name: 'Limits' }).getByText('Recipient: bob@corp.test.')).toBeVisible();
  await screenshot(popup, 'popup-task-policy.png');

  const agent = await agentTab(s);
  expect(await within(send(agent, s, 'bob@corp.test'), 5_000)).toBe('sent:200');

  // Nothing waiting: the approvals region is one line, not a block of the popup.
  expect((await popup.locator('.approvals').boundingBox())!.height).toBeLessThan(80);
  await expect(popup.getByRole('region', { name: 'Your task' }).getByText(TASK)).toBeVisible();
  const first = send(agent, s, 'carol@corp.test');
  const card = approvalFor(popup, 'carol@corp.test');
  await expect(card).toBeVisible();
  expect(await within(first, 300)).toBe('pending');
  expect(sentTo(s, 'carol@corp.test')).toBe(0);
  // The whole request fits in the region, nothing cut off: its details and the data it carries.
  const region = (await popup.locator('.approvals').boundingBox())!;
  const cardBox = (await card.boundingBox())!;
  expect(cardBox.y + cardBox.height).toBeLessThanOrEqual(region.y + region.height);
  // One sentence sets the task against the action, with the user's words behind the rule that asked.
  await expect(card.getByText('Your task only sends to bob@corp.test; this goes to carol@corp.test.', { exact: true })).toBeVisible();
  await expect(card.getByText('You said: “and email bob@corp.test a summary of the offsite message”')).toBeVisible();
  await expect(card.getByLabel('Data the action carries (redacted)')).toBeInViewport({ ratio: 1 });
  // The internals are folded under Details: not shown until asked for.
  const details = card.getByText('Details', { exact: true });
  await expect(card.getByText('Destination')).toBeHidden();
  await expect(card.getByText('argument_constraints: recipient not among bob@corp.test', { exact: true })).toBeHidden();
  await screenshot(popup, 'popup-pending-approval.png');
  // Opened: the check and its reason, the rule that decided, and what the classifier read the action as.
  await details.click();
  await expect(card.getByText('Destination')).toBeVisible();
  await expect(card.getByText('argument_constraints: recipient not among bob@corp.test', { exact: true })).toBeVisible();
  await expect(card.getByText('constraints:c-communication', { exact: true })).toBeVisible();
  await expect(card.getByText('URL path names send (the web heuristics)', { exact: true })).toBeVisible();
  await screenshot(popup, 'popup-pending-approval-details.png');
  await details.click();
  await expect(card.getByText('Destination')).toBeHidden();

  await card.getByRole('button', { name: 'Allow once' }).click();
  expect(await within(first, 5_000)).toBe('sent:200');
  expect(sentTo(s, 'carol@corp.test')).toBe(1);
  await expect(card).toBeHidden();

  const second = send(agent, s, 'carol@corp.test');
  await expect(approvalFor(popup, 'carol@corp.test')).toBeVisible();
  expect(await within(second, 300)).toBe('pending');
  // Deny: blocked, never reaches the server, the agent's request fails cleanly, and the page stays usable.
  await approvalFor(popup, 'carol@corp.test').getByRole('button', { name: 'Deny' }).click();
  expect(await within(second, 5_000)).toMatch(/^failed:/);
  expect(sentTo(s, 'carol@corp.test')).toBe(1);
  expect(await within(send(agent, s, 'bob@corp.test'), 5_000)).toBe('sent:200');
  expect(sentTo(s, 'bob@corp.test')).toBe(2);
});

test('Allow for this task: repeats to the same recipient go through; the same action to another recipient asks', async () => {
  const popup = await openControlWindow(s);
  await startTask(popup);
  const agent = await agentTab(s);

  const first = send(agent, s, 'carol@corp.test');
  await approvalFor(popup, 'carol@corp.test').getByRole('button', { name: 'Allow for this task' }).click();
  expect(await within(first, 5_000)).toBe('sent:200');
  expect(await within(send(agent, s, 'carol@corp.test'), 5_000)).toBe('sent:200');
  expect(await within(send(agent, s, 'carol@corp.test'), 5_000)).toBe('sent:200');
  expect(sentTo(s, 'carol@corp.test')).toBe(3);
  await expect(popup.getByRole('region', { name: 'Your approvals' })).toContainText('carol@corp.test');

  const other = send(agent, s, 'dave@corp.test');
  await expect(approvalFor(popup, 'dave@corp.test')).toBeVisible();
  expect(await within(other, 300)).toBe('pending');
  await approvalFor(popup, 'dave@corp.test').getByRole('button', { name: 'Deny' }).click();
  expect(await within(other, 5_000)).toMatch(/^failed:/);
  expect(sentTo(s, 'dave@corp.test')).toBe(0);
});

test('no answer: BLOCK after the ask timeout set on the options page', async () => {
  const options = await openControlWindow(s, '/options.html');
  await options.getByLabel('Ask timeout (seconds)').fill('2');
  await options.getByRole('button', { name: 'Save' }).click();
  await expect(options.getByText('Enter a whole number of seconds from 5 to 3600.')).toBeVisible();
  await options.getByLabel('Ask timeout (seconds)').fill('5');
  await options.getByRole('button', { name: 'Save' }).click();
  await expect(options.getByText('Saved.')).toBeVisible();
  await options.close();

  const popup = await openControlWindow(s);
  await startTask(popup);
  const agent = await agentTab(s);
  const started = Date.now();
  const attempt = send(agent, s, 'carol@corp.test');
  await expect(approvalFor(popup, 'carol@corp.test')).toBeVisible();
  expect(await within(attempt, 15_000)).toMatch(/^failed:/);
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(4_500);
  expect(sentTo(s, 'carol@corp.test')).toBe(0);
  await expect(approvalFor(popup, 'carol@corp.test')).toBeHidden();

  await popup.getByRole('tab', { name: 'Audit log' }).click();
  await popup.getByLabel('Decision', { exact: true }).selectOption('BLOCK');
  await expect(auditRows(popup).first().locator('.outcome')).toHaveText('Blocked');
  await expect(auditRows(popup).first()).toContainText('Send messages to carol@corp.test on mail.testNobody answered in time, so it was blocked.');
});

test('an agent tab cannot reach the extension’s pages, and a copy of the popup in a tab cannot approve', async () => {
  // A copy of popup.html in an ordinary tab: the background refuses it, and the page says so.
  const copy = await s.context.newPage();
  await copy.goto(`chrome-extension://${s.extensionId}/popup.html`);
  await expect(copy.getByText('Approvals disabled here.')).toBeVisible();
  await expect(copy.getByRole('button', { name: 'Start task' })).toHaveCount(0);

  const popup = await openControlWindow(s);
  await startTask(popup);
  const agent = await agentTab(s);
  const attempt = send(agent, s, 'carol@corp.test');
  await expect(approvalFor(popup, 'carol@corp.test')).toBeVisible();

  // The copy tries to approve through the protocol directly: refused, and the action stays held.
  const pendingId = await popup.evaluate(async () => {
    const state = (await (globalThis as unknown as ExtensionPage).chrome.runtime.sendMessage({ type: 'task.get' })) as { pending: { id: string }[] };
    return state.pending[0]?.id ?? '';
  });
  expect(pendingId).not.toBe('');
  const refusal = await copy.evaluate(
    (id) => (globalThis as unknown as ExtensionPage).chrome.runtime.sendMessage({ type: 'approval.answer', id, answer: 'task' }),
    pendingId,
  );
  expect(refusal).toMatchObject({ ok: false, code: 'approvals-disabled' });
  expect(await within(attempt, 300)).toBe('pending');

  // Guarded tabs that navigate to the approval UI (browser-initiated and by script) do not stay there,
  // and the held action is still waiting for the person.
  const popupUrl = `chrome-extension://${s.extensionId}/popup.html`;
  const typed = await agentTab(s);
  await typed.goto(popupUrl).catch(() => undefined);
  await expect.poll(() => typed.url()).not.toContain('popup.html');
  const scripted = await agentTab(s);
  const navigated = scripted.waitForEvent('framenavigated', { timeout: 2_000 }).catch(() => undefined);
  await scripted.evaluate((url) => void (location.href = url), popupUrl).catch(() => undefined);
  await navigated;
  await expect.poll(() => scripted.url()).not.toContain('popup.html');
  expect(await within(attempt, 100)).toBe('pending');

  await approvalFor(popup, 'carol@corp.test').getByRole('button', { name: 'Deny' }).click();
  expect(await within(attempt, 5_000)).toMatch(/^failed:/);
  expect(sentTo(s, 'carol@corp.test')).toBe(0);
});

test('the exported audit log lists exactly the actions taken', async () => {
  const popup = await openControlWindow(s);
  await startTask(popup);
  const agent = await agentTab(s);
  expect(await within(send(agent, s, 'bob@corp.test'), 5_000)).toBe('sent:200');
  const asked = send(agent, s, 'carol@corp.test');
  await approvalFor(popup, 'carol@corp.test').getByRole('button', { name: 'Allow once' }).click();
  expect(await within(asked, 5_000)).toBe('sent:200');
  const denied = send(agent, s, 'dave@corp.test');
  await approvalFor(popup, 'dave@corp.test').getByRole('button', { name: 'Deny' }).click();
  expect(await within(denied, 5_000)).toMatch(/^failed:/);

  await popup.getByRole('tab', { name: 'Audit log' }).click();
  const rows = auditRows(popup);
  await expect(rows.first()).toBeVisible();
  // Each row reads in plain words: the outcome, what was attempted, why; no check names in brackets.
  await expect(rows.first().locator('.outcome')).toHaveText('Blocked');
  await expect(rows.first()).toContainText('Send messages to dave@corp.test on mail.test');
  await expect(rows.first().locator('.reason')).toHaveText('You denied it.');
  await expect(rows.nth(1)).toContainText('Your task only sends to bob@corp.test; this goes to dave@corp.test.');
  for (const row of await rows.all()) {
    for (const cell of ['.outcome', '.action', '.reason']) await expect(row.locator(cell)).not.toContainText(/\[|argument_constraints|builtin:|unknown/);
  }
  await expect(rows.first().getByLabel('Decision record')).toBeHidden();
  await screenshot(popup, 'popup-audit-log.png');
  // Details: the full decision record as labelled fields, not JSON.
  await rows.first().getByText('Details', { exact: true }).click();
  await expect(rows.first().getByLabel('Decision record').getByText('URL path names send (the web heuristics)', { exact: true })).toBeVisible();
  await expect(rows.first().getByLabel('Decision record').getByText('Check', { exact: true })).toBeVisible();
  await expect(rows.first().getByLabel('Decision record')).not.toContainText('{');
  // The text filter: every word, over the reason, the site and the action.
  const total = await rows.count();
  await popup.getByRole('searchbox', { name: 'Filter' }).fill('carol');
  await expect(rows).toHaveCount(2);
  await expect(popup.getByText(`2 entries of ${total}`)).toBeVisible();
  await popup.getByRole('searchbox', { name: 'Filter' }).fill('denied dave@corp');
  await expect(rows).toHaveCount(1);
  await popup.getByRole('searchbox', { name: 'Filter' }).fill('nobody@corp.test');
  await expect(popup.getByText('No entries match this filter.')).toBeVisible();
  await popup.getByRole('searchbox', { name: 'Filter' }).fill('');
  await expect(rows).toHaveCount(total);

  const download = popup.waitForEvent('download');
  await popup.getByRole('button', { name: 'Export JSONL' }).click();
  const file = await (await download).path();
  const entries: AuditEntry[] = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => AuditEntrySchema.parse(JSON.parse(line)));
  const sends = entries
    .filter((e) => e.record.capability === 'message.send')
    .reverse()
    .map((e) => `${e.record.decision} ${e.record.targets.recipients.join(',')}${e.answer === undefined ? '' : ` (${e.answer})`}`);
  expect(sends).toEqual(['ALLOW bob@corp.test', 'ASK_USER carol@corp.test', 'ALLOW carol@corp.test (once)', 'ASK_USER dave@corp.test', 'BLOCK dave@corp.test (deny)']);
  // What reached the server is exactly what the log says was allowed.
  expect(s.server.hits('/api/send').map((r) => JSON.parse(r.body).to)).toEqual(['bob@corp.test', 'carol@corp.test']);
  // Redacted: no message bodies or subjects in the export.
  expect(readFileSync(file, 'utf8')).not.toContain(SUBJECT);
  expect(readFileSync(file, 'utf8')).not.toContain(BODY);

  const json = popup.waitForEvent('download');
  await popup.getByRole('button', { name: 'Export JSON', exact: true }).click();
  const parsed = JSON.parse(readFileSync(await (await json).path(), 'utf8')) as unknown[];
  // The same log; newer entries, if any, are the export's own download (the background checks every download).
  const again = parsed.map((e) => AuditEntrySchema.parse(e));
  expect(again.slice(again.length - entries.length).map((e) => e.id)).toEqual(entries.map((e) => e.id));
  expect(again.slice(0, again.length - entries.length).every((e) => e.record.tool === 'browser.download')).toBe(true);
});

test('the full-page audit log opens from the popup, read only and filterable; a guarded tab cannot open it', async () => {
  const popup = await openControlWindow(s);
  await startTask(popup);
  const agent = await agentTab(s);
  expect(await within(send(agent, s, 'bob@corp.test'), 5_000)).toBe('sent:200');
  const denied = send(agent, s, 'dave@corp.test');
  await approvalFor(popup, 'dave@corp.test').getByRole('button', { name: 'Deny' }).click();
  expect(await within(denied, 5_000)).toMatch(/^failed:/);

  // Opened from the popup, in a window the extension opened: the table, its filter and export, nothing that answers.
  await popup.getByRole('tab', { name: 'Audit log' }).click();
  const opened = s.context.waitForEvent('page', { predicate: (p) => p.url().endsWith('/audit.html') });
  await popup.getByRole('button', { name: 'Open full log' }).click();
  const full = await opened;
  await expect(auditRows(full).first()).toContainText('Send messages to dave@corp.test on mail.testYou denied it.');
  await expect(full.getByRole('columnheader', { name: 'Site' })).toBeVisible();
  await expect(auditRows(full).first().locator('td.site')).toHaveText('mail.test');
  await expectNamedControls(full);
  const buttons = await full.getByRole('button').allInnerTexts();
  expect(buttons.sort()).toEqual(['Export JSON', 'Export JSONL']);
  await full.setViewportSize({ width: 1024, height: 640 });
  await full.screenshot({ path: SCREENSHOTS === null ? test.info().outputPath('audit-full-page.png') : join(SCREENSHOTS, 'audit-full-page.png') });
  await full.getByRole('searchbox', { name: 'Filter' }).fill('dave');
  await expect(auditRows(full)).toHaveCount(2);
  // Narrow: each row becomes a card, nothing wider than the window.
  await full.setViewportSize({ width: 400, height: 640 });
  expect(await full.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
  await full.screenshot({ path: SCREENSHOTS === null ? test.info().outputPath('audit-full-page-narrow.png') : join(SCREENSHOTS, 'audit-full-page-narrow.png') });

  // A guarded tab that navigates to the same page (typed and by script) does not stay there.
  const auditUrl = `chrome-extension://${s.extensionId}/audit.html`;
  const typed = await agentTab(s);
  await typed.goto(auditUrl).catch(() => undefined);
  await expect.poll(() => typed.url()).not.toContain('audit.html');
  const scripted = await agentTab(s);
  const navigated = scripted.waitForEvent('framenavigated', { timeout: 2_000 }).catch(() => undefined);
  await scripted.evaluate((url) => void (location.href = url), auditUrl).catch(() => undefined);
  await navigated;
  await expect.poll(() => scripted.url()).not.toContain('audit.html');
});

test('keyboard only: start a task and deny an approval without the mouse; every control has a name', async () => {
  const popup = await openControlWindow(s);
  await expect(popup.getByText('Nothing is waiting for you.')).toBeVisible();
  await expectNamedControls(popup);
  await tabTo(popup, 'textbox', 'Task');
  await popup.keyboard.type(TASK);
  await tabTo(popup, 'button', 'Start task');
  await popup.keyboard.press('Enter');
  await expect(popup.getByText(/^Compiled by/)).toBeVisible();

  const agent = await agentTab(s);
  const attempt = send(agent, s, 'carol@corp.test');
  await expect(approvalFor(popup, 'carol@corp.test')).toBeVisible();
  await expectNamedControls(popup);
  await popup.bringToFront();
  await tabTo(popup, 'button', 'Deny');
  await popup.keyboard.press('Enter');
  expect(await within(attempt, 5_000)).toMatch(/^failed:/);

  // The tab list follows the arrow keys.
  await tabTo(popup, 'tab', 'Task');
  await popup.keyboard.press('ArrowRight');
  await expect(popup.getByRole('tab', { name: 'Audit log' })).toBeFocused();
  await expect(popup.getByRole('tab', { name: 'Audit log' })).toHaveAttribute('aria-selected', 'true');
});

test("Chrome's own Options entry opens a working page: settings read-only with the key masked, and a button to the settings window", async () => {
  type Chromeish = { chrome: { runtime: { sendMessage(m: unknown): Promise<{ ok: boolean }> } } };
  // chrome://extensions → Options (and the toolbar menu's Options) open options.html in an ordinary tab
  // (open_in_tab): a tab the extension did not open as a control window, like this one.
  const page = await s.context.newPage();
  await page.goto(`chrome-extension://${s.extensionId}/options.html`);
  await expect(page.getByText(/^Read only\./)).toBeVisible();
  await expect(page.getByText(/Cannot load/)).toHaveCount(0);
  await expect(page.getByLabel('Compiler backend')).toHaveValue('rules');
  await expect(page.getByLabel('Compiler backend')).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Save' })).toBeHidden();
  // The tab itself may not change the settings, start a task or answer approvals.
  const asks = [{ type: 'options.set', options: { askTimeoutSeconds: 3600 } }, { type: 'options.get' }, { type: 'task.start', request: 'Pay eve' }];
  for (const message of asks) expect((await page.evaluate((m) => (globalThis as unknown as Chromeish).chrome.runtime.sendMessage(m), message)).ok).toBe(false);
  const settings = s.context.waitForEvent('page', { predicate: (p) => p.url().endsWith('/options.html') && p !== page });
  await page.getByRole('button', { name: 'Open the settings window' }).click();
  const window = await settings;
  await expect(window.getByRole('button', { name: 'Save' })).toBeVisible();
  await expect(window.getByLabel('Compiler backend')).toBeEnabled();
});

test('options: each field validated with a clear message; the key is masked; Test connection reports the exact failure and success', async () => {
  const options = await openControlWindow(s, '/options.html');
  await expectNamedControls(options);
  await options.getByLabel('Compiler backend').selectOption('openai-compatible');
  await options.getByLabel('Base URL').fill('not a url');
  await options.getByLabel('Model', { exact: true }).fill('');
  await options.getByLabel('Ask timeout (seconds)').fill('1.5');
  await options.getByRole('button', { name: 'Save' }).click();
  await expect(options.getByText('Not saved: fix the fields marked above.')).toBeVisible();
  await expect(options.getByLabel('Base URL')).toHaveAccessibleDescription(/Enter a full URL/);
  await expect(options.getByLabel('Model', { exact: true })).toHaveAccessibleDescription(/Enter a model name/);
  await expect(options.getByLabel('Ask timeout (seconds)')).toHaveAttribute('aria-invalid', 'true');

  const secret = 'sk-test-0123456789SECRET';
  await expect(options.getByLabel('API key')).toHaveAttribute('type', 'password');
  await options.getByLabel('API key').fill(secret);
  await options.getByLabel('Base URL').fill(`${s.server.origin('127.0.0.1')}/v1`);
  await options.getByLabel('Model', { exact: true }).fill('test-model');
  await options.getByLabel('Ask timeout (seconds)').fill('30');
  await options.getByRole('button', { name: 'Test connection' }).click();
  const result = options.getByRole('status', { name: 'Connection test result' });
  await expect(result).toHaveText(/^Connection failed: .+/, { timeout: 20_000 });
  await expect(result).not.toContainText(secret);

  await options.getByLabel('Compiler backend').selectOption('rules');
  await options.getByRole('button', { name: 'Test connection' }).click();
  await expect(result).toHaveText(/^Connection works: /);
  await options.getByRole('button', { name: 'Save' }).click();
  await expect(options.getByText('Saved.')).toBeVisible();

  // The key stays in extension storage: not in the audit log export.
  const popup = await openControlWindow(s);
  await popup.getByRole('tab', { name: 'Audit log' }).click();
  const download = popup.waitForEvent('download');
  await popup.getByRole('button', { name: 'Export JSON', exact: true }).click();
  expect(readFileSync(await (await download).path(), 'utf8')).not.toContain(secret);
});
