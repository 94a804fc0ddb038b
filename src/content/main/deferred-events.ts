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

export function messageView(data: unknown): { view: BodyView; bytes: number } {
  if (typeof data === 'string') return { view: textBodyView(data, null), bytes: data.length };
  const bytes = data instanceof Blob ? data.size : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data.byteLength : 0;
  return { view: `[binary message, ${bytes} bytes]`, bytes };
}
