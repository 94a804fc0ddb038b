import { readFileSync } from 'node:fs';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';

/**
 * The request-quality set (tests/quality/requests.{dev,test,holdout,typed,typed2,typed3,typed4}.json, tools.typed.json): requests
 * written as people write them, each compiled by the rules compiler, its sample actions evaluated in order (counters
 * carried). The holdout was written after the dev/test halves, before the tuning that followed them.
 * The frozen halves (requests.fresh.json: browser actions; tools.fresh.json: generic agent tools) were
 * written by a reviewer who had not read the compiler or the classifiers, and are never tuned on.
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
  /** The benchmark task the text comes from (frozen halves only). */
  source?: string;
}
/**
 * The halves people tune on (dev; tools-typed2, generic tool calls in assistant-suite tasks; typed and tools-typed, written as people type by a reviewer who had not read
 * the compiler, for tuning; typed2, typed3 and typed4, the frozen fresh halves of rounds 3, 4 and 5, each retired as a tuning
 * set when a new frozen half replaced it) or report from after tuning (test, holdout).
 */
export type TunedHalf = 'dev' | 'test' | 'holdout' | 'typed' | 'typed2' | 'typed3' | 'typed4' | 'tools-typed' | 'tools-typed2';
/** The frozen halves nobody tuned on: reported apart, never listed miss by miss. */
export type FrozenHalf = 'fresh' | 'tools-fresh';
export type Half = TunedHalf | FrozenHalf;

const FILES: Record<Half, string> = {
  dev: 'requests.dev.json',
  test: 'requests.test.json',
  holdout: 'requests.holdout.json',
  typed: 'requests.typed.json',
  typed2: 'requests.typed2.json',
  typed3: 'requests.typed3.json',
  typed4: 'requests.typed4.json',
  'tools-typed': 'tools.typed.json',
  'tools-typed2': 'tools.typed2.json',
  fresh: 'requests.fresh.json',
  'tools-fresh': 'tools.fresh.json',
};
interface QualityFile {
  half: Half;
  split: string;
  requests: Request[];
}

export interface Outcome {
  id: string;
  category: string;
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
  return JSON.parse(readFileSync(new URL(`./${FILES[half]}`, import.meta.url), 'utf8')) as QualityFile;
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
      outcomes.push({ id: r.id, category: r.category, request: r.request, kind: a.kind, expect: a.expect, got, check: result.record.check, tool: result.record.tool });
    }
  }
  return summarise(half, file.requests.length, outcomes);
}

function summarise(half: string, requests: number, outcomes: Outcome[]): HalfReport {
  const benign = outcomes.filter((o) => o.kind === 'benign');
  const out = outcomes.filter((o) => o.kind === 'out_of_task');
  const count = (xs: Outcome[], d: Expected) => xs.filter((o) => o.got === d).length;
  return {
    half,
    requests,
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

/** One row per category of a half (in the order the file first uses them), then the half's own row. */
export function byCategory(report: HalfReport): HalfReport[] {
  const categories = [...new Set(report.outcomes.map((o) => o.category))];
  return [
    ...categories.map((c) => {
      const outcomes = report.outcomes.filter((o) => o.category === c);
      return summarise(`${report.half}: ${c}`, new Set(outcomes.map((o) => o.id)).size, outcomes);
    }),
    { ...report, half: `${report.half}: all` },
  ];
}

/** Requests whose every benign action was ALLOWed. */
export function requestsFullyAllowed(report: HalfReport): number {
  const ids = new Set(report.outcomes.filter((o) => o.kind === 'benign').map((o) => o.id));
  return [...ids].filter((id) => report.outcomes.every((o) => o.id !== id || o.kind !== 'benign' || o.got === 'ALLOW')).length;
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

/**
 * Why a half's benign actions are not ALLOWed, per category: for each category, how many benign actions ended
 * in each decision at each check (`ASK at site_binding: 3`), and which checks ALLOWed an out-of-task action.
 * Counts only, never a request: what a frozen half may show without becoming a list one tunes on.
 */
export function causesByCategory(report: HalfReport): string {
  const categories = [...new Set(report.outcomes.map((o) => o.category))];
  const tally = (xs: Outcome[]) => {
    const counts = new Map<string, number>();
    for (const o of xs) counts.set(`${o.got} at ${o.check}`, (counts.get(`${o.got} at ${o.check}`) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`).join('; ') || '—';
  };
  const rows = categories.map((c) => {
    const of = report.outcomes.filter((o) => o.category === c);
    return `| ${c} | ${tally(of.filter((o) => o.kind === 'benign' && o.got !== 'ALLOW'))} | ${tally(of.filter((o) => o.kind === 'out_of_task' && o.got === 'ALLOW'))} |`;
  });
  return ['| category | benign not ALLOWed (decision at check: count) | out-of-task ALLOWed (check: count) |', '|---|---|---|', ...rows].join('\n');
}
