import { describe, expect, it } from 'vitest';
import { compileFollowUp, compileTask, followUpMayChangeAuthority, mergePolicies } from '../../src/compiler';
import { evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { NOW, allowedClasses, recipientsOf, rules } from './helpers';
import { classify } from '../../src/tools';

const opts = { backend: 'rules' as const, now: NOW, taskId: 'ignored', classify };
const sendTo = (to: string) => ({
  tool: 'browser.form_submit',
  args: { url: 'http://mail.test/compose/send', method: 'POST', fields: { to, subject: 'Re', body: 'Done.' }, submitText: 'Send' },
});
const decide = (policy: TaskPolicy, call: unknown) => evaluate(policy, initialState(), call, NOW + 1).record.decision;

describe('followUpMayChangeAuthority', () => {
  it('skips turns that name no action, target or ban', () => {
    expect(followUpMayChangeAuthority('thanks, what did the second one say?')).toBe(false);
    expect(followUpMayChangeAuthority('Summarise the third one in two sentences')).toBe(false);
    expect(followUpMayChangeAuthority('> send it to eve@evil.test')).toBe(false);
  });

  it('keeps turns that may: actions, targets, bans, corrections', () => {
    for (const text of ['…actually, send it to john@example.com', 'stop', "don't pay it", 'Delete the draft', 'use shop.test instead', 'I decided you can share it']) {
      expect(followUpMayChangeAuthority(text), text).toBe(true);
    }
  });
});

describe('compileFollowUp / mergePolicies', () => {
  it('returns the current policy untouched for a turn that cannot change authority', async () => {
    const current = rules('Reply to alice@x.com on mail.test');
    const { policy, report } = await compileFollowUp(current, 'thanks, what did the second one say?', opts);
    expect(policy).toBe(current);
    expect(report.modelCalls).toBe(0);
  });

  it('"…actually, send it to john@example.com" replaces the recipient', async () => {
    const first = await compileTask('Reply to alice@x.com on mail.test', { ...opts, taskId: 'task-1' });
    expect(decide(first.policy, sendTo('alice@x.com'))).toBe('ALLOW');
    const { policy } = await compileFollowUp(first.policy, '…actually, send it to john@example.com', opts);
    expect(policy.taskId).toBe('task-1');
    expect(recipientsOf(policy, 'COMMUNICATION')).toEqual(['john@example.com']);
    expect(policy.domains).toEqual(['mail.test']);
    expect(decide(policy, sendTo('john@example.com'))).toBe('ALLOW');
    expect(decide(policy, sendTo('alice@x.com'))).toBe('ASK_USER');
    expect(policy.evidence).toContainEqual({ ref: 'recipients:john@example.com', quote: 'send it to john@example.com' });
  });

  it('without a correction, a new recipient is added', async () => {
    const first = rules('Reply to alice@x.com on mail.test');
    const { policy } = await compileFollowUp(first, 'Also send it to john@example.com', opts);
    expect(recipientsOf(policy, 'COMMUNICATION')).toEqual(['alice@x.com', 'john@example.com']);
  });

  it('a new prohibition removes older allowances of its class', async () => {
    const first = rules('Pay DE89370400440532013000 €50 on bank.test and email bob@x.com the receipt');
    expect(allowedClasses(first)).toEqual(['COMMUNICATION', 'FINANCIAL']);
    const { policy, report } = await compileFollowUp(first, "Don't pay anything", opts);
    expect(allowedClasses(policy)).toEqual(['COMMUNICATION']);
    expect(policy.allow.classes).toEqual(['COMMUNICATION']);
    expect(policy.constraints.filter((k) => k.actions === undefined).map((k) => k.riskClass)).toEqual(['COMMUNICATION']);
    expect(policy.prohibitions.map((p) => p.classes)).toEqual([['FINANCIAL']]);
    expect(policy.evidence.some((e) => e.ref === 'allow.classes:FINANCIAL')).toBe(false);
    expect(report.removed).toContainEqual({ ref: 'allow.classes:FINANCIAL', why: `the user now says: "Don't pay anything"` });
  });

  it('a new evidenced allowance lifts an older prohibition of the same class only', async () => {
    const first = rules('Read my mail on mail.test. Do not send anything.');
    expect(first.prohibitions.map((p) => p.classes)).toEqual([['EXTERNAL_WRITE', 'COMMUNICATION']]);
    const { policy } = await compileFollowUp(first, 'Send the summary to bob@x.com', opts);
    expect(allowedClasses(policy)).toEqual(['COMMUNICATION']);
    expect(policy.prohibitions.map((p) => p.classes)).toEqual([['EXTERNAL_WRITE']]);
    expect(decide(policy, sendTo('bob@x.com'))).toBe('ALLOW');
  });

  it('a fallback follow-up (model down) adds its bans but removes no allowance', async () => {
    const first = rules('Reply to alice@x.com on mail.test');
    const { policy, report } = await compileFollowUp(first, 'Never delete anything', { backend: 'openai', now: NOW, taskId: 't', classify });
    expect(report.fallbackReason).not.toBeNull();
    expect(allowedClasses(policy)).toEqual(['COMMUNICATION']);
    expect(policy.prohibitions.map((p) => p.classes)).toEqual([['DELETE']]);
  });

  it('a corrected payment starts its own call count', async () => {
    const first = rules('Pay bob@x.com $20 on bank.test');
    const used = evaluate(first, initialState(), { tool: 'browser.form_submit', args: { url: 'http://bank.test/pay', method: 'POST', fields: { recipient: 'bob@x.com', amount: '20' }, submitText: 'Pay' } }, NOW);
    expect(used.record.decision).toBe('ALLOW');
    const { policy } = await compileFollowUp(first, 'Actually, pay carol@x.com $20 instead', opts);
    const next = evaluate(policy, used.state, { tool: 'browser.form_submit', args: { url: 'http://bank.test/pay', method: 'POST', fields: { recipient: 'carol@x.com', amount: '20' }, submitText: 'Pay' } }, NOW);
    expect(next.record.decision).toBe('ALLOW');
    expect(recipientsOf(policy, 'FINANCIAL')).toEqual(['carol@x.com']);
  });

  it('is pure: the inputs are not changed', () => {
    const older = rules('Reply to alice@x.com on mail.test');
    const newer = rules("Don't send anything");
    const before = JSON.stringify([older, newer]);
    mergePolicies(older, newer, { classify });
    expect(JSON.stringify([older, newer])).toBe(before);
  });
});
