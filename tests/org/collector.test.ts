import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TaskStore, type StoredAuditEntry } from '../../src/background/task/store';
import { backoffMs, BATCH_SIZE, CollectorShipper, type ShipperDeps } from '../../src/org/collector';
import { otlpLogsRequest } from '../../src/org/otlp';
import { freshStore } from '../background/fakes';
import { otlpLogsErrors, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

const entry = (n: number, decision: 'ALLOW' | 'BLOCK' | 'ASK_USER' = 'BLOCK'): StoredAuditEntry => ({
  at: 1_700_000_000_000 + n,
  taskId: 't1',
  record: { decision, check: 'domain_allowlist', reason: `entry ${n}`, tool: 'browser.request', capability: 'web.write', riskClass: 'EXTERNAL_WRITE', targets: { recipients: ['bob@corp.test'], domains: ['api.test'], paths: [], items: [] }, ruleRef: 'allow.classes:EXTERNAL_WRITE' },
  layer: 'main',
  destination: 'https://api.test/w?x=',
});

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.records.length = 0;
  receiver.requests.length = 0;
  receiver.errors.length = 0;
  receiver.failNext(0);
});

/** A shipper on `store` with manual timers; `url` null means the organisation names no collector. */
function shipperOn(store: ShipperDeps['store'], url: string | null = receiver.url) {
  const timers: number[] = [];
  const wakes: number[] = [];
  const shipper = new CollectorShipper({
    store,
    collectorUrl: async () => url,
    fetch: (input, init) => fetch(input, init),
    now: () => 1_800_000_000_000,
    newId: () => 'instance-1',
    version: '0.1.0',
    setTimer: (_fn, ms) => {
      timers.push(ms);
      return () => undefined;
    },
    wakeLater: (ms) => wakes.push(ms),
  });
  return { shipper, timers, wakes };
}

async function storeWith(n: number, auditLimit?: number): Promise<{ store: TaskStore; name: string }> {
  const fresh = await freshStore(auditLimit);
  for (let i = 1; i <= n; i++) await fresh.store.appendAudit(entry(i, i % 3 === 0 ? 'ALLOW' : 'BLOCK'));
  return fresh;
}

const seqs = () => receiver.records.filter((r) => r.eventName === 'agentsfence.decision').map((r) => Number(r.seq));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the test receiver checks payloads against the official OTLP definitions', () => {
  it("accepts opentelemetry-proto's own example", () => {
    const example = JSON.parse(readFileSync(join(import.meta.dirname, '../support/opentelemetry-proto/examples-logs.json'), 'utf8'));
    expect(otlpLogsErrors(example)).toEqual([]);
  });

  it('rejects an unknown field, a wrong JSON type, an unknown enum number and two members of a oneof', () => {
    const good = otlpLogsRequest([entry(1)], { instanceId: 'i', version: '1' }, 0);
    expect(otlpLogsErrors(good)).toEqual([]);
    const record = () => structuredClone(good);
    const mutate = (f: (r: ReturnType<typeof record>) => void) => {
      const r = record();
      f(r);
      return otlpLogsErrors(r);
    };
    expect(mutate((r) => Object.assign(r.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!, { severity: 9 }))).not.toEqual([]);
    expect(mutate((r) => Object.assign(r.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!, { timeUnixNano: '1.5e18' }))).not.toEqual([]);
    expect(mutate((r) => Object.assign(r.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!, { severityNumber: 99 }))).not.toEqual([]);
    expect(mutate((r) => Object.assign(r.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.body, { intValue: '3' }))).not.toEqual([]);
    expect(mutate((r) => Object.assign(r.resourceLogs[0]!, { resource_logs: [] }))).not.toEqual([]);
  });
});

describe('shipping the audit log to the collector', () => {
  it('ships every entry once, oldest first, in batches, as valid OTLP log records', async () => {
    const { store } = await storeWith(BATCH_SIZE * 2 + 50);
    const { shipper } = shipperOn(store);
    await shipper.flush();
    expect(receiver.errors).toEqual([]);
    expect(receiver.requests.every((r) => r.origin === undefined)).toBe(true);
    expect(receiver.requests.map((r) => r.records)).toEqual([BATCH_SIZE, BATCH_SIZE, 50]);
    expect(seqs()).toEqual(range(1, 250));
    expect(receiver.records[0]!.attributes).toMatchObject({ 'agentsfence.decision': 'BLOCK', 'agentsfence.check': 'domain_allowlist', 'agentsfence.targets.domains': ['api.test'] });
    expect(await store.getCollectorCursor()).toEqual({ shippedSeq: 250, instanceId: 'instance-1' });
    // Nothing new: nothing sent.
    await shipper.flush();
    expect(receiver.requests).toHaveLength(3);
  });

  it('a collector that is down: the cursor stays, the retry backs off (timer and alarm), then everything arrives once', async () => {
    const { store } = await storeWith(30);
    const { shipper, timers, wakes } = shipperOn(store);
    receiver.failNext(2, 503);
    await shipper.flush();
    await shipper.flush();
    expect(receiver.records).toHaveLength(0);
    expect((await store.getCollectorCursor())?.shippedSeq).toBe(0);
    expect(timers).toEqual([backoffMs(1), backoffMs(2)]);
    expect(wakes).toEqual([1_000, 2_000]);
    // New entries while failing do not hurry the retry.
    shipper.kick();
    expect(timers).toHaveLength(2);
    await shipper.flush();
    expect(seqs()).toEqual(range(1, 30));
  });

  it('nothing lost, nothing repeated across a worker restart with entries still queued', async () => {
    const { store, name } = await storeWith(150);
    // The first batch goes through, the second meets a collector that is down; then the worker dies.
    const failAfterFirst: ShipperDeps['store'] = {
      auditAfter: (seq, limit) => store.auditAfter(seq, limit),
      getCollectorCursor: () => store.getCollectorCursor(),
      async putCollectorCursor(cursor) {
        await store.putCollectorCursor(cursor);
        if (cursor.shippedSeq > 0) receiver.failNext(1, 503);
      },
    };
    await new CollectorShipper(firstDeps(failAfterFirst)).flush();
    expect(receiver.requests.map((r) => r.status)).toEqual([200, 503]);
    expect(seqs()).toEqual(range(1, BATCH_SIZE));
    store.close();
    // A new worker: memory gone, IndexedDB kept.
    const reopened = await TaskStore.open(name);
    await reopened.appendAudit(entry(151));
    await shipperOn(reopened).shipper.flush();
    expect(seqs()).toEqual(range(1, 151));
    expect(new Set(receiver.records.map((r) => r.instanceId))).toEqual(new Set(['instance-1']));
  });

  it('the one window left: a cursor write that never happened after a 2xx sends that batch again, named by instance and seq', async () => {
    const { store } = await storeWith(5);
    // newId answers differently each time: only a stored id can make the repeat carry the same one.
    let ids = 0;
    const lostCursor: ShipperDeps['store'] = {
      auditAfter: (seq, limit) => store.auditAfter(seq, limit),
      getCollectorCursor: () => store.getCollectorCursor(),
      putCollectorCursor: (cursor) => (cursor.shippedSeq === 0 ? store.putCollectorCursor(cursor) : Promise.reject(new Error('the worker died before the cursor was written'))),
    };
    await new CollectorShipper({ ...firstDeps(lostCursor), newId: () => `instance-${++ids}` }).flush();
    await new CollectorShipper({ ...firstDeps(store), newId: () => `instance-${++ids}` }).flush();
    expect(seqs()).toEqual([...range(1, 5), ...range(1, 5)]);
    const keys = receiver.records.map((r) => `${r.instanceId}/${r.seq}`);
    expect(new Set(keys).size).toBe(5);
  });

  it('entries the audit bound rotated out before shipping are reported as a gap, never silently', async () => {
    const { store } = await storeWith(25, 10);
    await shipperOn(store).shipper.flush();
    expect(seqs()).toEqual(range(16, 25));
    const gap = receiver.records.find((r) => r.eventName === 'agentsfence.audit_gap');
    expect(gap?.attributes['agentsfence.audit.rotated_out']).toBe('15');
    expect(receiver.errors).toEqual([]);
  });

  it('no collector named: nothing is sent', async () => {
    const { store } = await storeWith(3);
    await shipperOn(store, null).shipper.flush();
    expect(receiver.requests).toHaveLength(0);
  });
});

function firstDeps(store: ShipperDeps['store']): ShipperDeps {
  return {
    store,
    collectorUrl: async () => receiver.url,
    fetch: (input, init) => fetch(input, init),
    now: () => 1_800_000_000_000,
    newId: () => 'instance-1',
    version: '0.1.0',
    setTimer: () => () => undefined,
    wakeLater: () => undefined,
  };
}
