import { describe, expect, it } from 'vitest';
import { PageBlockBudget } from '../../src/background/task/audit';
import { EXTENSION_ORIGIN, FakeEffects, PAGE, freshStore, monitorOn, proposal } from './fakes';
import { makePolicy } from '../support/policy';
import { reportWithoutCompile } from '../../src/compiler/report';
import type { ProposalAnswer } from '../../src/messages/protocol';

const POST = (url: string) => ({ tool: 'browser.request', args: { method: 'POST', url, body: { note: 'x' }, kind: 'fetch' } });

describe('a page firing blocked actions in a loop cannot push the rest of the audit log out', () => {
  it('admits per tab per window and per task, with one noted entry at each bound', () => {
    const budget = new PageBlockBudget(10_000, 3, 5);
    expect([0, 1, 2, 3, 4, 5].map((t) => budget.admit(7, 'task-1', t))).toEqual(['write', 'write', 'write', 'tab', 'drop', 'drop']);
    // Another tab has its own window, and the task's bound counts every tab.
    expect([6, 7, 8].map((t) => budget.admit(8, 'task-1', t))).toEqual(['write', 'task', 'drop']);
    // A new task starts its count again; a window that has passed opens again.
    expect(budget.admit(7, 'task-2', 10_000)).toBe('write');
  });

  it('the decisions stand, the entries before the flood stay, and the first entry past the bound says what is left out', async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    const policy = makePolicy({ taskId: 'task-1', domains: ['app.test', 'api.test'], ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] } });
    await monitor.session.installTask(policy.taskId, 'the request', policy, reportWithoutCompile('test'));
    expect(await monitor.handleMessage(proposal('sent', POST('http://api.test/notes')), PAGE())).toMatchObject({ decision: 'ALLOW' });
    const before = await store.countAudit();
    for (let i = 0; i < 250; i++) {
      const answer = (await monitor.handleMessage(proposal(`f${i}`, POST(`http://evil${i}.test/c`)), PAGE())) as ProposalAnswer;
      expect(answer.decision).toBe('BLOCK');
    }
    // 100 entries and one noted, not 250; the ALLOW the page made first is still there.
    expect(await store.countAudit()).toBe(before + 101);
    const entries = await store.listAudit();
    expect(entries.some((e) => e.record.decision === 'ALLOW' && e.destination?.includes('api.test'))).toBe(true);
    expect(entries.filter((e) => /not logged for 10 s/.test(e.record.reason))).toHaveLength(1);
    // Another tab is not silenced by this one; the flooding tab is logged again once the window has passed.
    await monitor.handleMessage(proposal('other', POST('http://evil.test/c')), PAGE(8));
    effects.advance(10_000);
    await monitor.handleMessage(proposal('later', POST('http://evil.test/d')), PAGE());
    expect(await store.countAudit()).toBe(before + 103);
    // The extension's own pages are not web pages: every malformed message from one is audited.
    const optionsTab = { url: `${EXTENSION_ORIGIN}/options.html`, tab: { id: 9, windowId: 1 }, frameId: 0 };
    for (let i = 0; i < 150; i++) await monitor.handleMessage({ type: 'proposal', id: `m${i}`, unexpected: true }, optionsTab);
    expect(await store.countAudit()).toBe(before + 253);
  });
});
