import type { ToolCall } from '../src/core/call';
import { launchAgentBrowser } from '../src/harness';
import { benchExtension, timeProposalsInWorker } from './chromium';
import { POLICY } from './page';
import { median, percentile, summarise, type Figure } from './stats';

/**
 * The Minimizer's cost (`npm run bench -- --only minimizer`). It runs in the worker, on each
 * consequential action's body, before the decision is answered (src/background/decide/minimize.ts); the page
 * only sends the body it read. So its cost is the worker's time per proposal with the Minimizer on
 * (`detect`, the default) against off, on the same allowed POSTs, the two modes interleaved in one
 * browser. Bodies: a short form note, and a 2 KB note of ordinary prose with street addresses, dates, amounts and
 * reference numbers (what the detectors must read and let pass; an e-mail address the task does not name
 * would make it ask), both writes the task allows (a body that
 * names a recipient would be a message, which this task asks about).
 */

const ROUNDS = 6;
const PER_ROUND = 60;

const SHORT = 'note=lunch+at+noon&to=team';
const PROSE = proseBody();
/** The same body each time: numbers that vary could come to look like a code or a card and make it ask. */
function proseBody(): string {
  const lines = Array.from({ length: 14 }, (_, k) => `Line ${k}: the order ${4400 + k} of 12 March ships to Bahnhofstrasse ${k + 3}, 8001 Zurich; invoice total ${(k * 17.5).toFixed(2)} EUR, ref INV-${2024 + k}-${100 + k}, call the front desk on weekdays before 5 pm.`);
  return JSON.stringify({ title: 'Weekly summary', text: lines.join('\n') });
}

const call = (body: string, i: number): ToolCall => ({ tool: 'browser.request', args: { method: 'POST', url: `http://app.test/notes?m=${i}`, kind: 'fetch', body, bodyBytes: body.length } });

export async function minimizerFigures(): Promise<Figure[]> {
  const extension = benchExtension();
  const browser = await launchAgentBrowser({ extensionPath: extension.path });
  try {
    await browser.setPolicy({ ...POLICY, taskId: 'bench-minimizer' });
    const worker = browser.serviceWorker;
    if (worker === null) throw new Error('no service worker');
    type Mode = 'detect' | 'off';
    const samples: Record<'short' | 'prose', Record<Mode, number[]>> = { short: { detect: [], off: [] }, prose: { detect: [], off: [] } };
    let n = 0;
    const batch = (kind: 'short' | 'prose') => Array.from({ length: PER_ROUND }, () => ((n += 1), call(kind === 'short' ? SHORT : PROSE, n)));
    let decided = 0;
    for (let round = -1; round < ROUNDS; round++) {
      for (const mode of (round % 2 === 0 ? ['detect', 'off'] : ['off', 'detect']) as Mode[]) {
        await browser.setOptions({ minimizer: mode });
        for (const kind of ['short', 'prose'] as const) {
          const { samplesMs } = await timeProposalsInWorker(worker, batch(kind), 1, `min-${mode}-${kind}-${round}`);
          // The first round warms both modes up and is not kept.
          if (round >= 0) samples[kind][mode].push(...samplesMs);
          decided += samplesMs.length;
        }
      }
    }
    const allowed = (await browser.audit({ decision: 'ALLOW', limit: 10_000 })).filter((e) => e.destination?.includes('app.test/notes')).length;
    const ms = (x: number) => `${x.toFixed(2)} ms`;
    const added = (kind: 'short' | 'prose') => median(samples[kind].detect) - median(samples[kind].off);
    const words = (kind: 'short' | 'prose') =>
      `p50 ${ms(median(samples[kind].detect))} with it vs ${ms(median(samples[kind].off))} off (p99 ${ms(percentile(samples[kind].detect, 99))} vs ${ms(percentile(samples[kind].off, 99))}), ${ms(added(kind))} added`;
    return [
      {
        id: 'minimizer-cost',
        figure: "Minimizer cost per consequential action (in the worker, before the answer)",
        target: 'reported (the issue sets no target; it adds to the round trip)',
        measured: `short form body: ${words('short')}; 2 KB note of prose with street addresses, dates, amounts and references: ${words('prose')}`,
        ratio: `${(median(samples.prose.detect) / median(samples.prose.off)).toFixed(2)}× (2 KB body, detect / off)`,
        verdict: 'info',
        method:
          `One guarded browser, the page figures' task (writes allowed on app.test); allowed POST proposals handed to the monitor's message handler inside the worker (the entry content-script messages take: parse, Minimizer, evaluate, commit, audit), one at a time, ${PER_ROUND} per body and mode per round, ${ROUNDS} rounds after one warm-up, the modes alternating (options.minimizer 'detect', the default, and 'off'). ` +
          `${allowed} of the ${decided} proposals were audited ALLOW (none flagged: the bodies carry nothing confidential). The page side does no Minimizer work (the hook sends the body it read either way).`,
        data: { short: { detect: summarise(samples.short.detect), off: summarise(samples.short.off), addedMs: added('short') }, prose: { detect: summarise(samples.prose.detect), off: summarise(samples.prose.off), addedMs: added('prose') } },
      },
    ];
  } finally {
    await browser.close().catch(() => undefined);
    extension.dispose();
  }
}
