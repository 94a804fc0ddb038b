import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startTestServer } from '../e2e/fixtures/server';
import { chromiumArgs, chromiumExecutable } from '../src/harness';
import { benchExtension } from './chromium';
import { echoExtension } from './controls';
import { POLICY } from './page';
import { median, type Figure } from './stats';

/**
 * The first decision after an agent's pause (a model call) longer than the browser's 30 s idle stop.
 * Drivers that attach to the extension's worker over CDP keep it running anyway: under Playwright
 * (launchPersistentContext and connectOverCDP alike) Chromium never idle-stopped our worker, task or not
 * (measured 2026-12-01, 45 s). So this section drives each browser with raw CDP that attaches to the page
 * only — as a driver that leaves the worker alone — and compares our worker (a task running: the keep-warm,
 * src/background/platform/keep-warm.ts) with the echo floor's (which has none).
 */

const APP = 'app.test';
const PAUSE_MS = 40_000;
const PAUSES = 3;

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

/** Chromium started by hand, its browser endpoint spoken to over one WebSocket (flat sessions). */
class RawBrowser {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** Each time a worker of the extension started or stopped, in order. */
  readonly workerEvents: string[] = [];
  private workerTargets = new Set<string>();

  private constructor(
    private readonly proc: ChildProcess,
    private readonly ws: WebSocket,
    private readonly profile: string,
  ) {
    ws.on('message', (data: WebSocket.RawData) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: { targetInfo?: TargetInfo; targetId?: string } };
      if (msg.id !== undefined) {
        const waiter = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error !== undefined) waiter?.reject(new Error(msg.error.message));
        else waiter?.resolve(msg.result);
        return;
      }
      const info = msg.params?.targetInfo;
      if (msg.method === 'Target.targetCreated' && info?.type === 'service_worker' && info.url.startsWith('chrome-extension://')) {
        this.workerTargets.add(info.targetId);
        this.workerEvents.push('started');
      }
      if (msg.method === 'Target.targetDestroyed' && this.workerTargets.delete(msg.params?.targetId ?? '')) this.workerEvents.push('stopped');
    });
  }

  static async launch(extensionPath: string): Promise<RawBrowser> {
    const profile = mkdtempSync(join(tmpdir(), 'agentsfence-bench-pause-'));
    const proc = spawn(chromiumExecutable(), ['--headless=new', `--user-data-dir=${profile}`, '--remote-debugging-port=0', ...chromiumArgs(extensionPath, true, undefined), 'about:blank'], { stdio: 'ignore' });
    const portFile = join(profile, 'DevToolsActivePort');
    for (const deadline = Date.now() + 20_000; !existsSync(portFile) || readFileSync(portFile, 'utf8').split('\n').length < 2; ) {
      if (Date.now() > deadline) throw new Error('Chromium did not open its DevTools port');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [port, path] = readFileSync(portFile, 'utf8').split('\n');
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const browser = new RawBrowser(proc, ws, profile);
    await browser.send('Target.setDiscoverTargets', { discover: true });
    return browser;
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    const id = ++this.nextId;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId !== undefined ? { sessionId } : {}) }));
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  async evaluate<T>(sessionId: string, expression: string): Promise<T> {
    const reply = await this.send<{ result: { value: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
    if (reply.exceptionDetails !== undefined) throw new Error(`evaluate: ${reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text}`);
    return reply.result.value;
  }

  /** Evaluates `condition` in the target until it is true (a worker still evaluating its script, a page still loading). */
  async until(sessionId: string, condition: string, what: string): Promise<void> {
    for (const deadline = Date.now() + 20_000; !(await this.evaluate<boolean>(sessionId, `Boolean(${condition})`).catch(() => false)); ) {
      if (Date.now() > deadline) throw new Error(`${what} within 20 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Attaches to a target for as long as `fn` runs. */
  async attached<T>(targetId: string, fn: (sessionId: string) => Promise<T>): Promise<T> {
    const { sessionId } = await this.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    try {
      return await fn(sessionId);
    } finally {
      await this.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
    }
  }

  async worker(): Promise<TargetInfo> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const { targetInfos } = await this.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
      const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));
      if (worker !== undefined) return worker;
    }
    throw new Error('the extension worker did not start');
  }

  async close(): Promise<void> {
    this.ws.close();
    this.proc.kill();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** One POST timed in the page (as bench/page.ts times a round trip). */
const TIMED_POST = (url: string) =>
  `(async () => { const t0 = performance.now(); const r = await fetch(${JSON.stringify(url)}, { method: 'POST', body: 'note=pause&to=team' }); const ms = performance.now() - t0; await r.text(); return ms; })()`;

export async function pauseFigures(): Promise<Figure[]> {
  const ours = benchExtension();
  const echo = echoExtension();
  const server = await startTestServer();
  server.setPage('/app', '<!doctype html><title>app</title><p>app</p>');
  const arms: { name: 'guarded' | 'echo'; browser: RawBrowser; page: string }[] = [];
  try {
    for (const [name, path] of [['guarded', ours.path], ['echo', echo.path]] as const) {
      const browser = await RawBrowser.launch(path);
      arms.push({ name, browser, page: '' });
      const worker = await browser.worker();
      if (name === 'guarded')
        await browser.attached(worker.targetId, async (s) => {
          await browser.until(s, 'globalThis.__agentsfence', 'the harness channel did not appear');
          await browser.evaluate(s, `globalThis.__agentsfence.setPolicy(${JSON.stringify(POLICY)}).then(() => true)`);
        });
      const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', { url: `${server.origin(APP)}/app` });
      await browser.attached(targetId, (s) => browser.until(s, `location.hostname === '${APP}' && document.readyState === 'complete'`, 'the page did not load'));
      arms.at(-1)!.page = targetId;
    }
    const url = `${server.origin(APP)}/w`;
    const post = (arm: (typeof arms)[number]) => arm.browser.attached(arm.page, (s) => arm.browser.evaluate<number>(s, TIMED_POST(url)));
    const warm: Record<'guarded' | 'echo', number[]> = { guarded: [], echo: [] };
    const paused: Record<'guarded' | 'echo', number[]> = { guarded: [], echo: [] };
    const stoppedInPause: Record<'guarded' | 'echo', number> = { guarded: 0, echo: 0 };
    for (const arm of arms) for (let i = 0; i < 5; i++) await post(arm);
    for (let round = 0; round < PAUSES; round++) {
      for (const arm of arms) for (let i = 0; i < 5; i++) warm[arm.name].push(await post(arm));
      const before = arms.map((arm) => arm.browser.workerEvents.length);
      // Both browsers pause at once; nothing of the driver's touches them meanwhile.
      await new Promise((r) => setTimeout(r, PAUSE_MS));
      for (const [i, arm] of arms.entries()) if (arm.browser.workerEvents.slice(before[i]).includes('stopped')) stoppedInPause[arm.name]++;
      for (const arm of round % 2 === 0 ? arms : [...arms].reverse()) paused[arm.name].push(await post(arm));
    }
    const added = (name: 'guarded' | 'echo') => median(paused[name]) - median(warm[name]);
    const met = stoppedInPause.guarded === 0 && stoppedInPause.echo === PAUSES;
    const ms = (x: number) => `${x.toFixed(2)} ms`;
    return [
      {
        id: 'pause',
        figure: `First decision after a ${PAUSE_MS / 1000} s pause (an agent waiting on its model), driver not attached to the worker`,
        target: 'no cold start while a task runs and its agent is active',
        measured:
          `ours: worker stopped in ${stoppedInPause.guarded} of ${PAUSES} pauses, POST p50 ${ms(median(paused.guarded))} after the pause vs ${ms(median(warm.guarded))} warm (+${ms(added('guarded'))}); ` +
          `echo floor (no keep-warm): stopped in ${stoppedInPause.echo} of ${PAUSES}, ${ms(median(paused.echo))} vs ${ms(median(warm.echo))} (+${ms(added('echo'))})`,
        verdict: met ? 'met' : 'missed',
        method:
          `Two browsers (ours with a task running, the echo floor), each started by hand and driven over raw CDP attached to its page only; ${PAUSES} pauses of ${PAUSE_MS / 1000} s taken by both at once, each after 5 warm POSTs and followed by one POST timed in the page. Whether the worker stopped: the browser's own target events (Target.setDiscoverTargets). ` +
          'While a task runs and something was decided in the last 10 minutes, our worker calls chrome.runtime.getPlatformInfo every 20 s, which resets the browser\'s 30 s idle timer (src/background/platform/keep-warm.ts). ' +
          'Under Playwright this never matters: the driver attaches to every worker over CDP and Chromium then never idle-stops it (launchPersistentContext and connectOverCDP, checked 2026-12-01 with no task: still running after 45 s).',
        data: { warm, paused, stoppedInPause, pauseMs: PAUSE_MS },
      },
    ];
  } finally {
    for (const arm of arms) await arm.browser.close();
    await server.close();
    ours.dispose();
    echo.dispose();
  }
}
