import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { CONNECTING, EVENT_SOURCE_CLOSED, OPEN, defineConstants, handlerProperties, registerHandlerDispatch, type Handler } from './deferred-events';
import { invoke, type Natives } from './natives';

/**
 * EventSource: like WebSocket, a stand-in that opens the native stream only on ALLOW and relays its
 * events, named ones included (a type the page listens for is relayed from then on). On BLOCK it
 * closes and fires `error`, as a refused stream does.
 */
export function hookEventSource(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  const NativeEventSource = n.EventSource;
  const EVENTS = ['open', 'message', 'error'] as const;
  const handlers = new WeakMap<object, Record<string, Handler>>();

  class EventSource extends n.EventTarget {
    #url: string;
    #withCredentials: boolean;
    #state = CONNECTING;
    #source: globalThis.EventSource | null = null;
    #relayed = n.createObject(null) as Record<string, true>;

    constructor(url: string | URL, init?: EventSourceInit) {
      super();
      const resolved = urls.resolve(url);
      if (resolved === null) throw new n.DOMException(`Failed to construct 'EventSource': Cannot open an EventSource to '${n.String(url)}'. The URL is invalid.`, 'SyntaxError');
      this.#url = urls.href(resolved);
      this.#withCredentials = init?.withCredentials === true;
      const own = n.createObject(null) as Record<string, Handler>;
      handlers.set(this, own);
      registerHandlerDispatch(n, this, EVENTS, own);
      propose(requestCall('GET', this.#url, 'eventsource'), (allow) => {
        if (this.#state === EVENT_SOURCE_CLOSED) return;
        if (!allow) {
          this.#state = EVENT_SOURCE_CLOSED;
          invoke(n.dispatchEvent, this, [new n.Event('error')]);
          return;
        }
        const source = new NativeEventSource(this.#url, { withCredentials: this.#withCredentials });
        this.#source = source;
        invoke(n.addEventListener, source, [
          'open',
          () => {
            this.#state = OPEN;
            invoke(n.dispatchEvent, this, [new n.Event('open')]);
          },
        ]);
        invoke(n.addEventListener, source, [
          'error',
          () => {
            this.#state = source.readyState;
            invoke(n.dispatchEvent, this, [new n.Event('error')]);
          },
        ]);
        for (const type of ['message', ...Object.keys(this.#relayed)]) this.#relay(type, true);
      });
    }

    #relay(type: string, force = false): void {
      if (type === 'open' || type === 'error') return;
      if (this.#relayed[type] === true && !force) return;
      this.#relayed[type] = true;
      const source = this.#source;
      if (source === null) return;
      invoke(n.addEventListener, source, [
        type,
        (event: MessageEvent) =>
          invoke(n.dispatchEvent, this, [new n.MessageEvent(type, { data: event.data, origin: event.origin, lastEventId: event.lastEventId })]),
      ]);
    }

    override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
      invoke(n.addEventListener, this, [type, listener, options]);
      if (type !== 'message') this.#relay(n.String(type));
    }

    close(): void {
      this.#state = EVENT_SOURCE_CLOSED;
      this.#source?.close();
    }

    get url(): string {
      return this.#url;
    }
    get withCredentials(): boolean {
      return this.#withCredentials;
    }
    get readyState(): number {
      return this.#state;
    }
  }
  const names = ['CONNECTING', 'OPEN', 'CLOSED'];
  defineConstants(EventSource, n, names);
  defineConstants(EventSource.prototype, n, names);
  handlerProperties(n, EventSource.prototype, EVENTS, handlers);
  win.EventSource = EventSource as unknown as typeof globalThis.EventSource;
}
