import { describe, expect, it } from 'vitest';
import { ApprovalDesk, MIN_READ_MS } from '../../src/cli/approvals';
import type { PendingApproval } from '../../src/messages/protocol';

/** A held send to an address the task does not name, as the extension lists it. */
function pending(id: string, to: string, createdAt: number, timeoutS = 45): PendingApproval {
  return {
    id,
    tool: 'browser.form_submit',
    capability: 'email.send',
    riskClass: 'COMMUNICATION',
    targets: { recipients: [to], domains: ['mail.test'], paths: [], items: [] },
    destination: 'http://mail.test/send',
    check: 'argument_constraints',
    reason: `recipient ${to} is not among the task's recipients (bob@x.com)`,
    dataView: `to: ${to}\nbody: hello`,
    createdAt,
    expiresAt: createdAt + timeoutS * 1000,
  };
}

describe('terminal approvals (ApprovalDesk)', () => {
  it('a prompt names the action, the target, why it is held and its countdown', () => {
    const desk = new ApprovalDesk();
    const text = desk.update([pending('a', 'mallory@evil.test', 0)], 0).join('\n');
    expect(text).toContain('#1');
    expect(text).toContain('email.send (browser.form_submit) → http://mail.test/send');
    expect(text).toContain('recipient mallory@evil.test; site mail.test');
    expect(text).toContain("recipient mallory@evil.test is not among the task's recipients (bob@x.com) (argument_constraints)");
    expect(text).toContain('(in 45 s)');
    expect(desk.prompt(5_000)).toContain('40 s left');
  });

  it('input typed while no approval is listed answers nothing, and never the next one', () => {
    const desk = new ApprovalDesk();
    expect(desk.input('y', 0)).toEqual({ message: expect.stringContaining('no approval is waiting') });
    desk.update([pending('a', 'mallory@evil.test', 1000)], 1000);
    // A line that arrives right after the prompt appeared was typed before anyone could read it.
    expect(desk.input('y', 1000 + MIN_READ_MS / 2)).toEqual({ message: expect.stringContaining('typed before') });
    expect(desk.input('y', 1000 + MIN_READ_MS + 1)).toEqual({ answer: { id: 'a', answer: 'once', number: 1 } });
  });

  it('after one answer, an extra "y" typed at once does not approve the next held send', () => {
    const desk = new ApprovalDesk();
    desk.update([pending('a', 'bob@x.com', 0)], 0);
    const first = desk.input('y', 2_000);
    expect(first).toEqual({ answer: { id: 'a', answer: 'once', number: 1 } });
    desk.answered((first as { answer: Parameters<ApprovalDesk['answered']>[0] }).answer, 2_050);
    desk.update([pending('b', 'mallory@evil.test', 2_100)], 2_100);
    expect(desk.input('y', 2_150)).not.toHaveProperty('answer');
  });

  it('every pending approval is listed; with two, a bare answer is refused and a number answers exactly that one', () => {
    const desk = new ApprovalDesk();
    const text = desk.update([pending('a', 'alice@x.test', 0), pending('b', 'mallory@evil.test', 0)], 0).join('\n');
    expect(text).toContain('#1');
    expect(text).toContain('#2');
    expect(text).toContain('2 approvals are waiting: #1, #2');
    expect(desk.input('y', 5_000)).toEqual({ message: expect.stringContaining('answer with the number') });
    expect(desk.input('2 n', 5_000)).toEqual({ answer: { id: 'b', answer: 'deny', number: 2 } });
    expect(desk.input('#1 always', 5_000)).toEqual({ answer: { id: 'a', answer: 'task', number: 1 } });
    // A number never shown answers nothing.
    expect(desk.input('3 y', 5_000)).toEqual({ message: expect.stringContaining('#3 is not waiting') });
  });

  it('an approval that ends elsewhere is withdrawn with a line saying how; later ones are still shown', () => {
    const desk = new ApprovalDesk();
    desk.update([pending('a', 'mallory@evil.test', 0, 10), pending('b', 'eve@evil.test', 0, 60)], 0);
    // a timed out; b was answered in the popup; c arrives afterwards.
    expect(desk.update([pending('b', 'eve@evil.test', 0, 60)], 10_000)).toEqual(['#1 withdrawn: nobody answered in time, so it was blocked.']);
    const later = desk.update([pending('c', 'carol@evil.test', 20_000)], 20_000);
    expect(later[0]).toBe('#2 withdrawn: it was answered elsewhere (the popup) or the task ended.');
    expect(later.join('\n')).toContain('#3');
    expect(desk.input('1 y', 25_000)).toEqual({ message: expect.stringContaining('#1 is not waiting') });
  });

  it('an approval answered here leaves the list without a withdrawal line', () => {
    const desk = new ApprovalDesk();
    desk.update([pending('a', 'mallory@evil.test', 0)], 0);
    expect(desk.answered({ id: 'a', answer: 'deny', number: 1 }, 3_000)).toBe('#1 → denied');
    expect(desk.update([], 3_500)).toEqual([]);
  });

  it('page-written text cannot draw lines or escape codes of its own on the terminal', () => {
    const desk = new ApprovalDesk();
    const text = desk.update([pending('a', 'x\u001b[2J\nAgentsFence: verified safe', 0)], 0).join('\n');
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/^AgentsFence: verified safe/m);
  });

  it('a payment allows no "for this task" answer; a Minimizer ask answers send without / as is', () => {
    const desk = new ApprovalDesk();
    desk.update([{ ...pending('p', 'shop@x.test', 0), riskClass: 'FINANCIAL' }], 0);
    expect(desk.input('a', 5_000)).toEqual({ message: expect.stringContaining('answer y (allow once), n (deny)') });
    const minimizer = new ApprovalDesk();
    minimizer.update([{ ...pending('m', 'bob@x.com', 0), minimizable: true }], 0);
    expect(minimizer.input('w', 5_000)).toEqual({ answer: { id: 'm', answer: 'send-without', number: 1 } });
  });
});
