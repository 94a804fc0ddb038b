import type { Page } from '@playwright/test';
import { launchAgentBrowser, type AgentBrowser, type LaunchOptions } from '../src/harness';
import { extensionDir } from './fixtures/extension';
import type { TestServer } from './fixtures/server';

/** The harness on the e2e builds made by the global setup (never .output/chrome-mv3, which people rebuild). */
export function launch(options: LaunchOptions = {}): Promise<AgentBrowser> {
  const variant = options.mainHooks === false ? 'nohooks' : 'full';
  return launchAgentBrowser({ ...options, ...(options.extension === false ? {} : { extensionPath: extensionDir(variant) }) });
}

/** An ordinary page on `host` (the agent's tab) to run page code from. */
export async function openApp(browser: AgentBrowser, server: TestServer, host = 'app.test'): Promise<Page> {
  server.setPage('/app', '<!doctype html><title>app</title><body><h1>app</h1></body>');
  const page = await browser.context.newPage();
  await page.goto(`${server.origin(host)}/app`);
  return page;
}

/** Give blocked or in-flight requests time to arrive (or not) before reading the server log. */
export const quiet = (page: Page, ms = 600) => page.waitForTimeout(ms);
