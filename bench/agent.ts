import { performance } from 'node:perf_hooks';
import { describeStep, PlaywrightDriver, runAgent } from '../demo/agents';
import { siteUrl } from '../demo/runner';
import { TASKS, type Task } from '../demo/scenarios';
import { DemoWorld } from '../demo/sites/world';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { benchExtension } from './chromium';
import { median, summarise, type Figure } from './stats';

/**
 * Figure 4: a whole benign agent task from the demo benchmark — the scripted benign agent replying
 * to an e-mail on mail.test (navigate, open, read, fill, send: one consequential action) — in a guarded
 * browser (extension, task set from the user's words through the popup's path, rules compiler) and an
 * unguarded one, runs interleaved with alternating order.
 */

const TASK_ID = 'mail-reply';
const PAIRS = 16;

interface Run {
  ms: number;
  done: boolean;
  failedSteps: number;
  /** Each step's wall time, in the plan's order. */
  stepMs: number[];
}

async function runOnce(browser: AgentBrowser, world: DemoWorld, task: Task): Promise<Run> {
  world.reset();
  const agent = new PlaywrightDriver(browser.context);
  try {
    const t0 = performance.now();
    const trace = await runAgent(agent, task.steps(siteUrl(world)));
    const ms = performance.now() - t0;
    return { ms, done: task.done(world.log), failedSteps: trace.outcomes.filter((o) => !o.ok).length, stepMs: trace.outcomes.map((o) => o.ms) };
  } finally {
    await agent.close();
  }
}

export async function agentFigures(): Promise<Figure[]> {
  const task = TASKS.find((t) => t.id === TASK_ID);
  if (task === undefined) throw new Error(`demo task ${TASK_ID} is missing`);
  const extension = benchExtension();
  const world = await DemoWorld.start();
  const browsers: AgentBrowser[] = [];
  try {
    const guarded = await launchAgentBrowser({ extensionPath: extension.path });
    browsers.push(guarded);
    const unguarded = await launchAgentBrowser({ extension: false });
    browsers.push(unguarded);
    const runs: Record<'guarded' | 'unguarded', Run[]> = { guarded: [], unguarded: [] };
    const setTaskMs: number[] = [];
    const guardedRun = async () => {
      const t0 = performance.now();
      await guarded.setTask(task.request);
      setTaskMs.push(performance.now() - t0);
      return runOnce(guarded, world, task);
    };
    // One warm-up each (first page loads, first floor update), then interleaved pairs.
    await guardedRun();
    await runOnce(unguarded, world, task);
    setTaskMs.length = 0;
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        runs.guarded.push(await guardedRun());
        runs.unguarded.push(await runOnce(unguarded, world, task));
      } else {
        runs.unguarded.push(await runOnce(unguarded, world, task));
        runs.guarded.push(await guardedRun());
      }
    }
    const allowed = await guarded.audit({ decision: 'ALLOW', limit: 500 });
    const asked = await guarded.audit({ decision: 'ASK_USER', limit: 500 });
    const g = runs.guarded.map((r) => r.ms);
    const u = runs.unguarded.map((r) => r.ms);
    const ratio = median(g) / median(u);
    const pairedRatio = median(g.map((x, i) => x / (u[i] ?? NaN)));
    const done = (rs: Run[]) => rs.filter((r) => r.done).length;
    // Where the added time goes: each step's median, guarded − unguarded (the first goto opens the tab's page).
    const steps = task.steps(siteUrl(world)).map((step, i) => {
      const [gs, us] = [runs.guarded, runs.unguarded].map((rs) => median(rs.map((r) => r.stepMs[i] ?? NaN)));
      return { step: describeStep(step), guardedMs: gs!, unguardedMs: us!, addedMs: gs! - us! };
    });
    const split = steps.map((s) => `${s.step.replace(/^goto https?:\/\/[^/]+/, 'goto ')} ${s.addedMs >= 0 ? '+' : '−'}${Math.abs(s.addedMs).toFixed(1)}`).join(', ');
    return [
      {
        id: 'agent-task',
        figure: `A whole benign agent task (demo '${TASK_ID}', scripted benign agent), guarded vs unguarded`,
        target: 'wall ratio ≤ 1.05',
        measured:
          `median ${median(g).toFixed(0)} ms vs ${median(u).toFixed(0)} ms; task done ${done(runs.guarded)}/${PAIRS} guarded, ${done(runs.unguarded)}/${PAIRS} unguarded; ` +
          `setting the task (popup path, rules compiler, floor update) median ${median(setTaskMs).toFixed(1)} ms, not in the wall time`,
        ratio: `${ratio.toFixed(3)}× (median of paired ratios ${pairedRatio.toFixed(3)}×)`,
        vsFloor: { floor: 'the same task unguarded, median wall time', value: ratio, unit: '×', target: 1.05 },
        verdict: ratio <= 1.05 && done(runs.guarded) === PAIRS ? 'met' : 'missed',
        method:
          `Demo world on 127.0.0.1, Playwright-driven scripted agent (${task.steps(siteUrl(world)).length} steps: goto, click, read, fill, send); wall time from the first step to the last, ${PAIRS} runs per browser after one warm-up, pairs interleaved with alternating order. ` +
          `Guarded audit over all runs: ${allowed.length} ALLOW, ${asked.length} ASK_USER. ` +
          `Added per step (median guarded − median unguarded, ms): ${split}.`,
        data: { guarded: summarise(g), unguarded: summarise(u), ratio, pairedRatio, setTaskMs, steps, runs },
      },
    ];
  } finally {
    for (const b of browsers) await b.close().catch(() => undefined);
    await world.close();
    extension.dispose();
  }
}
