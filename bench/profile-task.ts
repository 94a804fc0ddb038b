import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeStep, PlaywrightDriver, runAgent } from '../demo/agents';
import { siteUrl } from '../demo/runner';
import { TASKS } from '../demo/scenarios';
import { DemoWorld } from '../demo/sites/world';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { attachToWorker, benchExtension, cpuProfile, topFunctions, type CpuProfile, type TraceEvent } from './chromium';
import { median } from './stats';

/**
 * `npx tsx bench/profile-task.ts` (under the browser lock): where the whole benign agent task's guarded
 * overhead goes (issue 40). The bench's agent row times the task guarded and unguarded; this profiles it:
 *  - a browser-wide Chrome trace (CDP Tracing from a page kept open for the runs: every process's threads —
 *    the browser's UI thread, the pages' renderers, our worker's thread in the extension's process) over
 *    RUNS runs per browser, self thread time per thread and trace event, per run;
 *  - a V8 CPU profile of our worker over RUNS more guarded runs: which of its functions take the time;
 *  - each step's wall time, guarded and unguarded, and the decisions and wakes per run.
 * Writes bench/results/profile-task.{json,md}.
 */

const TASK_ID = 'mail-reply';
const RUNS = 6;
const WARM = 2;

/** Self thread time per thread and event name (complete events nested by time on their thread), ms per run. */
function breakdown(events: TraceEvent[], runs: number): { thread: string; msPerRun: number; top: { event: string; msPerRun: number; perRun: number }[] }[] {
  const processName = new Map<number, string>();
  const threadName = new Map<string, string>();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'process_name') processName.set(e.pid, e.args?.name ?? '?');
    if (e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  }
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const key = `${e.pid}:${e.tid}`;
    (byThread.get(key) ?? byThread.set(key, []).get(key)!).push(e);
  }
  // Renderers are told apart by what they ran: our worker's thread, the demo pages' main threads, the rest.
  const label = (key: string, list: TraceEvent[]) => {
    const pid = Number(key.split(':')[0]);
    const urls = list.map((e) => e.args?.data?.url ?? '').filter((u) => u !== '');
    const what = urls.some((u) => u.startsWith('chrome-extension://') && u.endsWith('background.js'))
      ? ' [our worker]'
      : urls.some((u) => u.startsWith('http://') || u.includes('.test'))
        ? ' [demo page]'
        : '';
    return `${processName.get(pid) ?? 'process'} / ${threadName.get(key) ?? 'thread'}${what}`;
  };
  const merged = new Map<string, Map<string, number>>();
  const counts = new Map<string, Map<string, number>>();
  for (const [key, list] of byThread) {
    list.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    const self = merged.get(label(key, list)) ?? new Map<string, number>();
    merged.set(label(key, list), self);
    const count = counts.get(label(key, list)) ?? new Map<string, number>();
    counts.set(label(key, list), count);
    const open: { end: number; key: string }[] = [];
    for (const e of list) {
      while (open.length > 0 && open[open.length - 1]!.end <= e.ts) open.pop();
      const thread = e.tdur ?? e.dur ?? 0;
      const js = e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.callFunction' || e.name === 'v8.run';
      const file = (e.args?.data?.url ?? '').split('/').pop() || '';
      const name = js && file !== '' ? `${e.name} ${file}` : e.name;
      self.set(name, (self.get(name) ?? 0) + thread);
      count.set(name, (count.get(name) ?? 0) + 1);
      const parent = open[open.length - 1];
      if (parent !== undefined) self.set(parent.key, (self.get(parent.key) ?? 0) - thread);
      open.push({ end: e.ts + (e.dur ?? 0), key: name });
    }
  }
  const perRun = (us: number) => Math.round((us / 1000 / runs) * 100) / 100;
  return [...merged.entries()]
    .map(([thread, self]) => ({
      thread,
      msPerRun: perRun([...self.values()].reduce((a, b) => a + b, 0)),
      top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([event, us]) => ({ event, msPerRun: perRun(us), perRun: Math.round(((counts.get(thread)?.get(event) ?? 0) / runs) * 10) / 10 })),
    }))
    .filter((t) => t.msPerRun >= 0.5)
    .sort((a, b) => b.msPerRun - a.msPerRun);
}

async function traced(browser: AgentBrowser, work: () => Promise<void>): Promise<TraceEvent[]> {
  const page = await browser.context.newPage();
  const session = await browser.context.newCDPSession(page);
  const events: TraceEvent[] = [];
  try {
    session.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
    const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
    await session.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', 'v8.execute', 'v8', 'blink', 'extensions', 'navigation', 'loading', 'disabled-by-default-devtools.timeline'] } });
    await work();
    await session.send('Tracing.end');
    await complete;
  } finally {
    await session.detach().catch(() => undefined);
    await page.close().catch(() => undefined);
  }
  return events;
}

async function main(): Promise<void> {
  const task = TASKS.find((t) => t.id === TASK_ID);
  if (task === undefined) throw new Error(`demo task ${TASK_ID} is missing`);
  const loadAtStart = loadavg().map((x) => x.toFixed(1)).join(' / ');
  const extension = benchExtension();
  const world = await DemoWorld.start();
  const guarded = await launchAgentBrowser({ extensionPath: extension.path });
  const unguarded = await launchAgentBrowser({ extension: false });
  const steps = task.steps(siteUrl(world)).map(describeStep);
  const stepMs: Record<'guarded' | 'unguarded', number[][]> = { guarded: [], unguarded: [] };
  const wallMs: Record<'guarded' | 'unguarded', number[]> = { guarded: [], unguarded: [] };
  // The task is set before each run (as the bench's agent row does, the send's budget spent), outside the trace.
  const prepare = async (arm: 'guarded' | 'unguarded') => {
    if (arm === 'guarded') await guarded.setTask(task.request);
    world.reset();
  };
  const once = async (arm: 'guarded' | 'unguarded', record = true) => {
    const browser = arm === 'guarded' ? guarded : unguarded;
    const agent = new PlaywrightDriver(browser.context);
    try {
      const t0 = performance.now();
      const trace = await runAgent(agent, task.steps(siteUrl(world)));
      if (!record) return;
      wallMs[arm].push(performance.now() - t0);
      stepMs[arm].push(trace.outcomes.map((o) => o.ms));
    } finally {
      await agent.close();
    }
  };
  try {
    for (let i = 0; i < WARM; i++) {
      for (const arm of ['guarded', 'unguarded'] as const) {
        await prepare(arm);
        await once(arm, false);
      }
    }
    const auditBefore = (await guarded.audit({ limit: 10_000 })).length;
    const events: Record<'guarded' | 'unguarded', TraceEvent[]> = { guarded: [], unguarded: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const arm of i % 2 === 0 ? (['guarded', 'unguarded'] as const) : (['unguarded', 'guarded'] as const)) {
        await prepare(arm);
        events[arm].push(...(await traced(arm === 'guarded' ? guarded : unguarded, () => once(arm))));
      }
    }
    const threads = { guarded: breakdown(events.guarded, RUNS), unguarded: breakdown(events.unguarded, RUNS) };
    const decisions = ((await guarded.audit({ limit: 10_000 })).length - auditBefore) / RUNS;
    // Our worker's functions over more guarded runs (a trace names only the worker's top-level calls),
    // one profile per run so setting the task stays out of it; (idle) and (program) left out of the shares.
    const cdp = await attachToWorker(guarded);
    const selfMs = new Map<string, number>();
    try {
      for (let i = 0; i < RUNS; i++) {
        await prepare('guarded');
        const profile: CpuProfile = await cpuProfile(cdp.send, () => once('guarded', false));
        for (const line of topFunctions(profile, 10_000)) selfMs.set(line.fn, (selfMs.get(line.fn) ?? 0) + line.selfMs);
      }
    } finally {
      await cdp.detach();
    }
    const busy = [...selfMs.entries()].filter(([fn]) => fn !== '(idle)').reduce((sum, [, ms]) => sum + ms, 0);
    const workerTop = [...selfMs.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 16)
      .map(([fn, ms]) => ({ fn, msPerRun: ms / RUNS, share: fn === '(idle)' ? 0 : ms / busy }));
    const perStep = steps.map((step, i) => {
      const [g, u] = (['guarded', 'unguarded'] as const).map((arm) => median(stepMs[arm].map((run) => run[i] ?? NaN)));
      return { step, guardedMs: g!, unguardedMs: u!, addedMs: g! - u! };
    });
    const result = {
      date: new Date().toISOString(),
      load: { atStart: loadAtStart, atEnd: loadavg().map((x) => x.toFixed(1)).join(' / ') },
      runs: RUNS,
      wall: { guardedMs: median(wallMs.guarded), unguardedMs: median(wallMs.unguarded), ratio: median(wallMs.guarded) / median(wallMs.unguarded) },
      auditEntriesPerRun: decisions,
      perStep,
      threads,
      workerTop,
    };
    const dir = join(import.meta.dirname, 'results');
    writeFileSync(join(dir, 'profile-task.json'), `${JSON.stringify(result, null, 2)}\n`);
    const fmt = (x: number) => x.toFixed(1);
    const md = [
      `# Whole-task profile (demo '${TASK_ID}', ${RUNS} runs per browser traced, ${RUNS} more guarded runs CPU-profiled in the worker)`,
      '',
      `${result.date}; load average ${result.load.atStart} at the start, ${result.load.atEnd} at the end (2 cores shared: absolute times inflated). Wall median guarded ${fmt(result.wall.guardedMs)} ms vs ${fmt(result.wall.unguardedMs)} ms unguarded (${result.wall.ratio.toFixed(3)}×, traced runs); ${decisions} audit entries (decisions) per guarded run.`,
      '',
      '## Added per step (median guarded − unguarded, ms)',
      '',
      '| step | guarded | unguarded | added |',
      '| --- | --- | --- | --- |',
      ...perStep.map((s) => `| ${s.step} | ${fmt(s.guardedMs)} | ${fmt(s.unguardedMs)} | ${fmt(s.addedMs)} |`),
      '',
      '## Thread time per run, by thread (self time of trace events)',
      '',
      ...(['guarded', 'unguarded'] as const).flatMap((arm) => [
        `### ${arm}`,
        '',
        '| thread | ms per run | largest events (self ms per run, and how many per run) |',
        '| --- | --- | --- |',
        ...threads[arm].slice(0, 12).map((t) => `| ${t.thread} | ${fmt(t.msPerRun)} | ${t.top.slice(0, 8).map((e) => `${e.event} ${e.msPerRun.toFixed(2)} (×${e.perRun})`).join(', ')} |`),
        '',
      ]),
      '## Our worker, V8 CPU profile (self time per run)',
      '',
      `Busy (all but idle) ${(busy / RUNS).toFixed(1)} ms per run.`,
      '',
      ...workerTop.map((l) => `- ${l.fn}: ${l.msPerRun.toFixed(2)} ms${l.fn === '(idle)' ? '' : ` (${(l.share * 100).toFixed(0)} % of busy)`}`),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'profile-task.md'), md);
    process.stdout.write(md);
  } finally {
    await guarded.close().catch(() => undefined);
    await unguarded.close().catch(() => undefined);
    await world.close();
    extension.dispose();
  }
}

await main();
