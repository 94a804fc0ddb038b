import type { IDBPDatabase } from 'idb';
import type { Options } from '../../messages/protocol';
import {
  APPROVAL,
  AUDIT_ENTRY,
  COLLECTOR_CURSOR,
  CONTROL_WINDOWS,
  NOTICE,
  OPTIONS,
  TASK,
  readRecord,
  writeRecord,
  type ActiveTask,
  type CollectorCursor,
  type Notice,
  type ReadResult,
  type StoredApproval,
  type StoredAuditEntry,
} from './records';
import { DB_NAME, takeFenceDB, type FenceDB } from './store-open';

export type { FenceDB } from './store-open';

/**
 * Durable state of the background. MV3 service workers are killed after ~30 s idle, so nothing that
 * matters lives only in memory: the active task (policy with its grants, counters σ), pending approvals,
 * the audit log, options and the windows the extension opened itself are all in IndexedDB, and the
 * monitor rebuilds its memory from here on every wake. Every record is versioned and parsed on read
 * (src/background/task/records.ts); nothing read from here is cast.
 */

export type { ActiveTask, CollectorCursor, StoredApproval, StoredAuditEntry } from './records';


/** What a wake reads before deciding (TaskStore.readWakeState). */
export interface WakeState {
  /** Null when there is none, `ok: false` when it cannot be read. */
  task: ReadResult<ActiveTask> | null;
  options: Options;
  controlWindows: number[];
  notice: Notice | null;
  approvals: StoredApproval[];
  unreadableApprovalIds: string[];
}

/** Each stored record as the monitor reads it (one decoding for the single reads and the wake's read). */
function taskOf(raw: unknown): ReadResult<ActiveTask> | null {
  return raw === undefined ? null : readRecord(TASK, raw);
}

function optionsOf(raw: unknown): Options {
  const read = readRecord(OPTIONS, raw ?? {});
  return read.ok ? read.value : OPTIONS.schema.parse({});
}

function controlWindowsOf(raw: unknown): number[] {
  const read = raw === undefined ? null : readRecord(CONTROL_WINDOWS, raw);
  return read?.ok === true ? read.value.windowIds : [];
}

function noticeOf(raw: unknown): Notice | null {
  const read = raw === undefined ? null : readRecord(NOTICE, raw);
  return read?.ok === true ? read.value : null;
}

export { DB_NAME } from './store-open';
export const AUDIT_LIMIT_DEFAULT = 10_000;

const KEY_TASK = 'task';
const KEY_OPTIONS = 'options';
const KEY_WINDOWS = 'controlWindows';
const KEY_NOTICE = 'notice';
const KEY_COLLECTOR = 'collector';

export class TaskStore {
  private constructor(
    private readonly db: IDBPDatabase<FenceDB>,
    readonly auditLimit: number,
  ) {}

  static async open(name = DB_NAME, auditLimit = AUDIT_LIMIT_DEFAULT): Promise<TaskStore> {
    // (The worker's own database may already be opening: store-open.ts.)
    const db = await takeFenceDB(name);
    return new TaskStore(db, auditLimit);
  }

  close(): void {
    this.db.close();
  }

  /** The stored task, migrated and parsed; null when there is none, `ok: false` when it cannot be read. */
  async getTask(): Promise<ReadResult<ActiveTask> | null> {
    return taskOf(await this.db.get('kv', KEY_TASK));
  }

  async putTask(task: ActiveTask): Promise<void> {
    await this.db.put('kv', writeRecord(task), KEY_TASK);
  }

  /** Ends the task: the task and its pending approvals go in one transaction. */
  async clearTask(): Promise<void> {
    const tx = this.db.transaction(['kv', 'approvals'], 'readwrite');
    await Promise.all([tx.objectStore('kv').delete(KEY_TASK), tx.objectStore('approvals').clear(), tx.done]);
  }

  /** The stored options; the defaults when none are stored or they cannot be read. */
  async getOptions(): Promise<Options> {
    return optionsOf(await this.db.get('kv', KEY_OPTIONS));
  }

  async putOptions(options: Options): Promise<void> {
    await this.db.put('kv', writeRecord(OPTIONS.schema.parse(options)), KEY_OPTIONS);
  }

  async getControlWindows(): Promise<number[]> {
    return controlWindowsOf(await this.db.get('kv', KEY_WINDOWS));
  }

  async putControlWindows(ids: number[]): Promise<void> {
    await this.db.put('kv', writeRecord({ windowIds: ids }), KEY_WINDOWS);
  }

  /** Why the background last ended a task on its own, until the next task starts. */
  async getNotice(): Promise<Notice | null> {
    return noticeOf(await this.db.get('kv', KEY_NOTICE));
  }

  async putNotice(notice: Notice | null): Promise<void> {
    if (notice === null) await this.db.delete('kv', KEY_NOTICE);
    else await this.db.put('kv', writeRecord(notice), KEY_NOTICE);
  }

  /**
   * Everything a wake needs before it can decide, in one read-only transaction: the task (policy, counters
   * σ, grants), options, control windows, notice and pending approvals. Approvals that cannot be read are
   * returned by id, for the caller to delete once it has answered (see listApprovals).
   */
  async readWakeState(): Promise<WakeState> {
    const tx = this.db.transaction(['kv', 'approvals'], 'readonly');
    const kv = tx.objectStore('kv');
    const [task, options, windows, notice, approvals, approvalKeys] = await Promise.all([
      kv.get(KEY_TASK),
      kv.get(KEY_OPTIONS),
      kv.get(KEY_WINDOWS),
      kv.get(KEY_NOTICE),
      tx.objectStore('approvals').getAll(),
      // Same key order as getAll: the key of an approval too broken to name its own id.
      tx.objectStore('approvals').getAllKeys(),
      tx.done,
    ]);
    const readable: StoredApproval[] = [];
    const unreadableApprovalIds: string[] = [];
    approvals.forEach((raw, i) => {
      const read = readRecord(APPROVAL, raw);
      if (read.ok) readable.push(read.value);
      else unreadableApprovalIds.push(approvalKeys[i]!);
    });
    return {
      task: taskOf(task),
      options: optionsOf(options),
      controlWindows: controlWindowsOf(windows),
      notice: noticeOf(notice),
      approvals: readable,
      unreadableApprovalIds,
    };
  }

  /**
   * The pending approvals that can be read. One that cannot is deleted: no person can be shown what it
   * asks, and the call it held was answered BLOCK when the worker that held it died.
   */
  async listApprovals(): Promise<StoredApproval[]> {
    const tx = this.db.transaction('approvals', 'readwrite');
    const out: StoredApproval[] = [];
    for (let cursor = await tx.store.openCursor(); cursor; cursor = await cursor.continue()) {
      const read = readRecord(APPROVAL, cursor.value);
      if (read.ok) out.push(read.value);
      else await cursor.delete();
    }
    await tx.done;
    return out;
  }

  async putApproval(approval: StoredApproval): Promise<void> {
    await this.db.put('approvals', writeRecord(approval));
  }

  async deleteApproval(id: string): Promise<void> {
    await this.db.delete('approvals', id);
  }

  async deleteApprovals(ids: readonly string[]): Promise<void> {
    const tx = this.db.transaction('approvals', 'readwrite');
    await Promise.all([...ids.map((id) => tx.store.delete(id)), tx.done]);
  }

  /**
   * Appends one entry and drops the oldest beyond the limit, in the same transaction. Keys are
   * consecutive (auto-increment, and only the oldest are ever deleted), so the excess is one key range:
   * the cost stays flat as the log grows, with no count of the whole store.
   */
  async appendAudit(entry: StoredAuditEntry): Promise<void> {
    await this.commitDecision(null, entry);
  }

  /**
   * One decision's writes in one transaction: the task (σ' after a counted ALLOW) and its audit entry
   * commit together, once — never one without the other, and one commit instead of two.
   */
  async commitDecision(task: ActiveTask | null, entry: StoredAuditEntry | null): Promise<void> {
    const tx = this.db.transaction(['kv', 'audit'], 'readwrite');
    const saved = task === null ? null : tx.objectStore('kv').put(writeRecord(task), KEY_TASK);
    if (entry !== null) {
      const audit = tx.objectStore('audit');
      const { seq: _ignored, ...rest } = entry;
      const seq = await audit.add(writeRecord(rest));
      if (seq > this.auditLimit) await audit.delete(IDBKeyRange.upperBound(seq - this.auditLimit));
    }
    await saved;
    await tx.done;
  }

  /** Newest first. Entries that cannot be read (written by a build this one cannot migrate) are left out. */
  async listAudit(filter: { decision?: string; check?: string; limit?: number } = {}): Promise<StoredAuditEntry[]> {
    const limit = filter.limit ?? this.auditLimit;
    const out: StoredAuditEntry[] = [];
    let cursor = await this.db.transaction('audit').store.openCursor(null, 'prev');
    while (cursor && out.length < limit) {
      const read = readRecord(AUDIT_ENTRY, cursor.value);
      if (read.ok && (filter.decision === undefined || read.value.record.decision === filter.decision) && (filter.check === undefined || read.value.record.check === filter.check)) {
        out.push(read.value);
      }
      cursor = await cursor.continue();
    }
    return out;
  }

  async countAudit(): Promise<number> {
    return this.db.count('audit');
  }

  /**
   * Oldest first: the entries after `seq`, and the key of the last one looked at (`throughSeq`; entries
   * this build cannot read are passed over). The collector's queue is the audit log's unshipped tail, so
   * an entry is queued in the same transaction that commits it, and the queue shares the log's bound.
   */
  async auditAfter(seq: number, limit: number): Promise<{ entries: StoredAuditEntry[]; throughSeq: number }> {
    const entries: StoredAuditEntry[] = [];
    let throughSeq = seq;
    let looked = 0;
    let cursor = await this.db.transaction('audit').store.openCursor(IDBKeyRange.lowerBound(seq, true));
    while (cursor && looked++ < limit) {
      throughSeq = cursor.key;
      const read = readRecord(AUDIT_ENTRY, cursor.value);
      if (read.ok) entries.push({ ...read.value, seq: cursor.key });
      cursor = await cursor.continue();
    }
    return { entries, throughSeq };
  }

  /** The collector's place in the audit log (moved only after a 2xx) and this profile's instance id. */
  async getCollectorCursor(): Promise<CollectorCursor | null> {
    const raw = await this.db.get('kv', KEY_COLLECTOR);
    const read = raw === undefined ? null : readRecord(COLLECTOR_CURSOR, raw);
    return read?.ok === true ? read.value : null;
  }

  async putCollectorCursor(cursor: CollectorCursor): Promise<void> {
    await this.db.put('kv', writeRecord(cursor), KEY_COLLECTOR);
  }
}
