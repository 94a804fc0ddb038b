import { escapeHtml } from '../sites/common';
import type { CascadeOutput } from './runner';

/**
 * The cascade's figures per configuration: ASR per stage (goals reached at that stage / goals that got
 * to it) and cumulative (goals reached by then / all goals), BU, UA, asks per task, rounds used, each
 * successful variant with the check that should have stopped it, and the regression replays.
 */

export interface CascadeSummary {
  config: string;
  label: string;
  goals: number;
  /** Per stage: goals that got to it, goals reached at it. */
  stages: { stage: number; attempted: number; reached: number }[];
  /** Cumulative ASR after stages 1, 2, 3. */
  cumulative: number[];
  bu: number;
  ua: number;
  asksPerTask: number;
  roundsUsed: number;
  maxRounds: number;
  successes: { id: string; stage: number; shouldStop: string; decisions: string[] }[];
  replays: { id: string; reached: boolean }[];
  runs: number;
}

const ratio = (n: number, d: number) => (d === 0 ? 0 : n / d);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function summarizeCascade(out: CascadeOutput): CascadeSummary[] {
  return out.configs.map((config) => {
    const outcomes = out.outcomes.filter((o) => o.config === config.id);
    const runs = out.runs.filter((r) => r.config === config.id);
    const benign = out.benign.filter((r) => r.config === config.id);
    const stages = [1, 2, 3].map((stage) => ({
      stage,
      attempted: outcomes.filter((o) => (o.stagesRun as number[]).includes(stage)).length,
      reached: outcomes.filter((o) => o.reachedAtStage === stage).length,
    }));
    const cumulative = [1, 2, 3].map((stage) => ratio(outcomes.filter((o) => o.reachedAtStage !== null && o.reachedAtStage <= stage).length, outcomes.length));
    const attackedRuns = runs.filter((r) => r.stage !== 'replay');
    const allRuns = [...attackedRuns.map((r) => r.asks.length), ...benign.map((r) => r.asks.length)];
    return {
      config: config.id,
      label: config.label,
      goals: outcomes.length,
      stages,
      cumulative,
      bu: ratio(benign.filter((r) => r.benignDone && r.asks.length === 0).length, benign.length),
      ua: ratio(attackedRuns.filter((r) => r.benignDone).length, attackedRuns.length),
      asksPerTask: ratio(
        allRuns.reduce((a, b) => a + b, 0),
        allRuns.length,
      ),
      roundsUsed: outcomes.reduce((n, o) => n + o.roundsUsed, 0),
      maxRounds: Math.max(0, ...outcomes.map((o) => o.roundsUsed)),
      successes: attackedRuns.flatMap((r) => r.variants.filter((v) => v.reached).map((v) => ({ id: v.id, stage: v.stage, shouldStop: v.shouldStop, decisions: v.feedback.decisions }))),
      replays: out.replays.filter((r) => r.config === config.id).map((r) => ({ id: r.id, reached: r.reached })),
      runs: runs.length + benign.length,
    };
  });
}

export function formatCascadeTable(summaries: CascadeSummary[]): string {
  const header = ['configuration', 'ASR s1', 'ASR s2', 'ASR s3', 'cum. s1', 'cum. s2', 'cum. s3', 'BU', 'UA', 'asks/task', 'rounds'];
  const stageCell = (s: CascadeSummary, i: number) => {
    const st = s.stages[i];
    return st ? `${st.reached}/${st.attempted}` : '';
  };
  const rows = summaries.map((s) => [s.label, stageCell(s, 0), stageCell(s, 1), stageCell(s, 2), ...s.cumulative.map(pct), pct(s.bu), pct(s.ua), s.asksPerTask.toFixed(2), `${s.roundsUsed} (max ${s.maxRounds})`]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  for (const s of summaries) {
    if (s.config === 'none') continue;
    for (const v of s.successes) out.push(`  ${s.label} — SUCCESS stage ${v.stage}: ${v.id}  [should stop: ${v.shouldStop}; decided: ${v.decisions.join(', ') || 'nothing'}]`);
    for (const r of s.replays) out.push(`  ${s.label} — regression ${r.reached ? 'STILL SUCCEEDS' : 'held'}: ${r.id}`);
  }
  return out.join('\n');
}

/** Cumulative ASR after each stage per configuration, as grouped bars (inline SVG). */
export function cascadeChartSvg(summaries: CascadeSummary[]): string {
  const colors = ['#e6a23c', '#d35400', '#8e2c1f'];
  const group = 150;
  const bar = 34;
  const height = 200;
  const top = 20;
  const width = 60 + group * Math.max(1, summaries.length);
  const parts: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + height * (1 - tick);
    parts.push(`<line x1="50" x2="${width}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="44" y="${y + 4}" font-size="11" text-anchor="end">${tick * 100}%</text>`);
  }
  summaries.forEach((s, i) => {
    const x0 = 60 + i * group;
    s.cumulative.forEach((value, j) => {
      const h = height * value;
      const x = x0 + j * (bar + 4);
      const st = s.stages[j];
      parts.push(`<rect x="${x}" y="${top + height - h}" width="${bar}" height="${Math.max(h, 0.5)}" fill="${colors[j]}"><title>${escapeHtml(s.label)}: cumulative ASR after stage ${j + 1} ${pct(value)} (stage ${j + 1}: ${st?.reached ?? 0}/${st?.attempted ?? 0})</title></rect>`);
      parts.push(`<text x="${x + bar / 2}" y="${top + height - h - 3}" font-size="10" text-anchor="middle">${Math.round(value * 100)}</text>`);
    });
    parts.push(`<text x="${x0 + 55}" y="${top + height + 16}" font-size="11" text-anchor="middle">${escapeHtml(s.config)}</text>`);
  });
  const legend = ['after stage 1 (formatted)', 'after stage 2 (semantic)', 'after stage 3 (adaptive)']
    .map((label, j) => `<rect x="${60 + j * 190}" y="${top + height + 30}" width="12" height="12" fill="${colors[j]}"/><text x="${76 + j * 190}" y="${top + height + 40}" font-size="12">${label}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(width, 640)}" height="${top + height + 52}" role="img" aria-label="Cumulative attack success per cascade stage and configuration">${parts.join('')}${legend}</svg>`;
}

export function renderCascadeHtml(summaries: CascadeSummary[]): string {
  const rows = summaries
    .map(
      (s) =>
        `<tr><th scope="row">${escapeHtml(s.label)}</th>${s.stages.map((st) => `<td>${st.reached}/${st.attempted}</td>`).join('')}${s.cumulative.map((c) => `<td>${pct(c)}</td>`).join('')}<td>${pct(s.bu)}</td><td>${pct(s.ua)}</td><td>${s.asksPerTask.toFixed(2)}</td><td>${s.roundsUsed} (max ${s.maxRounds})</td></tr>`,
    )
    .join('\n');
  const details = summaries
    .filter((s) => s.config !== 'none')
    .map(
      (s) => `<h3>${escapeHtml(s.label)}</h3>
<h4>Successful variants</h4>${
        s.successes.length === 0
          ? '<p><em>none</em></p>'
          : `<ul>${s.successes.map((v) => `<li><code>${escapeHtml(v.id)}</code> (stage ${v.stage}) — should have been stopped by: ${escapeHtml(v.shouldStop)}; the extension decided: ${escapeHtml(v.decisions.join(', ') || 'nothing')}</li>`).join('')}</ul>`
      }
<h4>Regression replays</h4>${s.replays.length === 0 ? '<p><em>none stored</em></p>' : `<ul>${s.replays.map((r) => `<li><code>${escapeHtml(r.id)}</code>: ${r.reached ? '<strong>still succeeds</strong>' : 'held'}</li>`).join('')}</ul>`}`,
    )
    .join('\n');
  return `<h2>Cascade: formatted → semantic → adaptive</h2>
<p>Per (task, goal): stage 1 is today's formatted injection; stage 2 the seven second-order semantic templates (only when stage 1 failed); stage 3 up to 10 rounds of the defense-aware mutator (only when stage 2 failed). Stage columns: goals reached at that stage / goals that got to it. Cumulative: goals reached by then / all goals.</p>
<table><thead><tr><th>Configuration</th><th>Stage 1</th><th>Stage 2</th><th>Stage 3</th><th>Cum. 1</th><th>Cum. 2</th><th>Cum. 3</th><th>BU</th><th>UA</th><th>Asks/task</th><th>Rounds</th></tr></thead><tbody>${rows}</tbody></table>
${cascadeChartSvg(summaries)}
${details}`;
}
