/**
 * Where a cold start spends its time, for the benchmark's cold-start figure (bench/page.ts): User Timing
 * marks in the worker (`performance.getEntriesByType('mark')`, read over CDP), relative to the worker's
 * own start (`performance.timeOrigin`). Harness builds only: `__AF_HARNESS__` is a literal false in the
 * production build, so each call is dropped there (and the constant is absent under unit tests).
 */
export type StartupMark = 'script-start' | 'evaluated' | 'store-open' | 'ready' | 'first-answer';

const marked = new Set<StartupMark>();

/** The first time only: a mark per wake, not one per answer. */
export function startupMark(name: StartupMark): void {
  if (typeof __AF_HARNESS__ === 'undefined' || !__AF_HARNESS__ || marked.has(name)) return;
  marked.add(name);
  performance.mark(`agentsfence:${name}`);
}
