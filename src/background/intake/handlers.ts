import { ErrorResponseSchema, MESSAGES, type BackgroundMessage, type MessageType, type Reply, type Request } from '../../messages/protocol';

/**
 * The background's side of the protocol map (src/messages/protocol.ts): one handler per message type,
 * typed by the map, and one place that checks what a handler answers against the map's response schema.
 * The request was parsed by the caller (malformed → BLOCK + audit, in router.ts).
 */
export type Handler<T extends MessageType, Sender> = (message: Request<T>, sender: Sender) => Promise<Reply<T>> | Reply<T>;
export type Handlers<Sender> = { [T in MessageType]: Handler<T, Sender> };

/**
 * Answers one parsed message with its handler. An answer that does not match the protocol is a bug in
 * the background: it throws, and the caller fails closed (BLOCK / ErrorResponse, audited).
 */
export async function answerWith<Sender>(handlers: Handlers<Sender>, message: BackgroundMessage, sender: Sender): Promise<Reply<MessageType>> {
  const handler = handlers[message.type] as Handler<MessageType, Sender>;
  const reply = await handler(message as Request<MessageType>, sender);
  // The type's own answer first: a parse that fails builds its issues, which every decision would pay.
  const checked = MESSAGES[message.type].response.safeParse(reply);
  if (checked.success || ErrorResponseSchema.safeParse(reply).success) return reply;
  const issue = checked.error.issues[0];
  throw new Error(`the answer to ${message.type} does not match the protocol at ${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
}
