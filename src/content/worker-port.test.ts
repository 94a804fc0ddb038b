// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { decide, type SendProposal } from './isolated';
import { openWorkerPort as openPort, type PortLike, type PortRuntime } from './worker-port';

/** Proposals only, as the form guard and the bridge use it. */
const openWorkerPort = (runtime: PortRuntime): SendProposal => {
  const request = openPort(runtime);
  return (message) => request<'proposal'>(message as Parameters<typeof request<'proposal'>>[0]);
};

/** A runtime whose ports record what they carry; the test answers or disconnects them. */
function fakeRuntime() {
  const ports: Array<PortLike & { sent: unknown[]; answer(data: unknown): void; disconnect(): void }> = [];
  const runtime: PortRuntime = {
    connect() {
      const onMessage: Array<(m: unknown) => void> = [];
      const onDisconnect: Array<() => void> = [];
      let connected = true;
      const port = {
        sent: [] as unknown[],
        postMessage(message: unknown) {
          if (!connected) throw new Error('Attempting to use a disconnected port object');
          port.sent.push(message);
        },
        onMessage: { addListener: (fn: (m: unknown) => void) => void onMessage.push(fn) },
        onDisconnect: { addListener: (fn: () => void) => void onDisconnect.push(fn) },
        answer: (data: unknown) => onMessage.forEach((fn) => fn(data)),
        disconnect() {
          connected = false;
          onDisconnect.forEach((fn) => fn());
        },
      };
      ports.push(port);
      return port;
    },
  };
  return { runtime, ports };
}

const call = { tool: 'browser.request', args: { method: 'POST', url: 'https://app.test/w', kind: 'fetch' } };

describe('openWorkerPort', () => {
  it('opens the port at once and matches each answer to its request by number', async () => {
    const { runtime, ports } = fakeRuntime();
    const request = openPort(runtime) as unknown as (message: unknown) => Promise<unknown>;
    expect(ports).toHaveLength(1);
    const first = request({ type: 'a' });
    const second = request({ type: 'b' });
    const [one, two] = ports[0]!.sent as Array<{ rid: number; message: unknown }>;
    expect(one!.message).toEqual({ type: 'a' });
    ports[0]!.answer({ rid: two!.rid, answer: 'for b' });
    ports[0]!.answer({ rid: one!.rid, answer: 'for a' });
    await expect(first).resolves.toBe('for a');
    await expect(second).resolves.toBe('for b');
  });

  it('a decision in flight when the worker stops is a BLOCK, and the next request connects again', async () => {
    const { runtime, ports } = fakeRuntime();
    const request = openWorkerPort(runtime);
    const inFlight = decide(request, call, 'main');
    ports[0]!.disconnect();
    const verdict = await inFlight;
    expect(verdict.allow).toBe(false);
    expect(verdict.reason).toContain('worker stopped');

    const next = decide(request, call, 'main');
    expect(ports).toHaveLength(2);
    const { rid, message } = ports[1]!.sent[0] as { rid: number; message: { id: string } };
    ports[1]!.answer({ rid, answer: { id: message.id, decision: 'ALLOW', check: 'allowed', reason: 'ok' } });
    expect((await next).allow).toBe(true);
    // The old port's late disconnect cannot fail a request on the new one.
    expect(ports[0]!.sent).toHaveLength(1);
  });

  it('an answer for another proposal, or none, never allows', async () => {
    const { runtime, ports } = fakeRuntime();
    const request = openWorkerPort(runtime);
    const verdict = decide(request, call, 'main');
    const { rid } = ports[0]!.sent[0] as { rid: number };
    ports[0]!.answer({ rid, answer: { id: 'someone-else', decision: 'ALLOW', check: 'allowed', reason: 'ok' } });
    expect((await verdict).allow).toBe(false);
  });

  it('a port that cannot be opened (extension context gone) fails closed', async () => {
    const request = openWorkerPort({
      connect() {
        throw new Error('Extension context invalidated.');
      },
    });
    expect((await decide(request, call, 'main')).allow).toBe(false);
  });
});
