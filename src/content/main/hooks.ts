import type { BROWSER_TOOLS, ToolCall } from '../../core/call';
import { BODY_VIEW_LIMIT, FieldCollector, textBodyView, type BodyView } from '../body';
import type { Rewrite } from '../../messages/protocol';
import { FORM_SUBMIT_EVENT, HANDSHAKE_KEY, type BridgeProposal } from '../bridge';
import { captureNatives, invoke, type Natives } from './natives';

/**
 * MAIN-world hooks: every page-initiated request API reports an action proposal (method, URL, kind and
 * a bounded view of the body) to the ISOLATED guard over the private port, and the call proceeds only on
 * ALLOW. This layer carries the semantics the network cannot see (recipients and amounts in bodies);
 * it is never the only line: the network floor holds every destination claim without it.
 *
 * Round-trip exemption (the only one): a GET or HEAD fetch/XHR with no body to the document's own
 * origin and a query of at most SAME_ORIGIN_QUERY_LIMIT characters goes straight to the network.
 * Safe because it carries no body, reaches only the site the tab is already on (a site the policy let
 * the tab reach; if a follow-up narrows the policy, the network floor's rules apply to it like to every
 * request), is READ class with no recipients, and the floor still checks it, exfiltration-shaped URLs
 * included. Such reads are not counted against READ call budgets.
 *
 * Not wrapped here: `requestSubmit()` (it fires a trusted submit event, which the ISOLATED guard holds;
 * wrapping it as well would propose one submission twice), navigations by location/links/meta refresh
 * and everything page code reaches without these globals (a Worker, natives restored from a fresh
 * iframe before its content scripts run): the network floor covers those (see e2e/FLOOR.md).
 * Against a page that replaces builtins to falsify the body view itself (Array/String prototypes), the
 * view is best effort; the decision channel and the URL/method snapshot use captured natives only.
 */
export const SAME_ORIGIN_QUERY_LIMIT = 256;

type OnDecision = (allow: boolean, reason: string, rewrite?: Rewrite) => void;
/**
 * Proposes a call. `rewritable`: the caller can send the Minimizer's rewrite (fetch and XHR bodies); for
 * every other caller an ALLOW that comes with a rewrite is a BLOCK, never a send of the original data.
 */
type Propose = (call: ToolCall, onDecision: OnDecision, rewritable?: boolean) => void;
type RequestKind = 'fetch' | 'xhr' | 'beacon' | 'websocket' | 'eventsource';
type PageWindow = Window & typeof globalThis;

const REQUEST_TOOL: (typeof BROWSER_TOOLS)['request'] = 'browser.request';
const NAVIGATE_TOOL: (typeof BROWSER_TOOLS)['navigate'] = 'browser.navigate';
/** How much of a body is decoded for the view (UTF-8 needs at most 4 bytes per character). */
const DECODE_LIMIT_BYTES = BODY_VIEW_LIMIT * 4;

export function installPageHooks(win: PageWindow): void {
  const n = captureNatives(win);
  const propose = openBridge(n);
  const urls = urlTools(n);
  hookFetch(win, n, propose, urls);
  hookXhr(win, n, propose, urls);
  hookBeacon(win, n, propose, urls);
  hookWebSocket(win, n, propose, urls);
  hookEventSource(win, n, propose, urls);
  hookWindowOpen(win, n, propose, urls);
  hookFormSubmit(win, n);
}

/**
 * Opens the private port (see bridge.ts). Answers are read only from that port, through the captured
 * MessageEvent.data getter, and matched to a pending callback by id; nothing on the decision path
 * awaits a promise, so a page that replaced Promise.prototype.then cannot step into it either.
 */
function openBridge(n: Natives): Propose {
  const channel = new n.MessageChannel();
  const port = invoke<MessagePort>(n.channelPort1, channel);
  const pending = n.createObject(null) as Record<number, { onDecision: OnDecision; rewritable: boolean }>;
  let nextId = 1;
  invoke(n.portSetOnMessage, port, [
    (event: MessageEvent) => {
      const data = invoke<unknown>(n.messageEventData, event);
      if (typeof data !== 'object' || data === null) return;
      const { id, allow, reason, rewrite } = data as Record<string, unknown>;
      if (typeof id !== 'number') return;
      const entry = pending[id];
      if (entry === undefined) return;
      delete pending[id];
      const because = typeof reason === 'string' ? reason : '';
      if (rewrite === undefined) entry.onDecision(allow === true, because);
      else if (entry.rewritable && typeof rewrite === 'object' && rewrite !== null) entry.onDecision(allow === true, because, rewrite as Rewrite);
      else entry.onDecision(false, 'it could not be sent without the flagged data');
    },
  ]);
  invoke(n.windowPostMessage, n.window, [{ [HANDSHAKE_KEY]: true }, '*', [invoke(n.channelPort2, channel)]]);
  return (call, onDecision, rewritable = false) => {
    const id = nextId++;
    pending[id] = { onDecision, rewritable };
    const proposal: BridgeProposal = { id, call };
    invoke(n.portPostMessage, port, [proposal]);
  };
}

interface UrlTools {
  /** The URL resolved against the document's base, or null when it does not parse. */
  resolve(input: unknown): URL | null;
  href(url: URL): string;
  /** The round-trip exemption described at the top of this file. */
  isSameOriginRead(method: string, href: string): boolean;
  upper(text: unknown): string;
}

function urlTools(n: Natives): UrlTools {
  const resolve = (input: unknown): URL | null => {
    try {
      return new n.URL(n.String(input), invoke<string>(n.baseURI, n.document));
    } catch {
      return null;
    }
  };
  return {
    resolve,
    href: (url) => invoke<string>(n.urlHref, url),
    isSameOriginRead(method, href) {
      if (method !== 'GET' && method !== 'HEAD') return false;
      const url = resolve(href);
      return (
        url !== null &&
        invoke<string>(n.urlOrigin, url) === n.origin &&
        invoke<string>(n.urlSearch, url).length <= SAME_ORIGIN_QUERY_LIMIT
      );
    },
    upper: (text) => invoke<string>(n.toUpperCase, n.String(text)),
  };
}

function requestCall(method: string, url: string, kind: RequestKind, body?: BodyView, bodyBytes?: number): ToolCall {
  const args: Record<string, unknown> = { method, url, kind };
  if (body !== undefined) args.body = body;
  if (bodyBytes !== undefined && bodyBytes > 0) args.bodyBytes = bodyBytes;
  return { tool: REQUEST_TOOL, args };
}

function then<T>(n: Natives, promise: Promise<T>, onValue: (value: T) => void, onError: () => void): void {
  invoke(n.promiseThen, promise, [onValue, onError]);
}

type OnBody = (view: BodyView | undefined, bytes: number) => void;

/** Reads a bounded view of a snapshot Request's body from a clone, leaving the snapshot unread. */
function readRequestBody(n: Natives, request: Request, done: OnBody): void {
  const method = invoke<string>(n.requestMethod, request);
  if (method === 'GET' || method === 'HEAD') {
    done(undefined, 0);
    return;
  }
  const contentType = invoke<string | null>(n.headersGet, invoke(n.requestHeaders, request), ['content-type']);
  const copy = invoke<Request>(n.requestClone, request);
  then(
    n,
    invoke<Promise<ArrayBuffer>>(n.requestArrayBuffer, copy),
    (buffer) => {
      const bytes = invoke<number>(n.arrayBufferByteLength, buffer);
      if (bytes === 0) {
        done(undefined, 0);
        return;
      }
      if (contentType !== null && contentType.toLowerCase().includes('multipart/form-data')) {
        readMultipart(n, buffer, contentType, (view) => done(view, bytes));
        return;
      }
      const prefix = new n.Uint8Array(buffer, 0, bytes < DECODE_LIMIT_BYTES ? bytes : DECODE_LIMIT_BYTES);
      const text = invoke<string>(n.textDecoderDecode, new n.TextDecoder(), [prefix]);
      done(textBodyView(text, contentType), bytes);
    },
    () => done('[unreadable body]', 0),
  );
}

function readMultipart(n: Natives, buffer: ArrayBuffer, contentType: string, done: (view: BodyView) => void): void {
  const parsed = new n.Response(buffer, { headers: { 'content-type': contentType } });
  then(
    n,
    invoke<Promise<FormData>>(n.responseFormData, parsed),
    (data) => {
      const collector = new FieldCollector();
      invoke(n.formDataForEach, data, [
        (value: FormDataEntryValue, name: string) =>
          collector.add(name, typeof value === 'string' ? value : `[file ${invoke<string>(n.fileName, value)}]`),
      ]);
      done(collector.fields);
    },
    () => done('[unreadable multipart body]'),
  );
}

function blockedError(n: Natives, reason: string): TypeError {
  return new n.TypeError(`Failed to fetch: blocked by AgentsFence (${reason})`);
}

/**
 * The body a Minimizer rewrite sends, encoded the way the page encoded the original: a parsed body is
 * JSON unless the original was form-encoded, and text stays text. Null when it cannot be applied exactly
 * (a rewrite of the URL is never applied in place: the action is blocked instead).
 */
function encodedRewrite(n: Natives, rewrite: Rewrite, formEncoded: boolean): string | null {
  const body = rewrite.body;
  if (body === undefined || rewrite.url !== undefined) return null;
  if (typeof body === 'string') return body;
  if (!formEncoded) return n.jsonStringify(body);
  const params = new n.URLSearchParams();
  for (const name of n.objectKeys(body)) {
    const value = (body as Record<string, unknown>)[name];
    for (const one of n.isArray(value) ? (value as unknown[]) : [value]) invoke(n.urlSearchParamsAppend, params, [name, n.String(one)]);
  }
  return invoke<string>(n.urlSearchParamsToString, params);
}

/** The snapshot Request with the Minimizer's body, or null when the rewrite cannot be applied exactly. */
function rewrittenRequest(n: Natives, request: Request, rewrite: Rewrite): Request | null {
  const contentType = invoke<string | null>(n.headersGet, invoke(n.requestHeaders, request), ['content-type']) ?? '';
  const body = encodedRewrite(n, rewrite, invoke<string>(n.toLowerCase, contentType).includes('x-www-form-urlencoded'));
  if (body === null) return null;
  try {
    return new n.Request(request, { body });
  } catch {
    return null;
  }
}

/** fetch: the Request is snapshotted once, so the URL, method and body checked are the ones sent. */
function hookFetch(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  win.fetch = function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    let request: Request;
    try {
      request = new n.Request(input, init);
    } catch (error) {
      return invoke<Promise<Response>>(n.promiseReject, n.Promise, [error]);
    }
    const method = invoke<string>(n.requestMethod, request);
    const url = invoke<string>(n.requestUrl, request);
    if (urls.isSameOriginRead(method, url)) return invoke<Promise<Response>>(n.fetch, n.window, [request]);
    return new n.Promise<Response>((resolve, reject) => {
      readRequestBody(n, request, (body, bytes) => {
        propose(
          requestCall(method, url, 'fetch', body, bytes),
          (allow, reason, rewrite) => {
            const sent = allow && rewrite !== undefined ? rewrittenRequest(n, request, rewrite) : request;
            if (allow && sent !== null) resolve(invoke<Promise<Response>>(n.fetch, n.window, [sent]));
            else reject(blockedError(n, allow ? 'it could not be sent without the flagged data' : reason));
          },
          true,
        );
      });
    });
  };
}

interface XhrTarget {
  method: string;
  url: string;
  async: boolean;
}

/**
 * XHR: `open` resolves the URL once and opens the native request with that string; `send` proposes and
 * sends on ALLOW. On BLOCK the request is re-opened to a revoked blob: URL and sent, so the page sees
 * the ordinary network-error path (readyState 4, status 0, `error` event) and nothing leaves.
 * A synchronous XHR cannot wait for a decision: unless exempt it throws a NetworkError.
 */
function hookXhr(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  const targets = new n.WeakMap<XMLHttpRequest, XhrTarget>();
  const deadUrl = invoke<string>(n.createObjectURL, n.URL, [new n.Blob()]);
  invoke(n.revokeObjectURL, n.URL, [deadUrl]);
  const proto = win.XMLHttpRequest.prototype;

  proto.open = function open(this: XMLHttpRequest, ...args: unknown[]): void {
    const url = args.length >= 2 ? urls.resolve(args[1]) : null;
    if (url === null) {
      invoke(n.xhrOpen, this, args); // the native open reports the error
      return;
    }
    args[1] = urls.href(url);
    invoke(n.xhrOpen, this, args);
    const target: XhrTarget = { method: urls.upper(args[0]), url: urls.href(url), async: args.length < 3 || Boolean(args[2]) };
    invoke(n.weakMapSet, targets, [this, target]);
  } as typeof proto.open;

  proto.send = function send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
    const target = invoke<XhrTarget | undefined>(n.weakMapGet, targets, [this]);
    if (target === undefined || urls.isSameOriginRead(target.method, target.url)) {
      invoke(n.xhrSend, this, [body]);
      return;
    }
    if (!target.async) {
      throw new n.DOMException('AgentsFence: a synchronous request cannot wait for a decision', 'NetworkError');
    }
    const decide: OnBody = (view, bytes) =>
      propose(
        requestCall(target.method, target.url, 'xhr', view, bytes),
        (allow, _reason, rewrite) => {
          try {
            const formEncoded = body instanceof n.URLSearchParams;
            const encoded = allow && rewrite !== undefined ? encodedRewrite(n, rewrite, formEncoded) : null;
            if (allow && rewrite === undefined) {
              invoke(n.xhrSend, this, [body]);
            } else if (allow && encoded !== null) {
              invoke(n.xhrSend, this, [formEncoded ? new n.URLSearchParams(encoded) : encoded]);
            } else {
              invoke(n.xhrOpen, this, ['GET', deadUrl, true]);
              invoke(n.xhrSend, this, []);
            }
          } catch {
            // The page aborted or re-opened the request while it waited: nothing to send.
          }
        },
        true,
      );
    const carriesBody = target.method !== 'GET' && target.method !== 'HEAD' && body !== undefined && body !== null;
    let snapshot: Request | null = null;
    if (carriesBody) {
      try {
        snapshot = new n.Request(target.url, { method: target.method, body: body as BodyInit });
      } catch {
        snapshot = null;
      }
    }
    if (snapshot === null) decide(carriesBody ? '[unreadable body]' : undefined, 0);
    else readRequestBody(n, snapshot, decide);
  };
}

/**
 * sendBeacon must answer synchronously, before any decision exists: it returns true (queued) and the
 * native beacon goes out only on ALLOW; on BLOCK nothing is sent. A beacon queued during unload can be
 * lost with its page; that is the price of deciding first.
 */
function hookBeacon(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  win.Navigator.prototype.sendBeacon = function sendBeacon(this: Navigator, url: string | URL, data?: BodyInit | null): boolean {
    const resolved = urls.resolve(url);
    if (resolved === null) return invoke<boolean>(n.sendBeacon, this, [url, data]); // the native throws
    const href = urls.href(resolved);
    let snapshot: Request;
    try {
      snapshot = new n.Request(href, { method: 'POST', body: data ?? null });
    } catch {
      return false;
    }
    readRequestBody(n, snapshot, (view, bytes) =>
      propose(requestCall('POST', href, 'beacon', view, bytes), (allow) => {
        if (allow) invoke(n.sendBeacon, this, [href, data]);
      }),
    );
    return true;
  };
}

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;
/** EventSource has no CLOSING state: its CLOSED is 2. */
const EVENT_SOURCE_CLOSED = 2;

function defineConstants(target: object, n: Natives, names: readonly string[]): void {
  names.forEach((name, value) => n.defineProperty(target, name, { value, enumerable: true }));
}

type Handler = ((this: unknown, event: Event) => unknown) | null;

/** Shared by the deferred WebSocket and EventSource: `onX` handler properties over EventTarget. */
function handlerProperties(n: Natives, proto: object, types: readonly string[], handlers: WeakMap<object, Record<string, Handler>>): void {
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

function registerHandlerDispatch(n: Natives, target: EventTarget, types: readonly string[], handlers: Record<string, Handler>): void {
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

function webSocketUrl(n: Natives, urls: UrlTools, input: unknown): string {
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

function messageView(data: unknown): { view: BodyView; bytes: number } {
  if (typeof data === 'string') return { view: textBodyView(data, null), bytes: data.length };
  const bytes = data instanceof Blob ? data.size : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data.byteLength : 0;
  return { view: `[binary message, ${bytes} bytes]`, bytes };
}

/**
 * WebSocket: the constructor must return at once, so it returns a stand-in in CONNECTING state and opens
 * the native socket only on ALLOW, relaying its events. On BLOCK the stand-in fails like a refused
 * connection (`error`, then `close` with code 1006); no handshake reaches the server. Each message sent
 * is proposed (as a POST of its content to the socket's URL) and goes out in order on ALLOW; a blocked
 * message closes the socket rather than leave a hole in the stream.
 */
function hookWebSocket(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
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
      const entry = { data, decided: false, allow: false };
      this.#outbox.push(entry);
      const { view, bytes } = messageView(data);
      propose(requestCall('POST', this.#url, 'websocket', view, bytes), (allow) => {
        entry.decided = true;
        entry.allow = allow;
        this.#flush();
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

/**
 * EventSource: like WebSocket, a stand-in that opens the native stream only on ALLOW and relays its
 * events, named ones included (a type the page listens for is relayed from then on). On BLOCK it
 * closes and fires `error`, as a refused stream does.
 */
function hookEventSource(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
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

const NO_OPENER = /(^|[\s,])(noopener|noreferrer)([\s,=]|$)/i;

/**
 * window.open must return a window at once: it opens an about:blank placeholder (no network) with the
 * same target and features, and navigates it to the URL on ALLOW or closes it on BLOCK. With noopener
 * the caller gets null, as natively, and the placeholder's opener is cut before it navigates.
 */
function hookWindowOpen(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  win.open = function open(...args: unknown[]): WindowProxy | null {
    const [url, target, features] = args;
    const text = url === undefined ? '' : n.String(url);
    const resolved = text === '' || text === 'about:blank' ? null : urls.resolve(text);
    if (resolved === null) return invoke<WindowProxy | null>(n.open, n.window, args); // nothing to load, or the native throws
    const href = urls.href(resolved);
    const featureText = features === undefined ? '' : n.String(features);
    const noOpener = invoke<boolean>(n.regExpTest, NO_OPENER, [featureText]);
    const targetName = target === undefined ? '_blank' : n.String(target);
    const popup = invoke<WindowProxy | null>(n.open, n.window, ['about:blank', targetName, noOpener ? '' : featureText]);
    propose({ tool: NAVIGATE_TOOL, args: { url: href, opener: n.location.href } }, (allow) => {
      if (popup === null) return; // the browser refused the popup: nothing to navigate
      try {
        if (!allow) {
          popup.close();
          return;
        }
        if (noOpener) popup.opener = null;
        popup.location.href = href;
      } catch {
        // The page closed or navigated the placeholder itself meanwhile.
      }
    });
    return noOpener ? null : popup;
  };
}

/** form.submit() fires no submit event: hand the form to the ISOLATED guard, which reads and holds it. */
function hookFormSubmit(win: PageWindow, n: Natives): void {
  win.HTMLFormElement.prototype.submit = function submit(this: HTMLFormElement): void {
    invoke(n.dispatchEvent, this, [new n.CustomEvent(FORM_SUBMIT_EVENT, { bubbles: true, composed: true })]);
  };
}
