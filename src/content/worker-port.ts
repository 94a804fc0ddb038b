import type { MessageType, Reply, Request, WorkerPortAnswer, WorkerPortRequest } from '../messages/protocol';
import { WORKER_PORT_NAME } from './bridge';

/**
 * The frame's one long-lived channel to the background (`runtime.connect`), opened at document_start
 * by the ISOLATED script: every proposal, taint report and Sanitizer message of the frame travels on it,
 * tagged with a request number, and its answer comes back on it. Uses the browser's own `chrome.runtime`
 * (no polyfill wrapping on the decision path).
 *
 * When the worker stops (MV3 idles it out after ~30 s, or it is restarted), the browser disconnects the
 * port: every request still waiting is rejected — the caller turns that into a BLOCK, never into an
 * ALLOW — and the next request connects again, which wakes the worker. No request is re-sent: the
 * worker may have counted it before it died.
 */

/** What this module needs of `chrome.runtime` (injected so unit tests need no browser). */
export interface PortRuntime {
  connect(info: { name: string }): PortLike;
}

export interface PortLike {
  postMessage(message: unknown): void;
  onMessage: { addListener(fn: (message: unknown) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
}

/**
 * Sends one message to the background and resolves with its answer, as the protocol map types it (the
 * background's handler checks it there; content scripts carry no zod and read it structurally).
 */
export type WorkerRequest = <T extends MessageType>(message: Request<T>) => Promise<Reply<T> | undefined>;

export const DISCONNECTED = 'the extension worker stopped before it answered';

function isAnswer(data: unknown): data is WorkerPortAnswer {
  return typeof data === 'object' && data !== null && typeof (data as { rid?: unknown }).rid === 'number';
}

type Waiter = { resolve(answer: unknown): void; reject(error: Error): void };

export function openWorkerPort(runtime: PortRuntime): WorkerRequest {
  /** The open connection and the requests waiting on it (each connection fails only its own). */
  let current: { port: PortLike; pending: Map<number, Waiter> } | null = null;
  let nextRid = 1;

  const connect = (): { port: PortLike; pending: Map<number, Waiter> } => {
    const connection = { port: runtime.connect({ name: WORKER_PORT_NAME }), pending: new Map<number, Waiter>() };
    connection.port.onMessage.addListener((data) => {
      if (!isAnswer(data)) return;
      const waiter = connection.pending.get(data.rid);
      connection.pending.delete(data.rid);
      waiter?.resolve(data.answer);
    });
    connection.port.onDisconnect.addListener(() => {
      if (current === connection) current = null;
      const waiting = [...connection.pending.values()];
      connection.pending.clear();
      for (const waiter of waiting) waiter.reject(new Error(DISCONNECTED));
    });
    return connection;
  };

  const send = (message: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const rid = nextRid++;
      let connection: ReturnType<typeof connect> | null = null;
      try {
        connection = current ??= connect();
        connection.pending.set(rid, { resolve, reject });
        const envelope: WorkerPortRequest = { rid, message };
        connection.port.postMessage(envelope);
      } catch (error) {
        // A port already disconnected or an invalidated extension context: no decision.
        connection?.pending.delete(rid);
        if (current === connection) current = null;
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });

  try {
    current = connect();
  } catch {
    // The extension context is gone; each request tries again (and fails closed).
  }
  return send as WorkerRequest;
}
