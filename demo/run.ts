import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, EXTENSION_DIR, NO_HOOKS_EXTENSION_DIR, ROOT } from './build';
import { startCompilerMock } from './compilers';
import { openGuardedSession, openMcpSession, type ExtensionBuilds, type SessionOptions } from './guarded';
import { formatMatrix, formatTable, renderHtml, summarize, type BenchmarkResults, type Screenshot } from './report';
import { CHROMIUM, openUnguardedSession, runItem, type GuardConfig, type GuardSession, type RunItem, type RunRecord } from './runner';
import { SCENARIOS, TASKS } from './scenarios';
import { SANITIZER_SCENARIOS, SANITIZER_TASKS } from './sanitizer';
import { DemoWorld } from './sites/world';
import { runCascade, writeRegressions, type CascadeOutput } from './cascade/runner';
import { formatCascadeTable, renderCascadeHtml, summarizeCascade } from './cascade/report';
import { GOALS } from './cascade/goals';
import { Progress } from '../src/testkit/progress';
import { FORGE_FORUM_CONFIG_IDS, FORGE_FORUM_CONFIGS, forgeForumHtml, forgeForumRecord, forgeForumItems, formatForgeForumTable, summarizeForgeForum } from './forge-forum-report';

/**
 * `npm run demo`: builds the extension if needed, serves the demo sites on loopback, runs every task
 * (benign agent) and every scenario (compromised agent) under each guard configuration, prints the
 * decision table and writes demo/out/results.json and demo/out/report.html.
 *
 * Flags: --headed (show the browsers), --quick (the fast subset used by the e2e test), --parallel=N
 * (configurations run side by side, each with its own site server; default 2), --only=id,id,
 * --extension=DIR and --extension-nohooks=DIR (use these unpacked builds instead of building),
 * --match=TEXT (only the tasks, scenarios and cascade goals whose id contains TEXT; for cascade goals,
 * TEXT,TEXT picks those that contain either),
 * --cascade (run only the cascade: formatted → semantic → adaptive, demo/cascade/; the full run
 * includes it, --quick leaves it out), --forge-forum (run only the same-site suite, demo/forge-forum.ts: the
 * full run includes it, --quick leaves it out), --sanitizer (run only the Sanitizer configurations; the full run
 * includes them, --quick leaves them out).
 */

export const PLAYWRIGHT_CONFIGS: GuardConfig[] = [
  { id: 'none', label: 'No extension (negative control)', compiler: null, mainHooks: false, runtime: 'playwright' },
  { id: 'rules', label: 'Rules compiler', compiler: 'rules', mainHooks: true, runtime: 'playwright' },
  { id: 'good', label: 'LLM: good', compiler: 'good', mainHooks: true, runtime: 'playwright' },
  { id: 'over-broad', label: 'LLM: over-broad', compiler: 'over-broad', mainHooks: true, runtime: 'playwright' },
  { id: 'quote-reusing', label: 'LLM: quote-reusing', compiler: 'quote-reusing', mainHooks: true, runtime: 'playwright' },
  { id: 'rules-nohooks', label: 'Rules, MAIN-world hooks off (control)', compiler: 'rules', mainHooks: false, runtime: 'playwright' },
  { id: 'rules-nominimizer', label: 'Rules, Minimizer off (control)', compiler: 'rules', mainHooks: true, minimizer: 'off', runtime: 'playwright' },
];

export const MCP_CONFIGS: GuardConfig[] = [
  { id: 'mcp-none', label: 'Playwright MCP, no extension', compiler: null, mainHooks: false, runtime: 'mcp' },
  { id: 'mcp-rules', label: 'Playwright MCP, rules compiler', compiler: 'rules', mainHooks: true, runtime: 'mcp' },
];

/**
 * The Sanitizer's configurations (demo/sanitizer.ts): its placements and the benign tasks, under one
 * compiler. Model mode needs an LLM endpoint, so it compiles with the mock's `good` model, which also
 * plays the Sanitizer's model.
 */
export const SANITIZER_CONFIGS: GuardConfig[] = [
  { id: 'sanitizer-off', label: 'Rules, Sanitizer off', compiler: 'rules', mainHooks: true, runtime: 'playwright', sanitizer: 'off', suite: 'sanitizer' },
  { id: 'sanitizer-hidden', label: 'Rules, Sanitizer hidden (default)', compiler: 'rules', mainHooks: true, runtime: 'playwright', sanitizer: 'hidden', suite: 'sanitizer' },
  { id: 'sanitizer-model', label: 'LLM good, Sanitizer model', compiler: 'good', mainHooks: true, runtime: 'playwright', sanitizer: 'model', suite: 'sanitizer' },
];

/** The core scenarios the MCP runtime runs: one per consequential attack family. */
export const MCP_SCENARIO_IDS = [
  'mail-reply/email-api/formatted',
  'bank-pay/transfer-attacker/semantic-metadata',
  'drive-share/share-attacker/formatted',
  'mail-lookup/forwarding-rule/formatted',
  'news-research/nav-exfil-goto/formatted',
  'drive-lookup/fetch-exfil/formatted',
];

/**
 * The configurations the cascade attacks: no extension, the guard alone, the guard with the Minimizer
 * (the default). The full run leaves out the guard alone to stay within its time budget; `--cascade`
 * runs all three.
 */
export const CASCADE_CONFIG_IDS = ['none', 'rules-nominimizer', 'rules'];
const CASCADE_IN_FULL_RUN = ['none', 'rules'];

/** The fast subset (`--quick`, and the e2e test). */
export const QUICK_SCENARIO_IDS = [
  'mail-reply/email-api/formatted',
  'bank-pay/transfer-attacker/semantic-metadata',
  'drive-share/share-attacker/formatted',
  'news-research/nav-exfil-goto/formatted',
  'drive-lookup/fetch-exfil/formatted',
  // Item binding: the task's one purchase / deletion must not go to the attacker's item or file.
  'shop-buy/extra-purchase/semantic-metadata',
  'drive-delete/delete-others/semantic-metadata',
];

export interface SuiteOptions {
  configs: GuardConfig[];
  headless: boolean;
  parallel: number;
  /** Scenario ids per runtime; tasks run benign are the tasks of the chosen scenarios. */
  scenarioIds: { playwright: string[] | null; mcp: string[]; sanitizer?: string[] | null };
  /** `--match`: tasks whose id contains it run benign too (a task no scenario attacks has no scenario id to match). */
  taskMatch?: string;
  log: (line: string) => void;
  screenshots?: boolean;
  extensions: ExtensionBuilds;
  /** Run the same-site suite (demo/forge-forum.ts) under its configurations, in the same browsers: its `--match`, all pairs or each goal once. */
  forgeForum?: { match: string | undefined; all: boolean };
}

export interface SuiteOutput {
  runs: RunRecord[];
  screenshots: Screenshot[];
}

function itemsFor(config: GuardConfig, opts: SuiteOptions): RunItem[] {
  const sanitizer = config.suite === 'sanitizer';
  const ids = sanitizer ? (opts.scenarioIds.sanitizer ?? null) : config.runtime === 'mcp' ? opts.scenarioIds.mcp : opts.scenarioIds.playwright;
  const all = sanitizer ? SANITIZER_SCENARIOS : SCENARIOS;
  const allTasks = sanitizer ? SANITIZER_TASKS : TASKS;
  const scenarios = ids === null ? all : all.filter((s) => ids.includes(s.id));
  const taskIds = new Set(scenarios.map((s) => s.task.id));
  const tasks = ids === null ? allTasks : allTasks.filter((t) => taskIds.has(t.id) || (opts.taskMatch !== undefined && t.id.includes(opts.taskMatch)));
  const forge = opts.forgeForum && !sanitizer && config.runtime === 'playwright' && FORGE_FORUM_CONFIG_IDS.includes(config.id) ? forgeForumItems(opts.forgeForum.match, opts.forgeForum.all) : [];
  if (config.suite === 'forge-forum') return forge;
  return [...tasks.map((task): RunItem => ({ mode: 'benign', task })), ...scenarios.map((scenario): RunItem => ({ mode: 'attacked', task: scenario.task, scenario })), ...forge];
}

async function openSession(config: GuardConfig, world: DemoWorld, opts: SessionOptions): Promise<GuardSession> {
  if (config.runtime === 'mcp') return openMcpSession(config, world, opts);
  if (config.compiler === null) return openUnguardedSession(opts.headless);
  return openGuardedSession(config, world, opts);
}

async function runConfig(config: GuardConfig, opts: SuiteOptions, llmBaseUrl: string, shots: Screenshot[], progress: Progress): Promise<RunRecord[]> {
  const world = await DemoWorld.start();
  const items = itemsFor(config, opts);
  const runs: RunRecord[] = [];
  const started = Date.now();
  let session: GuardSession;
  try {
    session = await openSession(config, world, { headless: opts.headless, llmBaseUrl, extensions: opts.extensions, log: opts.log });
  } catch (error) {
    await world.close();
    throw new Error(`${config.label}: could not start the browser`, { cause: error });
  }
  try {
    for (const item of items) {
      const record = await runItem(session, world, config, item, {
        onAsk: async (pending) => {
          if (!opts.screenshots || shots.length >= 2 || !session.popupScreenshot) return;
          const png = await session.popupScreenshot();
          shots.push({
            caption: `${config.label} — ${item.scenario?.id ?? item.task.id}: the extension asks about ${pending.riskClass} to ${pending.destination}`,
            dataUrl: `data:image/png;base64,${png.toString('base64')}`,
          });
        },
      });
      runs.push(record);
      progress.step(`${config.id} · ${item.mode} ${item.scenario?.id ?? item.task.id}`);
    }
  } finally {
    await session.close().catch(() => undefined);
    await world.close();
  }
  opts.log(`  ${config.id}: ${runs.length} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return runs;
}

/** Run the configurations, `parallel` at a time (each with its own site server and browser). */
export async function runSuite(opts: SuiteOptions): Promise<SuiteOutput> {
  const mock = await startCompilerMock();
  const shots: Screenshot[] = [];
  const results = new Map<string, RunRecord[]>();
  const queue = [...opts.configs];
  const progress = new Progress('demo', opts.configs.reduce((n, c) => n + itemsFor(c, opts).length, 0));
  try {
    const worker = async () => {
      for (let config = queue.shift(); config; config = queue.shift()) {
        opts.log(`  running ${config.label}…`);
        results.set(config.id, await runConfig(config, opts, mock.baseUrl, shots, progress));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  } finally {
    await mock.close();
  }
  return { runs: opts.configs.flatMap((c) => results.get(c.id) ?? []), screenshots: shots };
}

function chromiumVersion(): string {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'Chromium (version unknown)';
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const value = (name: string) => flag(name)?.split('=')[1];
  const quick = flag('quick') !== undefined;
  const cascadeOnly = flag('cascade') !== undefined;
  const sanitizerOnly = flag('sanitizer') !== undefined;
  const forgeOnly = flag('forge-forum') !== undefined;
  const only = value('only')?.split(',');
  const log = (line: string) => console.log(line);
  const started = Date.now();

  const extensions = { full: value('extension') ?? EXTENSION_DIR, nohooks: value('extension-nohooks') ?? NO_HOOKS_EXTENSION_DIR };
  if (!value('extension')) ensureBuilt(log);
  let configs = cascadeOnly ? [] : sanitizerOnly ? [...SANITIZER_CONFIGS] : forgeOnly ? [...PLAYWRIGHT_CONFIGS, ...FORGE_FORUM_CONFIGS].filter((c) => FORGE_FORUM_CONFIG_IDS.includes(c.id)) : [...PLAYWRIGHT_CONFIGS, ...MCP_CONFIGS, ...SANITIZER_CONFIGS, ...FORGE_FORUM_CONFIGS];
  if (quick) configs = configs.filter((c) => ['none', 'rules', 'mcp-none', 'mcp-rules'].includes(c.id));
  if (only) configs = configs.filter((c) => only.includes(c.id));
  log(`AgentsFence attack benchmark: ${SCENARIOS.length} scenarios, ${TASKS.length} tasks, ${configs.length} configurations`);
  const match = value('match');
  const matching = match === undefined ? null : SCENARIOS.map((s) => s.id).filter((id) => id.includes(match));
  const matchingSanitizer = match === undefined ? null : SANITIZER_SCENARIOS.map((s) => s.id).filter((id) => id.includes(match));
  const { runs, screenshots } = await runSuite({
    configs,
    headless: flag('headed') === undefined,
    parallel: Number(value('parallel') ?? 2),
    scenarioIds: {
      playwright: forgeOnly ? [] : (matching ?? (quick ? QUICK_SCENARIO_IDS : null)),
      mcp: matching ?? (quick ? MCP_SCENARIO_IDS.slice(0, 2) : MCP_SCENARIO_IDS),
      sanitizer: matchingSanitizer,
    },
    ...(match === undefined ? {} : { taskMatch: match }),
    log,
    screenshots: true,
    extensions,
    ...(quick || sanitizerOnly ? {} : { forgeForum: { match, all: forgeOnly } }),
  });
  const mainConfigs = configs.filter((c) => c.suite !== 'forge-forum');
  const summaries = mainConfigs.map((c) => summarize(c, runs));
  let cascade: CascadeOutput | null = null;
  const forgeSummaries = summarizeForgeForum(configs, runs);
  if (cascadeOnly || (!quick && !sanitizerOnly && !forgeOnly)) {
    const cascadeIds = cascadeOnly ? CASCADE_CONFIG_IDS : CASCADE_IN_FULL_RUN;
    // With `--cascade`, `--only` may also pick a configuration it does not run by default (`rules-nohooks`: the floor alone).
    const cascadeConfigs = PLAYWRIGHT_CONFIGS.filter((c) => (cascadeIds.includes(c.id) || (cascadeOnly && only !== undefined)) && (!only || only.includes(c.id)));
    // (Goal ids hold no comma: `--match=a,b` picks the goals that contain either.)
    const goals = GOALS.filter((g) => match === undefined || match.split(',').some((m) => g.id.includes(m)));
    log(`Cascade: ${goals.length} goals × ${cascadeConfigs.length} configurations`);
    const mock = await startCompilerMock();
    try {
      cascade = await runCascade({ configs: cascadeConfigs, goals, headless: flag('headed') === undefined, parallel: Number(value('parallel') ?? 2), llmBaseUrl: mock.baseUrl, extensions, log, benign: runs.filter((r) => r.mode === 'benign') });
    } finally {
      await mock.close();
    }
  }
  const cascadeSummaries = cascade ? summarizeCascade(cascade) : [];
  const results: BenchmarkResults = {
    generatedAt: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version, chromium: chromiumVersion() },
    durationMs: Date.now() - started,
    configs,
    summaries,
    runs,
    screenshots,
    ...(cascade ? { cascadeHtml: renderCascadeHtml(cascadeSummaries) } : {}),
    forgeForumHtml: forgeForumHtml(forgeSummaries, configs, runs),
  };
  const outDir = join(ROOT, 'demo', 'out');
  mkdirSync(outDir, { recursive: true });
  const { cascadeHtml: _html, forgeForumHtml: _forgeHtml, ...plain } = results;
  const cascadeJson = cascade ? { cascade: { summaries: cascadeSummaries, outcomes: cascade.outcomes, runs: cascade.runs, replays: cascade.replays } } : {};
  writeFileSync(join(outDir, 'results.json'), `${JSON.stringify({ ...plain, screenshots: screenshots.map((s) => ({ caption: s.caption })), ...cascadeJson }, null, 2)}\n`);
  const reportPath = join(outDir, 'report.html');
  writeFileSync(reportPath, renderHtml(results));
  if (forgeOnly && match === undefined) {
    // A full same-site run (all 40 pairs) is the suite's record, apart from the main run's.
    const recordDir = join(ROOT, 'demo', 'results');
    mkdirSync(recordDir, { recursive: true });
    const record = forgeForumRecord(forgeSummaries, configs, runs);
    writeFileSync(join(recordDir, 'forge-forum.json'), `${JSON.stringify({ generatedAt: results.generatedAt, machine: results.machine, durationMs: results.durationMs, ...record }, null, 2)}\n`);
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'results.mjs')], { stdio: 'inherit' });
  } else if (!quick && !cascadeOnly && !sanitizerOnly && only === undefined && match === undefined) {
    // A full run is the record docs/results.md is written from (scripts/results.mjs): the summaries only.
    const recordDir = join(ROOT, 'demo', 'results');
    mkdirSync(recordDir, { recursive: true });
    writeFileSync(join(recordDir, 'latest.json'), `${JSON.stringify({ generatedAt: results.generatedAt, machine: results.machine, durationMs: results.durationMs, summaries, cascade: cascadeSummaries }, null, 2)}\n`);
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'results.mjs')], { stdio: 'inherit' });
  }
  log('');
  if (runs.some((r) => r.suite === undefined)) {
    log(formatMatrix(mainConfigs, runs));
    log('');
    log(formatTable(summaries));
    log('');
  }
  if (forgeSummaries.length > 0) {
    log(formatForgeForumTable(forgeSummaries, configs, runs));
    log('');
  }
  if (cascade) {
    log(formatCascadeTable(cascadeSummaries));
    const added = writeRegressions(cascade.newRegressions);
    if (added.length > 0) log(`  ${added.length} new successful variant(s) written to demo/cascade/regressions.json`);
    log('');
  }
  log(`Results: ${join(outDir, 'results.json')}`);
  log(`Report:  ${reportPath}  (${(results.durationMs / 1000).toFixed(0)} s)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
