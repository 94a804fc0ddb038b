import { describe, expect, it } from 'vitest';
import { DependencyAccounts, ledgerJudges, withNamedPort, withRefusal } from '../../src/background/floor/dependency-floor';
import type { ActiveTask } from '../../src/background/task/store';
import { makePolicy } from '../support/policy';

const KEY = 'Qk7x9LmP2zR4tV8wYb3NcD6fGh1JsK5aEr0TuWq2iOp7LmNb4VcXz8SdFg6HjKl3Mn';

function task(domains: string[] | null = ['news.example.test']): ActiveTask {
  return {
    taskId: 't',
    request: 'read the news',
    followUps: [],
    policy: makePolicy({ domains }),
    state: { calls: 0, bytes: 0, perTool: {}, grantCalls: {} } as unknown as ActiveTask['state'],
    report: {} as ActiveTask['report'],
    startedAt: 1,
    taskTabIds: [],
    outsideTabIds: [],
    floorWriteDomains: [],
    taint: [{ value: KEY, kind: 'token', site: 'news.example.test' }],
  };
}

describe('the dependency floor', () => {
  it('judges hosts the task does not name, siblings of the named host included, only when reading is a list', () => {
    const t = task();
    expect(ledgerJudges(t, new URL('http://cdn.test/a.png'))).toBe(true);
    expect(ledgerJudges(t, new URL('http://uploads.example.test/a'))).toBe(true);
    expect(ledgerJudges(t, new URL('http://news.example.test/a'))).toBe(false);
    expect(ledgerJudges(t, new URL('http://img.news.example.test/a'))).toBe(false);
    expect(ledgerJudges(task(null), new URL('http://cdn.test/a.png'))).toBe(false);
  });

  it('charges a hooked load once: the request it becomes is not charged again', () => {
    const t = task();
    const accounts = new DependencyAccounts();
    const pieces = KEY.match(/.{1,5}/g)!;
    // Proposed by the hooks, then seen by webRequest as it leaves: one charge each, so the pieces stay in order.
    const refusals = pieces.flatMap((p) => [accounts.charge(t, new URL(`http://attacker.test/x/${p}.png`), 'hook'), accounts.charge(t, new URL(`http://attacker.test/x/${p}.png`), 'network')]);
    const first = refusals.findIndex((r) => r !== null);
    expect(first).toBe(2); // the second piece (10 characters in all) is refused before it leaves
    expect(refusals[first]).toMatchObject({ site: 'attacker.test', tainted: true, all: false, again: false });
  });

  it('records refusals and the named sites\' ports in the task, once each', () => {
    const t = task();
    withRefusal(t, { site: 'attacker.test', all: false, tainted: true, again: false, reason: '' });
    withRefusal(t, { site: 'attacker.test', all: false, tainted: true, again: false, reason: '' });
    expect(new DependencyAccounts().charge(t, new URL('http://img.attacker.test/a.png'), 'hook')).toMatchObject({ again: true });
    expect(t.ledger).toEqual({ refusedSites: ['attacker.test'], refusesAll: false, namedPorts: [] });
    expect(withNamedPort(t, new URL('http://news.example.test:4567/'))).toBe(true);
    expect(withNamedPort(t, new URL('http://news.example.test:4567/x'))).toBe(false);
    expect(withNamedPort(t, new URL('http://news.example.test/'))).toBe(false);
    expect(t.ledger?.namedPorts).toEqual([4567]);
    // A new task under the same id starts a new ledger.
    const accounts = new DependencyAccounts();
    const again = { ...task(), startedAt: 2 };
    expect(accounts.charge(again, new URL(`http://attacker.test/${KEY.slice(0, 9)}`), 'network')).toBeNull();
  });
});
