import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, EXTENSION_DIR } from '../demo/build';
import type { Page, Worker } from '@playwright/test';
import type { ToolCall } from '../src/core/call';
import type { AgentBrowser } from '../src/harness';

/**
 * Shared pieces of the browser figures: a private copy of the harness build (so a rebuild of
 * `.output/harness/chrome-mv3` during a run cannot pull it away mid-launch; the figures time the monitor
 * through the harness channel, which the production build does not have), a DevTools session on the
 * extension's service worker, and a CPU profile summary for figures that miss their target.
 */

let built = false;

/** `AF_BENCH_EXTENSION=DIR` benches that unpacked harness build instead of (re)building `.output/harness/chrome-mv3`. */
export function benchExtension(): { path: string; dispose(): void } {
  const source = process.env.AF_BENCH_EXTENSION;
  // Built at most once per run, so every section measures the same build even if sources change meanwhile.
  if (source === undefined && !built) {
    ensureBuilt((line) => process.stderr.write(`bench: ${line}\n`));
    built = true;
  }
  const dir = mkdtempSync(join(tmpdir(), 'agentsfence-bench-ext-'));
  const path = join(dir, 'chrome-mv3');
  cpSync(source ?? EXTENSION_DIR, path, { recursive: true });
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A DevTools protocol client for the extension's service worker. */
export interface WorkerCdp {
  send<R = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<R>;
  detach(): Promise<void>;
}

/**
 * Playwright opens CDP sessions on pages only; the worker is reached from a page's session with
 * Target.attachToTarget in non-flat mode, messages wrapped in Target.sendMessageToTarget.
 */
export async function attachToWorker(browser: AgentBrowser): Promise<WorkerCdp> {
  const page = await browser.context.newPage();
  const session = await browser.context.newCDPSession(page);
  const { targetInfos } = await session.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${browser.extensionId}/`));
  if (worker === undefined) throw new Error('the extension service worker is not running');
  const { sessionId } = await session.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  session.on('Target.receivedMessageFromTarget', (event) => {
    if (event.sessionId !== sessionId) return;
    const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
    else waiter?.resolve(message.result);
  });
  return {
    send<R>(method: string, params: Record<string, unknown> = {}) {
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
      });
    },
    async detach() {
      await session.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      await session.detach().catch(() => undefined);
      await page.close().catch(() => undefined);
    },
  };
}

/** The JS heap of the worker after a full GC, in bytes. */
export async function workerHeapAfterGc(cdp: WorkerCdp): Promise<{ usedBytes: number; totalBytes: number }> {
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const usage = await cdp.send<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage');
  await cdp.send('HeapProfiler.disable');
  return { usedBytes: usage.usedSize, totalBytes: usage.totalSize };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  fn: string;
  selfMs: number;
  share: number;
}

/** Self time per key (a function, or a script file), largest first. */
function selfTime(profile: CpuProfile, keyOf: (node: ProfileNode) => string, top: number): ProfileLine[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  samples.forEach((id, i) => {
    const node = byId.get(id);
    // A sample's time is the gap to the next sample.
    const us = deltas[i + 1] ?? 0;
    if (node === undefined) return;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, selfMs: Math.round(us) / 1000, share: total > 0 ? Math.round((us / total) * 1000) / 1000 : 0 }));
}

const fileOf = (url: string) => url.split('/').pop() ?? '';

export function topFunctions(profile: CpuProfile, top = 8): ProfileLine[] {
  return selfTime(profile, ({ callFrame: f }) => `${f.functionName || '(anonymous)'}${f.url ? ` ${fileOf(f.url)}:${f.lineNumber + 1}` : ''}`, top);
}

/** Self time per script file; native frames (DOM, Blob, …) count for the script that called them. */
export function selfTimeByScript(profile: CpuProfile, top = 8): ProfileLine[] {
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const scriptOf = (node: ProfileNode): string => {
    for (let n: ProfileNode | undefined = node; n !== undefined; n = parent.get(n.id)) if (n.callFrame.url) return fileOf(n.callFrame.url);
    return node.callFrame.functionName || '(anonymous)';
  };
  return selfTime(profile, scriptOf, top);
}

type Send = <R>(method: string, params?: Record<string, unknown>) => Promise<R>;

/** A V8 CPU profile (100 µs sampling) of whatever runs in the target while `work` runs. */
export async function cpuProfile(send: Send, work: () => Promise<void>): Promise<CpuProfile> {
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 100 });
  await send('Profiler.start');
  const failed = await work().then(
    () => null,
    (err: unknown) => ({ err }),
  );
  const { profile } = await send<{ profile: CpuProfile }>('Profiler.stop');
  await send('Profiler.disable');
  if (failed !== null) throw failed.err;
  return profile;
}

/** CPU profile of a page (its main thread: page scripts and the content scripts' worlds). */
export async function profilePage(page: Page, work: () => Promise<void>): Promise<CpuProfile> {
  const session = await page.context().newCDPSession(page);
  try {
    const send = (method: string, params?: Record<string, unknown>) => (session.send as (m: string, p?: Record<string, unknown>) => Promise<unknown>)(method, params);
    return await cpuProfile(send as Send, work);
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/**
 * Proposals handed to the monitor's message handler from inside the worker (the harness channel; the same
 * entry content-script messages take), `concurrency` at a time, each timed with performance.now.
 * Returns the samples and the audit log's size afterwards.
 */
export function timeProposalsInWorker(worker: Worker, calls: readonly ToolCall[], concurrency = 1, idPrefix = 'bench'): Promise<{ samplesMs: number[]; auditCount: number }> {
  return worker.evaluate(
    async ({ calls, concurrency, idPrefix }) => {
      type Hook = {
        handleMessage(raw: unknown): Promise<unknown>;
        handle: { monitor: Promise<{ store: { countAudit(): Promise<number> } }> };
      };
      const hook = (globalThis as unknown as { __agentsfence: Hook }).__agentsfence;
      const samplesMs: number[] = [];
      for (let start = 0; start < calls.length; start += concurrency) {
        const batch = calls.slice(start, start + concurrency).map(async (call, j) => {
          const t0 = performance.now();
          await hook.handleMessage({ type: 'proposal', id: `${idPrefix}-${start + j}`, call, layer: 'main' });
          samplesMs.push(performance.now() - t0);
        });
        await Promise.all(batch);
      }
      const monitor = await hook.handle.monitor;
      return { samplesMs, auditCount: await monitor.store.countAudit() };
    },
    { calls, concurrency, idPrefix },
  );
}

/**
 * The IndexedDB writes behind an ALLOW, timed alone in the worker: persisting the task (σ'), appending
 * one audit entry (a copy of the newest one), both in the one transaction the monitor uses
 * (commitDecision), and the audit count (what rotation used to run on every append). `n` of each.
 */
export function timeStoreWritesInWorker(worker: Worker, n: number): Promise<{ putTaskMs: number[]; appendAuditMs: number[]; commitMs: number[]; countAuditMs: number[] }> {
  return worker.evaluate(async (n) => {
    type Store = {
      putTask(task: unknown): Promise<void>;
      appendAudit(entry: unknown): Promise<void>;
      commitDecision(task: unknown, entry: unknown): Promise<void>;
      listAudit(filter: { limit: number }): Promise<unknown[]>;
      countAudit(): Promise<number>;
    };
    type Hook = { handle: { monitor: Promise<{ store: Store; snapshot(): { task: unknown } }> } };
    const monitor = await (globalThis as unknown as { __agentsfence: Hook }).__agentsfence.handle.monitor;
    const { store } = monitor;
    const task = monitor.snapshot().task;
    const [entry] = await store.listAudit({ limit: 1 });
    const putTaskMs: number[] = [];
    const appendAuditMs: number[] = [];
    const countAuditMs: number[] = [];
    const commitMs: number[] = [];
    // No named helpers in here: tsx would wrap them in a `__name` call the worker does not have.
    for (let i = 0; i < n; i++) {
      let t0 = performance.now();
      if (task !== null) await store.putTask(task);
      putTaskMs.push(performance.now() - t0);
      t0 = performance.now();
      if (entry !== undefined) await store.appendAudit(entry);
      appendAuditMs.push(performance.now() - t0);
      t0 = performance.now();
      await store.commitDecision(task, entry ?? null);
      commitMs.push(performance.now() - t0);
      t0 = performance.now();
      await store.countAudit();
      countAuditMs.push(performance.now() - t0);
    }
    return { putTaskMs, appendAuditMs, commitMs, countAuditMs };
  }, n);
}

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of a complete event: unlike `dur`, not inflated when other processes take the core. */
  tdur?: number;
  args?: { name?: string; data?: { url?: string; functionName?: string } };
}

/** Main-thread time per load, from a Chrome trace: all tasks, and the JS our scripts ran, by file and function. */
export interface MainThreadTime {
  /** Top-level tasks on the page's renderer main thread, per load (parsing, style, layout, scripts, IPC). */
  busyMsPerLoad: number;
  /** Top-most JS calls and evaluations, by script file, per load. */
  byScript: { script: string; msPerLoad: number }[];
  /** The same, by script file and function (minified names), per load, largest first. */
  top: { fn: string; msPerLoad: number }[];
  /** Top-most JS calls and evaluations by script file, in thread (CPU) time per load: not inflated when other processes take the core. */
  cpuByScript: { script: string; msPerLoad: number }[];
  /** The longest single top-most JS call or evaluation per script file (thread ms): the longest task it adds. */
  longest: { script: string; ms: number }[];
  /** Main-thread CPU (thread time of the top-level tasks) per load. */
  cpuMsPerLoad: number;
  /**
   * Self CPU per trace event type per load (time in an event minus its children's): what the main thread
   * spent its time on (ParseHTML, UpdateLayoutTree, Layout, GC, RunMicrotasks, …); JS as
   * `FunctionCall <file>` / `EvaluateScript <file>`.
   */
  byEvent: Record<string, number>;
}

/**
 * A Chrome trace (CDP Tracing, `devtools.timeline` and `v8.execute`: what the Performance panel records)
 * of the page's renderer while `work` makes `loads` loads. Unlike a V8 CPU profile, a trace follows the
 * page across navigations (Profiler.start on a page keeps sampling only the document it started in:
 * over 20 loads it held ~5 % of the wall time). Times are inflated a little by the tracing itself.
 */
export async function traceMainThread(page: Page, loads: number, work: () => Promise<void>): Promise<MainThreadTime> {
  const session = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  try {
    session.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
    const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
    await session.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['devtools.timeline', 'v8.execute', 'toplevel'] } });
    await work();
    await session.send('Tracing.end');
    await complete;
  } finally {
    await session.detach().catch(() => undefined);
  }
  const mainThreads = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const complete = events.filter((e) => e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`)).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  // The page's renderer: the process whose main thread parsed the page's documents.
  const pageUrl = new URL(page.url()).origin;
  const pagePid = complete.find((e) => e.name === 'ParseHTML' || (e.name === 'EvaluateScript' && (e.args?.data?.url ?? '').startsWith(pageUrl)))?.pid;
  let busy = 0;
  let cpu = 0;
  const byScript = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byEvent = new Map<string, number>();
  const longest = new Map<string, number>();
  const cpuByScript = new Map<string, number>();
  const open: { end: number; js: boolean; key: string }[] = [];
  for (const e of complete) {
    if (e.pid !== pagePid) continue;
    while (open.length > 0 && open[open.length - 1]!.end <= e.ts) open.pop();
    const dur = e.dur ?? 0;
    const js = e.name === 'FunctionCall' || e.name === 'EvaluateScript';
    if (open.length === 0 && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask')) busy += dur;
    const thread = e.tdur ?? dur;
    if (open.length === 0) cpu += thread;
    const key = js ? `${e.name} ${fileOf(e.args?.data?.url ?? '') || '(page)'}` : e.name;
    byEvent.set(key, (byEvent.get(key) ?? 0) + thread);
    const parent = open[open.length - 1];
    if (parent !== undefined) byEvent.set(parent.key, (byEvent.get(parent.key) ?? 0) - thread);
    if (js && !open.some((o) => o.js)) {
      const script = fileOf(e.args?.data?.url ?? '') || '(unknown)';
      byScript.set(script, (byScript.get(script) ?? 0) + dur);
      cpuByScript.set(script, (cpuByScript.get(script) ?? 0) + thread);
      longest.set(script, Math.max(longest.get(script) ?? 0, thread));
      const fn = `${script} ${e.name === 'EvaluateScript' ? '(evaluation)' : e.args?.data?.functionName || '(anonymous)'}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + dur);
    }
    open.push({ end: e.ts + dur, js, key });
  }
  const perLoad = (us: number) => Math.round((us / 1000 / loads) * 100) / 100;
  return {
    busyMsPerLoad: perLoad(busy),
    cpuMsPerLoad: perLoad(cpu),
    byEvent: Object.fromEntries([...byEvent.entries()].map(([name, us]) => [name, perLoad(us)])),
    byScript: [...byScript.entries()].sort((a, b) => b[1] - a[1]).map(([script, us]) => ({ script, msPerLoad: perLoad(us) })),
    top: [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([fn, us]) => ({ fn, msPerLoad: perLoad(us) })),
    cpuByScript: [...cpuByScript.entries()].sort((a, b) => b[1] - a[1]).map(([script, us]) => ({ script, msPerLoad: perLoad(us) })),
    longest: [...longest.entries()].sort((a, b) => b[1] - a[1]).map(([script, us]) => ({ script, ms: Math.round(us / 10) / 100 })),
  };
}
