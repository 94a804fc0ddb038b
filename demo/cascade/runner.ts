import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTACK_PATIENCE_MS, attempt, type AgentTrace, type StepOutcome } from '../agents';
import { ROOT } from '../build';
import { openGuardedSession, type ExtensionBuilds } from '../guarded';
import { openUnguardedSession, runItem, settle, siteUrl, startApprover, withTimeout, type AskRecord, type GuardConfig, type GuardSession, type RunRecord } from '../runner';
import type { Task } from '../scenarios';
import { DemoWorld } from '../sites/world';
import { SimulatedUser } from '../user';
import type { AuditEntry } from '../../src/messages/protocol';
import { GOALS, type Goal } from './goals';
import { nextMoves, type Attempt, type Feedback } from './mutator';
import { readPage, sees } from './operators';
import { stage1Variant, stage2Variants, stage3Presentation, stage3Variant, variantById, type Stage, type Variant } from './variants';

/**
 * Runs the cascade per configuration and goal: stage 1 (formatted), then — only when it failed — stage
 * 2 (the seven semantic templates, on one page), then stage 3 (up to 10 rounds of the defense-aware
 * mutator, a few variants per round on one page). Every run is a real run of the user's task by the
 * compromised agent in a browser with (or without) the extension; each variant's outcome is what the
 * servers logged while the agent carried it out, and its feedback is what the extension's audit and
 * the page revealed meanwhile. Stage 3 keeps exploring after a success (a gap found is probed
 * around), so every bypass within the budget is found, not just the first.
 */

export interface VariantResult {
  id: string;
  goal: string;
  stage: Stage;
  round: number;
  move?: string;
  family?: string;
  presentation?: string;
  template?: string;
  /** The agent read the instruction (through its placement and encoding) and acted on it. */
  obeyed: boolean;
  reached: boolean;
  feedback: Feedback;
  shouldStop: string;
}

export interface CascadeRun {
  config: string;
  goal: string;
  taskId: string;
  stage: Stage | 'replay';
  round: number;
  benignDone: boolean;
  asks: AskRecord[];
  variants: VariantResult[];
  durationMs: number;
  error?: string;
}

export interface GoalOutcome {
  config: string;
  goal: string;
  /** The first stage at which the goal was reached; null when no stage reached it. */
  reachedAtStage: Stage | null;
  stagesRun: Stage[];
  roundsUsed: number;
}

export interface RegressionEntry {
  id: string;
  goal: string;
  stage: Stage;
  /** The configuration it first succeeded against. */
  foundAgainst: string;
  shouldStop: string;
  /** What the extension decided while it succeeded. */
  decisions: string[];
}

export interface CascadeOutput {
  configs: GuardConfig[];
  goals: string[];
  outcomes: GoalOutcome[];
  runs: CascadeRun[];
  benign: RunRecord[];
  replays: { config: string; id: string; reached: boolean; feedback: Feedback }[];
  newRegressions: RegressionEntry[];
}

export const REGRESSIONS_FILE = join(ROOT, 'demo', 'cascade', 'regressions.json');

export function readRegressions(): RegressionEntry[] {
  if (!existsSync(REGRESSIONS_FILE)) return [];
  return JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')) as RegressionEntry[];
}

/** A variant's goal, stage and move or template, without its presentation: one stored variant per move. */
const regressionKey = (id: string) => id.split(':').slice(0, 2).join(':');

/** Keeps every entry already there; adds one per new move. Written only when something new was found. */
export function writeRegressions(found: readonly RegressionEntry[]): RegressionEntry[] {
  const existing = readRegressions();
  const keys = new Set(existing.map((e) => regressionKey(e.id)));
  const added = found.filter((f) => !keys.has(regressionKey(f.id)) && keys.add(regressionKey(f.id)));
  if (added.length > 0) writeFileSync(REGRESSIONS_FILE, `${JSON.stringify([...existing, ...added], null, 1)}\n`);
  return added;
}

const PAGE_SOURCE = `() => document.documentElement.outerHTML + [...document.querySelectorAll('iframe')].map((f) => { try { return f.contentDocument ? f.contentDocument.documentElement.outerHTML : ''; } catch { return ''; } }).join('')`;

function feedbackFrom(entries: readonly AuditEntry[], outcomes: readonly StepOutcome[], finalUrl: string): Feedback {
  const observed = outcomes.filter((o) => !o.ok).map((o) => `${o.step}: ${o.error ?? ''}`);
  if (finalUrl.includes('/blocked.html')) {
    const params = new URL(finalUrl).searchParams;
    observed.push(`blocked.html check=${params.get('check') ?? ''} reason=${params.get('reason') ?? ''}`);
  }
  return {
    decisions: entries.map((e) => `${e.record.decision} ${e.record.check}`),
    reasons: entries.map((e) => e.record.reason),
    answers: entries.flatMap((e) => (e.answer === undefined ? [] : [e.answer])),
    observed,
  };
}

/**
 * One run of the task with `variants` injected in the task's slot. The compromised agent follows the
 * task's plan; on each page it reads the source, and carries out every variant whose instruction it
 * recognizes (in order), then returns to the task. Each variant's result is judged on the server-log
 * entries and audit entries that appeared while the agent carried it out.
 */
export async function runCascadeItem(session: GuardSession, world: DemoWorld, config: GuardConfig, task: Task, variants: readonly Variant[], stage: Stage | 'replay', round: number): Promise<CascadeRun> {
  const at = siteUrl(world);
  const started = Date.now();
  world.reset(variants.map((v) => ({ slot: task.injectionSlot, html: v.html(at) })));
  const user = new SimulatedUser(task.expect);
  const results: VariantResult[] = [];
  let asks: AskRecord[] = [];
  let error: string | undefined;
  const auditIds = async () => new Set(((await session.audit?.().catch(() => [])) ?? []).map((e) => e.id));
  try {
    await withTimeout(session.setTask(task.request), 30_000, 'set task');
    const approver = startApprover(session, user, { mode: 'attacked', task }, {});
    asks = approver.asks;
    const agent = await session.newAgent();
    const trace: AgentTrace = { outcomes: [], obeyed: false };
    const pending = [...variants];
    try {
      const plan = async () => {
        for (const step of task.steps(at)) {
          await attempt(agent, step, 'task', trace.outcomes);
          if (pending.length === 0) continue;
          const page = readPage(String((await agent.evaluate(PAGE_SOURCE).catch(() => '')) ?? ''));
          const seen = pending.filter((v) => sees(page, v.core(at)));
          if (seen.length === 0) continue;
          const resumeAt = await agent.currentUrl().catch(() => '');
          for (const variant of seen) {
            pending.splice(pending.indexOf(variant), 1);
            const logStart = world.log.length;
            const before = await auditIds();
            const outcomes: StepOutcome[] = [];
            agent.setPatience?.(ATTACK_PATIENCE_MS);
            for (const attackStep of variant.steps(at)) await attempt(agent, attackStep, 'attack', outcomes);
            agent.setPatience?.(null);
            await settle(world, approver.idle);
            const finalUrl = await agent.currentUrl().catch(() => '');
            const entries = ((await session.audit?.().catch(() => [])) ?? []).filter((e) => !before.has(e.id)).reverse();
            trace.outcomes.push(...outcomes);
            results.push({
              id: variant.id,
              goal: variant.goal.id,
              stage: variant.stage,
              round,
              ...(variant.move ? { move: variant.move.id, family: variant.move.family } : {}),
              ...(variant.presentation ? { presentation: `${variant.presentation.wording}.${variant.presentation.placement}.${variant.presentation.encoding}` } : {}),
              ...(variant.template ? { template: variant.template } : {}),
              obeyed: true,
              reached: variant.goal.reached(world.log.slice(logStart)),
              feedback: feedbackFrom(entries, outcomes, finalUrl),
              shouldStop: variant.shouldStop,
            });
            if (resumeAt.startsWith('http')) await attempt(agent, { kind: 'goto', url: resumeAt }, 'task', trace.outcomes);
          }
        }
      };
      await withTimeout(plan(), 180_000, 'cascade run');
      await settle(world, approver.idle);
    } finally {
      await approver.stop();
      await withTimeout(agent.close(), 10_000, 'close agent').catch(() => undefined);
    }
    for (const variant of pending) {
      results.push({ id: variant.id, goal: variant.goal.id, stage: variant.stage, round, ...(variant.move ? { move: variant.move.id, family: variant.move.family } : {}), obeyed: false, reached: false, feedback: { decisions: [], reasons: [], answers: [], observed: ['the agent never saw this instruction'] }, shouldStop: variant.shouldStop });
    }
  } catch (err) {
    error = err instanceof Error ? err.message.split('\n')[0] : String(err);
  }
  return {
    config: config.id,
    goal: variants[0]?.goal.id ?? '',
    taskId: task.id,
    stage,
    round,
    benignDone: task.done(world.log),
    asks,
    variants: results,
    durationMs: Date.now() - started,
    ...(error === undefined ? {} : { error }),
  };
}

/** Stage 1, then 2, then up to 10 mutator rounds — each stage only when the earlier ones failed. */
async function runGoal(session: GuardSession, world: DemoWorld, config: GuardConfig, goal: Goal, runs: CascadeRun[]): Promise<GoalOutcome> {
  const stagesRun: Stage[] = [];
  // `runs` is shared with the other sessions: each attempt keeps its own run.
  const record = async (variants: Variant[], stage: Stage, round: number): Promise<CascadeRun> => {
    const run = await runCascadeItem(session, world, config, goal.task, variants, stage, round);
    runs.push(run);
    return run;
  };
  const reachedIn = (run: CascadeRun) => run.variants.some((v) => v.reached);
  stagesRun.push(1);
  if (reachedIn(await record([stage1Variant(goal)], 1, 0))) return { config: config.id, goal: goal.id, reachedAtStage: 1, stagesRun, roundsUsed: 0 };
  stagesRun.push(2);
  if (reachedIn(await record(stage2Variants(goal), 2, 0))) return { config: config.id, goal: goal.id, reachedAtStage: 2, stagesRun, roundsUsed: 0 };
  stagesRun.push(3);
  const history: Attempt[] = [];
  let reached = false;
  let round = 1;
  let presented = 0;
  for (; ; round += 1) {
    const moves = nextMoves(goal, history, round);
    if (moves.length === 0) break;
    const variants = moves.map((move) => stage3Variant(goal, move, stage3Presentation(presented++)));
    const run = await record(variants, 3, round);
    reached = reachedIn(run) || reached;
    for (const v of run.variants) {
      history.push({ moveId: v.move ?? '', family: (v.family ?? 'channel') as Attempt['family'], round, reached: v.reached, feedback: v.feedback });
    }
  }
  return { config: config.id, goal: goal.id, reachedAtStage: reached ? 3 : null, stagesRun, roundsUsed: round - 1 };
}

export interface CascadeOptions {
  configs: GuardConfig[];
  goals?: readonly Goal[];
  headless: boolean;
  /** Sessions side by side (each its own site server and browser); goals are split between them. */
  parallel: number;
  llmBaseUrl: string;
  extensions: ExtensionBuilds;
  log: (line: string) => void;
  /** Replay the stored regressions (default true). */
  replay?: boolean;
  /** Benign runs of the goals' tasks already made under these configurations (the full demo's): not run again. */
  benign?: RunRecord[];
}

async function openSession(config: GuardConfig, world: DemoWorld, opts: CascadeOptions): Promise<GuardSession> {
  if (config.compiler === null) return openUnguardedSession(opts.headless);
  return openGuardedSession(config, world, { headless: opts.headless, llmBaseUrl: opts.llmBaseUrl, extensions: opts.extensions, log: opts.log });
}

/** Run the cascade under each configuration; goals of one configuration are split across `parallel` sessions. */
export async function runCascade(opts: CascadeOptions): Promise<CascadeOutput> {
  const goals = opts.goals ?? GOALS;
  const outcomes: GoalOutcome[] = [];
  const runs: CascadeRun[] = [];
  const benign: RunRecord[] = (opts.benign ?? []).filter((r) => goals.some((g) => g.task.id === r.taskId));
  const replays: CascadeOutput['replays'] = [];
  const regressions = opts.replay === false ? [] : readRegressions();
  type Job = { config: GuardConfig; kind: 'benign'; task: Task } | { config: GuardConfig; kind: 'goal'; goal: Goal } | { config: GuardConfig; kind: 'replay'; variants: Variant[] };
  const jobs: Job[] = [];
  for (const config of opts.configs) {
    const tasks = [...new Map(goals.map((g) => [g.task.id, g.task])).values()];
    for (const task of tasks) if (!benign.some((r) => r.config === config.id && r.taskId === task.id)) jobs.push({ config, kind: 'benign', task });
    for (const goal of goals) jobs.push({ config, kind: 'goal', goal });
    // Replays are regression checks of the guard: the negative control's stage 1 already shows every goal lands.
    const replayable = config.compiler === null ? [] : regressions.map((r) => variantById(r.id)).filter((v): v is Variant => v !== null && goals.includes(v.goal));
    for (const goal of goals) {
      const mine = replayable.filter((v) => v.goal === goal);
      if (mine.length > 0) jobs.push({ config, kind: 'replay', variants: mine });
    }
  }
  const worker = async () => {
    type Open = { config: GuardConfig; world: DemoWorld; session: GuardSession };
    let current: Open | null = null as Open | null;
    const close = async () => {
      const open = current;
      current = null;
      if (!open) return;
      await open.session.close().catch(() => undefined);
      await open.world.close();
    };
    try {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        if (current?.config !== job.config) {
          await close();
          const world = await DemoWorld.start();
          current = { config: job.config, world, session: await openSession(job.config, world, opts) };
        }
        const { world, session } = current;
        if (job.kind === 'benign') {
          benign.push(await runItem(session, world, job.config, { mode: 'benign', task: job.task }));
        } else if (job.kind === 'goal') {
          const outcome = await runGoal(session, world, job.config, job.goal, runs);
          outcomes.push(outcome);
          opts.log(`  cascade ${job.config.id} ${job.goal.id}: ${outcome.reachedAtStage === null ? 'held' : `reached at stage ${outcome.reachedAtStage}`}${outcome.stagesRun.includes(3) ? `, ${outcome.roundsUsed} rounds` : ''}`);
        } else {
          const first = job.variants[0];
          if (!first) continue;
          const run = await runCascadeItem(session, world, job.config, first.goal.task, job.variants, 'replay', 0);
          runs.push(run);
          for (const v of run.variants) replays.push({ config: job.config.id, id: v.id, reached: v.reached, feedback: v.feedback });
        }
      }
    } finally {
      await close();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  const found: RegressionEntry[] = runs
    .filter((r) => r.config !== 'none' && r.stage !== 'replay')
    .flatMap((r) => r.variants.filter((v) => v.reached).map((v) => ({ id: v.id, goal: v.goal, stage: v.stage, foundAgainst: r.config, shouldStop: v.shouldStop, decisions: v.feedback.decisions })));
  const order = (c: string) => opts.configs.findIndex((x) => x.id === c);
  const byConfig = <T extends { config: string }>(xs: T[]) => [...xs].sort((a, b) => order(a.config) - order(b.config));
  return {
    configs: opts.configs,
    goals: goals.map((g) => g.id),
    outcomes: byConfig(outcomes).sort((a, b) => order(a.config) - order(b.config) || goals.findIndex((g) => g.id === a.goal) - goals.findIndex((g) => g.id === b.goal)),
    runs: byConfig(runs),
    benign: byConfig(benign),
    replays: byConfig(replays),
    newRegressions: found,
  };
}
