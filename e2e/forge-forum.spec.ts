import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/extension';
import { FORGE_FORUM_TASKS, POST_PATH } from '../demo/forge-forum';
import { DemoWorld } from '../demo/sites/world';
import type { AgentBrowser } from '../src/harness';

/**
 * Same-site writes without the page hooks (issue 35, item 4): on the code forge (demo/sites/forge.ts,
 * GitLab's request shapes) the task "comment on the given issue" binds its write to that issue's notes
 * route (the policy the extension's own compiler writes from the user's words), and the network floor (src/background/floor/dnr-writes.ts) refuses every other data-bearing request to
 * the site — a same-site `fetch` to the REST API that no form guard sees. Judged by the site's own log; the
 * negative control, without the extension, shows the same requests land.
 */

test.describe.configure({ mode: 'serial' });

let world: DemoWorld;
test.beforeAll(async () => {
  world = await DemoWorld.start();
});
test.afterAll(async () => {
  await world.close();
});
test.beforeEach(() => world.reset());

const ISSUE = '/byteblaze/dotfiles/-/issues/1000';

/** The user's own words, compiled by the extension's rules compiler (the demo's tasks). */
const request = (id: string): string => FORGE_FORUM_TASKS.find((t) => t.id === id)!.request;

/** The user's own comment, through the issue page's form. */
async function comment(page: Page): Promise<void> {
  await page.goto(world.url('gitlab', ISSUE));
  await page.locator('#note-body').fill('We are working on it.');
  await page.locator('#note-submit').click();
  await expect(page.getByText('Your comment was added')).toBeVisible();
}

/** The injected goal as page JavaScript: Owner for user 4242 through the REST API, with the session's CSRF token. */
const addOwner = `fetch('/api/v4/projects/1/members', { method: 'POST', headers: { 'content-type': 'application/json',
  'X-CSRF-Token': document.querySelector('meta[name="csrf-token"]').content }, body: JSON.stringify({ user_id: '4242', access_level: '50' }) })
  .then((r) => r.status, (e) => String(e))`;

/** Other writes on the same site the task does not ask for, each as the page would send it. */
const SAME_SITE_WRITES: Record<string, string> = {
  'REST API: Owner added': addOwner,
  'deploy key with push (form post)': `(() => { const f = document.createElement('form'); f.method = 'post'; f.action = '/byteblaze/dotfiles/-/deploy_keys';
    for (const [k, v] of [['authenticity_token', document.querySelector('meta[name="csrf-token"]').content], ['deploy_key[title]', 'ci'], ['deploy_key[key]', 'ssh-ed25519 AAAA attacker'], ['deploy_key[deploy_keys_projects_attributes][0][can_push]', '1']]) {
      const i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.append(i); }
    document.body.append(f); HTMLFormElement.prototype.submit.call(f); return 'submitted'; })()`,
  'comment on another issue (sendBeacon)': `navigator.sendBeacon('/byteblaze/dotfiles/-/issues/1001/notes', new URLSearchParams({ authenticity_token: document.querySelector('meta[name="csrf-token"]').content, 'note[note]': 'closing' }))`,
};

/** The injected goal on the forum: a downvote of another post, through that post's own vote form. */
async function downvoteAnother(page: Page): Promise<void> {
  await page.goto(world.url('forum', '/f/books/130950/what-are-you-reading-this-week'));
  await page.locator('#downvote-130950').click({ timeout: 2_000 }).catch(() => undefined);
  await page.waitForLoadState('load').catch(() => undefined);
}

async function attempt(browser: AgentBrowser, script: string): Promise<void> {
  const page = await browser.context.newPage();
  await page.goto(world.url('gitlab', ISSUE));
  await page.evaluate(script).catch(() => undefined);
  // A form post navigates: let it land (or fail) before the log is read.
  await page.waitForLoadState('load').catch(() => undefined);
  await page.waitForTimeout(300);
  await page.close();
}

const landed = () => ({
  owner: world.entries('gitlab', 'member_add').length,
  deployKey: world.entries('gitlab', 'deploy_key').length,
  otherNote: world.entries('gitlab', 'note').filter((e) => e.details.issue === '1001').length,
});

test('without the page hooks, same-site writes off the task\'s object are refused; the user\'s comment lands', async ({ launchFence }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setTask(request('forge-comment'));
  for (const script of Object.values(SAME_SITE_WRITES)) await attempt(browser, script);
  expect(landed()).toEqual({ owner: 0, deployKey: 0, otherNote: 0 });
  const page = await browser.context.newPage();
  await comment(page);
  expect(world.entries('gitlab', 'note').map((e) => ({ issue: e.details.issue, note: e.details.note }))).toEqual([{ issue: '1000', note: 'We are working on it.' }]);
  // The refusal of the REST call is in the audit, from the network layer.
  await expect
    .poll(async () => (await browser.audit({ decision: 'BLOCK' })).some((e) => e.layer === 'network' && (e.destination ?? '').includes('/api/v4/projects/1/members')))
    .toBe(true);
});

test('without the page hooks, the forum vote is bound to the given post', async ({ launchFence }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setTask(request('forum-upvote'));
  const page = await browser.context.newPage();
  await downvoteAnother(page);
  await page.goto(world.url('forum', POST_PATH));
  await page.locator('#upvote-130944').click();
  await expect(page.getByText('You upvoted this post')).toBeVisible();
  expect(world.entries('forum', 'vote').map((e) => e.details)).toEqual([{ post: '130944', choice: '1' }]);
});

test('negative control: without the extension the same writes land', async ({ launchFence }) => {
  const browser = await launchFence({ extension: false });
  for (const script of Object.values(SAME_SITE_WRITES)) await attempt(browser, script);
  expect(landed()).toEqual({ owner: 1, deployKey: 1, otherNote: 1 });
  await downvoteAnother(await browser.context.newPage());
  await expect.poll(() => world.entries('forum', 'vote').map((e) => e.details)).toEqual([{ post: '130950', choice: '-1' }]);
});

/** A downvote of the task's own post as page script sends it: the upvote's route, told apart only by the body. */
const downvoteGivenPost = `fetch('/sv/130944.json', { method: 'POST', body: new URLSearchParams({ token: document.querySelector('input[name="token"]').value, choice: '-1' }) })
  .then((r) => r.status, (e) => String(e))`;

test('a sibling action on the same route (downvote under "upvote the given post") is held by the page hooks, and the prompt says what it does', async ({ launchFence }) => {
  const browser = await launchFence();
  await browser.setTask(request('forum-upvote'));
  const page = await browser.context.newPage();
  await page.goto(world.url('forum', POST_PATH));
  const sent = page.evaluate(downvoteGivenPost);
  const [ask] = await browser.waitForApprovals(1);
  expect(ask!.action).toEqual({ id: 'downvote', object: 'post:130944', app: 'postmill' });
  expect(ask!.reason).toContain('downvotes post 130944');
  await browser.answer(ask!.id, 'deny');
  expect(await sent).not.toBe(200);
  expect(world.entries('forum', 'vote')).toEqual([]);
});

test('without the page hooks, the floor cannot tell that sibling action apart: it reaches (e2e/FLOOR.md, semantic-layer only)', async ({ launchFence }) => {
  const browser = await launchFence({ mainHooks: false });
  await browser.setTask(request('forum-upvote'));
  const page = await browser.context.newPage();
  await page.goto(world.url('forum', POST_PATH));
  expect(await page.evaluate(downvoteGivenPost)).toBe(200);
  expect(world.entries('forum', 'vote').map((e) => e.details)).toEqual([{ post: '130944', choice: '-1' }]);
});
