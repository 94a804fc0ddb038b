import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { EvalState, TaskPolicy } from '../core/policy';
import type { DecisionRecord } from '../core/decision';
import { OptionsSchema, type AuditEntry, type CompileReport, type Options } from '../messages/protocol';
import type { TaintToken } from '../taint/tokens';

/**
 * Durable state of the background. MV3 service workers are killed after ~30 s idle, so nothing that
 * matters lives only in memory: the active task (policy with its grants, counters σ), pending approvals,
 * the audit log, options and the windows the extension opened itself are all in IndexedDB, and the
 * monitor rebuilds its memory from here on every wake.
 */

export interface ActiveTask {
  taskId: string;
  /** The user's own words (shown in the popup; never written to the audit log). */
  request: string;
  /** Follow-up instructions, in order. */
  followUps: string[];
  /** The policy, grants included (grants are part of TaskPolicy). */
  policy: TaskPolicy;
  state: EvalState;
  /** Report of the latest compile. */
  report: CompileReport;
  startedAt: number;
  /** For guard scope `task-tabs`: the task's tab and the tabs and popups it opened. */
  taskTabIds: number[];
  /**
   * Domains the evaluator allowed a consequential action to this task. The network floor lets
   * data-bearing requests through to these (and only these, plus the policy's own write targets).
   */
  floorWriteDomains: string[];
  /**
   * The data-lane taint: session data the guarded pages showed or the agent typed (bounded and ordered
   * by `mergeTaint`). Stored with the task so a worker restart loses none of it. Absent in records
   * written before it existed.
   */
  taint?: TaintToken[];
}

/** An ASK_USER waiting for the person. Holds the decision record and a masked view, never the raw call. */
export interface StoredApproval {
  id: string;
  taskId: string;
  /** Tool + capability + sorted targets: identical asks share one approval. */
  deltaKey: string;
  record: DecisionRecord;
  /** Where the action goes (redacted URL or host). */
  destination: string;
  /** What the person needs to see to decide: field names and masked values, bounded. */
  dataView: string;
  /** Set when the Minimizer asked: whether "Send without it" can rebuild the action exactly. */
  minimizable?: boolean;
  createdAt: number;
  expiresAt: number;
  tabId: number | null;
}

/**
 * One audit line: the decision record (redacted), never the raw request or field values. The protocol's
 * AuditEntry is this minus the local extras (tab, page origin, field names).
 */
export interface StoredAuditEntry {
  seq?: number;
  at: number;
  taskId: string | null;
  record: DecisionRecord;
  answer?: AuditEntry['answer'];
  layer?: 'isolated' | 'main' | 'network' | 'guard' | 'page';
  /** Redacted destination: URL without query values. */
  destination?: string;
  /** Field or body key NAMES of the action (values are never stored). */
  fields?: string[];
  tabId?: number;
  /** Origin of the page that proposed the action. */
  origin?: string;
}

interface FenceDB extends DBSchema {
  kv: { key: string; value: unknown };
  approvals: { key: string; value: StoredApproval };
  audit: { key: number; value: StoredAuditEntry };
}

export const DB_NAME = 'agentsfence';
export const AUDIT_LIMIT_DEFAULT = 10_000;

const KEY_TASK = 'task';
const KEY_OPTIONS = 'options';
const KEY_WINDOWS = 'controlWindows';

/** Stored options, or the defaults when there are none or they no longer parse. */
function parseOptions(value: unknown): Options {
  const parsed = OptionsSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : OptionsSchema.parse({});
}

function windowIds(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
}

export class TaskStore {
  private constructor(
    private readonly db: IDBPDatabase<FenceDB>,
    readonly auditLimit: number,
  ) {}

  static async open(name = DB_NAME, auditLimit = AUDIT_LIMIT_DEFAULT): Promise<TaskStore> {
    const db = await openDB<FenceDB>(name, 1, {
      upgrade(database) {
        database.createObjectStore('kv');
        database.createObjectStore('approvals', { keyPath: 'id' });
        database.createObjectStore('audit', { keyPath: 'seq', autoIncrement: true });
      },
    });
    return new TaskStore(db, auditLimit);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Everything a wake rebuilds memory from — the task (policy and counters), options, control windows and
   * pending approvals — in one read-only transaction: the cold start's only IndexedDB round trip.
   */
  async loadState(): Promise<{ task: ActiveTask | null; options: Options; controlWindows: number[]; approvals: StoredApproval[] }> {
    const tx = this.db.transaction(['kv', 'approvals'], 'readonly');
    const kv = tx.objectStore('kv');
    const [task, options, windows, approvals] = await Promise.all([kv.get(KEY_TASK), kv.get(KEY_OPTIONS), kv.get(KEY_WINDOWS), tx.objectStore('approvals').getAll(), tx.done]);
    return { task: (task as ActiveTask | undefined) ?? null, options: parseOptions(options), controlWindows: windowIds(windows), approvals };
  }

  async getTask(): Promise<ActiveTask | null> {
    return ((await this.db.get('kv', KEY_TASK)) as ActiveTask | undefined) ?? null;
  }

  async putTask(task: ActiveTask): Promise<void> {
    await this.db.put('kv', task, KEY_TASK);
  }

  /** Ends the task: the task and its pending approvals go in one transaction. */
  async clearTask(): Promise<void> {
    const tx = this.db.transaction(['kv', 'approvals'], 'readwrite');
    await Promise.all([tx.objectStore('kv').delete(KEY_TASK), tx.objectStore('approvals').clear(), tx.done]);
  }

  async getOptions(): Promise<Options> {
    return parseOptions(await this.db.get('kv', KEY_OPTIONS));
  }

  async putOptions(options: Options): Promise<void> {
    await this.db.put('kv', OptionsSchema.parse(options), KEY_OPTIONS);
  }

  async getControlWindows(): Promise<number[]> {
    return windowIds(await this.db.get('kv', KEY_WINDOWS));
  }

  async putControlWindows(ids: number[]): Promise<void> {
    await this.db.put('kv', ids, KEY_WINDOWS);
  }

  async listApprovals(): Promise<StoredApproval[]> {
    return this.db.getAll('approvals');
  }

  async putApproval(approval: StoredApproval): Promise<void> {
    await this.db.put('approvals', approval);
  }

  async deleteApproval(id: string): Promise<void> {
    await this.db.delete('approvals', id);
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
    const saved = task === null ? null : tx.objectStore('kv').put(task, KEY_TASK);
    if (entry !== null) {
      const audit = tx.objectStore('audit');
      const { seq: _ignored, ...rest } = entry;
      const seq = await audit.add(rest as StoredAuditEntry);
      if (seq > this.auditLimit) await audit.delete(IDBKeyRange.upperBound(seq - this.auditLimit));
    }
    await saved;
    await tx.done;
  }

  /** Newest first. */
  async listAudit(filter: { decision?: string; check?: string; limit?: number } = {}): Promise<StoredAuditEntry[]> {
    const limit = filter.limit ?? this.auditLimit;
    const out: StoredAuditEntry[] = [];
    let cursor = await this.db.transaction('audit').store.openCursor(null, 'prev');
    while (cursor && out.length < limit) {
      const entry = cursor.value;
      if ((filter.decision === undefined || entry.record.decision === filter.decision) && (filter.check === undefined || entry.record.check === filter.check)) {
        out.push(entry);
      }
      cursor = await cursor.continue();
    }
    return out;
  }

  async countAudit(): Promise<number> {
    return this.db.count('audit');
  }
}
