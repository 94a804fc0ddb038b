import { requestCall, type PageWindow, type Propose, type UrlTools } from './channel';
import { readRequestBody } from './bodies';
import { invoke, type Natives } from './natives';

/**
 * sendBeacon must answer synchronously, before any decision exists: it returns true (queued) and the
 * native beacon goes out only on ALLOW; on BLOCK nothing is sent. A beacon queued during unload can be
 * lost with its page; that is the price of deciding first.
 */
export function hookBeacon(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
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
    // The bytes that were read go, with the type the snapshot gave them: a body the page changes after the
    // call (a typed array, a FormData) is not read a second time.
    const type = invoke<string | null>(n.headersGet, invoke(n.requestHeaders, snapshot), ['content-type']);
    readRequestBody(n, snapshot, (view, bytes, read) =>
      propose(requestCall('POST', href, 'beacon', view, bytes), (allow) => {
        if (allow) invoke(n.sendBeacon, this, [href, read === null ? data : new n.Blob([read], type === null ? {} : { type })]);
      }),
    );
    return true;
  };
}
