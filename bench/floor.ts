import { performance } from 'node:perf_hooks';
import { ALL_TYPES, buildSessionRules, buildTaintRules, rulesForBrowser, type Rule } from '../src/background/floor/dnr';
import { builtKey, ruleUpdate } from '../src/background/floor/rule-update';
import type { TaintKind, TaintToken } from '../src/taint/tokens';
import { benchPolicy } from './evaluator';
import { summarise, type Figure } from './stats';

/**
 * The network floor's rebuild after a taint report, in process: what the worker computes before its
 * declarativeNetRequest calls (session rules and the taint's dynamic rules in the browser's vocabulary,
 * compared with what is installed; src/background/floor/floor-sync.ts). Every report that adds a token pays it
 * (coalesced 50 ms). The browser's own side is not timed here: the taint rules are dynamic rules, which
 * Chromium re-indexes on its file sequence, not on the UI thread (src/background/floor/dnr.ts, buildTaintRules).
 */

const KINDS: TaintKind[] = ['email', 'one-time-code', 'token', 'typed', 'card-or-account'];
const SIZES = [20, 60, 120];
const REBUILDS = 40;

/** What a mail page shows and the agent types: addresses, codes, keys, sentences. */
function token(i: number): TaintToken {
  const kind = KINDS[i % KINDS.length]!;
  const value =
    kind === 'email'
      ? `person${i}@corp.test`
      : kind === 'one-time-code'
        ? String(100000 + ((i * 7919) % 900000))
        : kind === 'token'
          ? `sk_live_${(i * 2654435761).toString(16).padStart(12, '0')}`
          : kind === 'card-or-account'
            ? `DE89 3704 0044 0532 0130 ${String(i).padStart(2, '0')}`
            : `Hi Bob, I will attend the offsite on ${(i % 28) + 1} May. Best, Sam`;
  return { value, kind, site: 'mail.test' };
}

export function floorFigures(): Figure[] {
  const policy = benchPolicy();
  const support = { resourceTypes: new Set<string>(ALL_TYPES), responseHeaders: true };
  const scope = { excludedTabIds: [-1] };
  const tokens = Array.from({ length: Math.max(...SIZES) + REBUILDS }, (_, i) => token(i));
  const bySize = SIZES.map((size) => {
    let session: Rule[] = [];
    let taint: Rule[] = [];
    const samples: number[] = [];
    for (let n = 0; n < REBUILDS + 5; n++) {
      const input = { policy, floorWriteDomains: [], taint: tokens.slice(0, size + n) };
      const t0 = performance.now();
      const sessionUpdate = ruleUpdate(session, rulesForBrowser(buildSessionRules(input, scope, 'ext'), support).rules, builtKey);
      const taintUpdate = ruleUpdate(taint, rulesForBrowser(buildTaintRules(input), support).rules, builtKey);
      const ms = performance.now() - t0;
      session = sessionUpdate.after;
      taint = taintUpdate.after;
      if (n >= 5) samples.push(ms); // the first rebuilds fill the installed set
    }
    return { size, rules: taint.length, summary: summarise(samples) };
  });
  return [
    {
      id: 'floor-rebuild',
      figure: 'Network floor rebuild after a taint report (in process: rules built, adapted, compared with the installed ones)',
      target: 'info (no target; worker time per taint report that adds a token)',
      measured: bySize.map((s) => `${s.size} tokens (${s.rules} taint rules): p50 ${s.summary.p50.toFixed(2)} ms, p99 ${s.summary.p99.toFixed(2)} ms`).join('; '),
      verdict: 'info',
      method: `Shown and typed tokens of five kinds on mail.test, the evaluator section's policy (mail.test and news.test, sending allowed); at each size ${REBUILDS} rebuilds, each with one more token than the last, against the rules the previous one installed (builtKey, as the worker does once reconciled). performance.now around the build, the adaptation (rulesForBrowser) and both diffs (ruleUpdate).`,
      data: { bySize },
    },
  ];
}
