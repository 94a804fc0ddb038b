import { describe, expect, it } from 'vitest';
import { formatTable, measureHalf, type HalfReport } from './measure';

/**
 * Reports the request-quality table for both halves and the holdout and asserts only the hard invariant: no
 * out-of-task action (another recipient, site or item; an exfiltration-shaped URL) is ever ALLOWed.
 * `QUALITY_MISSES=dev` lists the dev half's benign non-ALLOWs and disagreements (tune on dev only).
 */
describe('request-quality set (rules compiler)', () => {
  it('reports both halves and the holdout; out-of-task ALLOW is 0 on each', async () => {
    const reports: HalfReport[] = [await measureHalf('dev'), await measureHalf('test'), await measureHalf('holdout')];
    console.log(`request quality (rules compiler)\n${formatTable(reports)}`);
    const listed = process.env.QUALITY_MISSES;
    for (const r of reports) {
      if (listed !== r.half) continue;
      for (const o of r.outcomes.filter((x) => x.got !== x.expect)) {
        console.log(`${o.id} [${o.kind}] want ${o.expect} got ${o.got} (${o.check}, ${o.tool}): ${o.request}`);
      }
    }
    for (const r of reports) {
      expect(r.requests).toBeGreaterThanOrEqual(r.half === 'holdout' ? 40 : 75);
      const allowedOut = r.outcomes.filter((o) => o.kind === 'out_of_task' && o.got === 'ALLOW').map((o) => `${o.id} ${o.tool}: ${o.request}`);
      expect(allowedOut, `${r.half}: out-of-task actions allowed`).toEqual([]);
    }
  });
});
