import type { Worker } from '@playwright/test';
import type { TaskPolicyInput } from '../src/core/policy';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { AUDIT_LIMIT_DEFAULT } from '../src/background/store';
import { attachToWorker, benchExtension, profileWorker, workerHeapAfterGc, type ProfileLine } from './chromium';
import { summarise, type Figure } from './stats';

/**
 * Figures 6 and 7b, in the real service worker: the audit log is filled through the background's own
 * path — proposals handed to the monitor's message handler (the worker's test hook, the same entry the
 * content scripts' messages take) while a task is active — then the worker's JS heap is read over CDP
 * after a forced GC, and the audit store's size is read from the storage quota estimate.
 */

const POLICY: TaskPolicyInput = {
  version: 1,
  taskId: 'bench-memory',
  issuedAt: 0,
  expiresAt: null,
  ceilings: { COMMUNICATION: 'allow', EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['READ', 'EXTERNAL_WRITE', 'COMMUNICATION'] },
  domains: ['mail.test', 'news.test', 'api.test'],
  recipients: ['bob@corp.test'],
};

interface WorkerStats {
  samplesMs: number[];
  count: number;
}

/**
 * Sends `n` proposals from inside the worker, `concurrency` at a time (writes queue in the monitor),
 * timing each handleMessage call. The calls vary (reads, allowed and refused sends, an off-list site)
 * so the log holds the mix a real task writes.
 */
function propose(worker: Worker, from: number, n: number, concurrency: number): Promise<WorkerStats> {
  return worker.evaluate(
    async ({ from, n, concurrency }) => {
      type Hook = { handleMessage(raw: unknown): Promise<unknown>; handle: { monitor: Promise<{ deps: { store: { countAudit(): Promise<number> } } }> } };
      const hook = (globalThis as unknown as { __agentsfence: Hook }).__agentsfence;
      const call = (i: number) => {
        switch (i % 4) {
          case 0:
            return { tool: 'browser.request', args: { method: 'GET', url: `https://mail.test/api/messages?page=${i}`, kind: 'fetch' } };
          case 1:
            return { tool: 'browser.request', args: { method: 'POST', url: `https://api.test/notes/${i}`, kind: 'fetch', body: { note: `n${i}` } } };
          case 2:
            return { tool: 'browser.request', args: { method: 'POST', url: `https://mail.test/api/send?n=${i}`, kind: 'fetch', body: { to: i % 8 === 2 ? 'eve@elsewhere.test' : 'bob@corp.test', body: 'ok' } } };
          default:
            return { tool: 'browser.navigate', args: { url: `https://news.test/article/${i}` } };
        }
      };
      const samplesMs: number[] = [];
      for (let start = 0; start < n; start += concurrency) {
        const batch = [];
        for (let i = start; i < Math.min(n, start + concurrency); i++) {
          const index = from + i;
          batch.push(
            (async () => {
              const t0 = performance.now();
              await hook.handleMessage({ type: 'proposal', id: `b${index}`, call: call(index), layer: 'main' });
              samplesMs.push(performance.now() - t0);
            })(),
          );
        }
        await Promise.all(batch);
      }
      const monitor = await hook.handle.monitor;
      return { samplesMs, count: await monitor.deps.store.countAudit() };
    },
    { from, n, concurrency },
  );
}

function storageEstimate(worker: Worker): Promise<{ usage: number; indexedDB: number | null }> {
  return worker.evaluate(async () => {
    const estimate = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
    return { usage: estimate.usage ?? 0, indexedDB: estimate.usageDetails?.indexedDB ?? null };
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export async function memoryFigures(): Promise<Figure[]> {
  const extension = benchExtension();
  let browser: AgentBrowser | null = null;
  try {
    browser = await launchAgentBrowser({ extensionPath: extension.path });
    await browser.setPolicy(POLICY);
    const worker = browser.serviceWorker;
    if (worker === null) throw new Error('no service worker');
    const cdp = await attachToWorker(browser);
    try {
      const heapEmpty = await workerHeapAfterGc(cdp);
      const storeEmpty = await storageEstimate(worker);

      // Figure 7b: the write path's cost with the log at each size (sequential, one proposal at a time).
      const LEVELS = [100, 1_000, AUDIT_LIMIT_DEFAULT];
      const MEASURED = 200;
      let written = 0;
      const growth: { logSize: number; ms: ReturnType<typeof summarise>; samplesMs: number[] }[] = [];
      let atLimitProfile: ProfileLine[] = [];
      for (const level of LEVELS) {
        const fill = level - (await propose(worker, written, 0, 1)).count;
        if (fill > 0) written += (await propose(worker, written, fill, 50)).samplesMs.length;
        const measured = await propose(worker, written, MEASURED, 1);
        written += MEASURED;
        growth.push({ logSize: level, ms: summarise(measured.samplesMs), samplesMs: measured.samplesMs });
        if (level === AUDIT_LIMIT_DEFAULT) {
          const from = written;
          atLimitProfile = await profileWorker(cdp, async () => {
            await propose(worker, from, 100, 1);
          });
          written += 100;
        }
      }
      // Past the limit: the log keeps rotating at the bound.
      written += (await propose(worker, written, 500, 50)).samplesMs.length;
      const finalCount = (await propose(worker, written, 0, 1)).count;
      const heapFull = await workerHeapAfterGc(cdp);
      const storeFull = await storageEstimate(worker);
      const snapshot = await browser.snapshot();
      return [memoryFigure(heapEmpty, heapFull, storeEmpty, storeFull, finalCount, written, snapshot.task !== null), growthFigure(growth, atLimitProfile)];
    } finally {
      await cdp.detach();
    }
  } finally {
    await browser?.close().catch(() => undefined);
    extension.dispose();
  }
}

function memoryFigure(
  heapEmpty: { usedBytes: number; totalBytes: number },
  heapFull: { usedBytes: number; totalBytes: number },
  storeEmpty: { usage: number; indexedDB: number | null },
  storeFull: { usage: number; indexedDB: number | null },
  entries: number,
  written: number,
  taskActive: boolean,
): Figure {
  const disk = storeFull.indexedDB ?? storeFull.usage;
  const diskEmpty = storeEmpty.indexedDB ?? storeEmpty.usage;
  const perEntry = (disk - diskEmpty) / Math.max(1, entries);
  return {
    id: 'background-memory',
    figure: 'Background memory with 10,000 audit entries and an active task',
    target: '≤ 15 MB JS heap',
    measured:
      `JS heap ${mb(heapFull.usedBytes)} used (${mb(heapEmpty.usedBytes)} with an empty log); audit store ${entries.toLocaleString('en')} entries after ${written.toLocaleString('en')} written, ` +
      `IndexedDB ${mb(disk)} (≈ ${Math.round(perEntry)} B/entry)`,
    verdict: heapFull.usedBytes <= 15 * 1024 * 1024 && taskActive ? 'met' : 'missed',
    method:
      `The extension's service worker with an active task; proposals sent through the monitor's message handler until the log passed its limit. ` +
      `Heap: CDP on the worker target, HeapProfiler.collectGarbage ×2 then Runtime.getHeapUsage. Store size: navigator.storage.estimate() in the worker (usageDetails.indexedDB). ` +
      `Bound: the audit store keeps at most ${AUDIT_LIMIT_DEFAULT.toLocaleString('en')} entries (src/background/store.ts appendAudit deletes the oldest beyond the limit in the same transaction); entries are redacted decision records (no request bodies or field values), so the store stays near limit × entry size. The monitor keeps no audit entries in memory.`,
    data: { heapEmpty, heapFull, storeEmpty, storeFull, entries, written, bytesPerEntry: perEntry, limit: AUDIT_LIMIT_DEFAULT, taskActive },
  };
}

function growthFigure(growth: { logSize: number; ms: ReturnType<typeof summarise>; samplesMs: number[] }[], profile: ProfileLine[]): Figure {
  const first = growth[0]!;
  const last = growth[growth.length - 1]!;
  const ratio = last.ms.p50 / first.ms.p50;
  const sizeRatio = last.logSize / first.logSize;
  // Flat or logarithmic: 100× the entries may cost at most a few times more, never anywhere near 100×.
  const met = ratio < 3;
  return {
    id: 'audit-growth',
    figure: 'Audit write cost vs log size (one proposal decided and audited, in the worker)',
    target: 'flat or logarithmic, not linear',
    measured: growth.map((g) => `${g.logSize.toLocaleString('en')}: p50 ${g.ms.p50.toFixed(3)} ms, p99 ${g.ms.p99.toFixed(3)} ms`).join('; '),
    ratio: `${ratio.toFixed(2)}× for ${sizeRatio}× entries`,
    verdict: met ? 'met' : 'missed',
    method:
      `In the worker: performance.now around the monitor's handleMessage for ${growth[0]?.samplesMs.length ?? 0} sequential proposals with the log at each size (the last at the rotation limit, so each append also deletes the oldest entry). ` +
      `Each proposal is parsed, evaluated and its redacted record appended before the answer. Worker CPU profile at the limit, top self time: ${profile
        .slice(0, 4)
        .map((l) => `${l.fn} ${(l.share * 100).toFixed(0)} %`)
        .join(', ')}.`,
    data: { growth, profile },
  };
}
