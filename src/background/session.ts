import { initialState, type TaskPolicy } from '../core/policy';
import type { ErrorResponse, Options, Reply, TaskStateResponse, TaskView } from '../messages/protocol';
import { effectiveOptions, floorOf, NO_ORG, orgLimitsInWords, readManaged, type OrgState } from '../org/managed';
import type { ApprovalQueue } from './approvals';
import { emptyRecord, type AuditWriter } from './audit';
import { error } from './handlers';
import type { MonitorDeps } from './monitor';
import { maskSecrets } from './redact';
import type { ActiveTask } from './store';

/** What a read-only settings view shows instead of a stored API key. */
export const MASKED_KEY = '••••••••';

/**
 * The task session: the active task and its lifecycle (start, follow-up, end, install), the tabs it
 * guards, the windows the extension opened for the person, the options in force and the organisation's
 * state. Memory is rebuilt from IndexedDB on every wake (`load`).
 */
export class TaskSession {
  private current: ActiveTask | null = null;
  /** Why the background ended a task on its own; shown by the popup until the next task starts. */
  private notice: string | null = null;
  /** The options in force: the user's (`userOptions`) under the organisation's (`org`). */
  private inForce!: Options;
  private userOptions!: Options;
  private org: OrgState = NO_ORG;
  private readonly controlWindows = new Set<number>();
  /** Read on wake, deleted after the first answer (repairAfterWake). */
  private unreadableApprovals: string[] = [];
  /** A control window being opened: its page may ask before windows.create has resolved. */
  private controlWindowOpening: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: Pick<MonitorDeps, 'store' | 'effects' | 'compiler'>,
    private readonly writer: AuditWriter,
    private readonly approvals: ApprovalQueue,
  ) {}

  get task(): ActiveTask | null {
    return this.current;
  }

  get options(): Options {
    return this.inForce;
  }

  /** The organisation's state (the collector reads its URL from here). */
  get orgState(): OrgState {
    return this.org;
  }

  /**
   * Rebuild memory from IndexedDB (every wake of the worker): one read-only transaction, with the managed
   * storage read alongside it. Only what deciding needs is awaited here; the repairs a wake owes (the
   * floor, unreadable approvals) wait for `repairAfterWake`, after the first answer.
   */
  async load(): Promise<void> {
    const org = this.readOrg();
    const wake = await this.deps.store.readWakeState();
    this.userOptions = wake.options;
    await this.setOrg(await org);
    this.notice = wake.notice?.text ?? null;
    if (wake.task !== null && !wake.task.ok) await this.endUnreadableTask(wake.task.error);
    const task = wake.task?.ok === true ? wake.task.value : null;
    this.current = task;
    for (const id of wake.controlWindows) this.controlWindows.add(id);
    await this.approvals.restore(wake.approvals, task);
    this.unreadableApprovals = wake.unreadableApprovalIds;
  }

  /**
   * What a wake repairs once it has answered: approvals no person can be shown (the call each held was
   * answered BLOCK when the worker that held it died) are deleted, and the network floor and content-script
   * registration, which outlive the worker, are checked and applied again only if this browser session
   * has not seen them applied (a browser restart drops session rules; a worker may die mid-update).
   */
  async repairAfterWake(): Promise<void> {
    const ids = this.unreadableApprovals;
    this.unreadableApprovals = [];
    if (ids.length > 0) await this.writer.write(() => this.deps.store.deleteApprovals(ids));
    const { effects } = this.deps;
    await (effects.repairFloor ?? effects.applyFloor)(this.current, this.inForce, [...this.controlWindows], floorOf(this.org));
  }

  /** The managed storage, read at the ingest boundary. A browser that cannot read it has no organisation floor. */
  private async readOrg(): Promise<OrgState> {
    const read = this.deps.effects.readManaged;
    if (read === undefined) return NO_ORG;
    return readManaged(await read().catch(() => undefined));
  }

  /** A malformed managed policy is audited each time it is read (a wake, a change): the floor then blocks everything. */
  private async setOrg(org: OrgState): Promise<void> {
    this.org = org;
    this.inForce = effectiveOptions(this.userOptions, org);
    if (org.status === 'malformed') {
      await this.writer.audit({ record: emptyRecord('(managed-policy)', 'BLOCK', 'org_floor', `the organisation's managed policy is ${org.reason}; every action in a task is blocked until it is fixed`, 'org.unreadable'), layer: 'guard' });
    }
  }

  /** `storage.onChanged` in the managed area: read it again and apply the new floor at once. */
  async orgChanged(): Promise<void> {
    await this.setOrg(await this.readOrg());
    await this.applyFloor();
  }

  /**
   * A stored task this build cannot read (after migrations) is ended, once: one audit entry and a notice
   * the popup shows, instead of a task whose every decision would be an internal error.
   */
  private async endUnreadableTask(why: string): Promise<void> {
    const { store, effects } = this.deps;
    const text = `The running task was ended: its saved state could not be read after an update (${why}). Start the task again.`;
    await store.clearTask();
    await store.appendAudit({ at: effects.now(), taskId: null, record: emptyRecord('(stored task)', 'BLOCK', 'internal_error', `stored task unreadable, task ended: ${why}`.slice(0, 300), 'builtin:fail-closed'), layer: 'guard' });
    await store.putNotice({ text, at: effects.now() });
    this.notice = text;
  }

  applyFloor(): Promise<void> {
    return this.deps.effects.applyFloor(this.current, this.inForce, [...this.controlWindows], floorOf(this.org));
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  private compileOptions(options: Options, taskId: string) {
    return { backend: options.backend, baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, now: this.deps.effects.now(), taskId };
  }

  /** Compile the person's request and install it; an error if it did not compile. */
  async startTask(request: string): Promise<ErrorResponse | null> {
    const taskId = this.deps.effects.newId();
    let compiled;
    try {
      compiled = await this.deps.compiler.compileTask(request, this.compileOptions(this.inForce, taskId));
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
    await this.installTask(taskId, request, compiled.policy, compiled.report);
    return null;
  }

  /** Replace the active task (the previous one ends: its held actions are BLOCKed). */
  async installTask(taskId: string, request: string, policy: TaskPolicy, report: ActiveTask['report']): Promise<void> {
    await this.endTask();
    if (this.notice !== null) {
      this.notice = null;
      await this.writer.write(() => this.deps.store.putNotice(null));
    }
    const tabId = await this.deps.effects.activeTabId([...this.controlWindows]);
    const task: ActiveTask = {
      taskId,
      request,
      followUps: [],
      policy,
      state: initialState(),
      report,
      startedAt: this.deps.effects.now(),
      taskTabIds: tabId === null ? [] : [tabId],
      floorWriteDomains: [],
    };
    this.current = task;
    await this.writer.saveTask(task);
    await this.applyFloor();
  }

  /** Compile a follow-up into the running task; an error if there is none or it did not compile. */
  async followUp(text: string): Promise<ErrorResponse | null> {
    const task = this.current;
    if (task === null) return error('no-task', 'No task is running.');
    let compiled;
    try {
      compiled = await this.deps.compiler.compileFollowUp(task.policy, text, this.compileOptions(this.inForce, task.taskId));
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
    if (this.current !== task) return error('no-task', 'The task ended while the follow-up was compiled.');
    // Approvals the person gave stay: a follow-up never silently revokes or widens a grant.
    const kept = task.policy.grants.filter((g) => !compiled.policy.grants.some((n) => n.id === g.id));
    task.policy = { ...compiled.policy, grants: [...compiled.policy.grants, ...kept] };
    task.report = compiled.report;
    task.followUps = [...task.followUps, text];
    await this.writer.saveTask(task);
    await this.applyFloor();
    return null;
  }

  async endTask(): Promise<void> {
    if (this.current === null) return;
    this.current = null;
    this.approvals.dropAll();
    await this.writer.write(() => this.deps.store.clearTask());
    await this.applyFloor();
  }

  stateResponse(approvalsAllowed: boolean): TaskStateResponse {
    const task = this.current;
    const view: TaskView | null =
      task === null
        ? null
        : { taskId: task.taskId, startedAt: task.startedAt, policy: task.policy, report: task.report, turns: 1 + task.followUps.length, request: task.request, followUps: task.followUps };
    return { ok: true, task: view, pending: this.approvals.pendingViews(), approvalsAllowed, org: orgLimitsInWords(this.org), ...(this.notice !== null ? { notice: this.notice } : {}) };
  }

  // ---- options -------------------------------------------------------------------------------

  /** The user's own options (the settings page edits these; the organisation's limits apply on top). */
  get ownOptions(): Options {
    return this.userOptions;
  }

  maskedOptions(): { ok: true; options: Options } {
    return { ok: true, options: { ...this.userOptions, apiKey: this.userOptions.apiKey === '' ? '' : MASKED_KEY } };
  }

  async setOptions(options: Options): Promise<void> {
    this.userOptions = options;
    this.inForce = effectiveOptions(options, this.org);
    await this.deps.store.putOptions(options);
    await this.applyFloor();
  }

  /** Compile a test request with the given options (under the organisation's limits). */
  async testOptions(given: Options): Promise<Reply<'options.test'>> {
    const options = effectiveOptions(given, this.org);
    try {
      const { report } = await this.deps.compiler.compileTask('Open example.test and read the front page.', this.compileOptions(options, 'options-test'));
      if (report.fallbackReason !== null) return error('compile-failed', maskSecrets(report.fallbackReason));
      return { ok: true, message: `Compiled a test request with ${report.backend} in ${Math.round(report.durationMs)} ms.` };
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
  }

  // ---- tabs and windows ----------------------------------------------------------------------

  /** Whether actions in this tab are checked. A sender without a tab is checked whenever a task runs (fail closed). */
  isGuarded(tabId: number | null | undefined, windowId?: number): boolean {
    if (this.current === null) return false;
    if (tabId === null || tabId === undefined) return true;
    if (windowId !== undefined && this.controlWindows.has(windowId)) return false;
    return this.inForce.guardScope === 'all-tabs' || this.current.taskTabIds.includes(tabId);
  }

  isControlWindow(windowId: number): boolean {
    return this.controlWindows.has(windowId);
  }

  /** Settles once a control window being opened is known (at once when none is). */
  controlWindowKnown(): Promise<unknown> {
    return this.controlWindowOpening;
  }

  /** A tab opened by a task tab (link target, window.open) joins the task's scope. */
  async tabOpened(tabId: number, openerTabId: number | undefined): Promise<void> {
    const task = this.current;
    if (task === null || openerTabId === undefined || !task.taskTabIds.includes(openerTabId) || task.taskTabIds.includes(tabId)) return;
    task.taskTabIds = [...task.taskTabIds, tabId];
    await this.writer.saveTask(task);
    if (this.inForce.guardScope === 'task-tabs') await this.applyFloor();
  }

  expectControlWindow(opening: Promise<number>): void {
    this.controlWindowOpening = opening.then((id) => this.controlWindows.add(id)).catch(() => undefined);
  }

  async registerControlWindow(windowId: number): Promise<void> {
    this.controlWindows.add(windowId);
    await this.writer.write(() => this.deps.store.putControlWindows([...this.controlWindows]));
    await this.applyFloor();
  }

  async windowClosed(windowId: number): Promise<void> {
    if (!this.controlWindows.delete(windowId)) return;
    await this.writer.write(() => this.deps.store.putControlWindows([...this.controlWindows]));
  }

  /** The control windows, for the durable snapshot. */
  windows(): number[] {
    return [...this.controlWindows];
  }
}
