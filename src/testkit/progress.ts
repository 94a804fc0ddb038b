/**
 * Progress of a long run (`npm run demo`, `npm run bench`): one plain line per completed step on stderr,
 * "demo 12/40 (30%) rules · attacked s07 · 3m12s elapsed, about 7m40s left". No carriage returns or
 * colours: the same lines read in a terminal and in a CI log. The time left is the elapsed time per
 * completed step times the steps left, so with parallel workers it is wall-clock time.
 */
export class Progress {
  private done = 0;
  private readonly started: number;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly clock: () => number = Date.now,
    private readonly write: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  ) {
    this.started = clock();
  }

  /** One step finished: `what` names it. */
  step(what: string): void {
    this.done = Math.min(this.total, this.done + 1);
    this.write(progressLine(this.label, this.done, this.total, this.clock() - this.started, what));
  }
}

/** The line for `done` of `total` steps after `elapsedMs`; pure. */
export function progressLine(label: string, done: number, total: number, elapsedMs: number, what: string): string {
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  const left = done === 0 ? null : (elapsedMs / done) * (total - done);
  const tail = done >= total ? 'done' : left === null ? 'time left unknown' : `about ${duration(left)} left`;
  return `${label} ${done}/${total} (${percent}%) ${what} · ${duration(elapsedMs)} elapsed, ${tail}`;
}

/** 42s, 3m05s, 1h02m. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
