import type { RequestKind, ToolCall } from '../core/call';
import { BROWSER_TOOLS } from '../core/call';
import { classifyWeb } from '../core/classifier';
import { CheckSchema, type DecisionRecord } from '../core/decision';
import { siteKeyOf } from '../core/addresses';
import { hostOf, registrableDomain } from '../core/domains';
import type { evaluateBrowserAction } from '../core/evaluator';
import type { TaskPolicy } from '../core/policy';
import { isConsequential } from '../core/risk';
import type { ApprovalAnswerKind, ErrorResponse, MessageType, Options, Reply, Rewrite, TaintReport } from '../messages/protocol';
import { urlCarriesTaint } from '../taint/encode';
import { KIND_WORDS, mergeTaint } from '../taint/tokens';
import { floorOf, type OrgState } from '../org/managed';
import type { OrgFloor } from '../core/org';
import type { Finding } from '../minimizer/detect';
import type { ModelAction, ModelResult } from '../minimizer/model';
import { ApprovalQueue, MAX_PENDING_PER_TAB, type Waiter } from './approvals';
import { AuditWriter, ctxWhere, type AuditInput } from './audit';
import type { TaskCompiler } from './compile';
import { DependencyAccounts, ledgerJudges, withNamedPort, withRefusal, type LedgerRefusal } from './dependency-floor';
import { isNamedHost, namedSites, writeSites } from './dnr';
import { isScreened, modelActionOf, screenAllowed, userWordsOf, type MinimizerAnswer, type Screened } from './minimize';
import { maskSecrets, redactUrl, summarizeCall } from './redact';
import { MessageRouter } from './router';
import { SanitizerDesk, type Reviewer } from './sanitizer';
import { TaskSession } from './session';
import type { ActiveTask, StoredApproval, StoredAuditEntry, TaskStore } from './store';

/**
 * The reference monitor of the extension, and the facade the rest of the background uses. It wires the
 * parts — the message router (`router.ts`), the task session (`session.ts`), the approval queue
 * (`approvals.ts`) and the audit writer with the one write chain (`audit.ts`) — and decides proposals:
 * the core evaluator decides, and evaluation plus counter update is one synchronous step (no await
 * between reading σ and writing σ' to memory), so 50 parallel calls against max_calls = 3 allow exactly 3.
 * Memory is rebuilt from IndexedDB on every wake.
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
  /** The sending document (Chromium), so an effect aimed at it misses a document that replaced it. */
  documentId?: string;
}

/** Browser side effects, injected so the monitor runs under unit tests without a browser. */
export interface MonitorEffects {
  now(): number;
  newId(): string;
  /** Bring the network floor in line with the task (null: remove every rule) and the organisation's floor. Resolves once applied. */
  applyFloor(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void>;
  /** applyFloor after a wake: skipped when this browser session already applied the same floor. Absent: applyFloor. */
  repairFloor?(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void>;
  setBadge(pendingCount: number): void;
  notify(approval: StoredApproval): void;
  /** The tab the user is looking at when a task starts: the task's tab for guard scope `task-tabs`. */
  activeTabId(controlWindows: readonly number[]): Promise<number | null>;
  /** Every open tab, when a task starts: the others are outside it for guard scope `task-tabs`. */
  openTabIds(): Promise<number[]>;
  setTimer(fn: () => void, ms: number): () => void;
  /** Open the options page in a window the extension owns, so it may change options. */
  openOptions(): Promise<void>;
  /** Open the audit log's full-page view in a window the extension owns (read only; a tab would be guarded). */
  openAuditLog(): Promise<void>;
  /** The organisation's managed policy as the browser gives it (`storage.managed.get()`); absent: none. */
  readManaged?(): Promise<unknown>;
  /** An audit entry was committed (the collector ships it later, off the decision path). */
  audited?(): void;
  /** Inserts a user-origin stylesheet into one frame's document (the Sanitizer's generated-content rules). */
  insertUserCss?(target: { tabId: number; frameId: number; documentId?: string }, css: string): Promise<void>;
}

export interface MonitorDeps {
  store: TaskStore;
  effects: MonitorEffects;
  evaluate: typeof evaluateBrowserAction;
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
/** A wake that no message follows (an alarm, the browser starting) repairs after this long. */
const WAKE_REPAIR_DELAY_MS = 200;
/** How long taint reports are gathered before the floor is rebuilt. */
const TAINT_FLOOR_DELAY_MS = 50;
/**
 * How long a used-up grant's allow rule outlives its last use: the approved request leaves the page (or
 * the blocked page's navigation starts) within this window; then the floor is applied without it.
 */
export const GRANT_FLOOR_WINDOW_MS = 2_000;

export class Monitor {
  readonly ready: Promise<void>;
  private readonly writer: AuditWriter;
  /** The running task's dependency ledger (its counts and refusals are kept with the task). */
  private readonly dependencies = new DependencyAccounts();
  /** A save of the ledger's counts is queued and has not copied them yet (one save serves every charge before it). */
  private countsQueued = false;
  private readonly approvals: ApprovalQueue;
  private readonly session: TaskSession;
  private readonly router: MessageRouter;

  constructor(private readonly deps: MonitorDeps) {
    this.writer = new AuditWriter(deps.store, deps.effects, () => this.session.task);
    this.approvals = new ApprovalQueue(deps.store, deps.effects, this.writer, {
      task: () => this.session.task,
      options: () => this.session.options,
      applyFloor: () => this.session.applyFloor(),
      redecide: (task, waiter, minimizer) => this.redecide(task, waiter, minimizer),
    });
    this.session = new TaskSession(deps, this.writer, this.approvals);
    this.ready = this.session.load();
    // A wake's repairs follow its first answer, or a moment after the wake when nothing asks.
    void this.ready.then(() => deps.effects.setTimer(() => void this.repairAfterWake(), WAKE_REPAIR_DELAY_MS)).catch(() => undefined);
    const sanitizer = new SanitizerDesk(
      {
        modeFor: (sender) => (this.session.isGuarded(sender.tab?.id, sender.tab?.windowId) && sender.tab?.id !== undefined ? this.session.options.sanitizer : 'off'),
        task: () => this.session.task,
        options: () => this.session.options,
        audit: (record, where) => this.writer.audit({ record, layer: 'isolated', ...where }),
        insertUserCss: (target, css) => deps.effects.insertUserCss?.(target, css) ?? Promise.resolve(),
      },
      deps.reviewer,
    );
    this.router = new MessageRouter({
      ready: this.ready,
      base: deps,
      writer: this.writer,
      session: this.session,
      approvals: this.approvals,
      sanitizer,
      decisions: {
        decide: (call, ctx) => this.decide(call, ctx),
        notGuarding: (call, ctx) => this.notGuarding(call, ctx),
        taintReport: (message, sender) => this.onTaintReport(message, sender),
      },
    });
  }

  /** Total: every input gets an answer; nothing here throws. */
  handleMessage(raw: unknown, sender: MessageSender): Promise<Reply<MessageType>> {
    const answer = this.router.handleMessage(raw, sender);
    if (this.wakeRepair === null) void answer.then(() => this.repairAfterWake());
    return answer;
  }

  /**
   * The repairs a wake owes (session.repairAfterWake), once per worker, off the path of the first decision:
   * on a cold start the first answer does not wait for them, nor share the browser with them.
   */
  private wakeRepair: Promise<void> | null = null;
  repairAfterWake(): Promise<void> {
    this.wakeRepair ??= this.ready.then(() => this.session.repairAfterWake()).catch((err: unknown) => console.error('AgentsFence: repair after wake failed', err));
    return this.wakeRepair;
  }

  /** `storage.onChanged` in the managed area: read it again and apply the new floor at once. */
  async orgChanged(): Promise<void> {
    await this.ready;
    await this.session.orgChanged();
  }

  /** The organisation's state (the collector reads its URL from here). */
  orgState(): OrgState {
    return this.session.orgState;
  }

  /** Whether actions in this tab are checked. A sender without a tab is checked whenever a task runs (fail closed). */
  isGuarded(tabId: number | null | undefined, windowId?: number): boolean {
    return this.session.isGuarded(tabId, windowId);
  }

  /** Replace the active task (the previous one ends: its held actions are BLOCKed). */
  installTask(taskId: string, request: string, policy: TaskPolicy, report: ActiveTask['report']): Promise<void> {
    return this.session.installTask(taskId, request, policy, report);
  }

  endTask(): Promise<void> {
    return this.session.endTask();
  }

  /** The person's answer. Once/task become a grant for exactly this call's tool and targets. */
  answerApproval(id: string, scope: ApprovalAnswerKind): Promise<{ ok: true } | ErrorResponse> {
    return this.approvals.answer(id, scope);
  }

  // ---- proposals -----------------------------------------------------------------------------

  private async notGuarding(call: ToolCall, ctx: DecisionContext): Promise<Verdict> {
    const c = classifyWeb(call);
    const reason = this.session.task === null ? 'no task is running: not guarding' : 'this tab is outside the guard scope';
    const record: DecisionRecord = { decision: 'ALLOW', check: 'allowed', reason, tool: call.tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef: 'builtin:not-guarding', classifierLayer: c.layer, basis: c.basis };
    await this.writer.audit({ record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
    return { decision: 'ALLOW', check: 'allowed', reason, askedUser: false };
  }

  /**
   * Decide one call for the active task. The evaluation and the counter update happen in one
   * synchronous step; persistence follows, and an ALLOW is answered only once σ' is durable.
   */
  async decide(call: ToolCall, ctx: DecisionContext): Promise<Verdict> {
    const task = this.session.task;
    if (task === null) return this.notGuarding(call, ctx);
    const tainted = this.taintRecord(task, call);
    if (tainted !== null) {
      await this.writer.audit({ record: tainted, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
      return { decision: 'BLOCK', check: tainted.check, reason: tainted.reason, askedUser: false };
    }
    const modelSpans = await this.askMinimizerModel(task, call);
    if (this.session.task !== task) return { decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: false };
    const evaluated = this.evaluateNow(task, call, null, modelSpans);
    const record = evaluated.record;
    const dependency = record.decision === 'ASK_USER' && record.check === 'domain_allowlist' ? this.dependencyLoad(task, call, ctx) : null;
    if (dependency !== null) return this.decideDependency(task, call, ctx, record, dependency);
    if (record.decision === 'ASK_USER') {
      if (this.approvals.crowded(task, record, call, ctx)) {
        const refused: DecisionRecord = { ...record, decision: 'BLOCK', reason: `${record.reason}; not asked: ${MAX_PENDING_PER_TAB} approvals are already waiting from this tab` };
        await this.writer.audit({ record: refused, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
        return { decision: 'BLOCK', check: refused.check, reason: refused.reason, askedUser: false };
      }
      const held = this.approvals.hold(task, record, call, ctx, evaluated.screened);
      await this.writer.audit({ record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
      return held;
    }
    const entry = { record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx), ...(evaluated.screened !== undefined ? { answer: 'minimized' as const } : {}) };
    if (record.decision === 'ALLOW') await this.afterAllow(task, record, call, evaluated.counted, entry);
    else await this.writer.audit(entry);
    return { decision: record.decision, check: record.check, reason: record.reason, askedUser: false, ...rewriteOf(evaluated) };
  }

  /**
   * A page's element load (image, script, style, font, media, frame: the MAIN hooks' `browser.request`
   * GET of kind image/other/frame, no body) to a site the task does not name: the URL it would load, for
   * the dependency ledger, or null when the call is anything else. The evaluator asks about a read off the
   * task's sites; a page's dependencies are no reads of the agent's, and what they carry is the ledger's
   * to bound (src/background/dependency-floor.ts), the same with the hooks and without them.
   */
  private dependencyLoad(task: ActiveTask, call: ToolCall, ctx: DecisionContext): URL | null {
    if (ctx.layer !== 'main' || call.tool !== BROWSER_TOOLS.request) return null;
    const { method, url, kind, body } = call.args as Record<string, unknown>;
    if (typeof method !== 'string' || !['GET', 'HEAD'].includes(method.toUpperCase()) || body !== undefined) return null;
    if (kind !== 'image' && kind !== 'other' && kind !== 'frame') return null;
    if (typeof url !== 'string' || !URL.canParse(url)) return null;
    const parsed = new URL(url);
    return ledgerJudges(task, parsed) ? parsed : null;
  }

  /** A dependency load, decided by the ledger before it leaves (the hooks hold it until then). */
  private async decideDependency(task: ActiveTask, call: ToolCall, ctx: DecisionContext, asked: DecisionRecord, url: URL): Promise<Verdict> {
    const refusal = this.dependencies.charge(task, url, 'hook');
    if (refusal === null || !refusal.again) this.saveCounts(task);
    const { evidence: _evidence, ...read } = asked;
    const record: DecisionRecord =
      refusal === null
        ? { ...read, decision: 'ALLOW', check: 'allowed', reason: "a page's dependency from a site the task does not name, carrying no session data (the dependency ledger)", ruleRef: 'builtin:network-floor' }
        : { ...read, decision: 'BLOCK', check: 'exfiltration_url', reason: refusal.reason, ruleRef: refusal.tainted ? 'builtin:taint' : 'builtin:network-floor' };
    await this.writer.audit({ record, layer: ctx.layer, ...summarizeCall(call), ...ctxWhere(ctx) });
    if (refusal !== null && !refusal.again) await this.ledgerRefused(task, refusal);
    return { decision: record.decision as Verdict['decision'], check: record.check, reason: record.reason, askedUser: false };
  }

  /**
   * After a charge: the ledger's counts go into the task and the task to the store, on the one write chain,
   * coalesced (a burst of requests is one or two writes, not one each). A worker restart then keeps every
   * budget and stream but the charges of the write in flight.
   */
  private saveCounts(task: ActiveTask): void {
    if (this.countsQueued) return;
    this.countsQueued = true;
    void this.writer.write(async () => {
      this.countsQueued = false;
      if (this.session.task === task) this.dependencies.keepCounts(task);
    });
    void this.writer.saveTask(task).catch(() => undefined);
  }

  /** A refusal of the ledger: kept with the task, then the floor refuses the site. */
  private async ledgerRefused(task: ActiveTask, refusal: LedgerRefusal): Promise<void> {
    withRefusal(task, refusal);
    await this.writer.saveTask(task);
    await this.session.applyFloor();
  }

  /**
   * Every request of a guarded tab or worker as the browser starts it (webRequest.onBeforeRequest, after it
   * left: the floor's rules have already judged it): charged to the ledger when it goes to a site the task
   * does not name; a top-level navigation to a named site on a port of its own adds that port to the ports
   * the floor lets dependencies use (dnr.ts, portRules).
   */
  async observeRequest(request: { url: string; type: string; tabId: number }): Promise<void> {
    await this.ready;
    const task = this.session.task;
    if (task === null || (request.tabId >= 0 && !this.session.isGuarded(request.tabId)) || !URL.canParse(request.url)) return;
    const url = new URL(request.url);
    if (request.type === 'main_frame') {
      if (task.policy.domains !== null && !ledgerJudges(task, url) && withNamedPort(task, url)) {
        await this.writer.saveTask(task);
        await this.session.applyFloor();
      }
      return;
    }
    if (!ledgerJudges(task, url)) return;
    const refusal = this.dependencies.charge(task, url, 'network');
    if (refusal === null || !refusal.again) this.saveCounts(task);
    if (refusal === null || refusal.again) return;
    const c = classifyWeb({ tool: BROWSER_TOOLS.request, args: { url: request.url, method: 'GET', kind: 'other' } });
    const record: DecisionRecord = { decision: 'BLOCK', check: 'exfiltration_url', reason: `${refusal.reason}; refused from now on`, tool: BROWSER_TOOLS.request, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef: refusal.tainted ? 'builtin:taint' : 'builtin:network-floor', classifierLayer: c.layer, basis: c.basis };
    await this.writer.audit({ record, layer: 'network', destination: redactUrl(request.url), tabId: request.tabId });
    await this.ledgerRefused(task, refusal);
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
    // The host, not its registrable domain: a task naming news.example.test does not name uploads.example.test.
    const host = hostOf(url);
    if (host !== null && isNamedHost(host, namedSites({ policy: task.policy, floorWriteDomains: task.floorWriteDomains }))) return null;
    const token = urlCarriesTaint(url, task.taint, host);
    if (token === null) return null;
    const c = classifyWeb(call);
    const reason = `the URL carries ${KIND_WORDS[token.kind]} to a site the task does not name`;
    return { decision: 'BLOCK', check: 'exfiltration_url', reason, tool: call.tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef: 'builtin:taint', classifierLayer: c.layer, basis: c.basis };
  }

  /**
   * A batch of session data from a guarded page (ISOLATED content script). Merged into the task's taint
   * under the sender's site, persisted with the task, then the floor is rebuilt (coalesced).
   */
  private async onTaintReport(message: TaintReport, sender: MessageSender): Promise<{ ok: true; kept: number }> {
    const task = this.session.task;
    // Kept under the host that showed it: what news.example.test showed may go back there, not to its sibling hosts.
    const site = sender.url === undefined ? null : hostOf(sender.url);
    if (task === null || site === null || sender.tab?.id === undefined || !this.session.isGuarded(sender.tab.id, sender.tab.windowId)) return { ok: true, kept: 0 };
    const before = task.taint ?? [];
    const merged = mergeTaint(before, message.tokens.map((t) => ({ ...t, site })));
    if (JSON.stringify(merged) !== JSON.stringify(before)) {
      task.taint = merged;
      await this.writer.saveTask(task);
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
      return this.session.applyFloor();
    });
  }

  /**
   * The model mode's spans for an action the evaluator would allow (a dry run: evaluation is pure, nothing
   * is counted). Any failure leaves the deterministic detector alone, and is audited.
   */
  private async askMinimizerModel(task: ActiveTask, call: ToolCall): Promise<Finding[]> {
    const model = this.deps.minimizerModel;
    if (this.session.options.minimizer !== 'model' || model === undefined) return [];
    const dry = this.deps.evaluate(task.policy, task.state, call, this.deps.effects.now(), floorOf(this.session.orgState)).record;
    if (dry.decision !== 'ALLOW' || !isScreened(call, dry)) return [];
    const result = await model(userWordsOf(task), modelActionOf(call, dry), this.session.options);
    if ('findings' in result) return result.findings;
    await this.writer.audit({ record: { ...dry, check: 'minimizer', reason: `the Minimizer's model failed (${maskSecrets(result.error)}); the deterministic check decides` }, layer: 'guard' });
    return [];
  }

  /**
   * The synchronous step: evaluate against σ and write σ' to memory before anything else runs. An ALLOW
   * the Minimizer holds changes nothing (it is counted when the person answers); `minimizer` is that
   * answer for a held action.
   */
  private evaluateNow(task: ActiveTask, call: ToolCall, minimizer: MinimizerAnswer | null, modelSpans: readonly Finding[] = []): Evaluated {
    const { record, state } = this.deps.evaluate(task.policy, task.state, call, this.deps.effects.now(), floorOf(this.session.orgState));
    const screened = record.decision === 'ALLOW' && this.session.options.minimizer !== 'off' && minimizer !== 'send-as-is' ? screenAllowed(task, call, record, modelSpans) : null;
    if (screened !== null) {
      const automatic = minimizer === 'send-without' || (this.session.options.minimizeWithoutAsking && screened.minimized !== null);
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
    // A grant's site is opened by the grant's own rule while the grant has uses left, never made a write
    // site for the rest of the task.
    const byGrant = record.check === 'grants';
    // The host the write went to, not its registrable domain: a write allowed on news.example.test makes
    // that host a write site, not its sibling uploads.example.test (the floor is scoped to hosts).
    const host = typeof call.args.url === 'string' ? hostOf(call.args.url) : null;
    const reached = (d: string) => (host !== null && registrableDomain(host) === d ? host : d);
    const newDomains =
      !byGrant && isConsequential(record.riskClass) && WRITE_TOOLS.has(call.tool) ? [...new Set(record.targets.domains.map(reached))].filter((d) => !task.floorWriteDomains.includes(d)) : [];
    // The floor changes only for a site that is not a write site yet (a policy that lists writes makes its
    // domain list write sites from the start, and every set the floor derives holds its write sites);
    // rebuilding it anyway put ~10 ms of worker time before the page's first write in every task.
    const writesBefore = writeSites({ policy: task.policy, floorWriteDomains: task.floorWriteDomains });
    const opensFloor = newDomains.some((d) => !writesBefore.includes(registrableDomain(d) ?? d) && !isNamedHost(d, writesBefore));
    if (newDomains.length > 0) task.floorWriteDomains = [...task.floorWriteDomains, ...newDomains];
    const save = counted || newDomains.length > 0 ? task : null;
    if (save !== null || entry !== null) await this.writer.commit(save, entry);
    if (opensFloor) await this.session.applyFloor();
    if (byGrant && this.grantUsedUp(task, record)) this.deps.effects.setTimer(() => void this.session.applyFloor().catch(() => undefined), GRANT_FLOOR_WINDOW_MS);
  }

  private grantUsedUp(task: ActiveTask, record: DecisionRecord): boolean {
    const grant = task.policy.grants.find((g) => record.ruleRef === `grant:${g.id}`);
    return grant !== undefined && grant.maxCalls !== null && (task.state.grantCalls[grant.id] ?? 0) >= grant.maxCalls;
  }

  /** A held call after an answer: decided again under the new grant (it may ask again if the grant is used up). */
  private redecide(task: ActiveTask, waiter: Waiter, minimizer: MinimizerAnswer | null = null): void {
    if (this.session.task !== task) {
      waiter.resolve({ decision: 'BLOCK', check: 'expiry', reason: 'the task ended', askedUser: true });
      return;
    }
    const evaluated = this.evaluateNow(task, waiter.call, minimizer, waiter.screened?.findings);
    const { record, counted } = evaluated;
    if (record.decision === 'ASK_USER') {
      void this.approvals.hold(task, record, waiter.call, waiter.ctx, evaluated.screened).then(waiter.resolve);
      return;
    }
    const settle = record.decision === 'ALLOW' ? this.afterAllow(task, record, waiter.call, counted, null) : this.writer.audit({ record, layer: waiter.ctx.layer, ...summarizeCall(waiter.call), ...ctxWhere(waiter.ctx) });
    void settle.then(() => waiter.resolve({ decision: record.decision as Verdict['decision'], check: record.check, reason: record.reason, askedUser: true, ...rewriteOf(evaluated) }));
  }

  // ---- browser events (wired in index.ts) ----------------------------------------------------

  /** A tab was created (`tabs.onCreated`): see Session.tabCreated. */
  async tabCreated(tabId: number, openerTabId: number | undefined, url: string | undefined): Promise<void> {
    await this.ready;
    await this.session.tabCreated(tabId, openerTabId, url);
  }

  /** A page opened a tab (`webNavigation.onCreatedNavigationTarget`): it belongs where its source does. */
  async navigationTargetCreated(tabId: number, sourceTabId: number): Promise<void> {
    await this.ready;
    await this.session.navigationTargetCreated(tabId, sourceTabId);
  }

  /** A tab's top frame starts a navigation (`webNavigation.onBeforeNavigate`): see Session.tabNavigating. */
  async tabNavigating(tabId: number): Promise<void> {
    await this.ready;
    await this.session.tabNavigating(tabId);
  }

  async tabClosed(tabId: number): Promise<void> {
    await this.ready;
    await this.session.tabClosed(tabId);
  }

  /** Resolves once the floor stands as the task is now (after every update already asked for). */
  async floorCurrent(): Promise<void> {
    await this.ready;
    await this.session.applyFloor();
  }

  /** The browser started: tab ids of the last session say nothing of this one's tabs. */
  async browserStarted(): Promise<void> {
    await this.ready;
    await this.session.browserStarted();
  }

  expectControlWindow(opening: Promise<number>): void {
    this.session.expectControlWindow(opening);
  }

  async registerControlWindow(windowId: number): Promise<void> {
    await this.ready;
    await this.session.registerControlWindow(windowId);
  }

  async windowClosed(windowId: number): Promise<void> {
    await this.ready;
    await this.session.windowClosed(windowId);
  }

  /** A guard or the floor stopped something: audit it under the active task. */
  async auditGuard(record: DecisionRecord, extra: Partial<StoredAuditEntry> = {}): Promise<void> {
    await this.ready;
    await this.writer.audit({ record, layer: 'guard', ...extra });
  }

  /**
   * Why the network floor refused a request before any hook decided it (DNR does not report which rule
   * matched): the taint, then the evaluator, on the same call, computed without counting it. When both
   * would let it through, the floor refused a write the task has not yet decided at that site, or a
   * download.
   */
  floorVerdict(call: ToolCall): DecisionRecord {
    const task = this.session.task;
    const floorRule = { decision: 'BLOCK', check: 'domain_allowlist', ruleRef: 'builtin:network-floor' } as const;
    if (task === null) {
      const c = classifyWeb(call);
      const read = { tool: call.tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, classifierLayer: c.layer, basis: c.basis };
      return { ...read, ...floorRule, reason: 'the task does not name this site' };
    }
    const tainted = this.taintRecord(task, call);
    if (tainted !== null) return tainted;
    const { record } = this.deps.evaluate(task.policy, task.state, call, this.deps.effects.now(), floorOf(this.session.orgState));
    if (record.decision !== 'ALLOW') return { ...record, decision: 'BLOCK' };
    // The evaluator's reading of the action stays; its allowing rule and the words behind it do not.
    const { evidence: _allowedBy, ...read } = record;
    return { ...read, ...floorRule, reason: 'data sent to a site the task does not allow writes to, or a download the task does not allow' };
  }

  /** The page a blocked navigation lands on: the floor's decision, audited once per landing. */
  async auditFloorBlock(blockedUrl: string, check: string, reason: string, tabId: number): Promise<void> {
    await this.ready;
    const domain = siteKeyOf(blockedUrl);
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
    await this.writer.audit({ record, layer: 'network', destination: redactUrl(blockedUrl), tabId });
  }

  /**
   * A guarded page's request the floor refused before any hook saw it (a dependency, a worker's or a
   * frame's request, any request once the hooks are bypassed or removed): audited with the check that
   * refuses it. Returns the record, or null when no task guards that tab.
   */
  async auditFloorRequest(request: { url: string; method: string; kind: RequestKind; tabId: number }): Promise<DecisionRecord | null> {
    await this.ready;
    if (this.session.task === null || !this.session.isGuarded(request.tabId)) return null;
    const record = this.floorVerdict({ tool: BROWSER_TOOLS.request, args: { url: request.url, method: request.method, kind: request.kind } });
    await this.writer.audit({ record, layer: 'network', destination: redactUrl(request.url), tabId: request.tabId });
    return record;
  }

  /** For tests and the harness: the durable view of the monitor's memory. */
  snapshot(): { task: ActiveTask | null; approvals: StoredApproval[]; controlWindows: number[]; options: Options } {
    return { task: this.session.task, approvals: this.approvals.list(), controlWindows: this.session.windows(), options: this.session.options };
  }
}

/** The rewrite an ALLOW carries when the Minimizer sent the action without the flagged data. */
function rewriteOf(evaluated: Evaluated): Pick<Verdict, 'rewrite'> {
  const rewrite = evaluated.record.decision === 'ALLOW' ? evaluated.screened?.minimized?.rewrite : undefined;
  return rewrite !== undefined ? { rewrite } : {};
}
