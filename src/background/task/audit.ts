import { emptyTargets } from '../../core/classification';
import type { Check, DecisionRecord } from '../../core/decision';
import type { RuleRef } from '../../core/ruleRef';
import type { AuditEntry } from '../../messages/protocol';
import type { DecisionContext, MonitorEffects } from '../contracts';
import { redactRecord } from '../decide/redact';
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

  private readonly pageBlocks = new PageBlockBudget();

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

  /** A page's BLOCK entries pass the page budget first (the decision stands either way). */
  audit(entry: AuditInput): Promise<void> {
    if (entry.tabId === undefined || entry.record.decision !== 'BLOCK' || entry.answer !== undefined || isExtensionPage(entry.origin)) return this.commit(null, entry);
    const admitted = this.pageBlocks.admit(entry.tabId, this.activeTask()?.taskId ?? null, this.effects.now());
    if (admitted === 'drop') return Promise.resolve();
    if (admitted === 'write') return this.commit(null, entry);
    const until = admitted === 'tab' ? `for ${this.pageBlocks.windowMs / 1000} s` : 'for the rest of this task';
    const note = `; the tab's further blocked actions are not logged ${until} (a page firing blocked actions in a loop must not push the rest of the log out)`;
    return this.commit(null, { ...entry, record: { ...entry.record, reason: `${entry.record.reason}${note}` } });
  }

  private entryOf(entry: AuditInput): StoredAuditEntry {
    return { ...entry, record: redactRecord(entry.record), at: this.effects.now(), taskId: this.activeTask()?.taskId ?? null };
  }
}

/**
 * BLOCK entries a web page's own doing causes (an entry naming a tab, not from one of the extension's own
 * pages, with no person's answer in it) are bounded:
 * a page firing blocked actions in a loop would otherwise push the rest of the log (its newest 10,000
 * entries) out, the evidence of what that page did before included. At most `perTab` per tab in a window
 * and `perTask` per task; the first entry past either bound is written with a note saying so ('tab' /
 * 'task'), the rest are left out. In memory: a worker restart starts the count again.
 */
export class PageBlockBudget {
  private readonly tabs = new Map<number, { since: number; count: number }>();
  private task: { id: string | null; count: number } = { id: null, count: 0 };

  constructor(readonly windowMs = 10_000, private readonly perTab = 100, private readonly perTask = 2_000) {}

  admit(tabId: number, taskId: string | null, now: number): 'write' | 'tab' | 'task' | 'drop' {
    for (const [tab, w] of this.tabs) if (now - w.since >= this.windowMs) this.tabs.delete(tab);
    if (this.task.id !== taskId) this.task = { id: taskId, count: 0 };
    const window = this.tabs.get(tabId) ?? { since: now, count: 0 };
    if (window.count > this.perTab || this.task.count > this.perTask) return 'drop';
    this.tabs.set(tabId, { since: window.since, count: window.count + 1 });
    this.task.count += 1;
    if (this.task.count > this.perTask) return 'task';
    return window.count === this.perTab ? 'tab' : 'write';
  }
}

/** Only this extension's own pages reach its runtime with an extension origin (no other extension may message it). */
function isExtensionPage(origin: string | undefined): boolean {
  return origin !== undefined && /^(chrome|moz)-extension:/.test(origin);
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
