import type { CollectorCursor, StoredAuditEntry } from '../background/task/store';
import { otlpLogsRequest } from './otlp';

/**
 * Ships the audit log to the organisation's collector as OTLP/HTTP JSON (`POST <collectorUrl>`).
 *
 * The queue is the audit log itself: every entry after the cursor `shippedSeq` is waiting. An entry is
 * therefore queued by the same IndexedDB transaction that commits it (nothing to lose between the two),
 * and shipping starts only after that commit, never on the decision path. A batch is sent oldest first
 * and the cursor moves past it only after the collector answered 2xx; a failure leaves it where it was
 * and retries with exponential backoff, by a timer while the worker lives and by an alarm that wakes a
 * restarted one. The queue is bounded by the audit log's own bound; entries rotated out before they
 * were shipped are reported to the collector as a gap record, never silently dropped.
 *
 * Exactly-once, as the collector sees it: every committed entry arrives, and arrives once, across worker
 * restarts — with one window left: the worker dying after the collector accepted a batch and before the
 * cursor write commits (one IndexedDB put). That batch is then sent again on the next wake; each record
 * carries `service.instance.id` and `agentsfence.audit.seq`, which name it, so the repeat is
 * recognisable. No sender can close that window alone (the 2xx and the cursor write cannot be one atomic
 * step); everywhere else the cursor makes a repeat impossible.
 */

export interface ShipperDeps {
  store: {
    auditAfter(seq: number, limit: number): Promise<{ entries: StoredAuditEntry[]; throughSeq: number }>;
    getCollectorCursor(): Promise<CollectorCursor | null>;
    putCollectorCursor(cursor: CollectorCursor): Promise<void>;
  };
  /** The organisation's collector URL, or null (then nothing is shipped). */
  collectorUrl(): Promise<string | null>;
  fetch: typeof fetch;
  now(): number;
  newId(): string;
  version: string;
  setTimer(fn: () => void, ms: number): () => void;
  /** A wake-up that survives the worker (chrome.alarms), as a backstop to the timer. */
  wakeLater(ms: number): void;
}

export const BATCH_SIZE = 100;
/** Entries of one burst go in one request. */
export const BATCH_DELAY_MS = 200;
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 5 * 60_000;

export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

export class CollectorShipper {
  private running: Promise<void> | null = null;
  private rerun = false;
  private failures = 0;
  private pending: (() => void) | null = null;

  constructor(private readonly deps: ShipperDeps) {}

  /**
   * Something was committed (or the worker woke): ship soon, batching what else arrives meanwhile. While
   * the collector is failing, the backoff timer alone decides when to try again.
   */
  kick(): void {
    if (this.pending === null && this.failures === 0) this.schedule(BATCH_DELAY_MS);
  }

  private schedule(delayMs: number): void {
    this.pending?.();
    this.pending = this.deps.setTimer(() => {
      this.pending = null;
      void this.flush();
    }, delayMs);
  }

  /** Ship everything waiting; one run at a time (a call during a run makes it go round once more). */
  flush(): Promise<void> {
    if (this.running !== null) {
      this.rerun = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      const again = this.rerun && this.failures === 0;
      this.rerun = false;
      if (again) void this.flush();
    });
    return this.running;
  }

  /** Stored before the first send, so a repeat of even the first batch carries the same instance id. */
  private async firstCursor(): Promise<CollectorCursor> {
    const cursor = { shippedSeq: 0, instanceId: this.deps.newId() };
    await this.deps.store.putCollectorCursor(cursor);
    return cursor;
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const url = await this.deps.collectorUrl();
        if (url === null) return;
        const cursor = (await this.deps.store.getCollectorCursor()) ?? (await this.firstCursor());
        const { entries, throughSeq } = await this.deps.store.auditAfter(cursor.shippedSeq, BATCH_SIZE);
        if (throughSeq === cursor.shippedSeq) return;
        if (entries.length > 0) {
          const firstSeq = entries[0]!.seq ?? cursor.shippedSeq + 1;
          const body = otlpLogsRequest(entries, { instanceId: cursor.instanceId, version: this.deps.version }, this.deps.now(), firstSeq - cursor.shippedSeq - 1);
          const response = await this.deps.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
          if (!response.ok) throw new Error(`collector answered ${response.status}`);
        }
        await this.deps.store.putCollectorCursor({ shippedSeq: throughSeq, instanceId: cursor.instanceId });
        this.failures = 0;
      }
    } catch (err) {
      this.failures++;
      const delay = backoffMs(this.failures);
      console.warn(`AgentsFence: audit shipping failed (${err instanceof Error ? err.message : String(err)}); retrying in ${delay} ms`);
      this.schedule(delay);
      this.deps.wakeLater(delay);
    }
  }
}
