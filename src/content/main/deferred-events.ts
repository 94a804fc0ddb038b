import { textBodyView, type BodyView } from '../body';
import type { UrlTools } from './channel';
import { then } from './bodies';
import { invoke, type Natives } from './natives';

/** Shared by the deferred WebSocket and EventSource stand-ins: ready states and `onX` handler properties. */

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSING = 2;
export const CLOSED = 3;
/** EventSource has no CLOSING state: its CLOSED is 2. */
export const EVENT_SOURCE_CLOSED = 2;

export function defineConstants(target: object, n: Natives, names: readonly string[]): void {
  names.forEach((name, value) => n.defineProperty(target, name, { value, enumerable: true }));
}

export type Handler = ((this: unknown, event: Event) => unknown) | null;

/** Shared by the deferred WebSocket and EventSource: `onX` handler properties over EventTarget. */
export function handlerProperties(n: Natives, proto: object, types: readonly string[], handlers: WeakMap<object, Record<string, Handler>>): void {
  for (const type of types) {
    n.defineProperty(proto, `on${type}`, {
      configurable: true,
      enumerable: true,
      get(this: object) {
        return handlers.get(this)?.[type] ?? null;
      },
      set(this: object, value: unknown) {
        const own = handlers.get(this);
        if (own !== undefined) own[type] = typeof value === 'function' ? (value as Handler) : null;
      },
    });
  }
}

export function registerHandlerDispatch(n: Natives, target: EventTarget, types: readonly string[], handlers: Record<string, Handler>): void {
  for (const type of types) {
    invoke(n.addEventListener, target, [
      type,
      (event: Event) => {
        const handler = handlers[type];
        if (typeof handler === 'function') invoke(handler, target, [event]);
      },
    ]);
  }
}

export function webSocketUrl(n: Natives, urls: UrlTools, input: unknown): string {
  const url = urls.resolve(input);
  if (url === null) throw new n.DOMException(`Failed to construct 'WebSocket': The URL '${n.String(input)}' is invalid.`, 'SyntaxError');
  const protocol = invoke<string>(n.urlProtocol, url);
  if (protocol === 'http:') invoke(n.urlSetProtocol, url, ['ws:']);
  else if (protocol === 'https:') invoke(n.urlSetProtocol, url, ['wss:']);
  else if (protocol !== 'ws:' && protocol !== 'wss:') {
    throw new n.DOMException(`Failed to construct 'WebSocket': The URL's scheme must be 'ws', 'wss', 'http' or 'https'.`, 'SyntaxError');
  }
  if (invoke<string>(n.urlHash, url) !== '') {
    throw new n.DOMException(`Failed to construct 'WebSocket': The URL contains a fragment identifier.`, 'SyntaxError');
  }
  return urls.href(url);
}

/** A WebSocket message as it goes (a string, or a copy of its bytes), the view checked and its size. */
export interface ReadMessage {
  message: string | ArrayBuffer;
  view: BodyView;
  bytes: number;
}

/**
 * A WebSocket message read once: what is sent is what was read. Binary data is checked as the text it
 * decodes to, so a JSON message encoded to bytes reads like the same message as text; a Blob's bytes can
 * only be read asynchronously, so `done` may come later (the socket's outbox keeps the order). Null when a
 * Blob cannot be read: the message is then refused.
 */
export function readMessage(n: Natives, data: unknown, done: (read: ReadMessage | null) => void): void {
  if (data instanceof n.Blob) {
    const read = invoke<Promise<ArrayBuffer>>(n.responseArrayBuffer, new n.Response(data));
    then(n, read, (buffer) => done(binaryMessage(n, new n.Uint8Array(buffer))), () => done(null));
    return;
  }
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    const source = data instanceof ArrayBuffer ? new n.Uint8Array(data) : new n.Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
    done(binaryMessage(n, new n.Uint8Array(source)));
    return;
  }
  const text = typeof data === 'string' ? data : n.String(data);
  done({ message: text, view: textBodyView(text, null), bytes: text.length });
}

function binaryMessage(n: Natives, copy: Uint8Array): ReadMessage {
  const text = invoke<string>(n.textDecoderDecode, new n.TextDecoder(), [copy]);
  return { message: copy.buffer as ArrayBuffer, view: textBodyView(text, null), bytes: copy.byteLength };
}
