import { expect, test } from './fixtures/extension';
import type { TaskPolicyInput } from '../src/core/policy';
import { openApp, quiet } from './background.helpers';

/**
 * The worker dies mid-task (CDP ServiceWorker.stopAllWorkers): policy, counters σ, grants, pending
 * approvals and audit entries are all still there afterwards, and counting continues where it stopped.
 * Also: 50 parallel fetches against max_calls = 3 → exactly 3 reach the server.
 */

const writes = (taskId: string, extra: Partial<TaskPolicyInput> = {}): TaskPolicyInput => ({
  version: 1,
  taskId,
  issuedAt: 0,
  expiresAt: null,
  domains: ['app.test', 'api.test', 'third.test', 'other.test'],
  ceilings: { EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
  ...extra,
});

const post = (page: import('@playwright/test').Page, url: string) =>
  page.evaluate((u) => fetch(u, { method: 'POST', body: 'x=1' }).then(() => 'sent', () => 'blocked'), url);

test('worker restart keeps policy, counters, grants, pending approvals and audit', async ({ launchFence, server }) => {
  const browser = await launchFence();
  await browser.setPolicy(writes('t-durable', { constraints: [{ id: 'k1', capability: 'web.write', domains: ['api.test'], maxCalls: 5 }] }));
  const page = await openApp(browser, server);
  expect(await post(page, `${server.origin('api.test')}/w?n=1`)).toBe('sent');
  expect(await post(page, `${server.origin('api.test')}/w?n=2`)).toBe('sent');

  // third.test is not among k1's domains: ASK_USER → "Allow for this task" → a grant.
  const third = post(page, `${server.origin('third.test')}/w`);
  const [ask] = await browser.waitForApprovals(1);
  await browser.answer(ask!.id, 'task');
  expect(await third).toBe('sent');

  // other.test: held, pending when the worker dies.
  void post(page, `${server.origin('other.test')}/w`).catch(() => undefined);
  await browser.waitForApprovals(1);

  const before = await browser.snapshot();
  const auditBefore = await browser.audit();
  expect(before.task?.state.constraintCalls.k1).toBe(2);
  expect(before.task?.policy.grants).toHaveLength(1);
  expect(before.approvals).toHaveLength(1);
  // A mark in the worker's memory: gone after the restart, proving the worker really died.
  await browser.serviceWorker!.evaluate(() => ((globalThis as Record<string, unknown>).__mark = 'alive'));
  const fresh = await browser.restartWorker();
  expect(await fresh.evaluate(() => (globalThis as Record<string, unknown>).__mark ?? 'gone')).toBe('gone');

  const after = await browser.snapshot();
  expect(after.task?.taskId).toBe('t-durable');
  expect(after.task?.policy).toEqual(before.task?.policy);
  expect(after.task?.state).toEqual(before.task?.state);
  expect(after.approvals.map((a) => a.id)).toEqual(before.approvals.map((a) => a.id));
  const auditAfter = await browser.audit();
  expect(auditAfter.map((e) => e.id)).toEqual(auditBefore.map((e) => e.id));

  // Counting continues: 3 more allowed to api.test (5 in all), the 6th is blocked.
  const fresh1 = await openApp(browser, server);
  for (let n = 3; n <= 5; n++) expect(await post(fresh1, `${server.origin('api.test')}/w?n=${n}`)).toBe('sent');
  expect(await post(fresh1, `${server.origin('api.test')}/w?n=6`)).toBe('blocked');
  // The grant survived too: third.test goes through without asking.
  expect(await post(fresh1, `${server.origin('third.test')}/w`)).toBe('sent');
  // The approval pending across the restart can still be answered.
  await browser.answer(after.approvals[0]!.id, 'deny');
  await quiet(fresh1);
  expect(server.hits('/w', 'api.test')).toHaveLength(5);
  expect(server.hits('/w', 'third.test')).toHaveLength(2);
  expect(server.hits('/w', 'other.test')).toHaveLength(0);
});

const fifty = (page: import('@playwright/test').Page, url: string) =>
  page.evaluate(
    (u) => Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${u}?i=${i}`, { method: 'POST', body: String(i) }).then(() => 1, () => 0))).then((r) => r.reduce<number>((a, b) => a + b, 0)),
    url,
  );

test('50 parallel fetches against max_calls = 3: exactly 3 reach the server', async ({ launchFence, server }) => {
  const browser = await launchFence();
  await browser.setPolicy(writes('t-budget', { constraints: [{ id: 'k1', capability: 'web.write', maxCalls: 3 }] }));
  const page = await openApp(browser, server);
  expect(await fifty(page, `${server.origin('api.test')}/hit`)).toBe(3);
  await quiet(page);
  expect(server.hits('/hit', 'api.test')).toHaveLength(3);
  expect((await browser.snapshot()).task?.state.constraintCalls.k1).toBe(3);
});

test('negative control: without the extension all 50 reach the server', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const page = await openApp(browser, server);
  expect(await fifty(page, `${server.origin('api.test')}/hit`)).toBe(50);
  expect(server.hits('/hit', 'api.test')).toHaveLength(50);
});
