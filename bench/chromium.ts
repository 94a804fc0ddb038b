import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, EXTENSION_DIR } from '../demo/build';
import type { AgentBrowser } from '../src/harness';

/**
 * Shared pieces of the browser figures: a private copy of the extension build (so a rebuild of
 * `.output/chrome-mv3` during a run cannot pull it away mid-launch), a DevTools session on the
 * extension's service worker, and a CPU profile summary for figures that miss their target.
 */

export function benchExtension(): { path: string; dispose(): void } {
  ensureBuilt((line) => process.stderr.write(`bench: ${line}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'agentsfence-bench-ext-'));
  const path = join(dir, 'chrome-mv3');
  cpSync(EXTENSION_DIR, path, { recursive: true });
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
  hitCount?: number;
}

export interface ProfileLine {
  fn: string;
  selfMs: number;
  share: number;
}

/** Self time per function of a V8 CPU profile, largest first (file names shortened). */
export function topSelfTime(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }, top = 8): ProfileLine[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  samples.forEach((id, i) => {
    const node = byId.get(id);
    const us = deltas[i + 1] ?? deltas[i] ?? 0;
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.split('/').pop() ?? '';
    const key = `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => ({ fn, selfMs: Math.round(us) / 1000, share: total > 0 ? Math.round((us / total) * 1000) / 1000 : 0 }));
}

/** Profiles the worker while `work` runs. */
export async function profileWorker(cdp: WorkerCdp, work: () => Promise<void>): Promise<ProfileLine[]> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  const done = await work().then(
    () => null,
    (err: unknown) => err,
  );
  const { profile } = await cdp.send<{ profile: Parameters<typeof topSelfTime>[0] }>('Profiler.stop');
  await cdp.send('Profiler.disable');
  if (done !== null) throw done;
  return topSelfTime(profile);
}
