import type { Page } from '@playwright/test';
import type { AgentBrowser } from '../src/harness';
import type { TestServer } from './fixtures/server';

/** An ordinary page on `host` (the agent's tab) to run page code from. */
export async function openApp(browser: AgentBrowser, server: TestServer, host = 'app.test'): Promise<Page> {
  server.setPage('/app', '<!doctype html><title>app</title><body><h1>app</h1></body>');
  const page = await browser.context.newPage();
  await page.goto(`${server.origin(host)}/app`);
  return page;
}

/** Give blocked or in-flight requests time to arrive (or not) before reading the server log. */
export const quiet = (page: Page, ms = 600) => page.waitForTimeout(ms);
