import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import type { ToolCall } from '../../src/core/call';
import { NUM_RUNS } from '../support/arbitraries';

/**
 * A chat message sent by a page script names its channel in its body. Theorem: where the body writes the channel as
 * a name (`channel: "design"`), the message reaches that channel — it passes for the channel the words name and never
 * ALLOWs for another; where it writes an opaque id (`C01GENERAL`), nothing is read that could bind it: it never
 * ALLOWs either.
 */

const NOW = 1_800_000_000_000;
const params = { numRuns: NUM_RUNS };
const TASKS = [
  ['ping @dana in #design on slack.test that the mockups are ready', 'slack.test', 'design'],
  ['tell #ops on chat.test the deploy is done', 'chat.test', 'ops'],
  ['let #eng-standup know on chat.test that i am out tomorrow', 'chat.test', 'eng-standup'],
] as const;
const policies = new Map<string, TaskPolicy>();
const message = (site: string, channel: string): ToolCall => ({ tool: 'browser.request', args: { method: 'POST', url: `https://${site}/api/chat.postMessage`, kind: 'fetch', body: { channel, text: 'the mockups are ready' } } });
const decide = (policy: TaskPolicy, call: ToolCall) => evaluate(policy, initialState(), call, NOW + 1).record;

beforeAll(async () => {
  for (const [task] of TASKS) policies.set(task, (await compileTask(task, { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
});

describe('a chat message reaches the channel its body names (theorem)', () => {
  it('passes for the named channel; another channel, by name or by id, never ALLOWs', () => {
    const other = fc.oneof(fc.constantFrom('general', 'random', 'design-leads', 'ops2', 'eng', 'announcements'), fc.constantFrom('C01GENERAL', 'C09DESIGN', '1103221190457720912', 'G02OPS'));
    fc.assert(
      fc.property(fc.constantFrom(...TASKS), other, ([task, site, named], channel: string) => {
        const policy = policies.get(task)!;
        expect(decide(policy, message(site, channel)).decision, `${task} / ${channel}`).not.toBe('ALLOW');
        expect(decide(policy, message(site, named)).decision, `${task} / ${named}`).toBe('ALLOW');
      }),
      params,
    );
  });
});
