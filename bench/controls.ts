import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The two control extensions the page figures are measured against, written fresh for each run:
 *  - the empty-script control: one ISOLATED and one MAIN script declared like ours (document_start, all
 *    frames, about:blank and opaque-origin frames by their creator), both doing nothing, so the browser's own
 *    cost of injecting two document_start scripts shows apart from ours;
 *  - the echo floor: the same message path as ours — MAIN-world fetch wrapper → MessagePort → ISOLATED
 *    script → one runtime.connect port → service worker → back — with nothing decided: the worker answers
 *    ALLOW at once. What AgentsFence adds over it is its own work (parse, evaluate, commit, audit).
 *    Written twice: as the issue defines it (no permissions), and with our manifest's permissions.
 */

export interface ControlExtension {
  path: string;
  dispose(): void;
}

function writeExtension(prefix: string, name: string, files: Record<string, string>, permissions: readonly string[] = []): ControlExtension {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const script = (file: string, world: 'ISOLATED' | 'MAIN') => ({ matches: ['<all_urls>'], js: [file], run_at: 'document_start', all_frames: true, match_origin_as_fallback: true, world });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      manifest_version: 3,
      name,
      version: '1.0',
      ...(permissions.length > 0 ? { permissions } : {}),
      host_permissions: ['<all_urls>'],
      background: { service_worker: 'background.js' },
      content_scripts: [script('isolated.js', 'ISOLATED'), script('main.js', 'MAIN')],
    }),
  );
  return { path: dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One statement each, not empty files: the browser may skip injecting a script with no code at all. */
export function emptyScriptExtension(): ControlExtension {
  return writeExtension('agentsfence-bench-empty-', 'empty content scripts', { 'isolated.js': 'void 0;\n', 'main.js': 'void 0;\n', 'background.js': '' });
}

/** MAIN: every fetch but a same-origin GET waits for the echo (our hooks' one exemption, src/content/main/hooks.ts). */
const ECHO_MAIN = `(() => {
  const nativeFetch = window.fetch;
  const channel = new MessageChannel();
  const port = channel.port1;
  const pending = new Map();
  let next = 1;
  port.onmessage = (event) => {
    const waiter = pending.get(event.data.id);
    pending.delete(event.data.id);
    if (waiter) waiter(event.data.allow === true);
  };
  window.postMessage({ __echo_bridge: true }, '*', [channel.port2]);
  window.fetch = function (input, init) {
    const url = new URL(input instanceof Request ? input.url : String(input), document.baseURI);
    const method = String((init && init.method) || 'GET').toUpperCase();
    if (method === 'GET' && url.origin === location.origin) return nativeFetch.call(this, input, init);
    return new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, (allow) => (allow ? nativeFetch.call(window, input, init).then(resolve, reject) : reject(new TypeError('blocked'))));
      port.postMessage({ id, call: { tool: 'browser.request', args: { method, url: url.href, kind: 'fetch' } } });
    });
  };
})();`;

/** ISOLATED: takes the MAIN port, relays on one runtime.connect port, reconnecting after the worker stops. */
const ECHO_ISOLATED = `(() => {
  let worker = null;
  const waiting = new Map();
  let next = 1;
  const connect = () => {
    const opened = chrome.runtime.connect({ name: 'echo' });
    opened.onMessage.addListener((data) => {
      const answer = waiting.get(data.rid);
      waiting.delete(data.rid);
      if (answer) answer(data.answer);
    });
    opened.onDisconnect.addListener(() => {
      if (worker === opened) worker = null;
    });
    return opened;
  };
  worker = connect();
  const onHandshake = (event) => {
    if (event.source !== window || !event.data || !event.data.__echo_bridge || !event.ports[0]) return;
    event.stopImmediatePropagation();
    window.removeEventListener('message', onHandshake, true);
    const page = event.ports[0];
    page.onmessage = (message) => {
      const { id, call } = message.data;
      const rid = next++;
      waiting.set(rid, (answer) => page.postMessage({ id, allow: answer && answer.decision === 'ALLOW' }));
      worker = worker || connect();
      worker.postMessage({ rid, message: { type: 'proposal', id: String(id), call, layer: 'main' } });
    };
  };
  window.addEventListener('message', onHandshake, true);
})();`;

const ECHO_WORKER = `chrome.runtime.onConnect.addListener((port) => {
  port.onMessage.addListener((data) => port.postMessage({ rid: data.rid, answer: { id: data.message.id, decision: 'ALLOW', check: 'allowed', reason: 'echo', askedUser: false } }));
});`;

/**
 * `permissions`: the echo with our manifest's declarations (none used, no rules) shows what Chromium adds to
 * every request once an extension may use declarativeNetRequest or webRequest: its request proxy.
 */
export function echoExtension(permissions: readonly string[] = []): ControlExtension {
  return writeExtension('agentsfence-bench-echo-', 'echo floor', { 'isolated.js': ECHO_ISOLATED, 'main.js': ECHO_MAIN, 'background.js': ECHO_WORKER }, permissions);
}

/**
 * The echo whose worker script also carries `script` (our background.js) inside a function it never
 * calls: what a script of that size costs a cold start before any of it runs (loading, scanning).
 */
export function echoCarrying(script: string): ControlExtension {
  return writeExtension('agentsfence-bench-echo-carrying-', 'echo floor carrying a script', { 'isolated.js': ECHO_ISOLATED, 'main.js': ECHO_MAIN, 'background.js': `${ECHO_WORKER}\nfunction carried() {\n${script}\n}\n` });
}

/**
 * The durable echo's worker: what any extension that decides durably must do at least. At its start it
 * opens its IndexedDB database and reads its task (the cold-start floor: open, read one record, answer);
 * before every answer it commits one transaction shaped like ours (src/background/task/store.ts
 * commitDecision: σ' put in `kv`, one audit entry added to `audit`), the same bytes ours writes (seeded from
 * our worker, `seedDurableEcho`). It decides nothing: every answer is ALLOW. The DNR rules a running task
 * has are installed from outside (`seedDurableEcho`), so Chromium's request matching costs it what it costs us.
 */
const DURABLE_ECHO_WORKER = `const opened = new Promise((resolve, reject) => {
  const request = indexedDB.open('durable-echo', 1);
  request.onupgradeneeded = () => {
    request.result.createObjectStore('kv');
    request.result.createObjectStore('audit', { keyPath: 'seq', autoIncrement: true });
  };
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
const ready = opened.then((db) => new Promise((resolve, reject) => {
  const tx = db.transaction('kv');
  const task = tx.objectStore('kv').get('task');
  const entry = tx.objectStore('kv').get('entry');
  tx.oncomplete = () => resolve({ db, task: task.result ?? null, entry: entry.result ?? { at: 0 } });
  tx.onerror = () => reject(tx.error);
}));
const commit = ({ db, task, entry }) => new Promise((resolve, reject) => {
  const tx = db.transaction(['kv', 'audit'], 'readwrite');
  if (task !== null) tx.objectStore('kv').put(task, 'task');
  tx.objectStore('audit').add(entry);
  tx.oncomplete = resolve;
  tx.onerror = tx.onabort = () => reject(tx.error);
});
chrome.runtime.onConnect.addListener((port) => {
  port.onMessage.addListener((data) => {
    ready.then(commit).then(() => port.postMessage({ rid: data.rid, answer: { id: data.message.id, decision: 'ALLOW', check: 'allowed', reason: 'durable echo', askedUser: false } }));
  });
});
globalThis.seed = async (task, entry) => {
  const state = await ready;
  await new Promise((resolve, reject) => {
    const tx = state.db.transaction('kv', 'readwrite');
    tx.objectStore('kv').put(task, 'task');
    tx.objectStore('kv').put(entry, 'entry');
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  Object.assign(state, { task, entry });
};`;

/** The durable echo floor: the echo's path with our manifest's `permissions`, one commit per answer, and our rules (seeded). */
export function durableEchoExtension(permissions: readonly string[]): ControlExtension {
  return writeExtension('agentsfence-bench-durable-echo-', 'durable echo floor', { 'isolated.js': ECHO_ISOLATED, 'main.js': ECHO_MAIN, 'background.js': DURABLE_ECHO_WORKER }, permissions);
}
