import { emptyTargets } from '../core/classification';
import type { Check, DecisionRecord } from '../core/decision';
import type { RuleRef } from '../core/ruleRef';
import type { AuditEntry } from '../messages/protocol';
import type { DecisionContext, MonitorEffects } from './monitor';
import { redactRecord } from './redact';
import type { ActiveTask, StoredAuditEntry, TaskStore } from './store';

/** An audit entry as the background writes it: the writer stamps the time and the active task. */
export type AuditInput = Omit<StoredAuditEntry, 'at' | 'taskId'>;

/**
 * The audit writer and the background's one write chain. Writes run one after another in the order they
 * were issued; a decision's σ' and its audit entry go in one transaction, so an ALLOW answered after
 * `commit` resolves is durable. Entries are redacted here, once, on their way to the store.
 */
export class AuditWriter {
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: TaskStore,
    private readonly effects: Pick<MonitorEffects, 'now' | 'audited'>,
    private readonly activeTask: () => ActiveTask | null,
  ) {}

  /** Writes run one after another, in the order they were issued. */
  write(op: () => Promise<void>): Promise<void> {
    const next = this.writes.then(op, op);
    this.writes = next.catch(() => undefined);
    return next;
  }

  /** The task (unless it has ended meanwhile) and an audit entry, written in one transaction, in order. */
  commit(task: ActiveTask | null, entry: AuditInput | null): Promise<void> {
    const full = entry === null ? null : this.entryOf(entry);
    const written = this.write(() => this.store.commitDecision(task !== null && this.activeTask() === task ? task : null, full));
    // Shipping to the organisation's collector starts after the commit and is never awaited here.
    return full === null ? written : written.then(() => this.effects.audited?.());
  }

  saveTask(task: ActiveTask): Promise<void> {
    return this.commit(task, null);
  }

  audit(entry: AuditInput): Promise<void> {
    return this.commit(null, entry);
  }

  private entryOf(entry: AuditInput): StoredAuditEntry {
    return { ...entry, record: redactRecord(entry.record), at: this.effects.now(), taskId: this.activeTask()?.taskId ?? null };
  }
}

/** A record for something refused before any classification (a malformed message, a refused sender). */
export function emptyRecord(tool: string, decision: DecisionRecord['decision'], check: Check, reason: string, ruleRef: RuleRef): DecisionRecord {
  return { decision, check, reason, tool, capability: 'unknown', riskClass: 'UNKNOWN', targets: emptyTargets(), ruleRef };
}

export function ctxWhere(ctx: DecisionContext): Pick<StoredAuditEntry, 'tabId' | 'origin'> {
  return { ...(ctx.tabId !== null ? { tabId: ctx.tabId } : {}), ...(ctx.origin !== null ? { origin: ctx.origin } : {}) };
}

/** A stored entry as the popup's audit view reads it. */
export function toAuditEntry(entry: StoredAuditEntry): AuditEntry {
  return {
    id: String(entry.seq ?? 0),
    at: entry.at,
    taskId: entry.taskId,
    record: entry.record,
    ...(entry.answer !== undefined ? { answer: entry.answer } : {}),
    ...(entry.layer !== undefined ? { layer: entry.layer } : {}),
    ...(entry.destination !== undefined ? { destination: entry.destination } : {}),
  };
}
