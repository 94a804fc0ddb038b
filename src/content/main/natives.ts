/**
 * The builtins the MAIN-world hooks use, captured once at document_start, before any page script runs.
 * Afterwards a page may replace `window.fetch`, `Reflect.apply`, `MessagePort.prototype.postMessage`,
 * `MessageEvent.prototype.data`, `URL.prototype.href`, `Promise.prototype.then` …; the hooks keep using
 * these originals, always called through the captured `apply` with an explicit receiver.
 */

type AnyFunction = (...args: never[]) => unknown;

const { apply, getOwnPropertyDescriptor } = Reflect;

function getterOf(proto: object, name: string): AnyFunction {
  const get = getOwnPropertyDescriptor(proto, name)?.get;
  if (get === undefined) throw new TypeError(`no getter ${name}`);
  return get as AnyFunction;
}

function setterOf(proto: object, name: string): AnyFunction {
  const set = getOwnPropertyDescriptor(proto, name)?.set;
  if (set === undefined) throw new TypeError(`no setter ${name}`);
  return set as AnyFunction;
}

/** Calls a captured builtin with an explicit receiver. */
export function invoke<T>(fn: unknown, self: unknown, args: readonly unknown[] = []): T {
  return apply(fn as AnyFunction, self, args) as T;
}

export function captureNatives(win: Window & typeof globalThis) {
  return {
    window: win,
    fetch: win.fetch,
    Request: win.Request,
    requestUrl: getterOf(win.Request.prototype, 'url'),
    requestMethod: getterOf(win.Request.prototype, 'method'),
    requestHeaders: getterOf(win.Request.prototype, 'headers'),
    requestArrayBuffer: win.Request.prototype.arrayBuffer,
    headersGet: win.Headers.prototype.get,
    Response: win.Response,
    responseFormData: win.Response.prototype.formData,
    responseArrayBuffer: win.Response.prototype.arrayBuffer,
    formDataForEach: win.FormData.prototype.forEach,
    fileName: getterOf(win.File.prototype, 'name'),
    File: win.File,
    Uint8Array: win.Uint8Array,
    arrayBufferByteLength: getterOf(win.ArrayBuffer.prototype, 'byteLength'),
    TextDecoder: win.TextDecoder,
    textDecoderDecode: win.TextDecoder.prototype.decode,
    URL: win.URL,
    urlHref: getterOf(win.URL.prototype, 'href'),
    urlOrigin: getterOf(win.URL.prototype, 'origin'),
    urlProtocol: getterOf(win.URL.prototype, 'protocol'),
    urlSetProtocol: setterOf(win.URL.prototype, 'protocol'),
    urlSearch: getterOf(win.URL.prototype, 'search'),
    urlHash: getterOf(win.URL.prototype, 'hash'),
    createObjectURL: win.URL.createObjectURL,
    revokeObjectURL: win.URL.revokeObjectURL,
    Blob: win.Blob,
    baseURI: getterOf(win.Node.prototype, 'baseURI'),
    document: win.document,
    location: win.location,
    origin: win.origin,
    String: win.String,
    toUpperCase: win.String.prototype.toUpperCase,
    toLowerCase: win.String.prototype.toLowerCase,
    jsonStringify: win.JSON.stringify,
    objectKeys: Object.keys,
    isArray: Array.isArray,
    URLSearchParams: win.URLSearchParams,
    urlSearchParamsAppend: win.URLSearchParams.prototype.append,
    urlSearchParamsToString: win.URLSearchParams.prototype.toString,
    Promise: win.Promise,
    promiseThen: win.Promise.prototype.then,
    promiseReject: win.Promise.reject,
    TypeError: win.TypeError,
    DOMException: win.DOMException,
    MessageChannel: win.MessageChannel,
    channelPort1: getterOf(win.MessageChannel.prototype, 'port1'),
    channelPort2: getterOf(win.MessageChannel.prototype, 'port2'),
    portPostMessage: win.MessagePort.prototype.postMessage,
    portSetOnMessage: setterOf(win.MessagePort.prototype, 'onmessage'),
    messageEventData: getterOf(win.MessageEvent.prototype, 'data'),
    windowPostMessage: win.postMessage,
    XMLHttpRequest: win.XMLHttpRequest,
    xhrOpen: win.XMLHttpRequest.prototype.open,
    xhrSend: win.XMLHttpRequest.prototype.send,
    xhrSetRequestHeader: win.XMLHttpRequest.prototype.setRequestHeader,
    sendBeacon: win.Navigator.prototype.sendBeacon,
    WebSocket: win.WebSocket,
    EventSource: win.EventSource,
    EventTarget: win.EventTarget,
    addEventListener: win.EventTarget.prototype.addEventListener,
    dispatchEvent: win.EventTarget.prototype.dispatchEvent,
    Event: win.Event,
    MessageEvent: win.MessageEvent,
    CloseEvent: win.CloseEvent,
    CustomEvent: win.CustomEvent,
    open: win.open,
    windowClose: win.close,
    formSubmit: win.HTMLFormElement.prototype.submit,
    attachShadow: win.Element.prototype.attachShadow,
    WeakMap: win.WeakMap,
    weakMapGet: win.WeakMap.prototype.get,
    weakMapSet: win.WeakMap.prototype.set,
    createObject: Object.create,
    hasOwnProperty: Object.prototype.hasOwnProperty,
    defineProperty: Object.defineProperty,
    regExpTest: win.RegExp.prototype.test,
    queueMicrotask: win.queueMicrotask,
    MutationObserver: win.MutationObserver,
    mutationObserverObserve: win.MutationObserver.prototype.observe,
  };
}

export type Natives = ReturnType<typeof captureNatives>;
