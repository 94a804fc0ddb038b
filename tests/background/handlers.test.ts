import { describe, expect, it } from 'vitest';
import { answerWith, type Handlers } from '../../src/background/intake/handlers';
import { MESSAGES, parseBackgroundMessage, type MessageType } from '../../src/messages/protocol';
import { FakeEffects, PAGE, POPUP, freshStore, monitorOn, proposal } from './fakes';

/** Handlers that answer every type with `reply` (only the type under test is called). */
const answering = (reply: unknown) => new Proxy({}, { get: () => () => reply }) as Handlers<null>;

describe('the protocol map and its handler helper', () => {
  it('maps every message type to a request schema of that type and a response schema', () => {
    const issuesAt = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => (result.error?.issues ?? []).map((i) => i.path[0]);
    for (const [type, { request, response }] of Object.entries(MESSAGES)) {
      expect(issuesAt(request.safeParse({ type }))).not.toContain('type');
      expect(issuesAt(request.safeParse({ type: type === 'task.get' ? 'task.end' : 'task.get' }))).toContain('type');
      expect(typeof response.safeParse).toBe('function');
    }
  });

  it('the receiver parses a request by the type it names, strictly; no type, an unknown type or an extra key is malformed', () => {
    expect(parseBackgroundMessage({ type: 'task.get' })).toEqual({ success: true, data: { type: 'task.get' } });
    expect(parseBackgroundMessage({ type: 'approval.answer', id: 'a1', answer: 'once' })).toMatchObject({ success: true });
    for (const raw of [null, 'task.get', {}, { type: 'task.delete' }, { type: 'task.get', extra: 1 }, { type: 'approval.answer', id: 'a1', answer: 'always' }]) {
      expect(parseBackgroundMessage(raw).success).toBe(false);
    }
    const unknown = parseBackgroundMessage({ type: 'task.delete' });
    expect(unknown.success === false && unknown.error.issues[0]!.path).toEqual(['type']);
  });

  it('passes an answer that matches the response schema, or an ErrorResponse', async () => {
    expect(await answerWith(answering({ ok: true, mode: 'hidden' }), { type: 'sanitizer.config' }, null)).toEqual({ ok: true, mode: 'hidden' });
    expect(await answerWith(answering({ ok: false, code: 'no-task', error: 'No task is running.' }), { type: 'task.get' }, null)).toMatchObject({ ok: false });
  });

  it('refuses an answer that does not match (a bug in the background), naming where', async () => {
    await expect(answerWith(answering({ ok: true, mode: 'sometimes' }), { type: 'sanitizer.config' }, null)).rejects.toThrow(/answer to sanitizer.config does not match the protocol at mode/);
    await expect(answerWith(answering({ id: 'p', decision: 'ALLOW' }), { type: 'proposal', id: 'p', call: { tool: 'browser.navigate', args: { url: 'http://a.test/' } }, layer: 'main' }, null)).rejects.toThrow(/answer to proposal/);
  });

  it('in the monitor, a handler answer off the protocol fails closed: BLOCK internal_error, audited', async () => {
    const { store } = await freshStore();
    const monitor = await monitorOn(store, new FakeEffects());
    // Break one handler the way a bug would: an answer the protocol does not allow.
    (monitor as unknown as { router: { handlers: Record<MessageType, unknown> } }).router.handlers.proposal = () => ({ id: 'p1', decision: 'ALLOW' });
    expect(await monitor.handleMessage(proposal('p1', { tool: 'browser.navigate', args: { url: 'http://a.test/' } }), PAGE())).toMatchObject({ id: 'p1', decision: 'BLOCK', check: 'internal_error' });
    expect((await store.listAudit())[0]!.record).toMatchObject({ decision: 'BLOCK', check: 'internal_error' });
    // Page messages still answer by the map.
    expect(await monitor.handleMessage({ type: 'task.get' }, POPUP)).toMatchObject({ ok: true, task: null });
  });
});
