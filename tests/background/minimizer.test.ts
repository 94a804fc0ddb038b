import { describe, expect, it } from 'vitest';
import { FakeEffects, PAGE, freshStore, monitorOn, proposal, settle } from './fakes';
import { makePolicy } from '../support/policy';
import type { ProposalAnswer } from '../../src/messages/protocol';
import { reportWithoutCompile } from '../../src/compiler/report';
import { screenAllowed } from '../../src/background/decide/minimize';
import type { ActiveTask } from '../../src/background/task/store';
import { evaluateBrowserAction } from '../../src/core/evaluator';
import { initialState } from '../../src/core/policy';

/** "Reply to bob@corp.test on mail.test": the send is in policy; what it carries is the Minimizer's business. */
const replyPolicy = makePolicy({
  taskId: 'reply',
  domains: ['mail.test'],
  recipients: ['bob@corp.test'],
  ceilings: { COMMUNICATION: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
  constraints: [{ id: 'k1', riskClass: 'COMMUNICATION', recipients: ['bob@corp.test'], maxCalls: 5 }],
});
const send = (text: string) => ({ tool: 'browser.request', args: { method: 'POST', url: 'http://mail.test/api/send', kind: 'fetch', body: { to: 'bob@corp.test', text } } });

async function setup(options: { minimizeWithoutAsking?: boolean; minimizer?: 'off' | 'detect' } = {}) {
  const { store } = await freshStore();
  const effects = new FakeEffects();
  const monitor = await monitorOn(store, effects);
  if (options.minimizer !== undefined || options.minimizeWithoutAsking !== undefined) {
    await monitor.handleMessage({ type: 'options.set', options: { ...monitor.snapshot().options, ...options } }, { url: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html' });
  }
  await monitor.session.installTask('reply', 'Reply to bob@corp.test saying I will attend on Friday.', replyPolicy, reportWithoutCompile('test'));
  return { store, monitor };
}

describe('Minimizer in the background', () => {
  it('lets an in-policy message without confidential data through untouched', async () => {
    const { monitor } = await setup();
    const answer = (await monitor.handleMessage(proposal('p', send('I will attend on Friday.')), PAGE())) as ProposalAnswer;
    expect(answer).toMatchObject({ decision: 'ALLOW', check: 'allowed' });
    expect(answer.rewrite).toBeUndefined();
  });

  it('holds an allowed send that carries a one-time code, counts nothing while held, and says what and where', async () => {
    const { monitor } = await setup();
    const pending = monitor.handleMessage(proposal('p', send('I will attend. My sign-in code is 483920.')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    const [approval] = monitor.snapshot().approvals;
    expect(approval?.record).toMatchObject({ decision: 'ASK_USER', check: 'minimizer', ruleRef: 'builtin:minimizer' });
    expect(approval?.record.evidence).toBeUndefined();
    expect(approval?.record.reason).toContain('a one-time code in body.text');
    expect(approval?.record.reason).not.toContain('483920');
    expect(approval?.minimizable).toBe(true);
    expect(monitor.snapshot().task?.state.constraintCalls.k1 ?? 0).toBe(0);

    await monitor.approvals.answer(approval!.id, 'send-without');
    const answer = await pending;
    expect(answer).toMatchObject({ decision: 'ALLOW', askedUser: true });
    expect(answer.rewrite).toEqual({ body: { to: 'bob@corp.test', text: 'I will attend. My sign-in code is.' } });
    expect(monitor.snapshot().task?.state.constraintCalls.k1).toBe(1);
    expect(monitor.snapshot().task?.policy.grants).toEqual([]);
  });

  it('"Send as is" sends the page\'s own values; "Deny" blocks', async () => {
    const { monitor } = await setup();
    const first = monitor.handleMessage(proposal('a', send('card 4111 1111 1111 1111')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'send-as-is');
    expect(await first).toMatchObject({ decision: 'ALLOW' });
    expect((await first).rewrite).toBeUndefined();

    const second = monitor.handleMessage(proposal('b', send('IBAN DE89370400440532013000')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'deny');
    expect(await second).toMatchObject({ decision: 'BLOCK' });
  });

  it('"Send as is" releases only the data that was shown: another call with other data of the same kind asks on its own', async () => {
    const { monitor } = await setup();
    const shown = monitor.handleMessage(proposal('a', send('Our front desk: +1 555 010 0100.')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    const piggyback = monitor.handleMessage(proposal('b', send('Private: cell +44 7700 900123.')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    const approvals = monitor.snapshot().approvals;
    expect(approvals).toHaveLength(2);
    await monitor.approvals.answer(approvals[0]!.id, 'send-as-is');
    expect(await shown).toMatchObject({ decision: 'ALLOW' });
    expect(monitor.snapshot().approvals.map((a) => a.id)).toEqual([approvals[1]!.id]);
    await monitor.approvals.answer(approvals[1]!.id, 'deny');
    expect(await piggyback).toMatchObject({ decision: 'BLOCK' });

    // The same call again (a retry) still joins the approval it waits on.
    const retries = [1, 2].map((n) => monitor.handleMessage(proposal(`r${n}`, send('code 483920')), PAGE()) as Promise<ProposalAnswer>);
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'deny');
    for (const retry of retries) expect(await retry).toMatchObject({ decision: 'BLOCK' });
  });

  it('minimises without asking when the person chose so in options', async () => {
    const { monitor } = await setup({ minimizeWithoutAsking: true });
    const answer = (await monitor.handleMessage(proposal('p', send('code 483920, see you Friday')), PAGE())) as ProposalAnswer;
    expect(answer.decision).toBe('ALLOW');
    expect(answer.rewrite?.body).toEqual({ to: 'bob@corp.test', text: 'code, see you Friday' });
  });

  it('stands aside when off, and never flags data the user gave', async () => {
    const off = await setup({ minimizer: 'off' });
    expect(((await off.monitor.handleMessage(proposal('p', send('code 483920')), PAGE())) as ProposalAnswer).decision).toBe('ALLOW');
    const on = await setup();
    expect(((await on.monitor.handleMessage(proposal('q', send('see you Friday, bob@corp.test')), PAGE())) as ProposalAnswer).decision).toBe('ALLOW');
  });
});

describe('Minimizer model mode', () => {
  async function withModel(model: (task: string, action: { values: readonly { path: string; value: string }[] }) => Promise<unknown>) {
    const { store } = await freshStore();
    const monitor = await monitorOn(store, new FakeEffects());
    (monitor.decider as unknown as { deps: { minimizerModel: unknown } }).deps.minimizerModel = model;
    await monitor.handleMessage({ type: 'options.set', options: { ...monitor.snapshot().options, minimizer: 'model' } }, { url: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html' });
    await monitor.session.installTask('reply', 'Reply to bob@corp.test saying I will attend on Friday.', replyPolicy, reportWithoutCompile('test'));
    return { store, monitor };
  }

  it('holds what the model names, and the rewrite removes exactly that span', async () => {
    const { monitor } = await withModel(async (_task, action) => ({
      findings: [{ kind: 'unneeded', path: 'body.text', start: action.values[1]!.value.indexOf('Salary'), end: action.values[1]!.value.length }],
    }));
    const pending = monitor.handleMessage(proposal('p', send('I will attend. Salary list: Ann 90k, Ben 85k')), PAGE()) as Promise<ProposalAnswer>;
    await settle();
    const [approval] = monitor.snapshot().approvals;
    expect(approval?.record.reason).toContain('data the task does not need (model)');
    await monitor.approvals.answer(approval!.id, 'send-without');
    expect((await pending).rewrite?.body).toEqual({ to: 'bob@corp.test', text: 'I will attend.' });
  });

  it('a failing model leaves the deterministic result and is audited', async () => {
    const { store, monitor } = await withModel(async () => ({ error: 'ECONNREFUSED' }));
    const answer = (await monitor.handleMessage(proposal('p', send('I will attend on Friday.')), PAGE())) as ProposalAnswer;
    expect(answer.decision).toBe('ALLOW');
    const audit = await store.listAudit({ check: 'minimizer' });
    expect(audit.some((e) => e.record.reason.includes('model failed'))).toBe(true);
  });
});

describe('data a private host showed, sent back to it', () => {
  it('is not data from another site: the taint records the site, the target names the host and port', () => {
    const policy = makePolicy({ domains: ['localhost:3000', 'notes.test'], ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] } });
    const task = { request: 'Check the build on localhost:3000 and note the status on notes.test', followUps: [], policy, report: reportWithoutCompile('test'), taint: [{ value: 'bld_7Hq2Zp9Xk4Wm', site: 'localhost', kind: 'token' }] } as unknown as ActiveTask;
    const post = (url: string) => ({ tool: 'browser.request', args: { method: 'POST', url, kind: 'fetch', body: { note: 'build bld_7Hq2Zp9Xk4Wm is green' } } });
    const screened = (url: string) => {
      const call = post(url);
      const { record } = evaluateBrowserAction(policy, initialState(), call, 1);
      expect(record.decision).toBe('ALLOW');
      return screenAllowed(task, call, record)?.findings.map((f) => f.kind) ?? [];
    };
    expect(screened('http://localhost:3000/api/notes')).toEqual([]);
    expect(screened('http://notes.test/api/notes')).toEqual(['other_site_data']);
  });
});
