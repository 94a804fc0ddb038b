import { describe, expect, it, vi } from 'vitest';
import { FakeEffects, PAGE, POPUP, fixedCompiler, freshStore, monitorOn, proposal } from './fakes';
import { makePolicy } from '../support/policy';
import type { ProposalAnswer } from '../../src/messages/protocol';

// The extension loads the control desk from its own script (control.js); here that script does not load.
vi.mock('../../src/lazy/load', () => ({
  lazy: (name: string) => Promise.reject(new Error(`NetworkError: /${name}.js failed to load`)),
}));

describe('the control desk (control.js) does not load', () => {
  it("the popup's request fails with the loader's error, audited; no task is installed; proposals are still decided", async () => {
    const { store } = await freshStore();
    const compiler = fixedCompiler((taskId, now) => makePolicy({ taskId, issuedAt: now, domains: ['news.test'] }));
    const monitor = await monitorOn(store, new FakeEffects(), compiler);
    const started = await monitor.handleMessage({ type: 'task.start', request: 'Read the news on news.test' }, POPUP);
    expect(started).toEqual({ ok: false, code: 'internal', error: 'internal error: NetworkError: /control.js failed to load' });
    expect(monitor.snapshot().task).toBeNull();
    expect(await store.getTask()).toBeNull();
    expect(await monitor.handleMessage({ type: 'task.get' }, POPUP)).toMatchObject({ ok: false, code: 'internal' });
    const [latest] = await store.listAudit({ limit: 1 });
    expect(latest?.record).toMatchObject({ decision: 'BLOCK', check: 'internal_error', reason: 'internal error: NetworkError: /control.js failed to load' });
    // Deciding never needs it: with no task, a proposal is allowed and audited as before.
    const answer = (await monitor.handleMessage(proposal('p1', { tool: 'browser.navigate', args: { url: 'http://news.test/' } }), PAGE())) as ProposalAnswer;
    expect(answer).toMatchObject({ id: 'p1', decision: 'ALLOW' });
  });
});
