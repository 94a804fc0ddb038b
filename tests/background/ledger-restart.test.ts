import { describe, expect, it } from 'vitest';
import { FakeEffects, freshStore, monitorOn, until } from './fakes';
import { makePolicy } from '../support/policy';
import { reportWithoutCompile } from '../../src/compiler/report';
import { SITE_BUDGET } from '../../src/taint/ledger';

/**
 * The dependency ledger's counts are kept with the task (src/background/task/store, `ledger.counts`): a worker
 * restart resets no budget. Before, the counts lived in the worker's memory only, and a restart gave every
 * unnamed site a fresh 4 KB.
 */
const policy = makePolicy({ taskId: 'task-1', domains: ['news.test'] });
/** 100 URL bytes each (`/007/xx…x.png`). */
const image = (i: number) => ({ url: `http://cdn.test/${String(i).padStart(3, '0')}/${'x'.repeat(91)}.png`, type: 'image', tabId: 7 });

async function spentIn(store: Awaited<ReturnType<typeof freshStore>>['store']): Promise<number> {
  const read = await store.getTask();
  return read?.ok === true ? (read.value.ledger?.counts?.sites.find((s) => s.site === 'cdn.test')?.spent ?? 0) : 0;
}

describe('the dependency ledger across a worker restart', () => {
  it('keeps what a site was charged: the budget runs out at the same byte, restart or not', async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    await monitor.session.installTask(policy.taskId, 'read the news', policy, reportWithoutCompile('test'));
    const half = Math.floor(SITE_BUDGET / 100 / 2);
    for (let i = 0; i < half; i++) await monitor.decider.observeRequest(image(i));
    // The counts reach the store (coalesced saves on the one write chain) …
    await until(async () => (await spentIn(store)) === half * 100);
    // … and a new worker takes them back: the site is refused once the budget is spent across both.
    const woken = await monitorOn(store, effects);
    let refusedAt = -1;
    for (let i = half; i < 2 * half + 10 && refusedAt < 0; i++) {
      await woken.decider.observeRequest(image(i));
      const read = await store.getTask();
      if (read?.ok === true && read.value.ledger?.refusedSites.includes('cdn.test')) refusedAt = i;
    }
    // Each URL costs 100 bytes: the 41st is over 4,096 — the same request as without a restart.
    expect(refusedAt).toBe(Math.floor(SITE_BUDGET / 100));
  });

  it('the control: without the stored counts a new worker would give the site its whole budget again', async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    await monitor.session.installTask(policy.taskId, 'read the news', policy, reportWithoutCompile('test'));
    for (let i = 0; i < 30; i++) await monitor.decider.observeRequest(image(i));
    await until(async () => (await spentIn(store)) === 3000);
    const read = await store.getTask();
    if (read?.ok !== true) throw new Error('no task');
    const { counts: _counts, ...ledger } = read.value.ledger!;
    await store.putTask({ ...read.value, ledger });
    const woken = await monitorOn(store, effects);
    for (let i = 30; i < 60; i++) await woken.decider.observeRequest(image(i));
    const after = await store.getTask();
    expect(after?.ok === true && after.value.ledger?.refusedSites.includes('cdn.test')).toBe(false);
  });
});
