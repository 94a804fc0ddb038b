/**
 * The hooks a dedicated Worker runs before the page's own script (see workers.ts). This function is
 * serialised with `toString()` into the worker's bootstrap, so it must reference nothing outside its
 * own body (no imports, no module-level names, no classes): everything it uses is a global of the
 * worker, captured here before the page's script runs.
 *
 * Inside the worker: fetch and XMLHttpRequest report `browser.request` proposals (method, URL, kind, a
 * bounded body view) over a MessagePort the page hands over as the worker's first message, and proceed
 * only on ALLOW (the page side relays each proposal through the MAIN world's private channel). Relative
 * URLs resolve against the original script URL, as they would in the unwrapped worker; importScripts
 * does the same. WebSocket, EventSource and importScripts to other sites are left to the network floor.
 */
export function workerScopeHooks(scriptUrl: string, portKey: string): void {
  const scope = self as unknown as typeof globalThis & { importScripts(...urls: string[]): void };
  const { apply } = Reflect;
  const NativeURL = URL;
  const NativeRequest = Request;
  const NativeTypeError = TypeError;
  const NativePromise = Promise;
  const nativeFetch = scope.fetch;
  const requestClone = Request.prototype.clone;
  const requestText = Request.prototype.text;
  const headersGet = Headers.prototype.get;
  const portPost = MessagePort.prototype.postMessage;
  const nativeImportScripts = scope.importScripts;
  const parseJson = JSON.parse;
  const LIMIT = 16 * 1024;
  const origin = scope.location.origin;
  const queue: unknown[] = [];
  const pending: Record<number, (allow: boolean) => void> = Object.create(null) as Record<number, (allow: boolean) => void>;
  let port: MessagePort | null = null;
  let nextId = 1;

  scope.addEventListener('message', function first(event: MessageEvent) {
    const data: unknown = event.data;
    if (port !== null || typeof data !== 'object' || data === null || !(portKey in data) || event.ports[0] === undefined) return;
    event.stopImmediatePropagation();
    scope.removeEventListener('message', first);
    const own = event.ports[0];
    port = own;
    own.onmessage = (answer: MessageEvent) => {
      const { id, allow } = (answer.data ?? {}) as { id?: unknown; allow?: unknown };
      const done = typeof id === 'number' ? pending[id] : undefined;
      if (done === undefined || typeof id !== 'number') return;
      delete pending[id];
      done(allow === true);
    };
    for (const message of queue) apply(portPost, own, [message]);
    queue.length = 0;
  });

  const propose = (args: Record<string, unknown>, done: (allow: boolean) => void): void => {
    const id = nextId++;
    pending[id] = done;
    const message = { id, call: { tool: 'browser.request', args } };
    if (port === null) queue.push(message);
    else apply(portPost, port, [message]);
  };
  const resolve = (input: unknown): string => new NativeURL(String(input), scriptUrl).href;
  const bodyView = (text: string, contentType: string | null): unknown => {
    if (text.length <= LIMIT && (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text))) {
      try {
        return parseJson(text) as unknown;
      } catch {
        // not JSON
      }
    }
    if (/x-www-form-urlencoded/i.test(contentType ?? '')) {
      const fields: Record<string, string> = Object.create(null) as Record<string, string>;
      new URLSearchParams(text.slice(0, LIMIT)).forEach((value, name) => (fields[name] = value));
      return fields;
    }
    return text.slice(0, LIMIT);
  };
  const sameOriginRead = (method: string, url: string): boolean => {
    const parsed = new NativeURL(url);
    return (method === 'GET' || method === 'HEAD') && parsed.origin === origin && parsed.search.length <= 256;
  };
  const blocked = (): TypeError => new NativeTypeError('Failed to fetch: blocked by AgentsFence');

  scope.fetch = function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    let request: Request;
    try {
      request = new NativeRequest(typeof input === 'string' || input instanceof NativeURL ? resolve(input) : input, init);
    } catch (error) {
      return NativePromise.reject(error);
    }
    const { method, url } = request;
    if (sameOriginRead(method, url)) return apply(nativeFetch, scope, [request]) as Promise<Response>;
    const contentType = apply(headersGet, request.headers, ['content-type']) as string | null;
    const text: Promise<string> =
      method === 'GET' || method === 'HEAD' ? NativePromise.resolve('') : (apply(requestText, apply(requestClone, request, []), []) as Promise<string>).catch(() => '[unreadable body]');
    return text.then(
      (body) =>
        new NativePromise<Response>((ok, fail) => {
          // Object literals, not assignments, which would run setters the worker defined on Object.prototype.
          const args = body === '' ? { method, url, kind: 'fetch' } : { method, url, kind: 'fetch', body: bodyView(body, contentType), bodyBytes: body.length };
          propose(args, (allow) => (allow ? ok(apply(nativeFetch, scope, [request]) as Promise<Response>) : fail(blocked())));
        }),
    );
  };

  const xhrProto = XMLHttpRequest.prototype;
  const xhrOpen = xhrProto.open;
  const xhrSend = xhrProto.send;
  const targets = new WeakMap<XMLHttpRequest, { method: string; url: string; async: boolean }>();
  const deadUrl = URL.createObjectURL(new Blob());
  URL.revokeObjectURL(deadUrl);
  xhrProto.open = function open(this: XMLHttpRequest, ...args: unknown[]): void {
    if (args.length >= 2) args[1] = resolve(args[1]);
    apply(xhrOpen, this, args);
    targets.set(this, { method: String(args[0]).toUpperCase(), url: String(args[1]), async: args.length < 3 || Boolean(args[2]) });
  } as typeof xhrProto.open;
  xhrProto.send = function send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
    const target = targets.get(this);
    if (target === undefined || sameOriginRead(target.method, target.url)) {
      apply(xhrSend, this, [body]);
      return;
    }
    if (!target.async) throw new DOMException('AgentsFence: a synchronous request cannot wait for a decision', 'NetworkError');
    const sent =
      typeof body === 'string' && body !== ''
        ? { body: bodyView(body, null), bodyBytes: body.length }
        : body instanceof URLSearchParams
          ? { body: bodyView(body.toString(), 'application/x-www-form-urlencoded') }
          : body !== undefined && body !== null
            ? { body: '[binary body]' }
            : {};
    const args = { method: target.method, url: target.url, kind: 'xhr', ...sent };
    propose(args, (allow) => {
      try {
        if (allow) apply(xhrSend, this, [body]);
        else {
          apply(xhrOpen, this, ['GET', deadUrl, true]);
          apply(xhrSend, this, []);
        }
      } catch {
        // aborted or re-opened meanwhile
      }
    });
  };

  scope.importScripts = function importScripts(...urls: string[]): void {
    apply(nativeImportScripts, scope, urls.map(resolve));
  };
}
