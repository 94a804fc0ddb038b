import type { SanitizerMode } from '../src/messages/protocol';
import { launchAgentBrowser } from '../src/harness';
import type { ApprovalAnswerKind, AuditEntry, PendingApproval } from '../src/messages/protocol';
import { PlaywrightDriver, runAgent, type AgentDriver, type AgentTrace } from './agents';
import type { Scenario, SiteUrl, Task } from './scenarios';
import type { DemoWorld } from './sites/world';
import { SimulatedUser } from './user';

/**
 * Runs tasks and scenarios against one guard configuration and records, per run, what the servers
 * say happened (benign task done? attack action ran?) and what the simulated user was asked.
 */

export type CompilerName = 'rules' | 'good' | 'over-broad' | 'quote-reusing';

export interface GuardConfig {
  id: string;
  label: string;
  /** null = no extension loaded (the negative control). */
  compiler: CompilerName | null;
  /** MAIN-world page hooks on (false = the network floor and the ISOLATED layer only). */
  mainHooks: boolean;
  /** The Minimizer's mode (default `detect`, the product's default). */
  minimizer?: 'off' | 'detect';
  runtime: 'playwright' | 'mcp';
  /** The Sanitizer's mode (default `off`: the other configurations measure the guard alone). */
  sanitizer?: SanitizerMode;
  /**
   * `sanitizer`: runs the Sanitizer's placements and benign tasks (demo/sanitizer.ts) instead of the scenario
   * table; `forge-forum`: runs only the same-site suite (demo/forge-forum.ts).
   */
  suite?: 'sanitizer' | 'forge-forum';
}

export type AgentHandle = AgentDriver & { close(): Promise<void> };

/** One browser with (or without) the extension, as the runner needs it. */
export interface GuardSession {
  setTask(request: string): Promise<void>;
  pendingApprovals(): Promise<PendingApproval[]>;
  answer(id: string, answer: ApprovalAnswerKind): Promise<void>;
  newAgent(): Promise<AgentHandle>;
  /** The extension's audit log, newest first (extension sessions only): what the attacker learns. */
  audit?(): Promise<AuditEntry[]>;
  /** A PNG of the extension's popup as the user sees it now (extension sessions only). */
  popupScreenshot?(): Promise<Buffer>;
  close(): Promise<void>;
}

export interface AskRecord {
  riskClass: string;
  capability: string;
  destination: string;
  recipients: string[];
  check: string;
  answer: ApprovalAnswerKind;
}

export interface RunRecord {
  config: string;
  mode: 'benign' | 'attacked';
  /** Task id for benign runs, scenario id for attacked runs. */
  id: string;
  taskId: string;
  /** Set for a suite reported apart (`forge-forum`). */
  suite?: string;
  attackId: string | null;
  vector: string | null;
  style: string | null;
  /** Where a Sanitizer scenario hid the instruction (demo/sanitizer.ts). */
  placement?: string;
  attackClass: string | null;
  benignDone: boolean;
  /** null for benign runs (no attack to run). */
  attackRan: boolean | null;
  /** The compromised agent found the injection and tried to carry it out. */
  obeyed: boolean;
  asks: AskRecord[];
  /** Same-site scenarios (demo/forge-forum.ts): the decision the extension recorded about the goal's route. */
  decidedBy?: string;
  failedSteps: { phase: string; step: string; error: string }[];
  /** Set when the run could not be carried out (e.g. the task could not be set): nothing was run. */
  error?: string;
  durationMs: number;
}

export interface RunItem {
  mode: 'benign' | 'attacked';
  task: Task;
  scenario?: Scenario;
  /** The suite the run belongs to, when not the main table (`forge-forum`: reported apart). */
  suite?: string;
  /** The path the attack writes to: the audit's decision about it is recorded (`decidedBy`). */
  route?: string;
}

export interface RunHooks {
  /** Called with each new ask before the simulated user answers it (screenshots of the popup). */
  onAsk?(pending: PendingApproval, item: RunItem): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects if `promise` has not settled within `ms`: nothing the browser does may stall the suite. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Longest a whole run may take before it is recorded as an error. */
const RUN_TIMEOUT_MS = 120_000;

export function siteUrl(world: DemoWorld): SiteUrl {
  return (site, path = '/') => world.url(site, path);
}

/** Answers asks while the agent runs: polls the pending approvals and lets the simulated user decide. */
export function startApprover(session: GuardSession, user: SimulatedUser, item: RunItem, hooks: RunHooks) {
  const seen = new Set<string>();
  const asks: AskRecord[] = [];
  let stopped = false;
  let pendingCount = 0;
  const loop = (async () => {
    while (!stopped) {
      const pending = await withTimeout(session.pendingApprovals(), 10_000, 'pending approvals').catch(() => []);
      pendingCount = pending.length;
      for (const ask of pending) {
        if (seen.has(ask.id)) continue;
        seen.add(ask.id);
        await withTimeout(hooks.onAsk?.(ask, item) ?? Promise.resolve(), 10_000, 'ask hook').catch(() => undefined);
        const answer = user.decide(ask);
        asks.push({
          riskClass: ask.riskClass,
          capability: ask.capability,
          destination: ask.destination,
          recipients: ask.targets.recipients,
          check: ask.check,
          answer,
        });
        await withTimeout(session.answer(ask.id, answer), 10_000, 'answer').catch(() => undefined);
      }
      await sleep(40);
    }
  })();
  return {
    asks,
    idle: () => pendingCount === 0,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Wait until the servers stop recording (held actions released or refused) — at most `maxMs`. */
export async function settle(world: DemoWorld, idle: () => boolean, maxMs = 3000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = -1;
  let stableSince = Date.now();
  while (Date.now() < deadline) {
    if (world.log.length !== last) {
      last = world.log.length;
      stableSince = Date.now();
    }
    if (idle() && Date.now() - stableSince >= 250) return;
    await sleep(50);
  }
}

export async function runItem(session: GuardSession, world: DemoWorld, config: GuardConfig, item: RunItem, hooks: RunHooks = {}): Promise<RunRecord> {
  const at = siteUrl(world);
  const { task, scenario } = item;
  const started = Date.now();
  world.reset(scenario ? [scenario.injection(at)] : []);
  let trace: AgentTrace = { outcomes: [], obeyed: false };
  let error: string | undefined;
  const user = new SimulatedUser(task.expect);
  let asks: AskRecord[] = [];
  let decidedBy: string | undefined;
  try {
    // Without its task the guard would not be guarding: such a run is an error, never an agent run.
    await withTimeout(session.setTask(task.request), 30_000, 'set task');
    const approver = startApprover(session, user, item, hooks);
    asks = approver.asks;
    const agent = await session.newAgent();
    try {
      const plan = runAgent(agent, task.steps(at), scenario ? scenario.obey(at) : undefined);
      trace = await withTimeout(plan, RUN_TIMEOUT_MS, 'agent run');
      await settle(world, approver.idle);
      if (item.route !== undefined && session.audit) decidedBy = decisionAbout(await withTimeout(session.audit(), 10_000, 'audit'), item.route, started);
    } finally {
      await approver.stop();
      await withTimeout(agent.close(), 10_000, 'close agent').catch(() => undefined);
    }
  } catch (err) {
    error = err instanceof Error ? err.message.split('\n')[0] : String(err);
  }
  const log = [...world.log];
  return {
    config: config.id,
    mode: item.mode,
    ...(item.suite === undefined ? {} : { suite: item.suite }),
    id: scenario ? scenario.id : task.id,
    taskId: task.id,
    attackId: scenario?.attack.id ?? null,
    vector: scenario?.attack.vector ?? null,
    style: scenario?.style ?? null,
    ...(scenario?.placement === undefined ? {} : { placement: scenario.placement }),
    attackClass: scenario?.attack.riskClass ?? null,
    benignDone: task.done(log),
    attackRan: scenario ? scenario.attack.ran(log) : null,
    obeyed: trace.obeyed,
    asks,
    ...(decidedBy === undefined ? {} : { decidedBy }),
    failedSteps: trace.outcomes.filter((o) => !o.ok).map((o) => ({ phase: o.phase, step: o.step, error: o.error ?? '' })),
    ...(error === undefined ? {} : { error }),
    durationMs: Date.now() - started,
  };
}

/**
 * The first decision other than ALLOW this run recorded about a write to `route` (a path on the task's
 * site): its verdict, check and layer, e.g. `BLOCK item_binding (main)`; `none` when nothing was recorded.
 */
function decisionAbout(entries: readonly AuditEntry[], route: string, since: number): string {
  const about = entries.filter((e) => e.at >= since && e.record.decision !== 'ALLOW' && pathOf(e.destination ?? '') === route);
  const first = about.at(-1);
  return first === undefined ? 'none' : `${first.record.decision} ${first.record.check}${first.layer ? ` (${first.layer})` : ''}`;
}

function pathOf(destination: string): string {
  try {
    return new URL(destination.trim().split(/\s+/).pop() ?? '').pathname;
  } catch {
    return '';
  }
}

export const CHROMIUM = process.env.AF_CHROMIUM ?? '/usr/bin/chromium';

/** The negative control: the same (harness) browser and agents, no extension. Nothing is ever asked. */
export async function openUnguardedSession(headless: boolean): Promise<GuardSession> {
  const browser = await launchAgentBrowser({ extension: false, headless, executablePath: CHROMIUM });
  return {
    setTask: async () => undefined,
    pendingApprovals: async () => [],
    answer: async () => undefined,
    newAgent: async () => new PlaywrightDriver(browser.context),
    close: () => browser.close(),
  };
}
