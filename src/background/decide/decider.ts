import type { RequestKind, ToolCall } from '../../core/call';
import { BROWSER_TOOLS } from '../../core/call';
import { classifyWeb } from '../../core/classifier';
import { CheckSchema, type DecisionRecord } from '../../core/decision';
import { siteKeyOf } from '../../core/addresses';
import { hostOf, registrableDomain } from '../../core/domains';
import type { EvalResult } from '../../core/evaluator';
import { isConsequential } from '../../core/risk';
import type { TaintReport } from '../../messages/protocol';
import { urlCarriesTaint } from '../../taint/encode';
import { KIND_WORDS, mergeTaint, spillOver } from '../../taint/tokens';
import { floorOf } from '../../org/managed';
import type { Finding } from '../../minimizer/detect';
import type { DecisionContext, MessageSender, MonitorDeps, Verdict } from '../contracts';
import { DependencyAccounts, ledgerJudges, withNamedPort, withRefusal, type LedgerRefusal } from '../floor/dependency-floor';
import { isNamedHost, namedSites, writeSites } from '../floor/dnr';
import { ctxWhere, type AuditInput, type AuditWriter } from '../task/audit';
import type { TaskSession } from '../task/session';
import type { ActiveTask } from '../task/store';
import { MAX_PENDING_PER_TAB, type ApprovalQueue, type Waiter } from './approvals';
import { isScreened, modelActionOf, screenAllowed, userWordsOf, type MinimizerAnswer, type Screened } from './minimize';
import { maskSecrets, redactUrl, summarizeCall } from './redact';

/**
 * The decider: a proposal's way once intake has parsed it (intake/router.ts) — the data lane's taint, the
 * Minimizer's model mode, then the core evaluator, then the approval queue or the audit. The evaluation
 * and the counter update are one synchronous step (no await between reading σ and writing σ' to memory),
 * so 50 parallel calls against max_calls = 3 allow exactly 3; an ALLOW is answered only once σ' is
 * durable. It also says why the network floor refused what no hook decided (the same taint and
 * evaluation, without counting).
 *
 * No task running: the extension is not guarding and must not get in the way of normal browsing, so
 * proposals are ALLOWed (check `allowed`, reason "no task is running") and still audited.
 */

/** The outcome of the synchronous step: the record, whether σ changed, and the Minimizer's rewrite if any. */
interface Evaluated {
  record: DecisionRecord;
  counted: boolean;
  /** Set when the Minimizer held the action (record is ASK_USER) or sent it without the flagged data. */
  screened?: Screened;
}

/** Tools whose ALLOW opens the network floor for data-bearing requests to the call's domains. */
const WRITE_TOOLS: ReadonlySet<string> = new Set([BROWSER_TOOLS.request, BROWSER_TOOLS.formSubmit, BROWSER_TOOLS.upload]);

/**
 * How long taint reports are gathered before the floor is rebuilt: a page's collector reports in bursts, and
 * one rebuild per burst keeps DNR updates off every report. Hooked loads do not wait on it (the frame reports
 * ahead of each proposal); loads the hooks do not see race it (docs/limits-floor.md).
 */
const TAINT_FLOOR_DELAY_MS = 50;
/** Tools whose URL the taint check reads. */
const TAINT_CHECKED_TOOLS: ReadonlySet<string> = new Set([BROWSER_TOOLS.request, BROWSER_TOOLS.navigate, BROWSER_TOOLS.formSubmit]);
/**
 * How long a used-up grant's allow rule outlives its last use: the approved request leaves the page (or
 * the blocked page's navigation starts) within this window; then the floor is applied without it.
 */
export const GRANT_FLOOR_WINDOW_MS = 2_000;

/** What the decider reads and writes: the session's task and options, the queue, the one write chain. */
export interface DeciderDeps extends Pick<MonitorDeps, 'effects' | 'evaluate' | 'minimizerModel'> {
  session: Pick<TaskSession, 'task' | 'options' | 'orgState' | 'isGuarded' | 'applyFloor'>;
  approvals: Pick<ApprovalQueue, 'crowded' | 'hold'>;
  writer: AuditWriter;
}

export class Decider {
  /** The running task's dependency ledger (its counts and refusals are kept with the task). */
  private readonly dependencies = new DependencyAccounts();
  /** A save of the ledger's counts is queued and has not copied them yet (one save serves every charge before it). */
  private countsQueued = false;
  private readonly writer: AuditWriter;
  private readonly session: DeciderDeps['session'];
  private readonly approvals: DeciderDeps['approvals'];

  constructor(private readonly deps: DeciderDeps) {
    this.writer = deps.writer;
    this.session = deps.session;
    this.approvals = deps.approvals;
  }

  /** A proposal from a tab no task guards (or while no task runs): allowed and audited. */
  async notGuarding(call: ToolCall, ctx: DecisionContext): Promise<Verdict> {
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
    // An element load the evaluator asked about as a read off the task's sites, or allowed on a host the floor
    // does not count as named (a sibling of the named host: the evaluator reads sites by registrable domain,
    // the floor by the host the user named): the ledger's, before it leaves — the narrower of the two holds.
    const dependency = (record.decision === 'ASK_USER' && record.check === 'domain_allowlist') || record.decision === 'ALLOW' ? this.dependencyLoad(task, call, ctx) : null;
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
   * to bound (src/background/floor/dependency-floor.ts), the same with the hooks and without them.
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
   * under the sender's site, the floor rebuilt (coalesced) and the task persisted.
   */
  async taintReport(message: TaintReport, sender: MessageSender): Promise<{ ok: true; kept: number }> {
    const task = this.session.task;
    // Kept under the host that showed it: what news.example.test showed may go back there, not to its sibling hosts.
    const site = sender.url === undefined ? null : hostOf(sender.url);
    if (task === null || site === null || sender.tab?.id === undefined || !this.session.isGuarded(sender.tab.id, sender.tab.windowId)) return { ok: true, kept: 0 };
    const before = task.taint ?? [];
    const incoming = message.tokens.map((t) => ({ ...t, site }));
    const merged = mergeTaint(before, incoming);
    const overflowBefore = task.taintOverflow ?? [];
    const overflow = spillOver(merged, overflowBefore, [...before, ...incoming]);
    if (JSON.stringify(merged) !== JSON.stringify(before) || overflow.length !== overflowBefore.length || overflow.some((t, i) => t !== overflowBefore[i])) {
      task.taint = merged;
      task.taintOverflow = overflow;
      // The floor first: it is built from memory, and a load may follow the report at once.
      this.applyFloorSoon();
      await this.writer.saveTask(task);
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
    const dry = this.evaluate(task, call).record;
    if (dry.decision !== 'ALLOW' || !isScreened(call, dry)) return [];
    const result = await model(userWordsOf(task), modelActionOf(call, dry), this.session.options);
    if ('findings' in result) return result.findings;
    await this.writer.audit({ record: { ...dry, check: 'minimizer', reason: `the Minimizer's model failed (${maskSecrets(result.error)}); the deterministic check decides` }, layer: 'guard' });
    return [];
  }

  /**
   * The core evaluator on σ as it is now. Intake parsed the call once with the protocol's strict schemas
   * (and the background's own calls are typed), so it is classified here and never parsed again.
   */
  private evaluate(task: ActiveTask, call: ToolCall): EvalResult {
    return this.deps.evaluate(task.policy, task.state, call, classifyWeb(call), this.deps.effects.now(), floorOf(this.session.orgState));
  }

  /**
   * The synchronous step: evaluate against σ and write σ' to memory before anything else runs. An ALLOW
   * the Minimizer holds changes nothing (it is counted when the person answers); `minimizer` is that
   * answer for a held action.
   */
  private evaluateNow(task: ActiveTask, call: ToolCall, minimizer: MinimizerAnswer | null, modelSpans: readonly Finding[] = []): Evaluated {
    const { record, state } = this.evaluate(task, call);
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
  redecide(task: ActiveTask, waiter: Waiter, minimizer: MinimizerAnswer | null = null): void {
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
    const { record } = this.evaluate(task, call);
    if (record.decision !== 'ALLOW') return { ...record, decision: 'BLOCK' };
    // The evaluator's reading of the action stays; its allowing rule and the words behind it do not.
    const { evidence: _allowedBy, ...read } = record;
    return { ...read, ...floorRule, reason: 'data sent to a site the task does not allow writes to, or a download the task does not allow' };
  }

  /** The page a blocked navigation lands on: the floor's decision, audited once per landing. */
  async auditFloorBlock(blockedUrl: string, check: string, reason: string, tabId: number): Promise<void> {
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
    if (this.session.task === null || !this.session.isGuarded(request.tabId)) return null;
    const record = this.floorVerdict({ tool: BROWSER_TOOLS.request, args: { url: request.url, method: request.method, kind: request.kind } });
    await this.writer.audit({ record, layer: 'network', destination: redactUrl(request.url), tabId: request.tabId });
    return record;
  }
}

/** The rewrite an ALLOW carries when the Minimizer sent the action without the flagged data. */
function rewriteOf(evaluated: Evaluated): Pick<Verdict, 'rewrite'> {
  const rewrite = evaluated.record.decision === 'ALLOW' ? evaluated.screened?.minimized?.rewrite : undefined;
  return rewrite !== undefined ? { rewrite } : {};
}
