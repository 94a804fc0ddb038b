import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { readRequestBody } from './bodies';
import { invoke, type Natives } from './natives';

export function blockedError(n: Natives, reason: string): TypeError {
  return new n.TypeError(`Failed to fetch: blocked by AgentsFence (${reason})`);
}

/** fetch: the Request is snapshotted once, so the URL, method and body checked are the ones sent. */
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
      readRequestBody(n, request, (body, bytes) => {
        propose(requestCall(method, url, 'fetch', body, bytes), (allow, reason) => {
          if (allow) resolve(invoke<Promise<Response>>(n.fetch, n.window, [request]));
          else reject(blockedError(n, reason));
        });
      });
    });
  };
}
