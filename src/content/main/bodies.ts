import { BODY_VIEW_LIMIT, FieldCollector, textBodyView, type BodyView } from '../body';
import { invoke, type Natives } from './natives';

/** Bounded body views of snapshot requests, read through captured natives (fetch, XHR, beacon). */

/** How much of a body is decoded for the view (UTF-8 needs at most 4 bytes per character). */
const DECODE_LIMIT_BYTES = BODY_VIEW_LIMIT * 4;

export function then<T>(n: Natives, promise: Promise<T>, onValue: (value: T) => void, onError: () => void): void {
  invoke(n.promiseThen, promise, [onValue, onError]);
}

/**
 * `sent`: the bytes that were read, to send in place of the snapshot's body (which reading used up);
 * null when the snapshot has no body to read (GET, HEAD) or it could not be read.
 */
export type OnBody = (view: BodyView | undefined, bytes: number, sent: ArrayBuffer | null) => void;

/**
 * Reads a bounded view of a snapshot Request's body by reading the snapshot itself: the caller sends
 * exactly the bytes that were read (`sent`), never a second reading. Not from a clone: `clone()` tees
 * the body into streams, and reading a branch cost about 1 ms per request in Chromium 156 (bench, page
 * round trip), against nothing measurable for reading the snapshot's own bytes.
 */
export function readRequestBody(n: Natives, request: Request, done: OnBody): void {
  const method = invoke<string>(n.requestMethod, request);
  if (method === 'GET' || method === 'HEAD') {
    done(undefined, 0, null);
    return;
  }
  const contentType = invoke<string | null>(n.headersGet, invoke(n.requestHeaders, request), ['content-type']);
  then(
    n,
    invoke<Promise<ArrayBuffer>>(n.requestArrayBuffer, request),
    (buffer) => {
      const bytes = invoke<number>(n.arrayBufferByteLength, buffer);
      if (bytes === 0) {
        done(undefined, 0, buffer);
        return;
      }
      if (contentType !== null && contentType.toLowerCase().includes('multipart/form-data')) {
        readMultipart(n, buffer, contentType, (view) => done(view, bytes, buffer));
        return;
      }
      const prefix = new n.Uint8Array(buffer, 0, bytes < DECODE_LIMIT_BYTES ? bytes : DECODE_LIMIT_BYTES);
      const text = invoke<string>(n.textDecoderDecode, new n.TextDecoder(), [prefix]);
      done(textBodyView(text, contentType), bytes, buffer);
    },
    () => done('[unreadable body]', 0, null),
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
