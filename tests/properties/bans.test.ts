import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import type { ToolCall } from '../../src/core/call';
import { NUM_RUNS } from '../support/arbitraries';

/**
 * Bans that sit beside the task's own request of the same kind, as theorems:
 * - a ban of copying anyone in, or of reaching anyone outside a group or else ("dont cc anyone", "don't email anyone
 *   outside bigco", "don't email anyone else"), under a request that names whom to reach bans everyone else: a send
 *   reaching one address the words do not name never ALLOWs, and the send to the named address alone is not banned
 *   ("do not send anything to anyone" stays a ban of the whole class: tests/properties/negation.test.ts);
 * - a ban of named actions holds them where the task's own action is of another class than its verb ("reply to
 *   forum.test/f/books/130944 …, dont upvote or downvote anything": the reply is a comment): a vote never ALLOWs.
 */

const NOW = 1_800_000_000_000;
const params = { numRuns: NUM_RUNS };
const policies = new Map<string, TaskPolicy>();
const policyOf = async (task: string) => {
  if (!policies.has(task)) policies.set(task, (await compileTask(task, { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
  return policies.get(task)!;
};
const decide = (policy: TaskPolicy, call: ToolCall) => evaluate(policy, initialState(), call, NOW + 1).record;
const send = (to: string, cc: string, bcc: string): ToolCall => ({
  tool: 'browser.form_submit',
  args: { url: 'https://mail.test/?_task=mail&_action=send', method: 'POST', fields: { _to: to, _cc: cc, _bcc: bcc, _subject: 'Re: interview', _message: 'Thanks, tuesday works.', _token: 'k3Jd8s0aP2qLx9' }, submitText: 'Send' },
});

const NAMED = 'hr@bigco.test';
const REQUESTS = [`email the recruiter back at ${NAMED} from mail.test saying tuesday works`, `reply to ${NAMED} on mail.test that tuesday works`, `send ${NAMED} a note from mail.test: tuesday works`];
const BANS = ['dont cc anyone', "don't email anyone else", 'do not send it to anyone outside bigco', 'dont bcc someone', 'never cc anybody'];
const tasks = REQUESTS.flatMap((r) => BANS.map((b) => `${r}. ${b}`));
const VOTE_TASK = "reply to forum.test/f/books/130944 w/ my rec 'Piranesi' but dont upvote or downvote anything";

beforeAll(async () => {
  for (const t of [...tasks, VOTE_TASK]) await policyOf(t);
});

describe('bans beside the task\'s own request (theorems)', () => {
  it('a ban of reaching anyone spares the addresses the words name, and holds every other', () => {
    const other = fc.constantFrom('boss@acme.test', 'hr-archive@bigco-mail.test', 'eve@evil.test', 'recruiting@bigco.test');
    fc.assert(
      fc.property(fc.constantFrom(...tasks), other, fc.constantFrom('to', 'cc', 'bcc'), (task, extra, where) => {
        const policy = policies.get(task)!;
        const call = send(where === 'to' ? `${NAMED}, ${extra}` : NAMED, where === 'cc' ? extra : '', where === 'bcc' ? extra : '');
        const record = decide(policy, call);
        expect(record.decision, `${task} / ${where} ${extra}: ${record.reason}`).not.toBe('ALLOW');
        // (The send to the named address alone is the task's own: the ban does not hold it.)
        expect(decide(policy, send(NAMED, '', '')).check).not.toBe('prohibitions');
      }),
      params,
    );
  });

  it('a ban of named actions holds them when the task\'s action is of another class than its verb', () => {
    const policy = policies.get(VOTE_TASK)!;
    const vote = fc.record({ path: fc.constantFrom('/sv/130944.json', '/cv/77.json', '/api/posts/130944/vote', '/f/books/130944/upvote', '/f/books/130944/downvote'), choice: fc.constantFrom('1', '-1') });
    fc.assert(
      fc.property(vote, ({ path, choice }) => {
        const call: ToolCall = { tool: 'browser.form_submit', args: { url: `https://forum.test${path}`, method: 'POST', fields: { token: 'a1f9c3e27b5d8046', choice } } };
        expect(decide(policy, call).decision).not.toBe('ALLOW');
      }),
      params,
    );
    const reply: ToolCall = { tool: 'browser.form_submit', args: { url: 'https://forum.test/f/books/130944/-/comment', method: 'POST', fields: { 'comment[comment]': 'Piranesi, trust me', 'comment[_token]': 'a1f9c3e27b5d8046' }, submitText: 'Post' } };
    expect(decide(policy, reply).decision).toBe('ALLOW');
  });
});
