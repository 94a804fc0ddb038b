import { describe, expect, it } from 'vitest';
import { openDB } from 'idb';
import stateV1 from './fixtures/state.v1.json';
import stateV2 from './fixtures/state.v2.json';
import { FakeEffects, PAGE, POPUP, fixedCompiler, freshStore, monitorOn, proposal, settle } from './fakes';
import { TaskStore } from '../../src/background/task/store';
import { STATE_VERSION, TASK, readRecord } from '../../src/background/task/records';
import { evaluateBrowserAction } from '../../src/core/evaluator';
import { classifyWeb } from '../../src/core/classifier';
import { grantFor } from '../../src/core/grants';
import { POLICY_VERSION, initialState, parsePolicy, type TaskPolicy } from '../../src/core/policy';
import type { ToolCall } from '../../src/core/call';
import type { TaskStateResponse } from '../../src/messages/protocol';

/**
 * Stored state from older builds: one fixture per state version (tests/background/fixtures/state.vN.json,
 * IndexedDB exactly as that build left it). Every version reads to the same current state, and a task
 * from an older build decides as the same task built today.
 */

interface Fixture {
  kv: Record<string, unknown>;
  approvals: unknown[];
  audit: unknown[];
}

/** A database as an older build left it: the stores this build creates, filled with the fixture's raw records. */
async function seed(fixture: Fixture): Promise<string> {
  const { store, name } = await freshStore();
  store.close();
  const db = await openDB(name);
  for (const [key, value] of Object.entries(fixture.kv)) await db.put('kv', value, key);
  for (const approval of fixture.approvals) await db.put('approvals', approval);
  for (const entry of fixture.audit) await db.put('audit', entry);
  db.close();
  return name;
}

async function readAll(name: string) {
  const store = await TaskStore.open(name);
  const state = { task: await store.getTask(), options: await store.getOptions(), windows: await store.getControlWindows(), approvals: await store.listApprovals(), audit: await store.listAudit() };
  store.close();
  return state;
}

const POST = (url: string): ToolCall => ({ tool: 'browser.request', args: { method: 'POST', url, body: { a: '1' }, kind: 'fetch' } });
const CALLS: ToolCall[] = [
  POST('http://api.test/collect'), // the approved write: the grant
  POST('http://api.test/other-path'), // same site, same grant
  POST('http://other.test/collect'), // named site, not approved: asks
  POST('http://evil.test/collect'), // unnamed site
  { tool: 'browser.navigate', args: { url: 'http://other.test/' } },
  { tool: 'browser.form_submit', args: { method: 'POST', url: 'http://api.test/form', fields: { name: 'x' } } },
];

const v1Task = stateV1.kv.task;

describe('stored state: one fixture per version', () => {
  it(`the v1 and v${STATE_VERSION} fixtures read to the same state`, async () => {
    const fromV1 = await readAll(await seed(stateV1 as Fixture));
    const fromV2 = await readAll(await seed(stateV2 as Fixture));
    expect(fromV1.task).toMatchObject({ ok: true });
    expect(fromV1).toEqual(fromV2);
    expect(fromV1.windows).toEqual([3]);
    expect(fromV1.options).toMatchObject({ askTimeoutSeconds: 60, guardScope: 'task-tabs' });
    expect(fromV1.approvals).toHaveLength(1);
    expect(fromV1.approvals[0]!.record.targets.items).toEqual([]);
    expect(fromV1.audit).toHaveLength(1);
  });

  it('the v1 task is migrated: the policy is version 2, the grant has items, the report has the current shape', () => {
    const read = readRecord(TASK, v1Task);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.policy.version).toBe(POLICY_VERSION);
    expect(read.value.policy.grants[0]!.items).toEqual([]);
    expect(read.value.report).toMatchObject({ removed: [{ ref: 'domains:evil.test', why: 'not named in the request' }], fallbackReason: null });
    // σ is untouched: the grant keeps its id and its count.
    expect(read.value.state.grantCalls[read.value.policy.grants[0]!.id]).toBe(2);
  });

  it('a record written by a newer build, or one that does not parse, is unreadable (never cast)', () => {
    expect(readRecord(TASK, { ...stateV2.kv.task, stateVersion: STATE_VERSION + 1 })).toMatchObject({ ok: false, error: expect.stringMatching(/state version/) });
    expect(readRecord(TASK, { ...v1Task, policy: { version: 1, taskId: 5 } })).toMatchObject({ ok: false, error: expect.stringMatching(/^task does not parse at policy/) });
  });
});

describe('unreadable approvals and audit entries', () => {
  it('an approval that cannot be read is deleted (nobody could be shown what it asks); an audit entry is left out of the list', async () => {
    const name = await seed({
      kv: {},
      approvals: [{ id: 'broken', taskId: 't' }, ...stateV2.approvals],
      audit: [...stateV2.audit, { seq: 2, at: 6, taskId: null, record: { decision: 'MAYBE' } }],
    });
    const store = await TaskStore.open(name);
    expect((await store.listApprovals()).map((a) => a.id)).toEqual(['a-v1']);
    expect((await store.listAudit()).map((e) => e.seq)).toEqual([1]);
    store.close();
    const db = await openDB(name);
    expect(await db.getAllKeys('approvals')).toEqual(['a-v1']);
    expect(await db.count('audit')).toBe(2);
    db.close();
  });
});

describe('a wake reads what deciding needs, and repairs after answering', () => {
  it('the wake read returns the readable approvals and names the broken one; the monitor deletes it once it has answered', async () => {
    const name = await seed({ kv: {}, approvals: [{ id: 'broken', taskId: 't' }, ...stateV2.approvals], audit: [] });
    const store = await TaskStore.open(name);
    const wake = await store.readWakeState();
    expect(wake.approvals.map((a) => a.id)).toEqual(['a-v1']);
    expect(wake.unreadableApprovalIds).toEqual(['broken']);
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    // Ready, not yet answered: nothing repaired (the floor is not reapplied, the broken record is still there).
    expect(effects.floors).toHaveLength(0);
    expect((await store.readWakeState()).unreadableApprovalIds).toEqual(['broken']);
    await monitor.handleMessage({ type: 'task.get' }, POPUP);
    await monitor.repairAfterWake();
    expect(effects.floors).toHaveLength(1);
    expect((await store.readWakeState()).unreadableApprovalIds).toEqual([]);
    store.close();
  });
});

describe('stored v1 task with a grant from before items', () => {
  it('unmigrated (the defect: the old store cast the record), a call that reaches the grant check is an internal error', () => {
    const { record } = evaluateBrowserAction(v1Task.policy as unknown as TaskPolicy, initialState(), CALLS[0]!, 10);
    expect(record).toMatchObject({ decision: 'BLOCK', check: 'internal_error' });
  });

  it('migrated, it decides every call exactly as the same task built today', () => {
    const read = readRecord(TASK, v1Task);
    if (!read.ok) throw new Error(read.error);
    const migrated = read.value;
    const old = migrated.policy.grants[0]!;
    const fresh = parsePolicy({ ...migrated.policy, grants: [grantFor(migrated.taskId, old.tool, classifyWeb(CALLS[0]!), 'task', old.issuedAt)] });
    for (const call of CALLS) {
      const a = evaluateBrowserAction(migrated.policy, migrated.state, call, 10).record;
      const b = evaluateBrowserAction(fresh, initialState(), call, 10).record;
      expect({ decision: a.decision, check: a.check, reason: a.reason, targets: a.targets }, JSON.stringify(call)).toEqual({ decision: b.decision, check: b.check, reason: b.reason, targets: b.targets });
      expect(a.check).not.toBe('internal_error');
    }
    expect(evaluateBrowserAction(migrated.policy, migrated.state, CALLS[0]!, 10).record).toMatchObject({ decision: 'ALLOW', check: 'grants' });
  });

  it('after an update the monitor wakes on it and the approved write is allowed by the grant', async () => {
    const name = await seed(stateV1 as Fixture);
    const monitor = await monitorOn(await TaskStore.open(name), new FakeEffects());
    expect(await monitor.handleMessage(proposal('p1', CALLS[0]), PAGE())).toMatchObject({ decision: 'ALLOW', check: 'grants' });
    expect(monitor.snapshot().approvals.map((a) => a.id)).toEqual(['a-v1']);
    // The same ask again shares the pending v1 approval (its key was migrated to the grant delta).
    void monitor.handleMessage(proposal('p2', CALLS[2]), PAGE());
    await settle();
    expect(monitor.snapshot().approvals.map((a) => a.id)).toEqual(['a-v1']);
  });

  it('a v1 policy given to the CLI or the harness reads as version 2', () => {
    const policy = parsePolicy(v1Task.policy);
    expect(policy.version).toBe(2);
    expect(policy.grants[0]!.items).toEqual([]);
  });
});

describe('an unreadable stored task', () => {
  const unreadable = { ...stateV1, kv: { ...stateV1.kv, task: { ...v1Task, policy: { version: 1, taskId: 5 } } } } as Fixture;

  it('ends the task with one audit entry and a notice in the popup, never a stream of internal errors', async () => {
    const name = await seed(unreadable);
    const store = await TaskStore.open(name);
    const monitor = await monitorOn(store, new FakeEffects(), fixedCompiler((taskId, now) => parsePolicy({ version: 2, taskId, issuedAt: now, expiresAt: null })));
    expect(monitor.snapshot().task).toBeNull();
    expect(monitor.snapshot().approvals).toEqual([]);
    const state = (await monitor.handleMessage({ type: 'task.get' }, POPUP)) as TaskStateResponse;
    expect(state.task).toBeNull();
    expect(state.notice).toMatch(/ended: its saved state could not be read after an update \(task does not parse at policy/);
    for (let i = 0; i < 3; i++) expect(await monitor.handleMessage(proposal(`p${i}`, CALLS[0]), PAGE())).toMatchObject({ decision: 'ALLOW', check: 'allowed' });
    const errors = async () => (await store.listAudit()).filter((e) => e.record.check === 'internal_error');
    expect(await errors()).toHaveLength(1);
    expect((await errors())[0]!.record.reason).toMatch(/^stored task unreadable, task ended: task does not parse at policy/);

    // The notice survives a restart of the worker (and nothing is audited twice); a new task clears it.
    const woken = await monitorOn(store, new FakeEffects(), fixedCompiler((taskId, now) => parsePolicy({ version: 2, taskId, issuedAt: now, expiresAt: null })));
    expect(((await woken.handleMessage({ type: 'task.get' }, POPUP)) as TaskStateResponse).notice).toBe(state.notice);
    expect(await errors()).toHaveLength(1);
    const started = (await woken.handleMessage({ type: 'task.start', request: 'Read news.test' }, POPUP)) as TaskStateResponse;
    expect(started.task).not.toBeNull();
    expect(started.notice).toBeUndefined();
    expect(await store.getNotice()).toBeNull();
  });
});
