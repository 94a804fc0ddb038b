import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { agentFigures } from './agent';
import { bundleFigures } from './bundle';
import { compileFigures } from './compile';
import { evaluatorFigures, growthFigure } from './evaluator';
import { floorFigures } from './floor';
import { memoryFigures } from './memory';
import { minimizerFigures } from './minimizer';
import { pageFigures } from './page';
import { pauseFigures } from './pause';
import { sanitizerFigures } from './sanitizer';
import type { Figure } from './stats';
import { Progress } from '../src/testkit/progress';

/**
 * `npm run bench`: every speed and memory figure in one run, written to bench/results/latest.{json,md}.
 * Targets are reported, never asserted: these machines are noisy, so comparisons are ratios from one run.
 * `npm run bench -- --only evaluator,growth` runs a subset and writes `results/only-evaluator-growth.{json,md}`.
 */
type Section = { name: string; run: () => Promise<Figure[]> | Figure[] };

const SECTIONS: Section[] = [
  { name: 'evaluator', run: evaluatorFigures },
  { name: 'growth', run: () => [growthFigure()] },
  { name: 'page', run: pageFigures },
  { name: 'pause', run: pauseFigures },
  { name: 'sanitizer', run: sanitizerFigures },
  { name: 'minimizer', run: minimizerFigures },
  { name: 'agent', run: agentFigures },
  { name: 'compile', run: compileFigures },
  { name: 'floor', run: floorFigures },
  { name: 'memory', run: memoryFigures },
  { name: 'bundle', run: bundleFigures },
];

function machine(): Record<string, string> {
  let chromium = 'not installed';
  try {
    chromium = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // Browser figures say so themselves when Chromium is missing.
  }
  // The load average says how busy the machine was: other processes share these cores.
  const load = loadavg().map((x) => x.toFixed(1)).join(' / ');
  return { cores: String(cpus().length), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, chromium, load };
}

function markdown(figures: Figure[], meta: Record<string, string>): string {
  const rows = figures.map((f) => `| ${f.figure} | ${f.target} | ${f.measured} | ${f.ratio ?? ''} | ${f.verdict} |`);
  // Issue 40's targets, each against the floor measured in the same run: the figures a user feels, first.
  const floors = figures
    .filter((f) => f.vsFloor !== undefined)
    .map((f) => `| ${f.figure} | ${f.vsFloor!.floor} | ${f.vsFloor!.value.toFixed(f.vsFloor!.unit === '×' ? 3 : 2)} ${f.vsFloor!.unit} | ${f.vsFloor!.atLeast === true ? '≥' : '≤'} ${f.vsFloor!.target} ${f.vsFloor!.unit} | ${f.verdict} |`);
  return [
    `# AgentsFence benchmark`,
    '',
    `Machine: ${meta.cores} cores, ${meta.cpu}; Node ${meta.node}; ${meta.chromium}; load average (1/5/15 min) ${meta.load} at the start, ${meta.loadAtEnd} at the end. Run at ${meta.date}, ${meta.duration}.`,
    '',
    ...(floors.length === 0
      ? []
      : ['## Against the floors (same run)', '', 'Other processes share these cores (see the load average): the ratios count, not absolute times.', '', '| Figure | Floor | Measured | Target | Verdict |', '| --- | --- | --- | --- | --- |', ...floors, '', '## All figures', '']),
    '| Figure | Target | Measured | Ratio | Verdict |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '## Method',
    '',
    ...figures.map((f) => `- **${f.figure}**: ${f.method}`),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const onlyArg = process.argv.find((a) => a.startsWith('--only'));
  const only = onlyArg ? (onlyArg.includes('=') ? onlyArg.split('=')[1] : process.argv[process.argv.indexOf(onlyArg) + 1])?.split(',') : undefined;
  const started = Date.now();
  const atStart = machine();
  const figures: Figure[] = [];
  const sectionSeconds: Record<string, number> = {};
  const sections = SECTIONS.filter((section) => !only || only.includes(section.name));
  const progress = new Progress('bench', sections.length);
  for (const section of sections) {
    process.stderr.write(`bench: ${section.name}…\n`);
    const t0 = Date.now();
    try {
      figures.push(...(await section.run()));
    } catch (err) {
      // One failing section must not lose the others' figures: it is reported as a missed row.
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
      process.stderr.write(`bench: ${section.name} failed: ${message}\n`);
      figures.push({ id: `${section.name}-failed`, figure: `Section ${section.name}`, target: 'runs', measured: `failed: ${message}`, verdict: 'missed', method: 'see stderr of the run' });
    }
    sectionSeconds[section.name] = Math.round((Date.now() - t0) / 100) / 10;
    progress.step(section.name);
  }
  const meta = {
    ...atStart,
    loadAtEnd: loadavg().map((x) => x.toFixed(1)).join(' / '),
    date: new Date(started).toISOString(),
    duration: `${Math.round((Date.now() - started) / 1000)} s (${Object.entries(sectionSeconds)
      .map(([name, s]) => `${name} ${s} s`)
      .join(', ')})`,
  };
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  // A subset never overwrites the full report: it goes to only-<sections>.{json,md}.
  const base = only ? `only-${only.join('-')}` : 'latest';
  writeFileSync(join(dir, `${base}.json`), `${JSON.stringify({ machine: meta, figures }, null, 2)}\n`);
  const md = markdown(figures, meta);
  writeFileSync(join(dir, `${base}.md`), md);
  // A full run is the record docs/results.md is written from.
  if (!only) execFileSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'results.mjs')], { stdio: 'inherit' });
  process.stdout.write(md);
}

await main();
