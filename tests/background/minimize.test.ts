import { describe, expect, it } from 'vitest';
import { screenAllowed } from '../../src/background/minimize';
import type { ActiveTask } from '../../src/background/store';
import type { DecisionRecord } from '../../src/core/decision';
import { initialState } from '../../src/core/policy';
import { makePolicy } from '../support/policy';

const task: ActiveTask = {
  taskId: 'task-1',
  request: 'Read my inbox on mail.test and email bob@corp.test a summary.',
  followUps: [],
  policy: makePolicy({ recipients: ['bob@corp.test'] }),
  state: initialState(),
  report: { backend: 'rules', durationMs: 0, removed: [] },
  startedAt: 0,
  taskTabIds: [],
  floorWriteDomains: [],
};
const send = (to: string) => ({ tool: 'browser.request', args: { method: 'POST', url: 'http://mail.test/api/send', body: { to, subject: 'Offsite', body: 'See you there.' } } });
const allowed = (to: string, check: DecisionRecord['check']): DecisionRecord => ({
  decision: 'ALLOW',
  check,
  reason: 'r',
  tool: 'browser.request',
  capability: 'message.send',
  riskClass: 'COMMUNICATION',
  targets: { recipients: [to], domains: ['mail.test'], paths: [], items: [] },
});

describe('the Minimizer and the person’s approvals', () => {
  it('does not hold again a send to the recipient the person just approved (allowed by their grant)', () => {
    expect(screenAllowed(task, send('carol@corp.test'), allowed('carol@corp.test', 'grants'))).toBeNull();
  });
  it('still flags an address nobody named when no grant allowed the call', () => {
    expect(screenAllowed(task, send('carol@corp.test'), allowed('carol@corp.test', 'allowed'))?.findings.length).toBeGreaterThan(0);
  });
});
