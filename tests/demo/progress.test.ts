import { describe, expect, it } from 'vitest';
import { duration, Progress, progressLine } from '../../src/testkit/progress';

describe('progress of long runs', () => {
  it('says N/M and estimates the time left from the elapsed time per completed step', () => {
    expect(progressLine('demo', 1, 4, 30_000, 'rules · benign t1')).toBe('demo 1/4 (25%) rules · benign t1 · 30s elapsed, about 1m30s left');
    expect(progressLine('demo', 3, 4, 90_000, 'x')).toBe('demo 3/4 (75%) x · 1m30s elapsed, about 30s left');
    expect(progressLine('bench', 4, 4, 3_725_000, 'bundle')).toBe('bench 4/4 (100%) bundle · 1h02m elapsed, done');
    expect(progressLine('bench', 0, 4, 0, 'start')).toContain('time left unknown');
  });
  it('writes one plain line per step, with no terminal control codes', () => {
    let now = 1_000;
    const lines: string[] = [];
    const p = new Progress('demo', 2, () => now, (l) => lines.push(l));
    now += 10_000;
    p.step('a');
    now += 20_000;
    p.step('b');
    p.step('past the end');
    expect(lines).toEqual(['demo 1/2 (50%) a · 10s elapsed, about 10s left', 'demo 2/2 (100%) b · 30s elapsed, done', 'demo 2/2 (100%) past the end · 30s elapsed, done']);
    // eslint-disable-next-line no-control-regex
    expect(lines.join('')).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
  it('formats durations', () => {
    expect([duration(0), duration(59_400), duration(65_000), duration(3_600_000)]).toEqual(['0s', '59s', '1m05s', '1h00m']);
  });
});
