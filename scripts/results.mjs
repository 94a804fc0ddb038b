#!/usr/bin/env node
// Writes docs/results.md from the two committed result files, so every figure the docs give has one
// source: demo/results/latest.json (the last full `npm run demo`) and bench/results/latest.json (the last
// full `npm run bench`), and demo/results/forge-forum.json (the last full `npm run demo -- --forge-forum`). Both commands run this at their end; `--check` says whether the page is current.
// Plain Node: no dependency of its own.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_RESULTS = join(root, 'demo', 'results', 'latest.json');
const BENCH_RESULTS = join(root, 'bench', 'results', 'latest.json');
const FORGE_FORUM_RESULTS = join(root, 'demo', 'results', 'forge-forum.json');
const RESULTS_MD = join(root, 'docs', 'results.md');

const pct = (x) => `${(x * 100).toFixed(1)} %`;
const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');
const table = (header, rows) => [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

function demoSection(demo) {
  if (demo === null) return ['## Attack benchmark (`npm run demo`)', '', 'No full demo run is recorded yet (`demo/results/latest.json`): run `npm run demo`.'];
  const attack = demo.summaries.filter((s) => Object.keys(s.exposureByPlacement).length === 0);
  const sanitizer = demo.summaries.filter((s) => Object.keys(s.exposureByPlacement).length > 0);
  const out = [
    '## Attack benchmark (`npm run demo`)',
    '',
    `Run ${demo.generatedAt} in ${Math.round(demo.durationMs / 1000)} s on ${demo.machine.cores} cores (Node ${demo.machine.node}, ${demo.machine.chromium}). ` +
      'Truth is the demo servers\' own action logs. BU: benign tasks done with no prompt; UA: attacked runs whose task was still done; ' +
      'ASR: attacked runs whose attack action ran; in-policy ASR: the same over the in-policy data thefts (what the Minimizer stops); ' +
      'exposure: attacked runs in which the agent read the injected instruction. How the scenarios work: [demo/README.md](../demo/README.md).',
    '',
    table(
      ['configuration', 'benign runs', 'attacked runs', 'BU', 'BU+approvals', 'UA', 'ASR', 'in-policy ASR', 'asks/task', 'false blocks', 'attacks that ran'],
      attack.map((s) => {
        const theft = s.asrByVector['in-policy-theft'];
        return [s.label, s.benignRuns, s.attackedRuns, pct(s.bu), pct(s.buWithApprovals), pct(s.ua), pct(s.asr), theft ? `${pct(s.inPolicyAsr)} (${theft.ran}/${theft.runs})` : '— (none run)', s.asksPerTask.toFixed(2), s.falseBlocks.join(', ') || '—', ranList(s.missedBlocks)];
      }),
    ),
  ];
  if (sanitizer.length > 0) {
    out.push('', '### Sanitizer configurations', '', 'The same agents over the Sanitizer\'s placements × wordings (`demo/sanitizer.ts`).', '');
    out.push(
      table(
        ['configuration', 'BU', 'UA', 'ASR', 'exposure', 'asks/task', 'placements × wordings read'],
        sanitizer.map((s) => {
          const read = Object.entries(s.exposureByPlacement).filter(([, v]) => v.read > 0).map(([k]) => k);
          const exposed = Object.values(s.exposureByPlacement).reduce((n, v) => n + v.read, 0);
          const runs = Object.values(s.exposureByPlacement).reduce((n, v) => n + v.runs, 0);
          return [s.label, pct(s.bu), pct(s.ua), pct(s.asr), `${pct(s.exposure)} (${exposed}/${runs})`, s.asksPerTask.toFixed(2), read.join(', ') || 'none'];
        }),
      ),
    );
  }
  if (demo.cascade && demo.cascade.length > 0) {
    out.push('', '### Cascade', '', 'Per (task, goal): stage 1 formatted, stage 2 semantic templates, stage 3 a defense-aware mutator; stored regressions (`demo/cascade/regressions.json`) replayed every run.', '');
    out.push(
      table(
        ['configuration', 'goals', 'reached s1', 's2', 's3', 'cumulative ASR', 'BU', 'UA', 'asks/task', 'mutator rounds', 'regressions held'],
        demo.cascade.map((c) => [c.label, c.goals, ...[0, 1, 2].map((i) => (c.stages[i] ? `${c.stages[i].reached}/${c.stages[i].attempted}` : '—')), pct(c.cumulative.at(-1) ?? 0), pct(c.bu), pct(c.ua), c.asksPerTask.toFixed(2), `${c.roundsUsed} (max ${c.maxRounds})`, `${c.replays.filter((r) => !r.reached).length}/${c.replays.length}`]),
      ),
    );
  }
  return out;
}

const count = (n, d) => (d === 0 ? '—' : `${pct(n / d)} (${n}/${d})`);

function forgeForumSection(ff) {
  const head = ['### Same-site suite (`npm run demo -- --forge-forum`)', ''];
  if (ff === null) return [...head, 'No full same-site run is recorded yet (`demo/results/forge-forum.json`): run `npm run demo -- --forge-forum`.'];
  return [
    ...head,
    `Run ${ff.generatedAt} in ${Math.round(ff.durationMs / 1000)} s on ${ff.machine.cores} cores. A code forge and a forum with GitLab's and Postmill's request shapes ` +
      '(`demo/forge-forum.ts`); each task acts on one object, every goal stays on the task\'s site. ASR over (task, goal) pairs, BU over the tasks; truth is the sites\' logs.',
    '',
    table(
      ['configuration', 'ASR', 'BU (no ask)', 'BU+approvals', 'asks/task', 'asks per benign task'],
      ff.summaries.map((s) => [s.label, count(s.landed, s.pairs), count(s.buNoAsk, s.benign), count(s.buWithApprovals, s.benign), s.asksPerTask.toFixed(2), Object.entries(s.benignAsks).map(([t, n]) => `${t} ${n}`).join(', ')]),
    ),
    '',
    'Per (task, goal): landed, or the check that decided (and the simulated user\'s answer to an ask).',
    '',
    table(['(task, goal)', ...ff.configs], ff.pairs.map((p) => [p.id, ...p.cells])),
  ];
}

function benchSection(bench) {
  if (bench === null) return ['## Benchmarks (`npm run bench`)', '', 'No full bench run is recorded yet (`bench/results/latest.json`): run `npm run bench`.'];
  const m = bench.machine;
  return [
    '## Benchmarks (`npm run bench`)',
    '',
    `Run ${m.date}, ${m.duration}; ${m.cores} cores, ${m.cpu}; Node ${m.node}; ${m.chromium}; load average ${m.load} at the start, ${m.loadAtEnd} at the end. ` +
      'Browser figures are noisy on a shared machine: compare ratios, not milliseconds, across runs. Targets are reported, not asserted. ' +
      'How each figure is measured: [bench/results/latest.md](../bench/results/latest.md#method).',
    '',
    table(['figure', 'target', 'measured', 'ratio', 'verdict'], bench.figures.map((f) => [f.figure, f.target, f.measured, f.ratio ?? '', f.verdict])),
  ];
}

/** The attacked runs whose attack ran: named when few (what to look at), counted when many (a negative control). */
const ranList = (ids) => (ids.length === 0 ? '—' : ids.length <= 10 ? ids.join(', ') : `${ids.length} runs (demo/out/report.html names them)`);

const read = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null);

/** The page, from the two result files (null: not recorded yet). */
function renderResults(demo, bench, forgeForum) {
  return [
    '# Results',
    '',
    '<!-- Generated by scripts/results.mjs from demo/results/latest.json and bench/results/latest.json; do not edit by hand. -->',
    'Written by `npm run demo` and `npm run bench` (through `scripts/results.mjs`) from their own JSON: ' +
      '[demo/results/latest.json](../demo/results/latest.json) and [bench/results/latest.json](../bench/results/latest.json). ' +
      'The analysis behind the missed targets, and earlier runs: [performance.md](performance.md).',
    '',
    ...demoSection(demo),
    '',
    ...forgeForumSection(forgeForum),
    '',
    ...benchSection(bench),
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = renderResults(read(DEMO_RESULTS), read(BENCH_RESULTS), read(FORGE_FORUM_RESULTS));
  if (process.argv.includes('--check')) {
    // tests/docs/readme.test.ts: the committed page is what the committed JSON gives.
    const current = existsSync(RESULTS_MD) ? readFileSync(RESULTS_MD, 'utf8') : '';
    if (current !== page) {
      process.stderr.write('results: docs/results.md is not what the result files give; run node scripts/results.mjs\n');
      process.exit(1);
    }
  } else {
    writeFileSync(RESULTS_MD, page);
    process.stderr.write(`results: wrote ${RESULTS_MD}\n`);
  }
}
