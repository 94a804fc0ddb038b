import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { readRequestBody, type OnBody } from './bodies';
import { encodedRewrite } from './fetch';
import { invoke, type Natives } from './natives';

interface XhrTarget {
  method: string;
  url: string;
  async: boolean;
  /** The headers the page set since `open`, so the snapshot reads the body as the server will. */
  headers: [string, string][];
}

/**
 * XHR: `open` resolves the URL once and opens the native request with that string; `send` proposes and
 * sends on ALLOW. On BLOCK the request is re-opened to a revoked blob: URL and sent, so the page sees
 * the ordinary network-error path (readyState 4, status 0, `error` event) and nothing leaves.
 * A synchronous XHR cannot wait for a decision: unless exempt it throws a NetworkError.
 */
export function hookXhr(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  const targets = new n.WeakMap<XMLHttpRequest, XhrTarget>();
  // Made on the first BLOCK, not at install: registering a blob: URL is a synchronous round trip to the
  // browser process that every guarded frame's load would wait for (captured natives, so page script
  // cannot interfere later either).
  let deadUrl: string | null = null;
  const revokedUrl = (): string => {
    if (deadUrl === null) {
      deadUrl = invoke<string>(n.createObjectURL, n.URL, [new n.Blob()]);
      invoke(n.revokeObjectURL, n.URL, [deadUrl]);
    }
    return deadUrl;
  };
  const proto = win.XMLHttpRequest.prototype;

  proto.open = function open(this: XMLHttpRequest, ...args: unknown[]): void {
    const url = args.length >= 2 ? urls.resolve(args[1]) : null;
    if (url === null) {
      invoke(n.xhrOpen, this, args); // the native open reports the error
      return;
    }
    args[1] = urls.href(url);
    invoke(n.xhrOpen, this, args);
    const target: XhrTarget = { method: urls.upper(args[0]), url: urls.href(url), async: args.length < 3 || Boolean(args[2]), headers: [] };
    invoke(n.weakMapSet, targets, [this, target]);
  } as typeof proto.open;

  proto.setRequestHeader = function setRequestHeader(this: XMLHttpRequest, name: string, value: string): void {
    invoke(n.xhrSetRequestHeader, this, [name, value]);
    const target = invoke<XhrTarget | undefined>(n.weakMapGet, targets, [this]);
    if (target !== undefined) target.headers[target.headers.length] = [n.String(name), n.String(value)];
  };

  proto.send = function send(this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
    const target = invoke<XhrTarget | undefined>(n.weakMapGet, targets, [this]);
    if (target === undefined || urls.isSameOriginRead(target.method, target.url)) {
      invoke(n.xhrSend, this, [body]);
      return;
    }
    if (!target.async) {
      throw new n.DOMException('AgentsFence: a synchronous request cannot wait for a decision', 'NetworkError');
    }
    // What is checked is what goes: the request as opened then, and the bytes that were read (a body the
    // page changes after `send` — a typed array, a FormData, an object's toString — is not read again).
    const opened = { method: target.method, url: target.url };
    const decide: OnBody = (view, bytes, read) =>
      propose(
        requestCall(target.method, target.url, 'xhr', view, bytes),
        (allow, _reason, rewrite) => {
          try {
            const formEncoded = body instanceof n.URLSearchParams;
            const encoded = allow && rewrite !== undefined ? encodedRewrite(n, rewrite, formEncoded) : null;
            const now = invoke<XhrTarget | undefined>(n.weakMapGet, targets, [this]);
            if (allow && (now === undefined || now.method !== opened.method || now.url !== opened.url)) {
              // Re-opened while it waited: the request now open was never checked.
              invoke(n.xhrOpen, this, ['GET', revokedUrl(), true]);
              invoke(n.xhrSend, this, []);
            } else if (allow && rewrite === undefined) {
              if (read !== null && snapshotType !== null && !setsContentType(n, target.headers)) invoke(n.xhrSetRequestHeader, this, ['Content-Type', snapshotType]);
              invoke(n.xhrSend, this, [read !== null ? read : body]);
            } else if (allow && encoded !== null) {
              invoke(n.xhrSend, this, [formEncoded ? new n.URLSearchParams(encoded) : encoded]);
            } else {
              invoke(n.xhrOpen, this, ['GET', revokedUrl(), true]);
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
    let snapshotType: string | null = null;
    if (carriesBody) {
      try {
        snapshot = new n.Request(target.url, { method: target.method, body: body as BodyInit, headers: target.headers });
        snapshotType = invoke<string | null>(n.headersGet, invoke(n.requestHeaders, snapshot), ['content-type']);
      } catch {
        snapshot = null;
      }
    }
    if (snapshot === null) decide(carriesBody ? '[unreadable body]' : undefined, 0, null);
    else readRequestBody(n, snapshot, decide);
  };
}

/** Whether the page set a Content-Type itself (else the type the snapshot inferred from the body goes with its bytes). */
function setsContentType(n: Natives, headers: readonly [string, string][]): boolean {
  for (let i = 0; i < headers.length; i++) if (invoke<string>(n.toLowerCase, headers[i]![0]) === 'content-type') return true;
  return false;
}
