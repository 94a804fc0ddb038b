import { initialState, type TaskPolicy } from '../../core/policy';
import type { Options } from '../../messages/protocol';
import { effectiveOptions } from '../../org/in-force';
import { floorOf, NO_ORG, readManaged, type OrgState } from '../../org/managed';
import type { ApprovalQueue } from '../decide/approvals';
import { emptyRecord, type AuditWriter } from './audit';
import type { MonitorDeps } from '../contracts';
import type { TaskCompiler } from './compile';
import type { ControlHost } from './control';
import type { ActiveTask, StoredApproval } from './store';

/** The browser's new-tab page: a tab created showing it was opened by the user (no page can open it). */
const NEW_TAB_PAGE = /^(?:chrome|edge):\/\/(?:newtab|new-tab-page)\/?$|^about:(?:newtab|home)$/;

/**
 * The task session: the active task and its lifecycle (install, follow-up saved, end), the tabs it
 * guards, the windows the extension opened for the person, the options in force and the organisation's
 * state. Memory is rebuilt from IndexedDB on every wake (`load`). Compiling a request and the popup's views
 * are the control desk's (./control.ts, loaded on demand), with this session as its host.
 */
export class TaskSession implements ControlHost {
  private current: ActiveTask | null = null;
  /** Why the background ended a task on its own; shown by the popup until the next task starts. */
  private noticeText: string | null = null;
  /** The options in force: the user's (`userOptions`) under the organisation's (`org`). */
  private inForce!: Options;
  private userOptions!: Options;
  private org: OrgState = NO_ORG;
  private readonly controlWindows = new Set<number>();
  /** Read on wake, deleted after the first answer (repairAfterWake). */
  private unreadableApprovals: string[] = [];
  /** A control window being opened: its page may ask before windows.create has resolved. */
  private controlWindowOpening: Promise<unknown> = Promise.resolve();
  /**
   * Tabs created during the task with no task tab as opener, waiting for what decides them: a page's
   * navigation target event names their source; none comes before their first navigation when the user
   * or a driver opened them (in memory only: a tab left here by a restart stays guarded).
   */
  private readonly unplaced = new Set<number>();

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
    this.noticeText = wake.notice?.text ?? null;
    if (wake.task !== null && !wake.task.ok) await this.endUnreadableTask(wake.task.error);
    const task = wake.task?.ok === true ? wake.task.value : null;
    this.current = task;
    for (const id of wake.controlWindows) this.controlWindows.add(id);
    await this.approvals.restore(wake.approvals, task);
    this.unreadableApprovals = wake.unreadableApprovalIds;
  }

  /**
   * What a wake repairs once it has answered: approvals no person can be shown (the call each held was
   * answered BLOCK when the worker that held it died) are deleted, the badge shows the pending count, and
   * the network floor and content-script registration, which outlive the worker, are checked and applied
   * again only if this browser session has not seen them applied (a browser restart drops session rules;
   * a worker may die mid-update).
   */
  async repairAfterWake(): Promise<void> {
    const ids = this.unreadableApprovals;
    this.unreadableApprovals = [];
    if (ids.length > 0) await this.writer.write(() => this.deps.store.deleteApprovals(ids));
    this.approvals.showCount();
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
    this.noticeText = text;
  }

  applyFloor(): Promise<void> {
    return this.deps.effects.applyFloor(this.current, this.inForce, [...this.controlWindows], floorOf(this.org));
  }

  // ---- lifecycle (compiling a request into one: ./control.ts) --------------------------------

  /** Replace the active task (the previous one ends: its held actions are BLOCKed). */
  async installTask(taskId: string, request: string, policy: TaskPolicy, report: ActiveTask['report']): Promise<void> {
    await this.endTask();
    if (this.noticeText !== null) {
      this.noticeText = null;
      await this.writer.write(() => this.deps.store.putNotice(null));
    }
    const tabId = await this.deps.effects.activeTabId([...this.controlWindows]);
    const openTabs = await this.deps.effects.openTabIds();
    this.unplaced.clear();
    const task: ActiveTask = {
      taskId,
      request,
      followUps: [],
      policy,
      state: initialState(),
      report,
      startedAt: this.deps.effects.now(),
      taskTabIds: tabId === null ? [] : [tabId],
      outsideTabIds: openTabs.filter((id) => id !== tabId),
      floorWriteDomains: [],
    };
    this.current = task;
    await this.writer.saveTask(task);
    await this.applyFloor();
  }

  /** A follow-up changed the running task: save it and bring the floor in line with it. */
  async taskChanged(task: ActiveTask): Promise<void> {
    await this.writer.saveTask(task);
    await this.applyFloor();
  }

  async endTask(): Promise<void> {
    if (this.current === null) return;
    this.current = null;
    this.approvals.dropAll();
    await this.writer.write(() => this.deps.store.clearTask());
    await this.applyFloor();
  }

  /** Why the background ended a task on its own; shown by the popup until the next task starts. */
  get notice(): string | null {
    return this.noticeText;
  }

  get compiler(): TaskCompiler {
    return this.deps.compiler;
  }

  now(): number {
    return this.deps.effects.now();
  }

  newId(): string {
    return this.deps.effects.newId();
  }

  pendingApprovals(): StoredApproval[] {
    return this.approvals.list();
  }

  // ---- options -------------------------------------------------------------------------------

  /** The user's own options (the settings page edits these; the organisation's limits apply on top). */
  get ownOptions(): Options {
    return this.userOptions;
  }

  async setOptions(options: Options): Promise<void> {
    this.userOptions = options;
    this.inForce = effectiveOptions(options, this.org);
    await this.deps.store.putOptions(options);
    await this.applyFloor();
  }

  // ---- tabs and windows ----------------------------------------------------------------------

  /** Whether actions in this tab are checked. A sender without a tab is checked whenever a task runs (fail closed). */
  isGuarded(tabId: number | null | undefined, windowId?: number): boolean {
    if (this.current === null) return false;
    if (tabId === null || tabId === undefined) return true;
    if (windowId !== undefined && this.controlWindows.has(windowId)) return false;
    return this.inForce.guardScope === 'all-tabs' || !this.current.outsideTabIds.includes(tabId);
  }

  isControlWindow(windowId: number): boolean {
    return this.controlWindows.has(windowId);
  }

  /** Settles once a control window being opened is known (at once when none is). */
  controlWindowKnown(): Promise<unknown> {
    return this.controlWindowOpening;
  }

  // Guard scope `task-tabs` guards every tab but those known to be outside the task, so a tab is guarded
  // from its creation, before any of these events arrive; they only ever place a tab outside on evidence.

  /**
   * A tab was created. Opened while a task tab was the opener (Chromium names the active tab), it joins
   * the task; showing the browser's own UI (a new-tab page), it is the user's and outside; otherwise it
   * waits, guarded, for its navigation target event or its first navigation.
   */
  async tabCreated(tabId: number, openerTabId: number | undefined, url: string | undefined): Promise<void> {
    const task = this.current;
    if (task === null || task.taskTabIds.includes(tabId) || task.outsideTabIds.includes(tabId)) return;
    if (openerTabId !== undefined && task.taskTabIds.includes(openerTabId)) await this.place(task, tabId, 'task');
    else if (url !== undefined && NEW_TAB_PAGE.test(url)) await this.place(task, tabId, 'outside');
    else this.unplaced.add(tabId);
  }

  /** A page opened this tab (link target, window.open, noopener or not): it belongs where its source does. */
  async navigationTargetCreated(tabId: number, sourceTabId: number): Promise<void> {
    const task = this.current;
    this.unplaced.delete(tabId);
    if (task === null) return;
    if (task.taskTabIds.includes(sourceTabId)) await this.place(task, tabId, 'task');
    else if (task.outsideTabIds.includes(sourceTabId)) await this.place(task, tabId, 'outside');
  }

  /**
   * A tab's top frame starts navigating. A page's popup has had its navigation target event by now (it
   * comes before the first navigation); a tab still waiting was opened by the user or a driver: outside.
   */
  async tabNavigating(tabId: number): Promise<void> {
    const task = this.current;
    if (task === null || !this.unplaced.delete(tabId)) return;
    await this.place(task, tabId, 'outside');
  }

  async tabClosed(tabId: number): Promise<void> {
    this.unplaced.delete(tabId);
    const task = this.current;
    if (task === null || (!task.taskTabIds.includes(tabId) && !task.outsideTabIds.includes(tabId))) return;
    task.taskTabIds = task.taskTabIds.filter((id) => id !== tabId);
    task.outsideTabIds = task.outsideTabIds.filter((id) => id !== tabId);
    await this.writer.saveTask(task);
  }

  /** After a browser restart the stored tab ids name no tab of this session: every tab is guarded. */
  async browserStarted(): Promise<void> {
    const task = this.current;
    if (task === null || (task.taskTabIds.length === 0 && task.outsideTabIds.length === 0)) return;
    task.taskTabIds = [];
    task.outsideTabIds = [];
    await this.writer.saveTask(task);
  }

  private async place(task: ActiveTask, tabId: number, where: 'task' | 'outside'): Promise<void> {
    const wasOutside = task.outsideTabIds.includes(tabId);
    task.taskTabIds = where === 'task' ? [...task.taskTabIds.filter((id) => id !== tabId), tabId] : task.taskTabIds.filter((id) => id !== tabId);
    task.outsideTabIds = where === 'outside' ? [...task.outsideTabIds.filter((id) => id !== tabId), tabId] : task.outsideTabIds.filter((id) => id !== tabId);
    await this.writer.saveTask(task);
    // The floor changes only when a tab leaves or enters the outside list.
    if (this.inForce.guardScope === 'task-tabs' && wasOutside !== (where === 'outside')) await this.applyFloor();
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
