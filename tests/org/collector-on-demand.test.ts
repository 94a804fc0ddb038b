import { describe, expect, it, vi } from 'vitest';
import * as collector from '../../src/org/collector';
import type { ShipperDeps } from '../../src/org/collector';
import type { LazyModule } from '../../src/lazy/scripts';
import { LOAD_RETRY_MS, onDemandShipper } from '../../src/org/collector-on-demand';

/** Deps whose store has one waiting entry; `posted` counts what reached the collector. */
function deps(url: string | null) {
  const posted: string[] = [];
  const wakes: number[] = [];
  let shipped = 0;
  const d: ShipperDeps = {
    store: {
      auditAfter: async (seq) => (seq >= 1 ? { entries: [], throughSeq: seq } : { entries: [{ seq: 1, at: 1, taskId: null, record: { decision: 'BLOCK', check: 'schema', reason: 'r', tool: 't', capability: 'web.read', riskClass: 'READ', targets: { recipients: [], domains: [], paths: [], items: [] }, ruleRef: 'builtin:message-schema' } }], throughSeq: 1 }),
      getCollectorCursor: async () => (shipped > 0 ? { shippedSeq: shipped, instanceId: 'i' } : null),
      putCollectorCursor: async (c) => void (shipped = c.shippedSeq),
    },
    collectorUrl: async () => url,
    fetch: async (input) => {
      posted.push(String(input));
      return new Response('{}', { status: 200 });
    },
    now: () => 1,
    newId: () => 'i',
    version: '0.1.0',
    setTimer: () => () => undefined,
    wakeLater: (ms) => wakes.push(ms),
  };
  return { d, posted, wakes };
}

describe('the audit shipper, loaded on demand', () => {
  it('is never loaded while the organisation names no collector', async () => {
    const load = vi.fn(async (): Promise<LazyModule<'collector'>> => collector);
    const { d, posted } = deps(null);
    const shipper = onDemandShipper(d, load);
    shipper.kick();
    await shipper.flush();
    expect(load).not.toHaveBeenCalled();
    expect(posted).toEqual([]);
  });

  it('a shipper that does not load loses nothing: the failure is reported, a wake is asked for, and the next try ships the waiting entry', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let fail = true;
    const load = vi.fn(async (): Promise<LazyModule<'collector'>> => {
      if (fail) throw new Error('the audit shipper script did not load');
      return collector;
    });
    const { d, posted, wakes } = deps('http://collector.test/v1/logs');
    const shipper = onDemandShipper(d, load);
    await shipper.flush();
    expect(posted).toEqual([]);
    expect(wakes).toEqual([LOAD_RETRY_MS]);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('audit shipping unavailable (the audit shipper script did not load)'));
    fail = false;
    await shipper.flush();
    expect(load).toHaveBeenCalledTimes(2);
    expect(posted).toEqual(['http://collector.test/v1/logs']);
    error.mockRestore();
  });
});
