import { describe, expect, it } from 'vitest';
import { FloorBlockLog, requestKindOf } from '../../src/background/floor/floor-audit';
import { FakeEffects, PAGE, freshStore, monitorOn, settle } from './fakes';
import { makePolicy } from '../support/policy';
import { reportWithoutCompile } from '../../src/compiler/report';

describe('requests the network floor refused before any hook saw them', () => {
  it('reads the browser resource type as the classifier\'s request kind', () => {
    expect(['xmlhttprequest', 'ping', 'websocket', 'image', 'imageset', 'sub_frame', 'script', 'media'].map(requestKindOf)).toEqual(['fetch', 'beacon', 'websocket', 'image', 'image', 'frame', 'other', 'other']);
  });

  it('audits one refusal per tab, destination origin and kind in a window, and at most 20 per tab', () => {
    const log = new FloorBlockLog(10_000, 20);
    expect(log.admit(7, 'http://evil.test/a?x=1', 'fetch', 0)).toBe(true);
    expect(log.admit(7, 'http://evil.test/b?x=2', 'fetch', 1_000)).toBe(false);
    expect(log.admit(7, 'http://evil.test/b', 'image', 1_000)).toBe(true);
    expect(log.admit(8, 'http://evil.test/b', 'fetch', 1_000)).toBe(true);
    expect(log.admit(7, 'http://evil.test/c', 'fetch', 10_000)).toBe(true);
    // A page spraying many origins: 20 entries per tab per window, then nothing until the window passes.
    const spray = new FloorBlockLog(10_000, 20);
    const admitted = Array.from({ length: 500 }, (_, i) => spray.admit(3, `http://e${i}.test/`, 'image', i)).filter(Boolean).length;
    expect(admitted).toBe(20);
    expect(spray.admit(4, 'http://e1.test/', 'image', 600)).toBe(true);
    expect(spray.admit(3, 'http://e999.test/', 'image', 10_500)).toBe(true);
  });

  async function setup() {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    const policy = makePolicy({ taskId: 'task-1', domains: ['app.test', 'api.test'], ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] } });
    await monitor.session.installTask(policy.taskId, 'the request', policy, reportWithoutCompile('test'));
    return { store, monitor };
  }

  it('names the check that refuses it: the taint before the evaluator, the evaluator\'s own check, else a write the task has not yet decided there', async () => {
    const { store, monitor } = await setup();
    await monitor.handleMessage({ type: 'taint.report', tokens: [{ value: 'K7Q2ZP9X44LM', kind: 'one-time-code' }] }, PAGE());
    await settle();
    // The blocked page of a navigation the floor refused says the same.
    expect(monitor.decider.floorVerdict({ tool: 'browser.navigate', args: { url: 'http://cdn.test/?c=K7Q2ZP9X44LM' } })).toMatchObject({ check: 'exfiltration_url' });
    const image = await monitor.decider.auditFloorRequest({ url: 'http://cdn.test/p.gif?c=K7Q2ZP9X44LM', method: 'GET', kind: 'image', tabId: 7 });
    expect(image).toMatchObject({ decision: 'BLOCK', check: 'exfiltration_url', ruleRef: 'builtin:taint' });
    const offList = await monitor.decider.auditFloorRequest({ url: 'http://evil.test/get', method: 'GET', kind: 'fetch', tabId: 7 });
    expect(offList).toMatchObject({ decision: 'BLOCK', check: 'domain_allowlist' });
    const undecidedWrite = await monitor.decider.auditFloorRequest({ url: 'http://api.test/w', method: 'POST', kind: 'fetch', tabId: 7 });
    expect(undecidedWrite).toMatchObject({ decision: 'BLOCK', check: 'domain_allowlist', ruleRef: 'builtin:network-floor' });
    const entries = await store.listAudit({ limit: 3 });
    expect(entries.map((e) => [e.layer, e.record.check, e.tabId])).toEqual([
      ['network', 'domain_allowlist', 7],
      ['network', 'domain_allowlist', 7],
      ['network', 'exfiltration_url', 7],
    ]);
    // The destination is redacted like every audited URL: the shown code is not copied into the log.
    expect(JSON.stringify(entries)).not.toContain('K7Q2ZP9X44LM');
  });

  it('audits nothing when no task runs', async () => {
    const { store } = await freshStore();
    const monitor = await monitorOn(store, new FakeEffects());
    expect(await monitor.decider.auditFloorRequest({ url: 'http://evil.test/get', method: 'GET', kind: 'fetch', tabId: 7 })).toBeNull();
    expect(await store.countAudit()).toBe(0);
  });
});
