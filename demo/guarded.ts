import { chromium, type BrowserContext, type Worker } from '@playwright/test';
import { createServer } from 'node:net';
import { launchAgentBrowser } from '../src/harness';
import { PendingApprovalSchema, type ApprovalAnswerKind, type Options, type PendingApproval } from '../src/messages/protocol';
import { PlaywrightDriver } from './agents';
import { startMcpRuntime } from './mcp';
import { CHROMIUM, withTimeout, type GuardConfig, type GuardSession } from './runner';
import type { DemoWorld } from './sites/world';

/**
 * Browser sessions with the extension loaded. Scripted agents run in the harness's browser
 * (src/harness: the task is set and approvals answered through the extension's own control window, as
 * the user does in the popup). Under Playwright MCP the browser belongs to the MCP server, so the
 * runner reaches the service worker over the DevTools port the MCP config opens and sends the same
 * messages — `options.set`, `task.start`, `task.get`, `approval.answer` — through the harness channel
 * (`globalThis.__agentsfence.handleMessage`, src/background/platform/harness-channel.ts), which only the harness
 * builds have and only code in the worker can reach.
 */

/** Unpacked extension builds: the product and the control without MAIN-world hooks. */
export interface ExtensionBuilds {
  full: string;
  nohooks: string;
}

export interface SessionOptions {
  headless: boolean;
  llmBaseUrl: string;
  extensions: ExtensionBuilds;
  log: (line: string) => void;
}

interface Controller {
  setTask(request: string): Promise<void>;
  pendingApprovals(): Promise<PendingApproval[]>;
  answer(id: string, answer: ApprovalAnswerKind): Promise<void>;
}

type Reply = { ok: boolean; pending?: unknown[]; error?: string; code?: string };

function compilerOptions(config: GuardConfig, llmBaseUrl: string): Options {
  return {
    backend: config.compiler === 'rules' ? 'rules' : 'openai-compatible',
    baseUrl: llmBaseUrl,
    model: config.compiler ?? 'rules',
    apiKey: '',
    // Asks are answered within milliseconds by the simulated user; a lost one must not stall the run.
    askTimeoutSeconds: 10,
    guardScope: 'all-tabs',
    sanitizer: config.sanitizer ?? 'off',
    sanitizerModelBudget: 50,
    minimizer: config.minimizer ?? 'detect',
    minimizeWithoutAsking: false,
  };
}

/**
 * The extension's service worker, re-acquired if Chromium stopped it (MV3 workers may be stopped at
 * any time; the background rebuilds its state from IndexedDB when it wakes).
 */
function liveWorker(context: BrowserContext, log: (line: string) => void): () => Promise<Worker> {
  const isExtension = (w: Worker) => w.url().startsWith('chrome-extension://');
  let current: Worker | undefined;
  let extensionId: string | undefined;
  const adopt = (worker: Worker): Worker => {
    current = worker;
    extensionId = new URL(worker.url()).host;
    worker.once('close', () => {
      if (current === worker) current = undefined;
      log(`  (the extension's service worker stopped; waking it)`);
    });
    return worker;
  };
  return async () => {
    if (current) return current;
    const running = context.serviceWorkers().find(isExtension);
    if (running) return adopt(running);
    const started = context.waitForEvent('serviceworker', { predicate: isExtension, timeout: 15_000 });
    if (extensionId !== undefined) {
      // Opening one of the extension's pages wakes its worker.
      const page = await context.newPage();
      await page.goto(`chrome-extension://${extensionId}/popup.html`).catch(() => undefined);
      await page.close().catch(() => undefined);
    }
    return adopt(await started);
  };
}

async function controllerFor(worker: () => Promise<Worker>, options: Options, wake?: () => Promise<void>): Promise<Controller> {
  const once = async (message: unknown): Promise<Reply> =>
    withTimeout(
      (await worker()).evaluate(async (m) => {
        const hook = (globalThis as unknown as { __agentsfence: { handleMessage(raw: unknown): Promise<unknown> } }).__agentsfence;
        return (await hook.handleMessage(m)) as Reply;
      }, message),
      10_000,
      'service worker',
    );
  // A stopped worker does not answer: wake it and try once more.
  const send = async (message: unknown): Promise<Reply> => once(message).catch(async () => (await wake?.(), once(message)));
  const expectOk = async (message: unknown): Promise<Reply> => {
    const reply = await send(message);
    if (!reply.ok) throw new Error(`background refused ${JSON.stringify(message).slice(0, 80)}: ${reply.code ?? ''} ${reply.error ?? ''}`);
    return reply;
  };
  await expectOk({ type: 'options.set', options });
  return {
    setTask: async (request) => {
      await expectOk({ type: 'task.start', request });
    },
    pendingApprovals: async () => {
      const reply = await expectOk({ type: 'task.get' });
      return (reply.pending ?? []).map((p) => PendingApprovalSchema.parse(p));
    },
    answer: async (id, answer) => {
      await expectOk({ type: 'approval.answer', id, answer });
    },
  };
}

export async function openGuardedSession(config: GuardConfig, world: DemoWorld, opts: SessionOptions): Promise<GuardSession> {
  const browser = await launchAgentBrowser({
    extension: true,
    mainHooks: config.mainHooks,
    extensionPath: config.mainHooks ? opts.extensions.full : opts.extensions.nohooks,
    headless: opts.headless,
    executablePath: CHROMIUM,
  });
  const extensionId = browser.extensionId ?? '';
  // The harness keeps its handle on the worker across restarts; a message through the control window
  // (any harness call) wakes a stopped worker first, since evaluating in a stopped one would hang.
  const worker = async (): Promise<Worker> => {
    await browser.pendingApprovals();
    if (!browser.serviceWorker) throw new Error('no service worker');
    return browser.serviceWorker;
  };
  // The compiler backend is an option the user sets on the options page; the harness starts tasks.
  await controllerFor(worker, compilerOptions(config, opts.llmBaseUrl));
  return {
    setTask: async (request) => {
      await browser.setTask(request);
    },
    pendingApprovals: () => browser.pendingApprovals(),
    answer: (id, answer) => browser.answer(id, answer),
    audit: () => browser.audit({ limit: 200 }),
    newAgent: async () => new PlaywrightDriver(browser.context),
    popupScreenshot: async () => {
      // The popup as the extension opens it for the user: its own window, outside the agent's tabs.
      const opened = browser.context.waitForEvent('page', (p) => p.url().startsWith(`chrome-extension://${extensionId}/popup.html`));
      await (await worker()).evaluate(() => (globalThis as unknown as { __agentsfence: { openControlWindow(path: string): Promise<number> } }).__agentsfence.openControlWindow('/popup.html'));
      const popup = await withTimeout(opened, 10_000, 'popup window');
      await popup.setViewportSize({ width: 440, height: 680 });
      await popup.getByRole('button', { name: 'Allow once' }).first().waitFor({ timeout: 3000 }).catch(() => undefined);
      const png = await popup.screenshot();
      await popup.close();
      return png;
    },
    close: () => browser.close(),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Playwright MCP with (compiler set) or without (compiler null) the extension in its browser. */
export async function openMcpSession(config: GuardConfig, world: DemoWorld, opts: SessionOptions): Promise<GuardSession> {
  const extension = config.compiler === null ? null : config.mainHooks ? opts.extensions.full : opts.extensions.nohooks;
  const runtime = await startMcpRuntime(world, { extensionPath: extension, headless: opts.headless, cdpPort: await freePort() });
  if (extension === null) {
    return { setTask: async () => undefined, pendingApprovals: async () => [], answer: async () => undefined, newAgent: runtime.newAgent, close: runtime.close };
  }
  // The MCP server launches its browser on the first tool call.
  await runtime.client.callTool({ name: 'browser_navigate', arguments: { url: 'about:blank' } });
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${runtime.cdpPort}`);
  const context = browser.contexts()[0];
  if (!context) throw new Error('the MCP browser has no context');
  // Any navigation is an event for the background: it wakes a stopped worker.
  const wake = async () => {
    const page = await context.newPage();
    await page.goto(world.url('news')).catch(() => undefined);
    await page.close().catch(() => undefined);
  };
  const controller = await controllerFor(liveWorker(context, opts.log), compilerOptions(config, opts.llmBaseUrl), wake);
  return {
    ...controller,
    newAgent: runtime.newAgent,
    close: async () => {
      await browser.close().catch(() => undefined);
      await runtime.close();
    },
  };
}
