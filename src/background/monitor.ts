import type { ToolCall } from '../core/call';
import { BROWSER_TOOLS } from '../core/call';
import { emptyTargets, type Classification } from '../core/classification';
import { classify } from '../core/classifier';
import { CheckSchema, type Check, type DecisionRecord } from '../core/decision';
import type { RuleRef } from '../core/ruleRef';
import { registrableDomain } from '../core/domains';
import type { evaluate as coreEvaluate } from '../core/evaluator';
import { approvalKeyOf, grantFor } from '../core/grants';
import { initialState, type TaskPolicy } from '../core/policy';
import { isConsequential } from '../core/risk';
import { answerWith, type Handler, type Handlers } from './handlers';
import {
  BackgroundMessageSchema,
  type AuditEntry,
  type MessageType,
  type PageMessageType,
  type Reply,
  type ErrorResponse,
  type Options,
  type PendingApproval,
  type ProposalAnswer,
  type ProposalMessage,
  type TaintReport,
  type Rewrite,
  type TaskStateResponse,
  type TaskView,
  type ApprovalAnswerKind,
} from '../messages/protocol';
import { urlCarriesTaint } from '../taint/encode';
import { KIND_WORDS, mergeTaint } from '../taint/tokens';
import type { TaskCompiler } from './compile';
import { namedSites } from './dnr';
import { SanitizerDesk, type Reviewer } from './sanitizer';
import { isScreened, modelActionOf, screenAllowed, userWordsOf, type MinimizerAnswer, type Screened } from './minimize';
import type { Finding } from '../minimizer/detect';
import type { ModelAction, ModelResult } from '../minimizer/model';
import { isBlockedPage } from './guards';
import { effectiveOptions, floorOf, NO_ORG, orgLimitsInWords, readManaged, type OrgState } from '../org/managed';
import type { OrgFloor } from '../core/org';
import { dataViewOf, maskSecrets, originOf, redactRecord, redactUrl, summarizeCall } from './redact';
import type { ActiveTask, StoredApproval, StoredAuditEntry, TaskStore } from './store';

/**
 * The reference monitor of the extension. Every message from a content script or an extension page
 * enters through `handleMessage` and is parsed with the protocol's strict schemas; anything malformed is
 * BLOCKed and audited, never a crash. Proposals are decided by the core evaluator, and evaluation plus
 * counter update is one synchronous step (no await between reading σ and writing σ' to memory), so 50
 * parallel calls against max_calls = 3 allow exactly 3. Memory is rebuilt from IndexedDB on every wake.
 *
 * No task running: the extension is not guarding and must not get in the way of normal browsing, so
 * proposals are ALLOWed (check `allowed`, reason "no task is running") and still audited.
 */

/** What chrome.runtime.onMessage reports about a sender (only the parts the monitor trusts). */
export interface MessageSender {
  id?: string;
  url?: string;
  tab?: { id?: number; windowId?: number };
  frameId?: number;
}

/** Browser side effects, injected so the monitor runs under unit tests without a browser. */
export interface MonitorEffects {
  now(): number;
  newId(): string;
  /** Bring the network floor in line with the task (null: remove every rule) and the organisation's floor. Resolves once applied. */
  applyFloor(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void>;
  setBadge(pendingCount: number): void;
  notify(approval: StoredApproval): void;
  /** The tab the user is looking at when a task starts: the task's tab for guard scope `task-tabs`. */
  activeTabId(controlWindows: readonly number[]): Promise<number | null>;
  setTimer(fn: () => void, ms: number): () => void;
  /** Open the options page in a window the extension owns, so it may change options. */
  openOptions(): Promise<void>;
  /** The organisation's managed policy as the browser gives it (`storage.managed.get()`); absent: none. */
  readManaged?(): Promise<unknown>;
  /** An audit entry was committed (the collector ships it later, off the decision path). */
  audited?(): void;
}

/** What a read-only settings view shows instead of a stored API key. */
export const MASKED_KEY = '••••••••';

export interface MonitorDeps {
  store: TaskStore;
  effects: MonitorEffects;
  evaluate: typeof coreEvaluate;
  compiler: TaskCompiler;
  /** The Minimizer's model mode (the configured endpoint); absent = the mode falls back to `detect`. */
  minimizerModel?: (task: string, action: ModelAction, options: Options) => Promise<ModelResult>;
  /** `chrome-extension://<id>` */
  extensionOrigin: string;
  /** The Sanitizer's model review (default: the configured OpenAI-compatible endpoint). */
  reviewer?: Reviewer;
}

type Layer = NonNullable<StoredAuditEntry['layer']>;

export interface DecisionContext {
  layer: Layer;
  tabId: number | null;
  origin: string | null;
}

export interface Verdict {
  decision: 'ALLOW' | 'BLOCK';
  check: string;
  reason: string;
  askedUser: boolean;
  /** ALLOW on condition: the page sends these values instead (the Minimizer removed confidential data). */
  rewrite?: Rewrite;
}

interface Waiter {
  call: ToolCall;
  ctx: DecisionContext;
  resolve: (verdict: Verdict) => void;
  /** What the Minimizer found when it held this call: the same spans decide the person's answer. */
  screened?: Screened;
}

/** The outcome of the synchronous step: the record, whether σ changed, and the Minimizer's rewrite if any. */
interface Evaluated {
  record: DecisionRecord;
  counted: boolean;
  /** Set when the Minimizer held the action (record is ASK_USER) or sent it without the flagged data. */
  screened?: Screened;
}

/** Tools whose ALLOW opens the network floor for data-bearing requests to the call's domains. */
const WRITE_TOOLS: ReadonlySet<string> = new Set([BROWSER_TOOLS.request, BROWSER_TOOLS.formSubmit, BROWSER_TOOLS.upload]);

/** Tools whose URL the taint check reads. */
const TAINT_CHECKED_TOOLS: ReadonlySet<string> = new Set([BROWSER_TOOLS.request, BROWSER_TOOLS.navigate, BROWSER_TOOLS.formSubmit]);
/** How long taint reports are gathered before the floor is rebuilt. */
const TAINT_FLOOR_DELAY_MS = 50;

function emptyRecord(tool: string, decision: DecisionRecord['decision'], check: Check, reason: string, ruleRef: RuleRef): DecisionRecord {
  return { decision, check, reason, tool, capability: 'unknown', riskClass: 'UNKNOWN', targets: emptyTargets(), ruleRef };
}

function error(code: ErrorResponse['code'], message: string): ErrorResponse {
  return { ok: false, code, error: message };
}

/** The classification a grant is cut from: exactly what the person saw in the approval. */
function classificationOf(record: DecisionRecord): Pick<Classification, 'capability' | 'riskClass' | 'targets'> {
  return { capability: record.capability, riskClass: record.riskClass, targets: record.targets };
}

export class Monitor {
  private task: ActiveTask | null = null;
  /** Why the background ended a task on its own; shown by the popup until the next task starts. */
  private notice: string | null = null;
  /** The options in force: the user's (`userOptions`) under the organisation's (`org`). */
  private options!: Options;
  private userOptions!: Options;
  private org: OrgState = NO_ORG;
  private readonly controlWindows = new Set<number>();
  private readonly approvals = new Map<string, StoredApproval>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly timers = new Map<string, () => void>();
  private writes: Promise<void> = Promise.resolve();
  /** A control window being opened: its page may ask before windows.create has resolved. */
  private controlWindowOpening: Promise<unknown> = Promise.resolve();
  readonly ready: Promise<void>;
  private readonly sanitizer: SanitizerDesk;

  constructor(private readonly deps: MonitorDeps) {
    this.ready = this.load();
    this.sanitizer = new SanitizerDesk(
      {
        modeFor: (sender) => (this.isGuarded(sender.tab?.id, sender.tab?.windowId) && sender.tab?.id !== undefined ? this.options.sanitizer : 'off'),
        task: () => this.task,
        options: () => this.options,
        audit: (record, where) => this.audit({ record, layer: 'isolated', ...where }),
      },
      deps.reviewer,
    );
  }

  /** Rebuild memory from IndexedDB (every wake of the worker). */
  private async load(): Promise<void> {
    const { store, effects } = this.deps;
    const [stored, options, windows, notice] = await Promise.all([store.getTask(), store.getOptions(), store.getControlWindows(), store.getNotice()]);
    this.userOptions = options;
    await this.setOrg(await this.readOrg());
    this.notice = notice?.text ?? null;
    if (stored !== null && !stored.ok) await this.endUnreadableTask(stored.error);
    const task = stored?.ok === true ? stored.value : null;
    this.task = task;
    const approvals = await store.listApprovals();
    for (const id of windows) this.controlWindows.add(id);
    const now = effects.now();
    for (const approval of approvals) {
      if (task === null || approval.taskId !== task.taskId) {
        await store.deleteApproval(approval.id);
      } else if (approval.expiresAt <= now) {
        this.approvals.set(approval.id, approval);
        await this.settleTimeout(approval.id);
      } else {
        this.approvals.set(approval.id, approval);
        this.armTimer(approval);
      }
    }
    effects.setBadge(this.approvals.size);
    await this.applyFloor();
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
    this.options = effectiveOptions(this.userOptions, org);
    if (org.status === 'malformed') {
      await this.audit({ record: emptyRecord('(managed-policy)', 'BLOCK', 'org_floor', `the organisation's managed policy is ${org.reason}; every action in a task is blocked until it is fixed`, 'org.unreadable'), layer: 'guard' });
    }
  }

  /** `storage.onChanged` in the managed area: read it again and apply the new floor at once. */
  async orgChanged(): Promise<void> {
    await this.ready;
    await this.setOrg(await this.readOrg());
    await this.applyFloor();
  }

  /** The organisation's state (the collector reads its URL from here). */
  orgState(): OrgState {
    return this.org;
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

  // ---- entry point ---------------------------------------------------------------------------

  /** Total: every input gets an answer; nothing here throws. */
  async handleMessage(raw: unknown, sender: MessageSender): Promise<Reply<MessageType>> {
    try {
      await this.ready;
      const parsed = BackgroundMessageSchema.safeParse(raw);
      if (!parsed.success) return await this.rejectMalformed(raw, sender, parsed.error.issues[0]);
      return await answerWith(this.handlers, parsed.data, sender);
    } catch (err) {
      const reason = `internal error: ${maskSecrets(err instanceof Error ? err.message : String(err))}`;
      await this.audit({ record: emptyRecord('(internal)', 'BLOCK', 'internal_error', reason, 'builtin:fail-closed'), ...this.where(sender) }).catch(() => undefined);
      const id = idOf(raw);
      return id === null ? error('internal', reason) : answer(id, { decision: 'BLOCK', check: 'internal_error', reason, askedUser: false });
    }
  }

  /** One handler per message type of the protocol map; `answerWith` checks each answer against the map. */
  private readonly handlers: Handlers<MessageSender> = {
    proposal: (message, sender) => this.onProposal(message, sender),
    'taint.report': (message, sender) => this.onTaintReport(message, sender),
    // The Sanitizer's content script (any tab; answers depend on whether the tab is guarded).
    'sanitizer.config': (_message, sender) => this.sanitizer.config(sender),
    'sanitizer.removed': (message, sender) => this.sanitizer.removed(message, sender, originOf(sender.url)),
    'sanitizer.review': (message, sender) => this.sanitizer.review(message.text, sender),
    'task.start': this.fromControl((message, sender) => this.startTask(message.request, sender)),
    'task.followup': this.fromControl((message, sender) => this.followUp(message.text, sender)),
    'task.end': this.fromControl(async (_message, sender) => {
      await this.endTask();
      return this.stateResponse(sender);
    }),
    'task.get': this.fromControl((_message, sender) => this.stateResponse(sender)),
    'approval.answer': this.fromControl((message) => this.answerApproval(message.id, message.answer)),
    'audit.list': this.fromControl(async (message) => {
      const entries = await this.deps.store.listAudit({ decision: message.decision, check: message.check, limit: message.limit });
      return { ok: true, entries: entries.map(toAuditEntry) };
    }),
    'options.get': this.fromControl(() => ({ ok: true, options: this.userOptions })),
    'options.set': this.fromControl(async (message) => {
      this.userOptions = message.options;
      this.options = effectiveOptions(message.options, this.org);
      await this.deps.store.putOptions(message.options);
      await this.applyFloor();
      return { ok: true, options: this.userOptions };
    }),
    'options.test': this.fromControl((message) => this.testOptions(effectiveOptions(message.options, this.org))),
    'options.open': this.fromControl(
      async () => {
        await this.deps.effects.openOptions();
        return { ok: true };
      },
      { settingsView: true },
    ),
    'options.view': this.fromControl(() => this.maskedOptions(), { settingsView: true }),
  };

  /**
   * A page message's handler, answered only for the toolbar popup or a window the extension opened;
   * anyone else is refused and audited. `settingsView`: Chrome's own Options entry opens options.html in
   * an ordinary tab, which may see the settings (key masked) and open the settings window, never change
   * anything or answer approvals.
   */
  private fromControl<T extends PageMessageType>(handler: Handler<T, MessageSender>, { settingsView = false } = {}): Handler<T, MessageSender> {
    return async (message, sender) => {
      await this.controlWindowOpening;
      if (settingsView && this.mayViewSettings(sender)) return handler(message, sender);
      if (!this.isControlSender(sender)) {
        await this.audit({
          record: emptyRecord(`message:${message.type}`, 'BLOCK', 'guards', 'task and approval messages are accepted only from the toolbar popup or a window the extension opened', 'builtin:control-sender'),
          layer: 'page',
          ...this.where(sender),
        });
        return error('approvals-disabled', 'This page may not manage the task or answer approvals. Use the toolbar popup.');
      }
      return handler(message, sender);
    };
  }

  private async rejectMalformed(raw: unknown, sender: MessageSender, issue: { path: PropertyKey[]; message: string } | undefined): Promise<ProposalAnswer | ErrorResponse> {
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    const reason = `malformed message at ${where}: ${issue?.message ?? 'invalid'}`.slice(0, 300);
    await this.audit({ record: emptyRecord('(malformed)', 'BLOCK', 'schema', reason, 'builtin:message-schema'), ...this.where(sender) });
    const id = idOf(raw);
    const isPageMessage = typeof raw === 'object' && raw !== null && typeof (raw as { type?: unknown }).type === 'string' && (raw as { type: string }).type !== 'proposal';
    if (isPageMessage && id === null) return error('invalid-message', reason);
    return answer(id ?? 'invalid', { decision: 'BLOCK', check: 'schema', reason, askedUser: false });
  }

  // ---- senders and scope ---------------------------------------------------------------------

  private isOwnPage(sender: MessageSender): boolean {
    return sender.url !== undefined && sender.url.startsWith(`${this.deps.extensionOrigin}/`);
  }

  private isBlockedPage(sender: MessageSender): boolean {
    return sender.url !== undefined && isBlockedPage(sender.url, this.deps.extensionOrigin);
  }

  /** The toolbar popup (no tab) or a window the extension opened itself; never the page a blocked navigation lands on. */
  isControlSender(sender: MessageSender): boolean {
    if (!this.isOwnPage(sender) || this.isBlockedPage(sender)) return false;
    if (sender.tab === undefined) return true;
    return sender.tab.windowId !== undefined && this.controlWindows.has(sender.tab.windowId);
  }

  /**
   * This extension's own pages other than the blocked page, in a tab no task guards: Chrome's Options
   * entry. A guarded tab never shows them (the browser guard navigates it away), so no agent-driven tab
   * gets here; what it may do — read the settings with the key masked, open the settings window — gives
   * no approval power.
   */
  private mayViewSettings(sender: MessageSender): boolean {
    return this.isOwnPage(sender) && !this.isBlockedPage(sender) && !this.isGuarded(sender.tab?.id ?? null, sender.tab?.windowId);
  }

  /** Whether actions in this tab are checked. A sender without a tab is checked whenever a task runs (fail closed). */
  isGuarded(tabId: number | null | undefined, windowId?: number): boolean {
    if (this.task === null) return false;
    if (tabId === null || tabId === undefined) return true;
    if (windowId !== undefined && this.controlWindows.has(windowId)) return false;
    return this.options.guardScope === 'all-tabs' || this.task.taskTabIds.includes(tabId);
  }

  private where(sender: MessageSender): Pick<StoredAuditEntry, 'tabId' | 'origin'> {
    const origin = originOf(sender.url);
    return { ...(sender.tab?.id !== undefined ? { tabId: sender.tab.id } : {}), ...(origin !== null ? { origin } : {}) };
  }

  // ---- proposals -----------------------------------------------------------------------------

  private async onProposal(message: ProposalMessage, sender: MessageSender): Promise<ProposalAnswer> {
    // The blocked-navigation page's "Ask the user" is an ordinary proposal: off-list reading asks anyway.
    const ctx: DecisionContext = { layer: this.isBlockedPage(sender) ? 'page' : message.layer, tabId: sender.tab?.id ?? null, origin: originOf(sender.url) };
    if (!this.isGuarded(sender.tab?.id, sender.tab?.windowId)) return answer(message.id, await this.notGuarding(message.call, ctx));
    return answer(message.id, await this.decide(message.call, ctx));
  }

  private async notGuarding(call: ToolCall, ctx: DecisionContext): Promise<Verdict> {
    const c = classify(call);
    const reason = this.task === null ? 'no task is running: not guarding' : 'this tab is outside the guard scope';
    const record: DecisionRecord = { decision: 'ALLOW', check: 'allowed', reason, tool: call.tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef: 'builtin:not-guarding', classifierLayer: c.layer, basis: c.basis };
    await this.audit({ record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
    return { decision: 'ALLOW', check: 'allowed', reason, askedUser: false };
  }

  /**
   * Decide one call for the active task. The evaluation and the counter update happen in one
   * synchronous step; persistence follows, and an ALLOW is answered only once σ' is durable.
   */
  async decide(call: ToolCall, ctx: DecisionContext): Promise<Verdict> {
    const task = this.task;
    if (task === null) return this.notGuarding(call, ctx);
    const tainted = this.taintRecord(task, call);
    if (tainted !== null) {
      await this.audit({ record: tainted, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
      return { decision: 'BLOCK', check: tainted.check, reason: tainted.reason, askedUser: false };
    }
    const modelSpans = await this.askMinimizerModel(task, call);
    if (this.task !== task) return { decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: false };
    const evaluated = this.evaluateNow(task, call, null, modelSpans);
    const record = evaluated.record;
    if (record.decision === 'ASK_USER') {
      const held = this.ask(task, record, call, ctx, evaluated.screened);
      await this.audit({ record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
      return held;
    }
    const entry = { record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx), ...(evaluated.screened !== undefined ? { answer: 'minimized' as const } : {}) };
    if (record.decision === 'ALLOW') await this.afterAllow(task, record, call, evaluated.counted, entry);
    else await this.audit(entry);
    return { decision: record.decision, check: record.check, reason: record.reason, askedUser: false, ...rewriteOf(evaluated) };
  }

  /**
   * The data-lane taint on hooked actions: a request, navigation or form whose URL carries session data
   * to a site the task does not name is blocked before the evaluator runs (no budget is spent). The
   * reason names the token's kind, never the token. Null when the call carries none.
   */
  private taintRecord(task: ActiveTask, call: ToolCall): DecisionRecord | null {
    if (task.taint === undefined || task.taint.length === 0 || !TAINT_CHECKED_TOOLS.has(call.tool)) return null;
    const url = typeof call.args.url === 'string' ? call.args.url : null;
    if (url === null) return null;
    const site = registrableDomain(url);
    if (site !== null && namedSites({ policy: task.policy, floorWriteDomains: task.floorWriteDomains }).includes(site)) return null;
    const token = urlCarriesTaint(url, task.taint, site);
    if (token === null) return null;
    const c = classify(call);
    const reason = `the URL carries ${KIND_WORDS[token.kind]} to a site the task does not name`;
    return { decision: 'BLOCK', check: 'exfiltration_url', reason, tool: call.tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef: 'builtin:taint', classifierLayer: c.layer, basis: c.basis };
  }

  /**
   * A batch of session data from a guarded page (ISOLATED content script). Merged into the task's taint
   * under the sender's site, persisted with the task, then the floor is rebuilt (coalesced).
   */
  private async onTaintReport(message: TaintReport, sender: MessageSender): Promise<{ ok: true; kept: number }> {
    const task = this.task;
    const site = sender.url === undefined ? null : registrableDomain(sender.url);
    if (task === null || site === null || sender.tab?.id === undefined || !this.isGuarded(sender.tab.id, sender.tab.windowId)) return { ok: true, kept: 0 };
    const before = task.taint ?? [];
    const merged = mergeTaint(before, message.tokens.map((t) => ({ ...t, site })));
    if (JSON.stringify(merged) !== JSON.stringify(before)) {
      task.taint = merged;
      await this.saveTask(task);
      this.applyFloorSoon();
    }
    return { ok: true, kept: merged.length };
  }

  /** Taint reports arrive in bursts: one floor rebuild per burst. */
  private floorSoon: Promise<void> | null = null;
  private applyFloorSoon(): void {
    if (this.floorSoon !== null) return;
    this.floorSoon = new Promise<void>((done) => this.deps.effects.setTimer(done, TAINT_FLOOR_DELAY_MS)).then(() => {
      this.floorSoon = null;
      return this.applyFloor();
    });
  }

  /**
   * The model mode's spans for an action the evaluator would allow (a dry run: evaluation is pure, nothing
   * is counted). Any failure leaves the deterministic detector alone, and is audited.
   */
  private async askMinimizerModel(task: ActiveTask, call: ToolCall): Promise<Finding[]> {
    const model = this.deps.minimizerModel;
    if (this.options.minimizer !== 'model' || model === undefined) return [];
    const dry = this.deps.evaluate(task.policy, task.state, call, this.deps.effects.now(), floorOf(this.org)).record;
    if (dry.decision !== 'ALLOW' || !isScreened(call, dry)) return [];
    const result = await model(userWordsOf(task), modelActionOf(call, dry), this.options);
    if ('findings' in result) return result.findings;
    await this.audit({ record: { ...dry, check: 'minimizer', reason: `the Minimizer's model failed (${maskSecrets(result.error)}); the deterministic check decides` }, layer: 'guard' });
    return [];
  }

  /**
   * The synchronous step: evaluate against σ and write σ' to memory before anything else runs. An ALLOW
   * the Minimizer holds changes nothing (it is counted when the person answers); `minimizer` is that
   * answer for a held action.
   */
  private evaluateNow(task: ActiveTask, call: ToolCall, minimizer: MinimizerAnswer | null, modelSpans: readonly Finding[] = []): Evaluated {
    const { record, state } = this.deps.evaluate(task.policy, task.state, call, this.deps.effects.now(), floorOf(this.org));
    const screened = record.decision === 'ALLOW' && this.options.minimizer !== 'off' && minimizer !== 'send-as-is' ? screenAllowed(task, call, record, modelSpans) : null;
    if (screened !== null) {
      const automatic = minimizer === 'send-without' || (this.options.minimizeWithoutAsking && screened.minimized !== null);
      if (!automatic || screened.minimized === null) {
        // The Minimizer decided, not the permission that allowed the action: its rule, without that permission's evidence.
        const { evidence: _permissionWords, ...allowed } = record;
        return { record: { ...allowed, decision: 'ASK_USER', check: 'minimizer', reason: `${screened.description}; the task does not call for it`, ruleRef: 'builtin:minimizer' }, counted: false, screened };
      }
      const counted = state !== task.state;
      task.state = state;
      return { record: { ...record, reason: `${record.reason}; sent without ${screened.description}` }, counted, screened };
    }
    const counted = state !== task.state;
    task.state = state;
    return { record, counted };
  }

  /**
   * Persist σ' with the audit entry (one transaction) and, for a newly reached write domain, open the
   * floor — all before the page is told ALLOW.
   */
  private async afterAllow(task: ActiveTask, record: DecisionRecord, call: ToolCall, counted: boolean, entry: AuditInput | null): Promise<void> {
    const newDomains =
      isConsequential(record.riskClass) && WRITE_TOOLS.has(call.tool) ? record.targets.domains.filter((d) => !task.floorWriteDomains.includes(d)) : [];
    if (newDomains.length > 0) task.floorWriteDomains = [...task.floorWriteDomains, ...newDomains];
    const save = counted || newDomains.length > 0 ? task : null;
    if (save !== null || entry !== null) await this.commit(save, entry);
    if (newDomains.length > 0) await this.applyFloor();
  }

  // ---- ASK_USER ------------------------------------------------------------------------------

  private ask(task: ActiveTask, record: DecisionRecord, call: ToolCall, ctx: DecisionContext, screened?: Screened): Promise<Verdict> {
    const key = approvalKeyOf(record);
    let approval = [...this.approvals.values()].find((a) => a.deltaKey === key && a.taskId === task.taskId);
    if (approval === undefined) {
      const now = this.deps.effects.now();
      const summary = summarizeCall(call);
      approval = {
        id: this.deps.effects.newId(),
        taskId: task.taskId,
        deltaKey: key,
        record: redactRecord(record),
        destination: summary.destination ?? record.targets.domains.join(', '),
        dataView: dataViewOf(call),
        ...(screened !== undefined ? { minimizable: screened.minimized !== null } : {}),
        createdAt: now,
        expiresAt: now + this.options.askTimeoutSeconds * 1000,
        tabId: ctx.tabId,
      };
      this.approvals.set(approval.id, approval);
      this.write(() => this.deps.store.putApproval(approval!));
      this.armTimer(approval);
      this.deps.effects.setBadge(this.approvals.size);
      this.deps.effects.notify(approval);
    }
    const id = approval.id;
    return new Promise<Verdict>((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push({ call, ctx, resolve, ...(screened !== undefined ? { screened } : {}) });
      this.waiters.set(id, list);
    });
  }

  private armTimer(approval: StoredApproval): void {
    const ms = Math.max(0, approval.expiresAt - this.deps.effects.now());
    this.timers.set(
      approval.id,
      this.deps.effects.setTimer(() => void this.settleTimeout(approval.id), ms),
    );
  }

  private takeApproval(id: string): { approval: StoredApproval; waiters: Waiter[] } | null {
    const approval = this.approvals.get(id);
    if (approval === undefined) return null;
    this.approvals.delete(id);
    this.timers.get(id)?.();
    this.timers.delete(id);
    const waiters = this.waiters.get(id) ?? [];
    this.waiters.delete(id);
    this.write(() => this.deps.store.deleteApproval(id));
    this.deps.effects.setBadge(this.approvals.size);
    return { approval, waiters };
  }

  private async settleTimeout(id: string): Promise<void> {
    const taken = this.takeApproval(id);
    if (taken === null) return;
    const reason = `waited ${this.options.askTimeoutSeconds} s for the user's approval, no answer (${taken.approval.record.reason})`;
    await this.audit({ record: { ...taken.approval.record, decision: 'BLOCK', reason }, answer: 'timeout', layer: 'guard', destination: taken.approval.destination });
    for (const w of taken.waiters) w.resolve({ decision: 'BLOCK', check: taken.approval.record.check, reason, askedUser: false });
  }

  /** The person's answer. Once/task become a grant for exactly this call's tool and targets. */
  async answerApproval(id: string, scope: ApprovalAnswerKind): Promise<{ ok: true } | ErrorResponse> {
    const task = this.task;
    const taken = this.takeApproval(id);
    if (taken === null || task === null || taken.approval.taskId !== task.taskId) return error('not-found', 'No such pending approval (answered, timed out or the task ended).');
    const { approval, waiters } = taken;
    if (approval.record.check === 'minimizer' && scope !== 'deny') {
      // Data, not authority: no grant. "Allow" answers from the harness or an older popup mean "send as is".
      const minimizer: MinimizerAnswer = scope === 'send-without' && approval.minimizable === true ? 'send-without' : 'send-as-is';
      await this.audit({ record: { ...approval.record, decision: 'ALLOW', reason: minimizer === 'send-without' ? 'the user chose to send it without the flagged data' : 'the user chose to send it as is' }, answer: minimizer, layer: 'guard', destination: approval.destination });
      for (const w of waiters) this.redecide(task, w, minimizer);
      return { ok: true };
    }
    if (scope === 'send-without' || scope === 'send-as-is') return error('invalid-message', 'That answer applies only to an action the Minimizer held.');
    // On a site the organisation always asks about, an approval covers this one action only.
    if (approval.record.check === 'org_floor' && scope === 'task') scope = 'once';
    if (scope === 'deny') {
      const reason = 'denied by the user';
      await this.audit({ record: { ...approval.record, decision: 'BLOCK', reason }, answer: 'deny', layer: 'guard', destination: approval.destination });
      for (const w of waiters) w.resolve({ decision: 'BLOCK', check: approval.record.check, reason, askedUser: true });
      return { ok: true };
    }
    const now = this.deps.effects.now();
    const grant = grantFor(task.taskId, approval.record.tool, classificationOf(approval.record), scope, now);
    // "Allow once" again for the same delta adds exactly one more use to the same derived grant.
    if (grant.maxCalls !== null) grant.maxCalls = (task.state.grantCalls[grant.id] ?? 0) + 1;
    task.policy = { ...task.policy, grants: [...task.policy.grants.filter((g) => g.id !== grant.id), grant] };
    await this.saveTask(task);
    await this.applyFloor();
    await this.audit({
      record: { ...approval.record, decision: 'ALLOW', check: 'grants', reason: `approved by the user (${scope === 'once' ? 'once' : 'for this task'})`, ruleRef: `grant:${grant.id}` },
      answer: scope,
      layer: 'guard',
      destination: approval.destination,
    });
    for (const w of waiters) this.redecide(task, w);
    return { ok: true };
  }

  /** A held call after an answer: decided again under the new grant (it may ask again if the grant is used up). */
  private redecide(task: ActiveTask, waiter: Waiter, minimizer: MinimizerAnswer | null = null): void {
    if (this.task !== task) {
      waiter.resolve({ decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: true });
      return;
    }
    const evaluated = this.evaluateNow(task, waiter.call, minimizer, waiter.screened?.findings);
    const { record, counted } = evaluated;
    if (record.decision === 'ASK_USER') {
      void this.ask(task, record, waiter.call, waiter.ctx, evaluated.screened).then(waiter.resolve);
      return;
    }
    const settle = record.decision === 'ALLOW' ? this.afterAllow(task, record, waiter.call, counted, null) : this.audit({ record, layer: waiter.ctx.layer, ...summarizeCall(waiter.call), ...ctxWhere(waiter.ctx) });
    void settle.then(() => waiter.resolve({ decision: record.decision as Verdict['decision'], check: record.check, reason: record.reason, askedUser: true, ...rewriteOf(evaluated) }));
  }

  // ---- page messages (popup, options, control window) ----------------------------------------

  private maskedOptions(): { ok: true; options: Options } {
    return { ok: true, options: { ...this.userOptions, apiKey: this.userOptions.apiKey === '' ? '' : MASKED_KEY } };
  }

  private compileOptions(options: Options, taskId: string) {
    return { backend: options.backend, baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, now: this.deps.effects.now(), taskId };
  }

  async startTask(request: string, sender: MessageSender): Promise<TaskStateResponse | ErrorResponse> {
    const taskId = this.deps.effects.newId();
    let compiled;
    try {
      compiled = await this.deps.compiler.compileTask(request, this.compileOptions(this.options, taskId));
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
    await this.installTask(taskId, request, compiled.policy, compiled.report);
    return this.stateResponse(sender);
  }

  /** Replace the active task (the previous one ends: its held actions are BLOCKed). */
  async installTask(taskId: string, request: string, policy: TaskPolicy, report: ActiveTask['report']): Promise<void> {
    await this.endTask();
    if (this.notice !== null) {
      this.notice = null;
      await this.write(() => this.deps.store.putNotice(null));
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
    this.task = task;
    await this.saveTask(task);
    await this.applyFloor();
  }

  private async followUp(text: string, sender: MessageSender): Promise<TaskStateResponse | ErrorResponse> {
    const task = this.task;
    if (task === null) return error('no-task', 'No task is running.');
    let compiled;
    try {
      compiled = await this.deps.compiler.compileFollowUp(task.policy, text, this.compileOptions(this.options, task.taskId));
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
    if (this.task !== task) return error('no-task', 'The task ended while the follow-up was compiled.');
    // Approvals the person gave stay: a follow-up never silently revokes or widens a grant.
    const kept = task.policy.grants.filter((g) => !compiled.policy.grants.some((n) => n.id === g.id));
    task.policy = { ...compiled.policy, grants: [...compiled.policy.grants, ...kept] };
    task.report = compiled.report;
    task.followUps = [...task.followUps, text];
    await this.saveTask(task);
    await this.applyFloor();
    return this.stateResponse(sender);
  }

  async endTask(): Promise<void> {
    const ended = this.task;
    if (ended === null) return;
    this.task = null;
    for (const id of [...this.approvals.keys()]) {
      const taken = this.takeApproval(id);
      for (const w of taken?.waiters ?? []) w.resolve({ decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: false });
    }
    await this.write(() => this.deps.store.clearTask());
    await this.applyFloor();
  }

  private async testOptions(options: Options): Promise<Reply<'options.test'>> {
    try {
      const { report } = await this.deps.compiler.compileTask('Open example.test and read the front page.', this.compileOptions(options, 'options-test'));
      if (report.fallbackReason !== null) return error('compile-failed', maskSecrets(report.fallbackReason));
      return { ok: true, message: `Compiled a test request with ${report.backend} in ${Math.round(report.durationMs)} ms.` };
    } catch (err) {
      return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
    }
  }

  stateResponse(sender: MessageSender): TaskStateResponse {
    const task = this.task;
    const view: TaskView | null =
      task === null
        ? null
        : { taskId: task.taskId, startedAt: task.startedAt, policy: task.policy, report: task.report, turns: 1 + task.followUps.length, request: task.request, followUps: task.followUps };
    return { ok: true, task: view, pending: [...this.approvals.values()].map(toPendingView), approvalsAllowed: this.isControlSender(sender), org: orgLimitsInWords(this.org), ...(this.notice !== null ? { notice: this.notice } : {}) };
  }

  // ---- browser events (wired in index.ts) ----------------------------------------------------

  /** A tab opened by a task tab (link target, window.open) joins the task's scope. */
  async tabOpened(tabId: number, openerTabId: number | undefined): Promise<void> {
    await this.ready;
    const task = this.task;
    if (task === null || openerTabId === undefined || !task.taskTabIds.includes(openerTabId) || task.taskTabIds.includes(tabId)) return;
    task.taskTabIds = [...task.taskTabIds, tabId];
    await this.saveTask(task);
    if (this.options.guardScope === 'task-tabs') await this.applyFloor();
  }

  expectControlWindow(opening: Promise<number>): void {
    this.controlWindowOpening = opening.then((id) => this.controlWindows.add(id)).catch(() => undefined);
  }

  async registerControlWindow(windowId: number): Promise<void> {
    await this.ready;
    this.controlWindows.add(windowId);
    await this.write(() => this.deps.store.putControlWindows([...this.controlWindows]));
    await this.applyFloor();
  }

  async windowClosed(windowId: number): Promise<void> {
    await this.ready;
    if (!this.controlWindows.delete(windowId)) return;
    await this.write(() => this.deps.store.putControlWindows([...this.controlWindows]));
  }

  /** A guard or the floor stopped something: audit it under the active task. */
  async auditGuard(record: DecisionRecord, extra: Partial<StoredAuditEntry> = {}): Promise<void> {
    await this.ready;
    await this.audit({ record, layer: 'guard', ...extra });
  }

  /**
   * Why the network floor refused a top-level navigation in a guarded tab (the rule that matched is not
   * reported by DNR): the evaluator's own view of the same navigation, computed without counting it.
   * When the evaluator would let the page be read, the floor refused something else about the request.
   */
  floorNavigationVerdict(url: string): { check: string; reason: string } {
    const task = this.task;
    if (task === null) return { check: 'domain_allowlist', reason: 'the task does not name this site' };
    const { record } = this.deps.evaluate(task.policy, task.state, { tool: BROWSER_TOOLS.navigate, args: { url } }, this.deps.effects.now(), floorOf(this.org));
    if (record.decision !== 'ALLOW') return { check: record.check, reason: record.reason };
    return { check: 'domain_allowlist', reason: 'data sent to a site the task does not allow writes to, or a download the task does not allow' };
  }

  /** The page a blocked navigation lands on: the floor's decision, audited once per landing. */
  async auditFloorBlock(blockedUrl: string, check: string, reason: string, tabId: number): Promise<void> {
    await this.ready;
    const domain = registrableDomain(blockedUrl);
    const parsedCheck = CheckSchema.safeParse(check);
    const record: DecisionRecord = {
      decision: 'BLOCK',
      check: parsedCheck.success ? parsedCheck.data : 'domain_allowlist',
      reason: reason.slice(0, 300),
      tool: BROWSER_TOOLS.navigate,
      capability: 'web.navigate',
      riskClass: 'READ',
      targets: { recipients: [], domains: domain === null ? [] : [domain], paths: [], items: [] },
      ruleRef: 'builtin:network-floor',
    };
    await this.audit({ record, layer: 'network', destination: redactUrl(blockedUrl), tabId });
  }

  /** For tests and the harness: the durable view of the monitor's memory. */
  snapshot(): { task: ActiveTask | null; approvals: StoredApproval[]; controlWindows: number[]; options: Options } {
    return { task: this.task, approvals: [...this.approvals.values()], controlWindows: [...this.controlWindows], options: this.options };
  }

  // ---- persistence ---------------------------------------------------------------------------

  /** Writes run one after another, in the order they were issued. */
  private write(op: () => Promise<void>): Promise<void> {
    const next = this.writes.then(op, op);
    this.writes = next.catch(() => undefined);
    return next;
  }

  private saveTask(task: ActiveTask): Promise<void> {
    return this.commit(task, null);
  }

  /** The task (unless it has ended meanwhile) and an audit entry, written in one transaction, in order. */
  private commit(task: ActiveTask | null, entry: AuditInput | null): Promise<void> {
    const full = entry === null ? null : this.auditEntry(entry);
    const written = this.write(() => this.deps.store.commitDecision(task !== null && this.task === task ? task : null, full));
    // Shipping to the organisation's collector starts after the commit and is never awaited here.
    return full === null ? written : written.then(() => this.deps.effects.audited?.());
  }

  private applyFloor(): Promise<void> {
    return this.deps.effects.applyFloor(this.task, this.options, [...this.controlWindows], floorOf(this.org));
  }

  private audit(entry: AuditInput): Promise<void> {
    return this.commit(null, entry);
  }

  private auditEntry(entry: AuditInput): StoredAuditEntry {
    return { ...entry, record: redactRecord(entry.record), at: this.deps.effects.now(), taskId: this.task?.taskId ?? null };
  }
}

type AuditInput = Omit<StoredAuditEntry, 'at' | 'taskId'>;

function ctxWhere(ctx: DecisionContext): Pick<StoredAuditEntry, 'tabId' | 'origin'> {
  return { ...(ctx.tabId !== null ? { tabId: ctx.tabId } : {}), ...(ctx.origin !== null ? { origin: ctx.origin } : {}) };
}

function idOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' && id.length >= 1 && id.length <= 64 ? id : null;
}

function answer(id: string, verdict: Verdict): ProposalAnswer {
  return { id, decision: verdict.decision, check: verdict.check, reason: verdict.reason, askedUser: verdict.askedUser, ...(verdict.rewrite !== undefined ? { rewrite: verdict.rewrite } : {}) };
}

/** The rewrite an ALLOW carries when the Minimizer sent the action without the flagged data. */
function rewriteOf(evaluated: Evaluated): Pick<Verdict, 'rewrite'> {
  const rewrite = evaluated.record.decision === 'ALLOW' ? evaluated.screened?.minimized?.rewrite : undefined;
  return rewrite !== undefined ? { rewrite } : {};
}

function toAuditEntry(entry: StoredAuditEntry): AuditEntry {
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

function toPendingView(a: StoredApproval): PendingApproval {
  return {
    id: a.id,
    tool: a.record.tool,
    capability: a.record.capability,
    riskClass: a.record.riskClass,
    targets: a.record.targets,
    destination: a.destination,
    check: a.record.check,
    reason: a.record.reason,
    ...(a.record.ruleRef !== undefined ? { ruleRef: a.record.ruleRef } : {}),
    ...(a.record.classifierLayer !== undefined ? { classifierLayer: a.record.classifierLayer } : {}),
    ...(a.record.basis !== undefined ? { basis: a.record.basis } : {}),
    dataView: a.dataView,
    ...(a.minimizable !== undefined ? { minimizable: a.minimizable } : {}),
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
  };
}
