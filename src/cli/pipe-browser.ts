import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CdpRouter, pipeTransport } from '../cdp-proxy/upstream';
import { chromiumArgs, chromiumExecutable, type ApprovalAnswer, type TaskOptions } from '../harness';
import type { Options, PendingApproval, TaskStateResponse } from '../messages/protocol';

/**
 * The browser `agentsfence browser` runs: Chromium with the extension, a fresh profile, and CDP over
 * `--remote-debugging-pipe` only (no debugging port: nothing on this machine can connect to the browser
 * but this process). The task is started and approvals answered as the harness does it — messages from the
 * extension's own control window (popup.html in a window the extension opened) — over the same pipe.
 */

export interface PipeBrowser {
  router: CdpRouter;
  /** The Chromium browser process. */
  process: ChildProcess;
  extensionId: string;
  setTask(request: string, options?: TaskOptions): Promise<TaskStateResponse>;
  pendingApprovals(): Promise<PendingApproval[]>;
  answer(id: string, answer: ApprovalAnswer): Promise<void>;
  close(): Promise<void>;
}

/** The switches Playwright launches Chromium with that matter here (see playwright-core's chromiumSwitches). */
const AUTOMATION_SWITCHES = [
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-client-side-phishing-detection',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
  '--disable-features=HttpsUpgrades,PaintHolding,Translate,MediaRouter,DialMediaRouteProvider,GlobalMediaControls,LensOverlay,OptimizationHints,ThirdPartyStoragePartitioning,AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose',
  '--disable-hang-monitor',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--disable-renderer-backgrounding',
  '--no-default-browser-check',
  '--password-store=basic',
  '--use-mock-keychain',
  '--no-service-autorun',
  '--disable-search-engine-choice-screen',
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Evaluated {
  result?: { value?: unknown };
  exceptionDetails?: { text?: string; exception?: { description?: string } };
}

export async function launchPipeBrowser(options: { headless: boolean; extensionPath: string }): Promise<PipeBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'agentsfence-'));
  const args = [
    ...chromiumArgs(options.extensionPath, true),
    ...AUTOMATION_SWITCHES,
    ...(options.headless ? ['--headless', '--hide-scrollbars', '--mute-audio'] : []),
    `--user-data-dir=${profile}`,
    '--remote-debugging-pipe',
    'about:blank',
  ];
  const child = spawn(chromiumExecutable(), args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const router = new CdpRouter(pipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable));
  child.once('error', (err) => {
    process.stderr.write(`agentsfence: cannot start ${chromiumExecutable()}: ${err.message}\n`);
    router.close();
  });
  const dispose = async () => {
    router.close();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(profile, { recursive: true, force: true });
  };

  try {
    // The extension's service worker and the control window, as targets the proxy's root session discovers.
    const targets = new Map<string, { targetId: string; type: string; url: string }>();
    router.onEvent((m) => {
      const info = m.params?.targetInfo as { targetId: string; type: string; url: string } | undefined;
      if (m.sessionId === undefined && info !== undefined && (m.method === 'Target.targetCreated' || m.method === 'Target.targetInfoChanged')) targets.set(info.targetId, info);
      if (m.sessionId === undefined && m.method === 'Target.targetDestroyed') targets.delete(String(m.params?.targetId));
    });
    await router.call('Target.setDiscoverTargets', { discover: true });
    const waitFor = async (what: string, test: (t: { type: string; url: string }) => boolean, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = [...targets.values()].find(test);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`${what} did not appear within ${timeoutMs / 1000} s`);
        await sleep(50);
      }
    };
    const worker = await waitFor('the extension service worker', (t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));
    const extensionId = new URL(worker.url).host;

    const evaluate = async (sessionId: string, expression: string): Promise<unknown> => {
      const r = (await router.call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId)) as Evaluated;
      if (r.exceptionDetails !== undefined) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'evaluation failed');
      return r.result?.value;
    };

    let control: string | null = null; // the control window's session
    const openControl = async (): Promise<string> => {
      const isControl = (t: { type: string; url: string }) => t.type === 'page' && t.url.startsWith(`chrome-extension://${extensionId}/popup.html`);
      const sw = await waitFor('the extension service worker', (t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`), 10_000);
      const { sessionId: workerSession } = await router.call('Target.attachToTarget', { targetId: sw.targetId, flatten: true });
      try {
        // The worker's script may still be starting when its target appears.
        for (const deadline = Date.now() + 10_000; ; await sleep(100)) {
          const has = await evaluate(String(workerSession), `typeof globalThis.__agentsfence?.openControlWindow === 'function'`).catch(() => false);
          if (has === true) break;
          if (Date.now() > deadline) throw new Error('this extension build has no harness channel: load a harness build (AF_HARNESS=1 wxt build)');
        }
        await evaluate(String(workerSession), `globalThis.__agentsfence.openControlWindow()`);
      } finally {
        await router.call('Target.detachFromTarget', { sessionId: workerSession }).catch(() => undefined);
      }
      const page = await waitFor('the control window', isControl, 10_000);
      const { sessionId } = await router.call('Target.attachToTarget', { targetId: page.targetId, flatten: true });
      for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
        const ready = await evaluate(String(sessionId), `location.href.startsWith('chrome-extension://') && document.readyState !== 'loading' && typeof chrome?.runtime?.sendMessage === 'function'`).catch(() => false);
        if (ready === true) break;
        if (Date.now() > deadline) throw new Error('the control window did not load');
      }
      return String(sessionId);
    };

    /** A message from the control window: exactly what the popup sends. */
    const send = async <R>(message: unknown): Promise<R> => {
      const expression = `chrome.runtime.sendMessage(${JSON.stringify(message)})`;
      if (control !== null) {
        try {
          return (await evaluate(control, expression)) as R;
        } catch {
          control = null; // the window went away: open it again
        }
      }
      control = await openControl();
      return (await evaluate(control, expression)) as R;
    };
    const expectOk = <R extends { ok: boolean }>(response: R | { ok: false; error: string }): R => {
      if (!response.ok) throw new Error(`AgentsFence refused: ${(response as { error?: string }).error ?? 'unknown error'}`);
      return response as R;
    };

    return {
      router,
      process: child,
      extensionId,
      async setTask(request, taskOptions = {}) {
        if (taskOptions.askTimeoutSeconds !== undefined || taskOptions.compiler !== undefined) {
          const current = expectOk(await send<{ ok: true; options: Options }>({ type: 'options.get' })).options;
          const wanted: Options = { ...current, ...taskOptions.compiler, ...(taskOptions.askTimeoutSeconds !== undefined ? { askTimeoutSeconds: taskOptions.askTimeoutSeconds } : {}) };
          if (JSON.stringify(wanted) !== JSON.stringify(current)) expectOk(await send<{ ok: true; options: Options }>({ type: 'options.set', options: wanted }));
        }
        return expectOk(await send<TaskStateResponse>({ type: 'task.start', request }));
      },
      async pendingApprovals() {
        return expectOk(await send<TaskStateResponse>({ type: 'task.get' })).pending;
      },
      async answer(id, answer) {
        expectOk(await send<{ ok: boolean }>({ type: 'approval.answer', id, answer }));
      },
      async close() {
        await Promise.race([router.call('Browser.close').catch(() => undefined), sleep(5_000)]);
        await Promise.race([exited, sleep(5_000)]);
        await dispose();
      },
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}
