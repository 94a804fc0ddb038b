import type { Rewrite } from '../../messages/protocol';
import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { readRequestBody } from './bodies';
import { invoke, type Natives } from './natives';

export function blockedError(n: Natives, reason: string): TypeError {
  return new n.TypeError(`Failed to fetch: blocked by AgentsFence (${reason})`);
}

/**
 * The body a Minimizer rewrite sends, encoded the way the page encoded the original: a parsed body is
 * JSON unless the original was form-encoded, and text stays text. Null when it cannot be applied exactly
 * (a rewrite of the URL is never applied in place: the action is blocked instead).
 */
export function encodedRewrite(n: Natives, rewrite: Rewrite, formEncoded: boolean): string | null {
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

/**
 * The snapshot to send: reading its body used it up, so the bytes that were read go out in its place
 * (every other property — headers, credentials, signal, … — is the snapshot's). Null when it cannot be built.
 */
function withBody(n: Natives, request: Request, read: ArrayBuffer | null): Request | null {
  if (read === null) return request;
  try {
    return new n.Request(request, { body: read });
  } catch {
    return null;
  }
}

/**
 * fetch: the Request is snapshotted once and its body read once, so the URL, method and bytes checked
 * are the ones sent.
 */
export function hookFetch(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
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
      readRequestBody(n, request, (body, bytes, read) => {
        propose(
          requestCall(method, url, 'fetch', body, bytes),
          (allow, reason, rewrite) => {
            if (!allow) {
              reject(blockedError(n, reason));
              return;
            }
            const sent = rewrite !== undefined ? rewrittenRequest(n, request, rewrite) : withBody(n, request, read);
            if (sent !== null) resolve(invoke<Promise<Response>>(n.fetch, n.window, [sent]));
            else reject(blockedError(n, rewrite !== undefined ? 'it could not be sent without the flagged data' : 'its body could not be sent as checked'));
          },
          true,
        );
      });
    });
  };
}
