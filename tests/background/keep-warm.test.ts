import { describe, expect, it } from 'vitest';
import { ACTIVE_WINDOW_MS, PING_INTERVAL_MS, keepWarm } from '../../src/background/platform/keep-warm';

/** A clock and one interval timer advanced by hand. */
function harness() {
  let now = 0;
  let timer: { fn: () => void; ms: number; next: number } | null = null;
  let pings = 0;
  const warmth = keepWarm({
    ping: async () => {
      pings++;
    },
    now: () => now,
    every(fn, ms) {
      if (timer !== null) throw new Error('two intervals at once');
      timer = { fn, ms, next: now + ms };
      return () => {
        timer = null;
      };
    },
  });
  const advance = (ms: number) => {
    const until = now + ms;
    while (timer !== null && timer.next <= until) {
      now = timer.next;
      timer.next += timer.ms;
      timer.fn();
    }
    now = until;
  };
  return { warmth, advance, pings: () => pings, timerSet: () => timer !== null };
}

describe('keep-warm: the worker is kept from its 30 s idle stop only while a task runs and its agent is active', () => {
  it('pings well inside the browser idle timeout while a task runs', () => {
    const h = harness();
    h.warmth.follow(true);
    expect(PING_INTERVAL_MS).toBeLessThan(30_000);
    h.advance(5 * 60_000);
    expect(h.pings()).toBe(Math.floor((5 * 60_000) / PING_INTERVAL_MS));
  });

  it('never pings without a task, whatever is audited', () => {
    const h = harness();
    h.warmth.activity();
    h.advance(60_000);
    expect(h.pings()).toBe(0);
    expect(h.warmth.warm).toBe(false);
  });

  it('stops when the task ends', () => {
    const h = harness();
    h.warmth.follow(true);
    h.advance(PING_INTERVAL_MS);
    h.warmth.follow(false);
    h.advance(10 * 60_000);
    expect(h.pings()).toBe(1);
    expect(h.timerSet()).toBe(false);
  });

  it('lets the worker stop once nothing was decided for the active window, and warms again on the next decision', () => {
    const h = harness();
    h.warmth.follow(true);
    h.advance(ACTIVE_WINDOW_MS + 2 * PING_INTERVAL_MS);
    expect(h.warmth.warm).toBe(false);
    const before = h.pings();
    h.advance(10 * 60_000);
    expect(h.pings()).toBe(before);
    h.warmth.activity();
    expect(h.warmth.warm).toBe(true);
    h.advance(PING_INTERVAL_MS);
    expect(h.pings()).toBe(before + 1);
  });

  it('each decision extends the window', () => {
    const h = harness();
    h.warmth.follow(true);
    for (let i = 0; i < 5; i++) {
      h.advance(ACTIVE_WINDOW_MS / 2);
      h.warmth.activity();
    }
    expect(h.warmth.warm).toBe(true);
  });

  it('a failing ping is harmless', () => {
    const warmth = keepWarm({ ping: () => Promise.reject(new Error('gone')), now: () => 0, every: (fn) => (fn(), () => undefined) });
    expect(() => warmth.follow(true)).not.toThrow();
  });
});
