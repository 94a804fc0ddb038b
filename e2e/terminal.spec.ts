import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { buildCli } from '../tests/cli/run';
import { extensionDir } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * Terminal approvals under a real terminal: `agentsfence browser` runs in a tmux pane (a pty, so readline
 * owns the line as it does for a person), an agent holds requests over CDP, and the test types into the
 * pane. What is typed before a prompt answers nothing; a prompt that ends elsewhere (the timeout) is
 * withdrawn with a line and never hides the next; two pending approvals are both listed and answered by
 * number. Negative controls: the same "y", typed after the prompt was on screen, does let the request
 * through (so the discard, not a broken answer path, is what stopped it); an answer by number releases
 * exactly that request. The test server's log is the truth for what left the browser.
 */

const ROOT = resolve(import.meta.dirname, '..');
const SOCKET = `af-e2e-${process.pid}`;
const PANE = 'fence';
// Long enough that two prompts answered in turn on a loaded 2-core machine are not withdrawn first (the timeout test waits it out once).
const ASK_TIMEOUT_S = 15;
test.setTimeout(90_000);
test.describe.configure({ mode: 'serial' });

let server: TestServer;
let browser: Browser;
let page: Page;

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
/** The pane's whole history, wrapped lines joined. */
const screen = () => tmux('capture-pane', '-p', '-J', '-t', PANE, '-S', '-2000');
const typeLine = (text: string) => {
  if (text !== '') tmux('send-keys', '-t', PANE, '-l', text);
  tmux('send-keys', '-t', PANE, 'Enter');
};

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

/** A POST the task does not cover, from the agent's page: it waits for the terminal. Resolves with its status or error. */
function heldPost(host: string): Promise<string> {
  return page.evaluate((url) => fetch(url, { method: 'POST', body: 'report=1' }).then((r) => String(r.status), (e: Error) => e.message), `${server.origin(host)}/post`);
}

/** The number the pane gave the approval for `host` (once it is on screen). */
async function promptFor(host: string): Promise<string> {
  const find = () => new RegExp(`AgentsFence #(\\d+): [^\\n]*\\n[^\\n]*${host.replace('.', '\\.')}`).exec(screen())?.[1];
  await expect.poll(find, { timeout: 15_000 }).toBeDefined();
  return find()!;
}

test.beforeAll(async () => {
  buildCli();
  server = await startTestServer();
  server.setPage('/', '<!doctype html><title>News</title><h1>Front page</h1>');
  const port = await freePort();
  const command = [
    'env',
    `AF_EXTENSION=${extensionDir('full')}`,
    process.execPath,
    resolve(ROOT, 'bin/agentsfence.mjs'),
    'browser',
    '--task',
    "'Read the front page of news.test'",
    `--ask-timeout=${ASK_TIMEOUT_S}`,
    `--port=${port}`,
  ].join(' ');
  tmux('new-session', '-d', '-s', PANE, '-x', '250', '-y', '50', command);
  await expect.poll(() => screen(), { timeout: 60_000 }).toContain(`cdp: http://127.0.0.1:${port}`);
  browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  page = await browser.contexts()[0]!.newPage();
  await page.goto(`${server.origin('news.test')}/`);
});

test.afterAll(async () => {
  await browser?.close();
  // Our own tmux server only (its private socket): the fence gets Ctrl-C, then the server ends.
  const alive = () => {
    try {
      tmux('has-session', '-t', PANE);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) tmux('send-keys', '-t', PANE, 'C-c');
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) tmux('kill-server');
  await server?.close();
});

test('the policy is printed in words at start', () => {
  const text = screen();
  expect(text).toContain('Policy (compiler: rules)');
  expect(text).toMatch(/Site: news\.test\./);
  expect(text).toContain(`an action waits ${ASK_TIMEOUT_S} s for an answer`);
});

test('type-ahead is discarded: a "y" typed before the prompt (whole or half a line) answers nothing; control: the same "y" after the prompt lets it through', async () => {
  typeLine('y');
  await expect.poll(screen).toContain('(no approval is waiting: "y" ignored)');
  tmux('send-keys', '-t', PANE, '-l', 'y'); // half a line, typed while nothing waits
  const sent = heldPost('evil.test');
  const number = await promptFor('evil.test');
  const shown = screen();
  expect(shown).toMatch(/target: +site evil\.test/);
  expect(shown).toMatch(/held: +\S[^\n]*\(ceiling\)/);
  expect(shown).toMatch(/blocked at \d\d:\d\d:\d\d \(in \d+ s\) if nobody answers/);
  typeLine(''); // Enter: the half-typed "y" was cleared when the prompt appeared
  await new Promise((r) => setTimeout(r, 1_500));
  expect(server.hits('/post', 'evil.test')).toEqual([]);
  expect(screen()).not.toContain(`#${number} → allowed once`);

  typeLine('y');
  await expect.poll(screen).toContain(`#${number} → allowed once`);
  expect(await sent).toBe('200');
  expect(server.hits('/post', 'evil.test')).toHaveLength(1);
});

test('a prompt that times out is withdrawn with a line, and the next held request still gets its prompt', async () => {
  const first = heldPost('other.test');
  const number = await promptFor('other.test');
  await expect.poll(screen, { timeout: (ASK_TIMEOUT_S + 5) * 1000 }).toContain(`#${number} withdrawn: nobody answered in time, so it was blocked.`);
  expect(await first).toMatch(/blocked by AgentsFence/);
  const next = heldPost('third.test');
  const nextNumber = await promptFor('third.test');
  expect(Number(nextNumber)).toBeGreaterThan(Number(number));
  typeLine(`${nextNumber} n`);
  await expect.poll(screen).toContain(`#${nextNumber} → denied`);
  expect(await next).toMatch(/blocked by AgentsFence/);
  expect(server.hits('/post', 'other.test')).toEqual([]);
  expect(server.hits('/post', 'third.test')).toEqual([]);
});

test('two pending approvals are both listed; a bare "y" answers neither; each number answers exactly its own', async () => {
  const a = heldPost('a.test');
  const b = heldPost('b.test');
  const na = await promptFor('a.test');
  const nb = await promptFor('b.test');
  await expect.poll(screen).toMatch(new RegExp(`2 approvals are waiting: #(${na}, #${nb}|${nb}, #${na})`));
  await new Promise((r) => setTimeout(r, 1_100));
  typeLine('y');
  await expect.poll(screen).toContain('2 approvals are waiting: answer with the number');
  expect(server.hits('/post', 'a.test')).toEqual([]);
  expect(server.hits('/post', 'b.test')).toEqual([]);
  // Typed straight after one another: the first answer leaving the list does not clear the second half-typed.
  typeLine(`${nb} n`);
  typeLine(`${na} y`);
  expect(await a).toBe('200');
  expect(await b).toMatch(/blocked by AgentsFence/);
  expect(server.hits('/post', 'a.test')).toHaveLength(1);
  expect(server.hits('/post', 'b.test')).toEqual([]);
});
