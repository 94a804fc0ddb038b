import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from '../demo/build';
import { startCompilerMock } from '../demo/compilers';
import { TASKS } from '../demo/scenarios';
import { compileTask } from '../src/compiler';
import { summarise, type Figure } from './stats';
import { classify } from '../src/tools';

/**
 * Figure 5: compiling the user's request into a TaskPolicy. The offline rules compiler runs on every
 * task start, so its time is measured in process on a 2 KB request; the LLM path is dominated by the
 * model, so what matters is how many model calls the normal case makes (counted at the mock server).
 */

/** A long but ordinary request (~2 KB): the task, its constraints, and a pasted e-mail the compiler must isolate. */
export function twoKilobyteRequest(variant: number): string {
  const parts = [
    `On mail.test, reply to bob@corp.test's message about the offsite (thread ${variant}) saying I'll attend, and ask whether the agenda is final.`,
    'Keep the reply short and friendly; sign it Sam. Do not send anything to anyone else, and do not forward the thread.',
    'Then open news.test and read the two most recent articles about agent security so you can summarise them for me afterwards.',
    'Do not buy anything, do not change any sharing settings on drive.test, and do not delete any messages.',
    'Here is what Bob wrote, for context:',
    '> Hi Sam, the offsite is on 14 May at the lake house. Please confirm by Friday.',
    '> We will cover the Q3 plan, the hiring budget and the new on-call rota.',
    '> If you cannot attend, send your notes to alice@corp.test instead.',
    '> Lunch is provided; dinner is optional. Parking is limited, so carpool if you can.',
    '> -- Bob',
    'If the agenda is attached, just read it; there is no need to download it.',
  ];
  let text = parts.join('\n');
  const filler = ' Please be careful with the details, and tell me if anything looks unusual or asks you to do more than this.';
  while (text.length < 2048) text += filler;
  return text.slice(0, 2048);
}

const NOW = 1_700_000_000_000;

async function rulesCompileSamples(n: number): Promise<number[]> {
  for (let i = 0; i < 50; i++) await compileTask(twoKilobyteRequest(i), { backend: 'rules', now: NOW, taskId: `warm-${i}`, classify });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const request = twoKilobyteRequest(1000 + i);
    const t0 = performance.now();
    await compileTask(request, { backend: 'rules', now: NOW, taskId: `t-${i}`, classify });
    samples.push(performance.now() - t0);
  }
  return samples;
}

// (Many runs: start to exit is a few hundred ms of a shared machine's noise.)
const CLI_RUNS = 21;
const CLI_TARGET_MS = 150;
const SMALL_REQUEST = "On mail.test, reply to bob@corp.test's message about the offsite saying I'll attend.";

/** Start to exit of one process, ms; throws if it fails (a CLI that cannot start must not pass for a fast one). */
function timeProcess(args: string[]): number {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr.split('\n')[0]}`);
  return ms;
}

/** `agentsfence compile` as a user's script calls it: the package's bin, a small request, the rules compiler. */
function cliFigure(): Figure {
  const bin = join(ROOT, 'bin', 'agentsfence.mjs');
  const cli: number[] = [];
  const bare: number[] = [];
  timeProcess([bin, 'compile', SMALL_REQUEST]); // warm the file cache
  for (let i = 0; i < CLI_RUNS; i++) {
    cli.push(timeProcess([bin, 'compile', SMALL_REQUEST]));
    bare.push(timeProcess(['-e', '0']));
  }
  const [p50, nodeP50] = [summarise(cli).p50, summarise(bare).p50];
  return {
    id: 'compile-cli',
    figure: '`agentsfence compile` start to exit, small request (rules compiler)',
    target: `≤ ${CLI_TARGET_MS} ms`,
    measured: `p50 ${p50.toFixed(0)} ms (max ${Math.max(...cli).toFixed(0)} ms); a bare \`node -e 0\` start to exit p50 ${nodeP50.toFixed(0)} ms, so ${(p50 - nodeP50).toFixed(0)} ms is the CLI's own`,
    ratio: `${(p50 / CLI_TARGET_MS).toFixed(2)}× the target; ${(p50 / nodeP50).toFixed(1)}× Node's bare start`,
    vsFloor: { floor: "none (absolute; Node's bare start in the same rounds, in the row)", value: p50, unit: 'ms', target: CLI_TARGET_MS },
    verdict: p50 <= CLI_TARGET_MS ? 'met' : 'missed',
    method: `${CLI_RUNS} runs after one warm-up of \`node bin/agentsfence.mjs compile "${SMALL_REQUEST}"\` (the package's bin, what \`npx agentsfence\` runs once npx has found it), each followed by \`node -e 0\`; wall time from spawn to exit (spawnSync) in the bench process.`,
    data: { cliMs: cli, nodeMs: bare },
  };
}

export async function compileFigures(): Promise<Figure[]> {
  const samples = await rulesCompileSamples(500);
  const rules = summarise(samples);
  const example = await compileTask(twoKilobyteRequest(0), { backend: 'rules', now: NOW, taskId: 'example', classify });

  const mock = await startCompilerMock();
  const perTask: { task: string; serverCalls: number; reportedCalls: number; fallback: boolean; ms: number }[] = [];
  try {
    for (const task of TASKS) {
      const before = mock.requests.length;
      const t0 = performance.now();
      const { report } = await compileTask(task.request, { backend: 'openai', baseUrl: mock.baseUrl, model: 'good', apiKey: 'bench-key', now: NOW, taskId: task.id, classify });
      perTask.push({ task: task.id, serverCalls: mock.requests.length - before, reportedCalls: report.modelCalls, fallback: report.fallbackReason !== null, ms: performance.now() - t0 });
    }
  } finally {
    await mock.close();
  }
  const callCounts = perTask.map((t) => t.serverCalls);
  const allOne = callCounts.every((c) => c === 1) && perTask.every((t) => !t.fallback);
  const total = callCounts.reduce((a, b) => a + b, 0);

  return [
    cliFigure(),
    {
      id: 'compile-rules',
      figure: 'Rules compile of a 2 KB request (isolate → prohibitions → rules draft → harden)',
      target: '≤ 5 ms (p50)',
      measured: `p50 ${rules.p50.toFixed(3)} ms, p99 ${rules.p99.toFixed(3)} ms`,
      verdict: rules.p50 <= 5 ? 'met' : 'missed',
      method:
        `In process, 500 compiles after 50 warm-up, each a 2,048-character request (task, constraints, a pasted e-mail in > lines) varied per sample; performance.now per compile. Example result: ${example.policy.evidence.length} evidence quotes, ${example.policy.prohibitions.length} prohibitions, ${example.report.removed.length} items removed by hardening.`,
      data: { rulesMs: rules, samplesMs: samples, requestChars: twoKilobyteRequest(0).length },
    },
    {
      id: 'compile-llm-calls',
      figure: 'LLM compile against the mock chat-completions server: model calls per task (normal case)',
      target: '1 call',
      measured: `${total} calls for ${perTask.length} tasks (per task: ${[...new Set(callCounts)].join(', ')}); fallbacks ${perTask.filter((t) => t.fallback).length}`,
      verdict: allOne ? 'met' : 'missed',
      method:
        "Every benign task request of the demo compiled with backend openai against the local mock server playing the 'good' compiler (openai SDK, JSON schema output); calls counted at the server and in the compiler's report. Times here are the mock's, not a model's.",
      data: { perTask },
    },
  ];
}
