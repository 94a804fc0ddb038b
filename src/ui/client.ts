import { ErrorResponseSchema, MESSAGES, type ErrorResponse, type PageMessageType, type Reply, type Request } from '../messages/protocol';

/** How a page reaches the background; `browser.runtime.sendMessage` in the extension, a fake in tests. */
export type Transport = (message: unknown) => Promise<unknown>;

/**
 * Send one page message and parse the answer with the protocol map. Never throws: a dead worker, a
 * refused sender or a reply of the wrong shape all come back as an ErrorResponse the page can show.
 */
export async function request<T extends PageMessageType>(transport: Transport, message: Request<T> & { type: T }): Promise<Reply<T>> {
  let raw: unknown;
  try {
    raw = await transport(message);
  } catch (err) {
    return { ok: false, code: 'internal', error: `The background did not answer: ${err instanceof Error ? err.message : String(err)}` };
  }
  const refused = ErrorResponseSchema.safeParse(raw);
  if (refused.success) return refused.data;
  const type: T = message.type;
  const parsed = MESSAGES[type].response.safeParse(raw);
  if (parsed.success) return parsed.data as Reply<T>;
  const error: ErrorResponse = {
    ok: false,
    code: 'internal',
    error: `Unexpected answer to ${type}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim(),
  };
  return error;
}
