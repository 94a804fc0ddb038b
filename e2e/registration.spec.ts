import type { Page } from '@playwright/test';
import { makePolicy } from '../tests/support/policy';
import { expect, test } from './fixtures/extension';
import { openApp, quiet } from './background.helpers';

/**
 * No task, no cost (src/background/floor/registration.ts): the content scripts are registered only while a
 * task runs. Without a task a page has none of them (its fetch is the browser's own); a task puts them
 * into tabs already open and into every new one; ending it takes them off new pages; a worker restart
 * keeps the registration in line with the stored task. And the frame's port (src/content/worker-port.ts):
 * a decision in flight when the worker stops is a BLOCK, and the next one reconnects.
 */

const POLICY = makePolicy({
  taskId: 't-registration',
  domains: ['app.test', 'api.test'],
  ceilings: { EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
});

/** Whether the MAIN-world hooks run in the page (and in its same-origin frame): a wrapped fetch is not native code. */
const hooked = (page: Page) =>
  page.evaluate(async () => {
    const frame = document.createElement('iframe');
    frame.src = '/app?frame';
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve));
    document.body.append(frame);
    await loaded;
    const native = (f: unknown) => String(f).includes('[native code]');
    return { top: !native(window.fetch), frame: !native((frame.contentWindow as typeof window).fetch) };
  });

const post = (page: Page, url: string) => page.evaluate((u) => fetch(u, { method: 'POST', body: 'x=1' }).then(() => 'sent', () => 'blocked'), url);

test('no task: no script in any page; a task scripts the open tab and new tabs; ending it stops new pages getting them', async ({ launchFence, server }) => {
  const browser = await launchFence();
  const open = await openApp(browser, server);
  expect(await hooked(open)).toEqual({ top: false, frame: false });
  type Scripting = { getRegisteredContentScripts(): Promise<Array<{ id: string; world?: string }>> };
  const registered = () =>
    browser.serviceWorker!.evaluate(() =>
      (globalThis as unknown as { chrome: { scripting: Scripting } }).chrome.scripting.getRegisteredContentScripts().then((s) => s.map((x) => `${x.id}:${x.world}`)),
    );
  expect(await registered()).toEqual([]);

  await browser.setPolicy(POLICY);
  expect(await registered()).toEqual(['agentsfence-isolated:ISOLATED', 'agentsfence-main:MAIN']);
  // The tab that was open before the task, and a new one.
  expect((await hooked(open)).top).toBe(true);
  const fresh = await openApp(browser, server);
  expect(await hooked(fresh)).toEqual({ top: true, frame: true });
  // Decided on the port: a POST to a site the task names goes, one it does not name is blocked by the hook.
  expect(await post(fresh, `${server.origin('api.test')}/w?ok`)).toBe('sent');
  expect(await post(fresh, `${server.origin('evil.test')}/w?no`)).toBe('blocked');
  await quiet(fresh);
  expect(server.hits('/w', 'api.test')).toHaveLength(1);
  expect(server.hits('/w', 'evil.test')).toHaveLength(0);
  const audit = await browser.audit({ limit: 5 });
  expect(audit.some((e) => e.layer === 'main' && e.record.decision === 'BLOCK' && e.destination?.includes('evil.test'))).toBe(true);

  // The worker restarts: the registration still matches the stored task.
  await browser.restartWorker();
  expect(await registered()).toEqual(['agentsfence-isolated:ISOLATED', 'agentsfence-main:MAIN']);

  await browser.endTask();
  expect(await registered()).toEqual([]);
  const after = await openApp(browser, server);
  expect(await hooked(after)).toEqual({ top: false, frame: false });
});

test('a decision in flight when the worker stops is a BLOCK; the next decision reconnects', async ({ launchFence, server }) => {
  const browser = await launchFence({ askTimeoutSeconds: 60 });
  // third.test is named, but writes are bound to api.test: ASK_USER, still in flight when the worker dies.
  await browser.setPolicy({ ...POLICY, domains: ['app.test', 'api.test', 'third.test'], constraints: [{ id: 'k1', capability: 'web.write', domains: ['api.test'], maxCalls: 5 }] });
  const page = await openApp(browser, server);
  const held = post(page, `${server.origin('third.test')}/w?held`);
  await browser.waitForApprovals(1);
  await browser.restartWorker();
  expect(await held).toBe('blocked');
  // Same page, same frame: the next proposal opens a new port to the new worker and is decided there.
  expect(await post(page, `${server.origin('api.test')}/w?after`)).toBe('sent');
  await quiet(page);
  expect(server.hits('/w', 'third.test')).toHaveLength(0);
  expect(server.hits('/w', 'api.test')).toHaveLength(1);
});

test('negative control: without the extension the held POST reaches the server', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const page = await openApp(browser, server);
  expect(await post(page, `${server.origin('third.test')}/w?held`)).toBe('sent');
  await quiet(page);
  expect(server.hits('/w', 'third.test')).toHaveLength(1);
});
