import type { Worker } from '@playwright/test';
import type { ToolCall } from '../src/core/call';
import type { TaskPolicyInput } from '../src/core/policy';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { AUDIT_LIMIT_DEFAULT } from '../src/background/task/store';
import { attachToWorker, benchExtension, cpuProfile, timeProposalsInWorker, timeStoreWritesInWorker, topFunctions, workerHeapAfterGc, type ProfileLine } from './chromium';
import { summarise, type Figure } from './stats';

/**
 * Figures 6 and 7b, in the real service worker: the audit log is filled through the background's own
 * path — proposals handed to the monitor's message handler (the harness channel, the same entry the
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
  prohibitions: [{ id: 'no-delete', classes: ['DELETE'], quote: 'do not delete anything' }],
};

/** The mix a real task writes: reads, allowed writes and sends, a refused delete, navigation. Nothing asks the user. */
function proposalCalls(from: number, n: number): ToolCall[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    switch (i % 5) {
      case 0:
        return { tool: 'browser.request', args: { method: 'GET', url: `https://mail.test/api/messages?page=${i}`, kind: 'fetch' } };
      case 1:
        return { tool: 'browser.request', args: { method: 'POST', url: `https://api.test/notes/${i}`, kind: 'fetch', body: { note: `n${i}` } } };
      case 2:
        return { tool: 'browser.request', args: { method: 'POST', url: `https://mail.test/api/send?n=${i}`, kind: 'fetch', body: { to: 'bob@corp.test', body: 'ok' } } };
      case 3:
        return { tool: 'browser.request', args: { method: 'DELETE', url: `https://mail.test/api/messages/${i}`, kind: 'fetch' } };
      default:
        return { tool: 'browser.navigate', args: { url: `https://news.test/article/${i}` } };
    }
  });
}

function storageEstimate(worker: Worker): Promise<{ usage: number; indexedDB: number | null }> {
  return worker.evaluate(async () => {
    const estimate = (await navigator.storage.estimate()) as StorageEstimate & { usageDetails?: { indexedDB?: number } };
    return { usage: estimate.usage ?? 0, indexedDB: estimate.usageDetails?.indexedDB ?? null };
  });
}

const FILL_CHUNK = 500;

interface GrowthPoint {
  logSize: number;
  /** One proposal decided and audited (handleMessage). */
  proposal: ReturnType<typeof summarise>;
  /** One audit append alone (TaskStore.appendAudit). */
  append: ReturnType<typeof summarise>;
  /** The store's count of audit entries: what rotation cost per append before it deleted by key range. */
  count: ReturnType<typeof summarise>;
  proposalSamplesMs: number[];
  appendSamplesMs: number[];
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
      const MEASURED = 100;
      let written = 0;
      // In chunks: one evaluate per chunk keeps each step short and lets progress show.
      const send = async (n: number, concurrency: number) => {
        const samplesMs: number[] = [];
        let auditCount = 0;
        for (let done = 0; done === 0 || done < n; ) {
          const size = Math.min(FILL_CHUNK, n - done);
          const result = await timeProposalsInWorker(worker, proposalCalls(written, size), concurrency, `mem-${written}`);
          samplesMs.push(...result.samplesMs);
          auditCount = result.auditCount;
          written += size;
          done += size;
          if (process.env.AF_BENCH_VERBOSE) process.stderr.write(`bench: memory: ${written} proposals, log ${auditCount}, last chunk p50 ${summarise(result.samplesMs).p50.toFixed(2)} ms\n`);
          if (size === 0) break;
        }
        return { samplesMs, auditCount };
      };
      const growth: GrowthPoint[] = [];
      let atLimitProfile: ProfileLine[] = [];
      for (const level of LEVELS) {
        const fill = level - (await send(0, 1)).auditCount;
        if (fill > 0) await send(fill, 50);
        const measured = await send(MEASURED, 1);
        const direct = await timeStoreWritesInWorker(worker, MEASURED);
        growth.push({
          logSize: level,
          proposal: summarise(measured.samplesMs),
          append: summarise(direct.appendAuditMs),
          count: summarise(direct.countAuditMs),
          proposalSamplesMs: measured.samplesMs,
          appendSamplesMs: direct.appendAuditMs,
        });
        if (level === AUDIT_LIMIT_DEFAULT) {
          atLimitProfile = topFunctions(
            await cpuProfile(cdp.send, async () => {
              await send(100, 1);
            }),
          );
        }
      }
      // Past the limit: the log keeps rotating at the bound.
      await send(500, 50);
      const finalCount = (await send(0, 1)).auditCount;
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
      `Bound: the audit store keeps at most ${AUDIT_LIMIT_DEFAULT.toLocaleString('en')} entries (src/background/task/store.ts appendAudit deletes the oldest beyond the limit in the same transaction); entries are redacted decision records (no request bodies or field values), so the store stays near limit × entry size. The monitor keeps no audit entries in memory.`,
    data: { heapEmpty, heapFull, storeEmpty, storeFull, entries, written, bytesPerEntry: perEntry, limit: AUDIT_LIMIT_DEFAULT, taskActive },
  };
}

function growthFigure(growth: GrowthPoint[], profile: ProfileLine[]): Figure {
  const first = growth[0]!;
  const last = growth[growth.length - 1]!;
  const appendRatio = last.append.p50 / first.append.p50;
  const proposalRatio = last.proposal.p50 / first.proposal.p50;
  const countRatio = last.count.p50 / first.count.p50;
  const sizeRatio = last.logSize / first.logSize;
  // Flat or logarithmic: 100× the entries may cost a small factor more, never anywhere near 100×.
  const met = appendRatio < 3 && proposalRatio < 3;
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const top = profile
    .slice(0, 5)
    .map((l) => `${l.fn} ${(l.share * 100).toFixed(0)} %`)
    .join(', ');
  return {
    id: 'audit-growth',
    figure: 'Audit write cost vs log size (in the worker)',
    target: 'flat or logarithmic, not linear',
    measured: growth
      .map((g) => `${g.logSize.toLocaleString('en')}: append p50 ${ms(g.append.p50)} (p99 ${ms(g.append.p99)}), whole proposal p50 ${ms(g.proposal.p50)}, count() p50 ${ms(g.count.p50)}`)
      .join('; '),
    ratio: `append ${appendRatio.toFixed(2)}×, proposal ${proposalRatio.toFixed(2)}×, count() ${countRatio.toFixed(2)}× for ${sizeRatio}× entries`,
    verdict: met ? 'met' : 'missed',
    method:
      `In the worker, with the log filled through proposals to each size (the last at the rotation limit, so each append also deletes the oldest entry): performance.now around ${first.appendSamplesMs.length} sequential TaskStore.appendAudit calls (a copy of the newest entry), the store's audit count() alone, and ${first.proposalSamplesMs.length} sequential proposals through the monitor's handleMessage (parse, evaluate, persist σ', append). ` +
      `Worker CPU profile of 100 proposals at the limit, top self time: ${top} ((idle) = waiting on IndexedDB, whose work runs outside the worker).` +
      (met ? '' : ' Missed: see the profile and the per-size split above (rotation deletes one key range, seq ≤ newSeq − limit, and counts nothing).'),
    data: { growth, profile },
  };
}
