import { textBodyView, type BodyView } from '../body';
import type { UrlTools } from './channel';
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

/**
 * A WebSocket message read once: the message to send (a copy of binary data, the string of anything that is
 * not binary) and the view checked. Binary data is checked as the text it decodes to, so a JSON message
 * encoded to bytes is read like the same message as text; a Blob (immutable) is sent as it is, unread.
 */
export function messageToSend(n: Natives, data: unknown): { message: string | ArrayBuffer | Blob; view: BodyView; bytes: number } {
  if (data instanceof n.Blob) return { message: data, view: `[binary message, ${data.size} bytes]`, bytes: data.size };
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    const source = data instanceof ArrayBuffer ? new n.Uint8Array(data) : new n.Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
    const copy = new n.Uint8Array(source);
    const text = invoke<string>(n.textDecoderDecode, new n.TextDecoder(), [copy]);
    return { message: copy.buffer, view: textBodyView(text, null), bytes: copy.byteLength };
  }
  const text = typeof data === 'string' ? data : n.String(data);
  return { message: text, view: textBodyView(text, null), bytes: text.length };
}
