import { readFileSync } from 'node:fs';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';

/**
 * The request-quality set (tests/quality/requests.{dev,test,holdout}.json): requests written as people
 * write them, each compiled by the rules compiler, its sample actions evaluated in order (counters
 * carried). The holdout was written after the dev/test halves, before the tuning that followed them.
 */
type Expected = 'ALLOW' | 'ASK' | 'BLOCK';
interface Action {
  call: unknown;
  expect: Expected;
  kind: 'benign' | 'out_of_task';
}
interface Request {
  id: string;
  category: string;
  request: string;
  actions: Action[];
}
export type Half = 'dev' | 'test' | 'holdout';
interface QualityFile {
  half: Half;
  split: string;
  requests: Request[];
}

export interface Outcome {
  id: string;
  request: string;
  kind: Action['kind'];
  expect: Expected;
  got: Expected;
  check: string;
  tool: string;
}

export interface HalfReport {
  half: string;
  requests: number;
  benign: number;
  outOfTask: number;
  /** Shares of benign actions, in per cent. */
  benignAllow: number;
  benignAsk: number;
  benignBlock: number;
  /** Share of out-of-task actions that were allowed, in per cent (must be 0). */
  outOfTaskAllow: number;
  /** Share of all actions decided as the file expects, in per cent. */
  asExpected: number;
  outcomes: Outcome[];
}

const NOW = 1_800_000_000_000;
const pct = (n: number, of: number) => (of === 0 ? 0 : Math.round((1000 * n) / of) / 10);

export function loadHalf(half: Half): QualityFile {
  return JSON.parse(readFileSync(new URL(`./requests.${half}.json`, import.meta.url), 'utf8')) as QualityFile;
}

export async function measureHalf(half: Half): Promise<HalfReport> {
  const file = loadHalf(half);
  const outcomes: Outcome[] = [];
  for (const r of file.requests) {
    const { policy } = await compileTask(r.request, { backend: 'rules', now: NOW, taskId: `quality-${r.id}`, classify });
    let state = initialState();
    for (const a of r.actions) {
      const result = evaluate(policy, state, a.call, NOW + 1);
      state = result.state;
      const got = result.record.decision === 'ASK_USER' ? 'ASK' : result.record.decision;
      outcomes.push({ id: r.id, request: r.request, kind: a.kind, expect: a.expect, got, check: result.record.check, tool: result.record.tool });
    }
  }
  const benign = outcomes.filter((o) => o.kind === 'benign');
  const out = outcomes.filter((o) => o.kind === 'out_of_task');
  const count = (xs: Outcome[], d: Expected) => xs.filter((o) => o.got === d).length;
  return {
    half,
    requests: file.requests.length,
    benign: benign.length,
    outOfTask: out.length,
    benignAllow: pct(count(benign, 'ALLOW'), benign.length),
    benignAsk: pct(count(benign, 'ASK'), benign.length),
    benignBlock: pct(count(benign, 'BLOCK'), benign.length),
    outOfTaskAllow: pct(count(out, 'ALLOW'), out.length),
    asExpected: pct(outcomes.filter((o) => o.got === o.expect).length, outcomes.length),
    outcomes,
  };
}

export function formatTable(reports: HalfReport[]): string {
  const rows = reports.map(
    (r) =>
      `| ${r.half} | ${r.requests} | ${r.benign} | ${r.benignAllow} % | ${r.benignAsk} % | ${r.benignBlock} % | ${r.outOfTask} | ${r.outOfTaskAllow} % | ${r.asExpected} % |`,
  );
  return [
    '| half | requests | benign actions | benign ALLOW | benign ASK | benign BLOCK | out-of-task actions | out-of-task ALLOW | as expected |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
