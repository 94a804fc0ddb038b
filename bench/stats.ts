/** Small statistics helpers shared by the benchmarks. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summarise(samples: readonly number[]): { n: number; p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

export function median(xs: readonly number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 50);
}

/** One row of the report: what was measured, against which target, and whether it met it. */
export interface Figure {
  id: string;
  figure: string;
  target: string;
  measured: string;
  ratio?: string;
  /**
   * The figure as a number against the floor it bounds, measured in the same run (`ratio` says it in
   * words): `value` in `unit`, the target it is held to (at most, or `atLeast`), and what the floor is.
   */
  vsFloor?: { floor: string; value: number; unit: string; target: number; atLeast?: boolean };
  verdict: 'met' | 'missed' | 'info';
  method: string;
  data?: Record<string, unknown>;
}
