import type { ToolCall } from '../../core/call';
import type { PageWindow, Propose, UrlTools } from './channel';
import { invoke, type Natives } from './natives';
import { workerScopeHooks } from './worker-scope';

/**
 * Dedicated workers run the request hooks too: `new Worker(url, options)` starts a `blob:` bootstrap
 * (same options: type, name, credentials) that installs workerScopeHooks and then loads the original
 * script (classic: importScripts(url); module: import(url)). The worker's proposals come back over a
 * MessageChannel port handed to it as its first message (never the page's postMessage) and go through
 * this world's private channel like the page's own.
 * Not wrapped: SharedWorker (a bootstrap URL per page would break the sharing that defines it) and
 * service workers — requests without a tab are the network floor's. A page whose CSP forbids `blob:`
 * workers gets an `error` event from the worker, as it would for any refused worker script.
 */
const PORT_KEY = '__agentsfence_worker_port_v1';

export function hookWorkers(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  const NativeWorker = win.Worker;
  if (typeof NativeWorker !== 'function') return;
  const workerPostMessage = NativeWorker.prototype.postMessage;
  const { stringify } = JSON;
  const hooksSource = workerScopeHooks.toString();

  const Worker = function Worker(this: unknown, scriptUrl: string | URL, options?: WorkerOptions): Worker {
    if (new.target === undefined) throw new n.TypeError("Failed to construct 'Worker': Please use the 'new' operator.");
    const resolved = urls.resolve(scriptUrl);
    if (resolved === null) return new NativeWorker(scriptUrl, options); // the native constructor throws
    const href = urls.href(resolved);
    const load = options?.type === 'module' ? `import(${stringify(href)});` : `importScripts(${stringify(href)});`;
    const source = `(${hooksSource})(${stringify(href)}, ${stringify(PORT_KEY)});\n${load}\n`;
    const bootstrap = invoke<string>(n.createObjectURL, n.URL, [new n.Blob([source], { type: 'text/javascript' })]);
    const worker = new NativeWorker(bootstrap, options);
    const channel = new n.MessageChannel();
    const port = invoke<MessagePort>(n.channelPort1, channel);
    invoke(n.portSetOnMessage, port, [
      (event: MessageEvent) => {
        const data = invoke<unknown>(n.messageEventData, event);
        if (typeof data !== 'object' || data === null) return;
        const { id, call } = data as { id?: unknown; call?: unknown };
        if (typeof id !== 'number' || typeof call !== 'object' || call === null) return;
        // The background parses the call strictly; a malformed one is a BLOCK there.
        propose(call as ToolCall, (allow) => invoke(n.portPostMessage, port, [{ id, allow }]));
      },
    ]);
    invoke(workerPostMessage, worker, [{ [PORT_KEY]: true }, [invoke(n.channelPort2, channel)]]);
    return worker;
  } as unknown as typeof globalThis.Worker;
  n.defineProperty(Worker, 'prototype', { value: NativeWorker.prototype });
  win.Worker = Worker;
}
