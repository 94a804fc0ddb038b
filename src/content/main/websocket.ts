import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { CLOSED, CLOSING, CONNECTING, OPEN, defineConstants, handlerProperties, readMessage, registerHandlerDispatch, webSocketUrl, type Handler } from './deferred-events';
import { invoke, type Natives } from './natives';

/**
 * WebSocket: the constructor must return at once, so it returns a stand-in in CONNECTING state and opens
 * the native socket only on ALLOW, relaying its events. On BLOCK the stand-in fails like a refused
 * connection (`error`, then `close` with code 1006); no handshake reaches the server. Each message sent
 * is proposed (as a POST of its content to the socket's URL) and goes out in order on ALLOW; a blocked
 * message closes the socket rather than leave a hole in the stream.
 */
export function hookWebSocket(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  const NativeWebSocket = n.WebSocket;
  const EVENTS = ['open', 'message', 'error', 'close'] as const;
  const handlers = new WeakMap<object, Record<string, Handler>>();

  class WebSocket extends n.EventTarget {
    #url: string;
    #state = CONNECTING;
    #socket: globalThis.WebSocket | null = null;
    #binaryType: BinaryType = 'blob';
    #outbox: { data: unknown; decided: boolean; allow: boolean }[] = [];

    constructor(url: string | URL, protocols?: string | string[]) {
      super();
      this.#url = webSocketUrl(n, urls, url);
      const own = n.createObject(null) as Record<string, Handler>;
      handlers.set(this, own);
      registerHandlerDispatch(n, this, EVENTS, own);
      propose(requestCall('GET', this.#url, 'websocket'), (allow) => {
        if (this.#state !== CONNECTING) return; // closed by the page while it waited
        if (!allow) {
          this.#fail();
          return;
        }
        try {
          this.#connect(protocols === undefined ? new NativeWebSocket(this.#url) : new NativeWebSocket(this.#url, protocols));
        } catch {
          this.#fail();
        }
      });
    }

    #dispatch(event: Event): void {
      invoke(n.dispatchEvent, this, [event]);
    }

    #fail(): void {
      this.#state = CLOSED;
      this.#dispatch(new n.Event('error'));
      this.#dispatch(new n.CloseEvent('close', { code: 1006, reason: '', wasClean: false }));
    }

    #connect(socket: globalThis.WebSocket): void {
      this.#socket = socket;
      socket.binaryType = this.#binaryType;
      invoke(n.addEventListener, socket, [
        'open',
        () => {
          this.#state = OPEN;
          this.#dispatch(new n.Event('open'));
        },
      ]);
      invoke(n.addEventListener, socket, [
        'message',
        (event: MessageEvent) => this.#dispatch(new n.MessageEvent('message', { data: event.data, origin: event.origin })),
      ]);
      invoke(n.addEventListener, socket, ['error', () => this.#dispatch(new n.Event('error'))]);
      invoke(n.addEventListener, socket, [
        'close',
        (event: CloseEvent) => {
          this.#state = CLOSED;
          this.#dispatch(new n.CloseEvent('close', { code: event.code, reason: event.reason, wasClean: event.wasClean }));
        },
      ]);
    }

    #flush(): void {
      while (this.#outbox.length > 0 && this.#outbox[0]?.decided === true) {
        const next = this.#outbox.shift();
        if (next === undefined || this.#socket === null) return;
        if (next.allow) {
          this.#socket.send(next.data as string);
        } else {
          this.#outbox = [];
          this.#state = CLOSING;
          this.#socket.close();
          return;
        }
      }
    }

    send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      if (this.#state === CONNECTING) {
        throw new n.DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
      }
      if (this.#state !== OPEN || this.#socket === null) return; // closing or closed: discarded, as natively
      const entry: { data: unknown; decided: boolean; allow: boolean } = { data: null, decided: false, allow: false };
      this.#outbox.push(entry);
      const decided = (allow: boolean) => {
        entry.decided = true;
        entry.allow = allow;
        this.#flush();
      };
      readMessage(n, data, (read) => {
        if (read === null) return decided(false);
        entry.data = read.message;
        propose(requestCall('POST', this.#url, 'websocket', read.view, read.bytes), decided);
      });
    }

    close(code?: number, reason?: string): void {
      if (this.#socket !== null) {
        this.#state = CLOSING;
        this.#socket.close(code, reason);
        return;
      }
      if (this.#state === CONNECTING) this.#fail();
    }

    get url(): string {
      return this.#url;
    }
    get readyState(): number {
      return this.#state;
    }
    get bufferedAmount(): number {
      return this.#socket?.bufferedAmount ?? 0;
    }
    get protocol(): string {
      return this.#socket?.protocol ?? '';
    }
    get extensions(): string {
      return this.#socket?.extensions ?? '';
    }
    get binaryType(): BinaryType {
      return this.#binaryType;
    }
    set binaryType(value: BinaryType) {
      if (value !== 'blob' && value !== 'arraybuffer') return;
      this.#binaryType = value;
      if (this.#socket !== null) this.#socket.binaryType = value;
    }
  }
  const names = ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'];
  defineConstants(WebSocket, n, names);
  defineConstants(WebSocket.prototype, n, names);
  handlerProperties(n, WebSocket.prototype, EVENTS, handlers);
  win.WebSocket = WebSocket as unknown as typeof globalThis.WebSocket;
}
