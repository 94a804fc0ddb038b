import { BODY_VIEW_LIMIT, FieldCollector, textBodyView, type BodyView } from '../body';
import { invoke, type Natives } from './natives';

/** Bounded body views of snapshot requests, read through captured natives (fetch, XHR, beacon). */

/** How much of a body is decoded for the view (UTF-8 needs at most 4 bytes per character). */
const DECODE_LIMIT_BYTES = BODY_VIEW_LIMIT * 4;

export function then<T>(n: Natives, promise: Promise<T>, onValue: (value: T) => void, onError: () => void): void {
  invoke(n.promiseThen, promise, [onValue, onError]);
}

export type OnBody = (view: BodyView | undefined, bytes: number) => void;

/** Reads a bounded view of a snapshot Request's body from a clone, leaving the snapshot unread. */
export function readRequestBody(n: Natives, request: Request, done: OnBody): void {
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
