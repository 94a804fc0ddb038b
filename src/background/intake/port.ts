import type { Browser } from '@wxt-dev/browser';
import { WORKER_PORT_NAME } from '../../content/bridge';
import { WorkerPortRequestSchema, type WorkerPortAnswer } from '../../messages/protocol';
import { startupMark } from '../platform/startup-marks';
import type { MessageSender } from '../contracts';

/**
 * Each guarded frame's long-lived port (src/content/worker-port.ts): every envelope's message goes to
 * the router exactly as a runtime message would (parsed there with the strict schemas, malformed →
 * BLOCK + audit), with the port's sender (tab, frame, URL as the browser reports them), and its answer
 * goes back on the same port under the envelope's number. An envelope that does not parse has no number
 * to answer; its content still reaches the router, so it is audited (a content script can always use
 * runtime.sendMessage instead, so this grants nothing more).
 */
export function serveFramePorts(runtime: Pick<typeof Browser.runtime, 'onConnect'>, background: Promise<{ handleMessage(raw: unknown, sender: MessageSender): Promise<unknown> }>): void {
  runtime.onConnect.addListener((port) => {
    if (port.name !== WORKER_PORT_NAME) return;
    const sender: MessageSender = port.sender ?? {};
    let open = true;
    port.onDisconnect.addListener(() => {
      open = false;
    });
    port.onMessage.addListener((raw: unknown) => {
      const envelope = WorkerPortRequestSchema.safeParse(raw);
      const handled = background.then((b) => b.handleMessage(envelope.success ? envelope.data.message : raw, sender));
      if (!envelope.success) return;
      const { rid } = envelope.data;
      void handled.then(
        (answer) => reply(rid, answer),
        (err: unknown) => reply(rid, { ok: false, code: 'internal', error: String(err) }),
      );
    });
    // The frame went away (navigation, closed tab) while a decision was made: nobody is left to answer.
    const reply = (rid: number, answer: unknown): void => {
      if (!open) return;
      const message: WorkerPortAnswer = { rid, answer };
      try {
        port.postMessage(message);
        startupMark('first-answer');
      } catch {
        open = false;
      }
    };
  });
}
