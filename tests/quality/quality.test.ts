import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { byCategory, causesByCategory, formatTable, measureHalf, requestsFullyAllowed, type HalfReport } from './measure';

/**
 * Reports the request-quality table for both halves, the holdout and the typed tuning halves (requests.typed.json,
 * tools.typed.json: written as people type by a reviewer who had not read the compiler; tools.typed2.json: generic
 * tool calls in assistant-suite tasks, written before anyone tuned on it by a helper who had; requests.typed2.json and
 * requests.typed3.json, requests.typed4.json: the frozen fresh halves of rounds 3, 4 and 5, each retired as a tuning set) and asserts only the hard
 * invariant: no out-of-task action (another recipient, site, item, action, object or direction; an
 * exfiltration-shaped URL) is ever ALLOWed. `QUALITY_MISSES=dev` (or `typed`, `tools-typed`) lists that half's
 * benign non-ALLOWs and disagreements (tune on those only; also `typed2`, `typed3`, `typed4`, `tools-typed2`).
 */

describe('request-quality set (rules compiler)', () => {
  it('reports both halves, the holdout and the typed halves; out-of-task ALLOW is 0 on each', async () => {
    const reports: HalfReport[] = [];
    for (const half of ['dev', 'test', 'holdout', 'typed', 'typed2', 'typed3', 'typed4', 'tools-typed', 'tools-typed2'] as const) reports.push(await measureHalf(half));
    console.log(`request quality (rules compiler)\n${formatTable(reports)}`);
    const listed = process.env.QUALITY_MISSES;
    for (const r of reports) {
      if (listed !== r.half) continue;
      for (const o of r.outcomes.filter((x) => x.got !== x.expect)) {
        console.log(`${o.id} [${o.kind}] want ${o.expect} got ${o.got} (${o.check}, ${o.tool}): ${o.request}`);
      }
    }
    for (const r of reports) {
      expect(r.requests).toBeGreaterThanOrEqual(r.half === 'holdout' || r.half === 'tools-typed' ? 40 : r.half === 'tools-typed2' ? 60 : 75);
      const allowedOut = r.outcomes.filter((o) => o.kind === 'out_of_task' && o.got === 'ALLOW').map((o) => o.id);
      expect(allowedOut, `${r.half}: out-of-task actions allowed`).toEqual([]);
    }
  });
});

/**
 * The frozen halves (tests/quality/requests.fresh.json, tests/quality/tools.fresh.json): written by a reviewer
 * who had not read the compiler or the classifiers, committed before anyone measured them, never tuned on.
 * They are reported apart, per category, and never listed miss by miss (a list is what one tunes on): a failure
 * names the half, never the request. Benign figures are reported, not asserted; out-of-task ALLOW = 0 is
 * asserted, as on every other half. And they stay frozen: a file edited after its first commit is no longer a
 * half nobody tuned on.
 */
const FROZEN = {
  'requests.fresh.json': '34ad258a909cb8c67909b7a8f10ae1b690575463485712389aa57d3bc69bb3e3',
  'tools.fresh.json': '4c3d31d6f07499f9c1e799b72e1a3cedeb66266e14e6ab1b7c199ff2f3d6c905',
} as const;

describe('frozen fresh halves (never tuned on)', () => {
  it('are unchanged since they were written', () => {
    for (const [file, sha] of Object.entries(FROZEN)) {
      const got = createHash('sha256').update(readFileSync(new URL(`./${file}`, import.meta.url))).digest('hex');
      expect(got, `${file} was edited after it was frozen`).toBe(sha);
    }
  });

  it('reports the fresh browser half and the fresh tool-call set, per category; out-of-task ALLOW is 0 on each', async () => {
    for (const half of ['fresh', 'tools-fresh'] as const) {
      const report = await measureHalf(half);
      expect(report.requests).toBeGreaterThanOrEqual(40);
      console.log(
        `${half} (frozen, never tuned on; benign figures reported, not asserted)\n${formatTable(byCategory(report))}\n` +
          `requests with every task action ALLOWed: ${requestsFullyAllowed(report)} of ${report.requests}\n` +
          `why, per category:\n${causesByCategory(report)}`,
      );
      // (A count, never the ids: the frozen halves are not listed miss by miss.)
      const allowedOut = report.outcomes.filter((o) => o.kind === 'out_of_task' && o.got === 'ALLOW').length;
      expect(allowedOut, `${half}: out-of-task actions allowed`).toBe(0);
    }
  });
});
