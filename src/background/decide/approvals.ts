import type { ToolCall } from '../../core/call';
import type { Classification } from '../../core/classification';
import type { DecisionRecord } from '../../core/decision';
import { approvalIsOnceOnly, approvalKeyOf, grantFor } from '../../core/grants';
import type { ApprovalAnswerKind, ErrorResponse, Options } from '../../messages/protocol';
import type { AuditWriter } from '../task/audit';
import type { MinimizerAnswer, Screened } from './minimize';
import { error, type DecisionContext, type MonitorEffects, type Verdict } from '../contracts';
import { dataViewOf, redactRecord, summarizeCall } from './redact';
import type { ActiveTask, StoredApproval, TaskStore } from '../task/store';

/**
 * How many approvals one tab may have waiting at once. Past it, a new ask from that tab is blocked without
 * asking: a page that fires hundreds of distinct asks (a read of each of hundreds of sites) would bury the
 * one the person should refuse among them, and notify for each.
 */
export const MAX_PENDING_PER_TAB = 20;

/** A call held until the person answers (or the approval times out). */
export interface Waiter {
  call: ToolCall;
  ctx: DecisionContext;
  resolve: (verdict: Verdict) => void;
  /** What the Minimizer found when it held this call: the same spans decide the person's answer. */
  screened?: Screened;
}

/** What the queue reads from and hands back to the rest of the background. */
export interface ApprovalHost {
  task(): ActiveTask | null;
  options(): Options;
  applyFloor(): Promise<void>;
  /** A held call after an answer: decided again under the new grant. */
  redecide(task: ActiveTask, waiter: Waiter, minimizer?: MinimizerAnswer | null): void;
}

/**
 * The approval queue: ASK_USER holds the call, one pending approval per delta (tool, capability,
 * targets) and task, persisted, with a timer that BLOCKs it when nobody answers. The person's answer
 * becomes a grant for exactly that delta (or a Minimizer answer, or a denial) and releases every call
 * held on it.
 */
export class ApprovalQueue {
  private readonly approvals = new Map<string, StoredApproval>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly timers = new Map<string, () => void>();

  constructor(
    private readonly store: TaskStore,
    private readonly effects: MonitorEffects,
    private readonly writer: AuditWriter,
    private readonly host: ApprovalHost,
  ) {}

  /** On wake: approvals of the running task wait again (or time out now); any other is dropped. */
  async restore(approvals: readonly StoredApproval[], task: ActiveTask | null): Promise<void> {
    const now = this.effects.now();
    for (const approval of approvals) {
      if (task === null || approval.taskId !== task.taskId) {
        await this.store.deleteApproval(approval.id);
      } else if (approval.expiresAt <= now) {
        this.approvals.set(approval.id, approval);
        await this.settleTimeout(approval.id);
      } else {
        this.approvals.set(approval.id, approval);
        this.armTimer(approval);
      }
    }
  }

  /**
   * The toolbar badge shows the pending count. The browser keeps it while the worker sleeps, so a wake
   * sets it again only in its repairs, after its first answer (the action API is not on the decision path).
   */
  showCount(): void {
    this.effects.setBadge(this.approvals.size);
  }

  list(): StoredApproval[] {
    return [...this.approvals.values()];
  }

  /**
   * Hold a call: join the pending approval for the same delta, or open one. Resolves with the outcome. A
   * Minimizer ask is about the data itself, and "Send as is" releases every call waiting on it unscreened:
   * only the same call (a retry) joins it; other data of the same kind in the same field asks on its own.
   */
  hold(task: ActiveTask, record: DecisionRecord, call: ToolCall, ctx: DecisionContext, screened?: Screened): Promise<Verdict> {
    const key = approvalKeyOf(record);
    let approval = this.joinable(task, record, call);
    if (approval === undefined) {
      const now = this.effects.now();
      const summary = summarizeCall(call);
      approval = {
        id: this.effects.newId(),
        taskId: task.taskId,
        deltaKey: key,
        record: redactRecord(record),
        destination: summary.destination ?? record.targets.domains.join(', '),
        dataView: dataViewOf(call),
        ...(screened !== undefined ? { minimizable: screened.minimized !== null } : {}),
        createdAt: now,
        expiresAt: now + this.host.options().askTimeoutSeconds * 1000,
        tabId: ctx.tabId,
      };
      this.approvals.set(approval.id, approval);
      this.writer.write(() => this.store.putApproval(approval!));
      this.armTimer(approval);
      this.effects.setBadge(this.approvals.size);
      this.effects.notify(approval);
    }
    const id = approval.id;
    return new Promise<Verdict>((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push({ call, ctx, resolve, ...(screened !== undefined ? { screened } : {}) });
      this.waiters.set(id, list);
    });
  }

  /** Whether a new ask from this tab finds no room (MAX_PENDING_PER_TAB); one that joins a waiting approval always has room. */
  crowded(task: ActiveTask, record: DecisionRecord, call: ToolCall, ctx: DecisionContext): boolean {
    if (this.joinable(task, record, call) !== undefined) return false;
    return this.list().filter((a) => a.taskId === task.taskId && a.tabId === ctx.tabId).length >= MAX_PENDING_PER_TAB;
  }

  private joinable(task: ActiveTask, record: DecisionRecord, call: ToolCall): StoredApproval | undefined {
    const key = approvalKeyOf(record);
    return this.list().find((a) => a.deltaKey === key && a.taskId === task.taskId && (record.check !== 'minimizer' || this.heldSameCall(a.id, call)));
  }

  private heldSameCall(approvalId: string, call: ToolCall): boolean {
    const first = this.waiters.get(approvalId)?.[0];
    return first !== undefined && JSON.stringify(first.call) === JSON.stringify(call);
  }

  /** The task ended: every held call is BLOCKed. */
  dropAll(): void {
    for (const id of [...this.approvals.keys()]) {
      const taken = this.take(id);
      for (const w of taken?.waiters ?? []) w.resolve({ decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: false });
    }
  }

  private armTimer(approval: StoredApproval): void {
    const ms = Math.max(0, approval.expiresAt - this.effects.now());
    this.timers.set(
      approval.id,
      this.effects.setTimer(() => void this.settleTimeout(approval.id), ms),
    );
  }

  private take(id: string): { approval: StoredApproval; waiters: Waiter[] } | null {
    const approval = this.approvals.get(id);
    if (approval === undefined) return null;
    this.approvals.delete(id);
    this.timers.get(id)?.();
    this.timers.delete(id);
    const waiters = this.waiters.get(id) ?? [];
    this.waiters.delete(id);
    this.writer.write(() => this.store.deleteApproval(id));
    this.effects.setBadge(this.approvals.size);
    return { approval, waiters };
  }

  private async settleTimeout(id: string): Promise<void> {
    const taken = this.take(id);
    if (taken === null) return;
    const reason = `waited ${this.host.options().askTimeoutSeconds} s for the user's approval, no answer (${taken.approval.record.reason})`;
    await this.writer.audit({ record: { ...taken.approval.record, decision: 'BLOCK', reason }, answer: 'timeout', layer: 'guard', destination: taken.approval.destination });
    for (const w of taken.waiters) w.resolve({ decision: 'BLOCK', check: taken.approval.record.check, reason, askedUser: false });
  }

  /** The person's answer. Once/task become a grant for exactly this call's tool and targets. */
  async answer(id: string, scope: ApprovalAnswerKind): Promise<{ ok: true } | ErrorResponse> {
    const task = this.host.task();
    const taken = this.take(id);
    if (taken === null || task === null || taken.approval.taskId !== task.taskId) return error('not-found', 'No such pending approval (answered, timed out or the task ended).');
    const { approval, waiters } = taken;
    if (approval.record.check === 'minimizer' && scope !== 'deny') {
      // Data, not authority: no grant. "Allow" answers from the harness or an older popup mean "send as is".
      const minimizer: MinimizerAnswer = scope === 'send-without' && approval.minimizable === true ? 'send-without' : 'send-as-is';
      await this.writer.audit({ record: { ...approval.record, decision: 'ALLOW', reason: minimizer === 'send-without' ? 'the user chose to send it without the flagged data' : 'the user chose to send it as is' }, answer: minimizer, layer: 'guard', destination: approval.destination });
      for (const w of waiters) this.host.redecide(task, w, minimizer);
      return { ok: true };
    }
    if (scope === 'send-without' || scope === 'send-as-is') return error('invalid-message', 'That answer applies only to an action the Minimizer held.');
    if (scope === 'task' && approvalIsOnceOnly(approval.record)) scope = 'once';
    if (scope === 'deny') {
      const reason = 'denied by the user';
      await this.writer.audit({ record: { ...approval.record, decision: 'BLOCK', reason }, answer: 'deny', layer: 'guard', destination: approval.destination });
      for (const w of waiters) w.resolve({ decision: 'BLOCK', check: approval.record.check, reason, askedUser: true });
      return { ok: true };
    }
    const now = this.effects.now();
    const grant = grantFor(task.taskId, approval.record.tool, classificationOf(approval.record), scope, now);
    // "Allow once" again for the same delta adds exactly one more use to the same derived grant.
    if (grant.maxCalls !== null) grant.maxCalls = (task.state.grantCalls[grant.id] ?? 0) + 1;
    task.policy = { ...task.policy, grants: [...task.policy.grants.filter((g) => g.id !== grant.id), grant] };
    await this.writer.saveTask(task);
    await this.host.applyFloor();
    await this.writer.audit({
      record: { ...approval.record, decision: 'ALLOW', check: 'grants', reason: `approved by the user (${scope === 'once' ? 'once' : 'for this task'})`, ruleRef: `grant:${grant.id}` },
      answer: scope,
      layer: 'guard',
      destination: approval.destination,
    });
    for (const w of waiters) this.host.redecide(task, w);
    return { ok: true };
  }
}

/** The classification a grant is cut from: exactly what the person saw in the approval. */
function classificationOf(record: DecisionRecord): Pick<Classification, 'capability' | 'riskClass' | 'targets'> {
  return { capability: record.capability, riskClass: record.riskClass, targets: record.targets };
}
