import { describe, expect, it } from 'vitest';
import { freshStore } from './fakes';
import { makePolicy } from '../support/policy';
import { initialState } from '../../src/core/policy';
import { TaskStore, type StoredAuditEntry } from '../../src/background/task/store';
import { reportWithoutCompile } from '../../src/compiler/report';

const entry = (n: number): StoredAuditEntry => ({
  at: n,
  taskId: 't',
  record: { decision: 'BLOCK', check: 'schema', reason: `entry ${n}`, tool: 'x', capability: 'unknown', riskClass: 'UNKNOWN', targets: { recipients: [], domains: [], paths: [], items: [] } },
});

describe('TaskStore', () => {
  it('keeps the active task and its approvals, and ends them together', async () => {
    const { store } = await freshStore();
    expect(await store.getTask()).toBeNull();
    const task = {
      taskId: 't1',
      request: 'read the news',
      followUps: [],
      policy: makePolicy({ taskId: 't1' }),
      state: { ...initialState(), constraintCalls: { k: 2 } },
      report: reportWithoutCompile('rules'),
      startedAt: 5,
      taskTabIds: [3],
      outsideTabIds: [4],
      floorWriteDomains: ['api.test'],
    };
    await store.putTask(task);
    await store.putApproval({ id: 'a1', taskId: 't1', deltaKey: 'k', record: entry(1).record, destination: 'x', dataView: '', createdAt: 1, expiresAt: 2, tabId: 3 });
    expect(await store.getTask()).toEqual({ ok: true, value: task });
    expect(await store.listApprovals()).toHaveLength(1);
    await store.clearTask();
    expect(await store.getTask()).toBeNull();
    expect(await store.listApprovals()).toHaveLength(0);
  });

  it('rotates the audit log: bounded, oldest dropped, newest first', async () => {
    const { store } = await freshStore(5);
    for (let n = 1; n <= 12; n++) await store.appendAudit(entry(n));
    expect(await store.countAudit()).toBe(5);
    const listed = await store.listAudit();
    expect(listed.map((e) => e.at)).toEqual([12, 11, 10, 9, 8]);
    expect((await store.listAudit({ limit: 2 })).map((e) => e.at)).toEqual([12, 11]);
  });

  it('a smaller limit after a restart trims the log on the next append', async () => {
    const { store, name } = await freshStore(5);
    for (let n = 1; n <= 5; n++) await store.appendAudit(entry(n));
    store.close();
    const smaller = await TaskStore.open(name, 3);
    await smaller.appendAudit(entry(6));
    expect((await smaller.listAudit()).map((e) => e.at)).toEqual([6, 5, 4]);
  });

  it('commits a decision\'s task state and audit entry together', async () => {
    const { store } = await freshStore(3);
    const task = {
      taskId: 't1', request: 'r', followUps: [], policy: makePolicy({ taskId: 't1' }), state: { ...initialState(), constraintCalls: { k: 1 } },
      report: reportWithoutCompile('rules'), startedAt: 0, taskTabIds: [], outsideTabIds: [], floorWriteDomains: [],
    };
    await store.commitDecision(task, entry(1));
    expect(await store.getTask()).toEqual({ ok: true, value: task });
    expect((await store.listAudit()).map((e) => e.at)).toEqual([1]);
    await store.commitDecision({ ...task, state: { ...task.state, constraintCalls: { k: 2 } } }, null);
    expect(await store.getTask()).toMatchObject({ ok: true, value: { state: { constraintCalls: { k: 2 } } } });
    expect(await store.countAudit()).toBe(1);
  });

  it('filters the audit log by decision and check', async () => {
    const { store } = await freshStore();
    await store.appendAudit(entry(1));
    await store.appendAudit({ ...entry(2), record: { ...entry(2).record, decision: 'ALLOW', check: 'allowed' } });
    expect((await store.listAudit({ decision: 'ALLOW' })).map((e) => e.at)).toEqual([2]);
    expect((await store.listAudit({ check: 'schema' })).map((e) => e.at)).toEqual([1]);
  });

  it('gives default options until some are stored, and refuses invalid ones', async () => {
    const { store } = await freshStore();
    const defaults = await store.getOptions();
    expect(defaults.askTimeoutSeconds).toBe(120);
    expect(defaults.guardScope).toBe('all-tabs');
    await store.putOptions({ ...defaults, askTimeoutSeconds: 30 });
    expect((await store.getOptions()).askTimeoutSeconds).toBe(30);
    await expect(store.putOptions({ ...defaults, askTimeoutSeconds: 1 })).rejects.toThrow();
  });
});
