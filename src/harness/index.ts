import { chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvalState, TaskPolicy, TaskPolicyInput } from '../core/policy';
import type { ApprovalAnswerKind, AuditEntry, Options, PendingApproval, SanitizerMode, TaskStateResponse } from '../messages/protocol';

/**
 * The harness for agent developers (and the e2e suite and the demo): launches Chromium with AgentsFence
 * loaded, sets the task as the user would (through the extension's own control window, the same path
 * and the same sender checks as the toolbar popup), answers approvals, reads the audit log and restarts
 * the service worker. See src/harness/README.md.
 */

export interface LaunchOptions {
  /** Load the extension (default true). `false` is the negative control: the same browser, unguarded. */
  extension?: boolean;
  /** Include the MAIN-world page hooks (default true). `false` loads the AF_NO_MAIN_HOOKS build. */
  mainHooks?: boolean;
  headless?: boolean;
  /** Map every `*.test` hostname to 127.0.0.1 (default true). */
  hostMap?: boolean;
  /**
   * An unpacked harness build to load instead of `.output/harness/chrome-mv3` / `.output/nohooks/chrome-mv3`.
   * It must contain the harness channel (AF_HARNESS=1 or AF_NO_MAIN_HOOKS=1): the production build has none.
   */
  extensionPath?: string;
  /** Chromium binary (default `AF_CHROMIUM` or /usr/bin/chromium). */
  executablePath?: string;
  /** The Sanitizer's mode, set in the options before the first task (default: the options' own, `hidden`). */
  sanitizer?: SanitizerMode;
  /**
   * Seconds an action the task does not cover waits for the user before it is blocked (default
   * AGENT_ASK_TIMEOUT_SECONDS, 45 s; at least 5). Applies to every task this browser starts; `setTask` can
   * override it per task.
   */
  askTimeoutSeconds?: number;
  /**
   * Also serve raw CDP on 127.0.0.1 at this port (0: any free port; see `cdpEndpoint`). Raw CDP reaches
   * the extension's own targets: hand agents the filtering proxy (`agentsfence browser`), not this.
   */
  remoteDebuggingPort?: number;
  /**
   * More Chromium switches (tests: e.g. `--short-reporting-delay`, so the Reporting API delivers its
   * reports within a second instead of a minute).
   */
  extraArgs?: readonly string[];
}

export interface TaskOptions {
  /** Seconds an action waits for the user before it is blocked, for this task (at least 5). */
  askTimeoutSeconds?: number;
  /** The compiler that turns the words into a policy (default: the extension's option, offline rules). */
  compiler?: Pick<Options, 'backend'> & Partial<Pick<Options, 'baseUrl' | 'model' | 'apiKey'>>;
}

export type ApprovalAnswer = ApprovalAnswerKind;

/**
 * The ask timeout for a browser an agent drives (the harness, `agentsfence browser`): 45 s, under the 60 s
 * after which the clients give up on a call that has not answered (the MCP SDK's request timeout,
 * browser-use's CDP timeout, Playwright MCP's navigation timeout: docs/clients.md), so the agent hears
 * "blocked: nobody answered" instead of a browser that looks dead. The extension's own default (120 s)
 * is for a person at the popup.
 */
export const AGENT_ASK_TIMEOUT_SECONDS = 45;

export interface AgentBrowser {
  context: BrowserContext;
  /** null when the extension is not loaded. */
  extensionId: string | null;
  /** `http://127.0.0.1:<port>` when launched with `remoteDebuggingPort`, else null (raw, unfiltered CDP). */
  cdpEndpoint: string | null;
  /** The current service worker (replaced by restartWorker). */
  serviceWorker: Worker | null;
  /** Start a task from the user's words, as the user does in the popup. Returns the popup's view of it. */
  setTask(request: string, options?: TaskOptions): Promise<TaskStateResponse>;
  /** Tests only: install a precise policy through the worker's test hook. */
  setPolicy(policy: TaskPolicyInput): Promise<void>;
  endTask(): Promise<void>;
  /** Change options as the options page does (the rest keep their stored values); returns the stored options. */
  setOptions(patch: Partial<Options>): Promise<Options>;
  pendingApprovals(): Promise<PendingApproval[]>;
  /** Wait until at least `count` approvals are pending (default 1), then return them. */
  waitForApprovals(count?: number, timeoutMs?: number): Promise<PendingApproval[]>;
  answer(id: string, answer: ApprovalAnswer): Promise<void>;
  /** The audit log, newest first. */
  audit(filter?: { decision?: 'ALLOW' | 'BLOCK' | 'ASK_USER'; check?: string; limit?: number }): Promise<AuditEntry[]>;
  /**
   * Asks and decisions as they happen: a new pending approval (`ask`), one that left the list (`settled`:
   * answered or timed out; its decision follows as a `decision`), and every new audit entry (`decision`).
   * Read from the control window every `intervalMs` (default 200); returns a function that stops it.
   */
  watch(listener: (event: FenceEvent) => void, intervalMs?: number): () => void;
  /** Stop the service worker (CDP ServiceWorker.stopAllWorkers), wake it, and wait until it runs again. */
  restartWorker(): Promise<Worker>;
  /** The worker's durable state: task (policy, counters, grants), pending approvals, control windows. */
  snapshot(): Promise<FenceSnapshot>;
  /** The network floor as installed: the declarativeNetRequest session rules, then the dynamic (taint) ones. */
  floorRules(): Promise<unknown[]>;
  close(): Promise<void>;
}

export type FenceEvent = { type: 'ask'; approval: PendingApproval } | { type: 'settled'; id: string } | { type: 'decision'; entry: AuditEntry };

export interface FenceSnapshot {
  task: { taskId: string; state: EvalState; policy: TaskPolicy; taskTabIds: number[]; floorWriteDomains: string[]; taint?: { value: string; kind: string; site: string }[] } | null;
  approvals: { id: string; deltaKey: string; expiresAt: number }[];
  controlWindows: number[];
}

/** The harness channel: what a harness build's worker exposes as `globalThis.__agentsfence` (src/background/platform/harness-channel.ts). */
interface HarnessChannel {
  setPolicy(policy: unknown): Promise<unknown>;
  snapshot(): Promise<FenceSnapshot>;
  openControlWindow(path?: string): Promise<number>;
  floorRules(): Promise<unknown[]>;
}

/** `chrome.runtime.sendMessage` as seen from an extension page (the harness has no chrome types). */
const sendFromPage = (message: unknown) =>
  (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage(message);

/** The package's root (the repository in a clone). */
export const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** `AF_HARNESS=1 wxt build`: the product plus the harness channel. The production build (.output/chrome-mv3) has no channel. */
export const HARNESS_BUILD = resolve(PACKAGE_ROOT, '.output/harness/chrome-mv3');
/** `AF_NO_MAIN_HOOKS=1 wxt build`: the harness build without the MAIN-world page hooks. */
export const NO_HOOKS_BUILD = resolve(PACKAGE_ROOT, '.output/nohooks/chrome-mv3');

/** The Chromium the harness starts: AF_CHROMIUM, else Debian's. */
export function chromiumExecutable(): string {
  return process.env.AF_CHROMIUM ?? '/usr/bin/chromium';
}

/** Chromium flags per docs/machine-facts.md: loopback names, nothing phoning home, a fresh profile each time. */
export function chromiumArgs(extensionPath: string | null, hostMap: boolean, remoteDebuggingPort?: number): string[] {
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
  ];
  if (hostMap) args.push('--host-resolver-rules=MAP *.test 127.0.0.1');
  if (remoteDebuggingPort !== undefined) args.push(`--remote-debugging-port=${remoteDebuggingPort}`, '--remote-debugging-address=127.0.0.1');
  if (extensionPath !== null) args.push(`--disable-extensions-except=${extensionPath}`, `--load-extension=${extensionPath}`);
  return args;
}

/** Chromium writes the port it chose to `DevToolsActivePort` in the profile. */
async function devToolsEndpoint(profile: string, timeoutMs = 10_000): Promise<string> {
  const file = join(profile, 'DevToolsActivePort');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error('Chromium did not open its remote debugging port');
    await new Promise((r) => setTimeout(r, 50));
  }
  return `http://127.0.0.1:${readFileSync(file, 'utf8').split('\n')[0]!.trim()}`;
}

async function waitForWorker(context: BrowserContext, timeoutMs = 30_000): Promise<Worker> {
  const existing = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'));
  if (existing !== undefined) return existing;
  return context.waitForEvent('serviceworker', { timeout: timeoutMs, predicate: (w) => w.url().startsWith('chrome-extension://') });
}

export async function launchAgentBrowser(options: LaunchOptions = {}): Promise<AgentBrowser> {
  const withExtension = options.extension ?? true;
  const extensionPath = withExtension ? (options.extensionPath ?? ((options.mainHooks ?? true) ? HARNESS_BUILD : NO_HOOKS_BUILD)) : null;
  if (extensionPath !== null && !existsSync(join(extensionPath, 'manifest.json'))) {
    throw new Error(`No extension build at ${extensionPath}: run \`npm run build:harness-extension\` (it builds both harness variants).`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'agentsfence-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: options.executablePath ?? chromiumExecutable(),
    headless: options.headless ?? true,
    args: [...chromiumArgs(extensionPath, options.hostMap ?? true, options.remoteDebuggingPort), ...(options.extraArgs ?? [])],
    acceptDownloads: true,
  });
  const cdpEndpoint = options.remoteDebuggingPort === undefined ? null : await devToolsEndpoint(profile);

  let serviceWorker: Worker | null = extensionPath === null ? null : await waitForWorker(context);
  const extensionId = serviceWorker === null ? null : new URL(serviceWorker.url()).host;
  let controlPage: Page | null = null;

  const requireExtension = (): string => {
    if (extensionId === null) throw new Error('The extension is not loaded in this browser (extension: false).');
    return extensionId;
  };

  /** Runs `fn` in the service worker; `fn` is serialised, so it may use only its argument and globals. */
  const inWorker = async <R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R> => {
    requireExtension();
    const worker = serviceWorker ?? (serviceWorker = await waitForWorker(context));
    return worker.evaluate(fn as (arg: unknown) => R | Promise<R>, arg as unknown);
  };

  /** Calls the harness channel in the worker; a build without it (the production build) is refused with a clear error. */
  const callChannel = <M extends keyof HarnessChannel>(method: M, arg?: Parameters<HarnessChannel[M]>[0]): Promise<Awaited<ReturnType<HarnessChannel[M]>>> =>
    inWorker(
      async ({ method, arg }) => {
        const channel = (globalThis as unknown as { __agentsfence?: Record<string, (arg: unknown) => Promise<unknown>> }).__agentsfence;
        if (channel === undefined) throw new Error('this extension build has no harness channel: load a harness build (AF_HARNESS=1 wxt build → .output/harness/chrome-mv3), not the production build');
        return channel[method]!(arg);
      },
      { method, arg },
    ) as Promise<Awaited<ReturnType<HarnessChannel[M]>>>;

  /**
   * A read of the worker's state, asked once more if the worker went away mid-call: Playwright then reports
   * the evaluation's promise as garbage collected (seen at the start of e2e/floor-exfil.spec.ts, ≈ 1 run in 4).
   */
  const readChannel = async <M extends 'snapshot' | 'floorRules'>(method: M): Promise<Awaited<ReturnType<HarnessChannel[M]>>> => {
    try {
      return await callChannel(method);
    } catch (err) {
      if (!/garbage collected|Target .*closed|context was destroyed/i.test(String(err))) throw err;
      serviceWorker = null;
      return callChannel(method);
    }
  };

  /** The extension's own window (popup.html in a window the extension opened and remembers). */
  const control = async (): Promise<Page> => {
    const id = requireExtension();
    if (controlPage !== null && !controlPage.isClosed()) return controlPage;
    const opened = context.waitForEvent('page', { predicate: (p) => p.url().startsWith(`chrome-extension://${id}/popup.html`), timeout: 10_000 });
    await callChannel('openControlWindow');
    controlPage = await opened;
    await controlPage.waitForLoadState('domcontentloaded');
    return controlPage;
  };

  /** A message from the control window: exactly what the popup sends. */
  const send = async <R>(message: unknown): Promise<R> => {
    const page = await control();
    return page.evaluate(sendFromPage, message) as Promise<R>;
  };

  const expectOk = <R extends { ok: boolean }>(response: R | { ok: false; error: string }): R => {
    if (!response.ok) throw new Error(`AgentsFence refused: ${(response as { error?: string }).error ?? 'unknown error'}`);
    return response as R;
  };

  const browser: AgentBrowser = {
    context,
    extensionId,
    cdpEndpoint,
    get serviceWorker() {
      return serviceWorker;
    },
    async setTask(request, taskOptions = {}) {
      const askTimeoutSeconds = taskOptions.askTimeoutSeconds ?? options.askTimeoutSeconds ?? AGENT_ASK_TIMEOUT_SECONDS;
      const current = expectOk(await send<{ ok: true; options: Options }>({ type: 'options.get' })).options;
      const wanted: Options = { ...current, ...taskOptions.compiler, askTimeoutSeconds };
      if (JSON.stringify(wanted) !== JSON.stringify(current)) expectOk(await send<{ ok: true; options: Options }>({ type: 'options.set', options: wanted }));
      return expectOk(await send<TaskStateResponse>({ type: 'task.start', request }));
    },
    async setPolicy(policy) {
      await callChannel('setPolicy', policy);
    },
    async endTask() {
      expectOk(await send<TaskStateResponse>({ type: 'task.end' }));
    },
    async setOptions(patch) {
      const { options } = expectOk(await send<{ ok: true; options: Options }>({ type: 'options.get' }));
      return expectOk(await send<{ ok: true; options: Options }>({ type: 'options.set', options: { ...options, ...patch } })).options;
    },
    async pendingApprovals() {
      return expectOk(await send<TaskStateResponse>({ type: 'task.get' })).pending;
    },
    async waitForApprovals(count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const pending = await browser.pendingApprovals();
        if (pending.length >= count) return pending;
        if (Date.now() > deadline) throw new Error(`expected ${count} pending approval(s), have ${pending.length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async answer(id, answer) {
      expectOk(await send<{ ok: boolean }>({ type: 'approval.answer', id, answer }));
    },
    async audit(filter = {}) {
      return expectOk(await send<{ ok: true; entries: AuditEntry[] }>({ type: 'audit.list', ...filter })).entries;
    },
    watch(listener, intervalMs = 200) {
      let stopped = false;
      const pending = new Set<string>();
      const seen = new Set<string>();
      void (async () => {
        // What is in the log already is history, not an event.
        for (const entry of await browser.audit({ limit: 10_000 }).catch(() => [])) seen.add(entry.id);
        while (!stopped) {
          const [asks, entries] = await Promise.all([browser.pendingApprovals().catch(() => null), browser.audit({ limit: 200 }).catch(() => null)]);
          if (stopped) return;
          if (asks !== null) {
            const now = new Set(asks.map((a) => a.id));
            for (const a of asks) if (!pending.has(a.id)) listener({ type: 'ask', approval: a });
            for (const id of pending) if (!now.has(id)) listener({ type: 'settled', id });
            pending.clear();
            for (const id of now) pending.add(id);
          }
          for (const entry of (entries ?? []).filter((e) => !seen.has(e.id)).reverse()) {
            seen.add(entry.id);
            listener({ type: 'decision', entry });
          }
          await new Promise((r) => setTimeout(r, intervalMs));
        }
      })();
      return () => {
        stopped = true;
      };
    },
    async restartWorker() {
      requireExtension();
      // ServiceWorker.* from a session on an extension page reaches the extension's worker. Playwright
      // keeps one Worker handle for it: evaluating while it is stopped hangs, after the wake it runs in
      // the fresh worker (whose memory is rebuilt from IndexedDB).
      const page = await control();
      const cdp = await context.newCDPSession(page);
      let status = '';
      // Every status reported, in order: a worker that something (an alarm) wakes again passes through
      // `stopped` between two checks, so each wait looks for its status after the one before it.
      const history: string[] = [];
      let checked = 0;
      const reached = (wanted: string) =>
        new Promise<void>((resolveStatus, reject) => {
          const timer = setTimeout(() => reject(new Error(`service worker not ${wanted} within 15 s (last: ${status})`)), 15_000);
          const check = () => {
            const at = history.findIndex((s, i) => i >= checked && s.split(',').includes(wanted));
            if (at >= 0) {
              checked = at + 1;
              clearTimeout(timer);
              resolveStatus();
            } else setTimeout(check, 25);
          };
          check();
        });
      cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
        status = event.versions.filter((v) => v.scriptURL.startsWith(`chrome-extension://${extensionId}/`)).map((v) => v.runningStatus).join(',');
        history.push(status);
      });
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      await reached('stopped');
      // Any extension event wakes the worker; a message from the control window is the popup's own path.
      await page.evaluate(sendFromPage, { type: 'task.get' });
      await reached('running');
      await cdp.detach();
      const worker = serviceWorker ?? (await waitForWorker(context));
      serviceWorker = worker;
      return worker;
    },
    snapshot: () => readChannel('snapshot'),
    floorRules: () => readChannel('floorRules'),
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
  if (options.sanitizer !== undefined && extensionId !== null) await browser.setOptions({ sanitizer: options.sanitizer });
  return browser;
}
