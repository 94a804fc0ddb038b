/**
 * Keeps the worker running while a task runs and its agent is active. Chromium stops an extension worker
 * after 30 s without an event or an extension API call, and the first decision after that pays a cold start
 * (worker start, evaluating background.js, reopening IndexedDB: ≈ 40 ms against ≈ 3 ms warm, `npm run bench`).
 * Agents pause that long between actions while their model thinks. Calling an extension API resets the
 * idle timer (developer.chrome.com/docs/extensions/develop/concepts/service-workers/lifecycle, "Idle and
 * shutdown"), so a cheap call every PING_INTERVAL_MS keeps the worker warm.
 *
 * Only while it pays: a task is running and something was decided or audited in the last
 * ACTIVE_WINDOW_MS. A task left running in a forgotten browser lets the worker stop like any other.
 * Nothing depends on it for safety: a stopped worker loses nothing (state is in IndexedDB), it only costs time.
 */

export const PING_INTERVAL_MS = 20_000;
export const ACTIVE_WINDOW_MS = 10 * 60_000;

export interface KeepWarmDeps {
  /** A cheap extension API call (resets the browser's idle timer). */
  ping(): Promise<unknown>;
  now(): number;
  every(fn: () => void, ms: number): () => void;
}

export interface KeepWarm {
  /** The running task changed (null: none runs). */
  follow(taskRunning: boolean): void;
  /** Something was decided or audited. */
  activity(): void;
  readonly warm: boolean;
}

export function keepWarm(deps: KeepWarmDeps): KeepWarm {
  let taskRunning = false;
  let lastActivity = deps.now();
  let stop: (() => void) | null = null;

  const halt = () => {
    stop?.();
    stop = null;
  };
  const tick = () => {
    if (!taskRunning || deps.now() - lastActivity > ACTIVE_WINDOW_MS) halt();
    else void deps.ping().catch(() => undefined);
  };
  const start = () => {
    if (stop === null && taskRunning) stop = deps.every(tick, PING_INTERVAL_MS);
  };

  return {
    follow(running) {
      taskRunning = running;
      if (!running) return halt();
      lastActivity = deps.now();
      start();
    },
    activity() {
      lastActivity = deps.now();
      start();
    },
    get warm() {
      return stop !== null;
    },
  };
}
