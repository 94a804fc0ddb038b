import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { isForbiddenUrl, isHiddenTarget, refusal, refusalError, rewrite, type TargetInfoLike } from './rules';

/**
 * The filtering CDP endpoint `agentsfence browser` hands to agents: HTTP discovery (`/json/version`,
 * `/json/list`) and WebSocket sessions in front of Chromium's own debugging port, with ./rules.ts applied
 * to every answer, command and event. A watcher connection keeps the browser's target list current, so
 * a session whose page turns into an extension page is restricted at once.
 */

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
  sessionId?: string;
}

export interface CdpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Ids the proxy itself uses upstream on a client's connection (never used by CDP clients in practice). */
const OWN_ID_BASE = 2_000_000_000;

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

function send(ws: WebSocket, message: CdpMessage): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
}

function parse(data: RawData): CdpMessage | null {
  try {
    const value: unknown = JSON.parse(data.toString());
    return typeof value === 'object' && value !== null ? (value as CdpMessage) : null;
  } catch {
    return null;
  }
}

/** The browser's targets as the watcher sees them (Target.setDiscoverTargets on its own connection). */
class TargetWatcher {
  readonly targets = new Map<string, TargetInfoLike>();
  private constructor(private readonly ws: WebSocket) {}

  static async open(browserWs: string): Promise<TargetWatcher> {
    const ws = new WebSocket(browserWs, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const watcher = new TargetWatcher(ws);
    const ready = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const m = parse(data);
        if (m === null) return;
        if (m.id === 1) resolve();
        const info = m.params?.targetInfo as TargetInfoLike | undefined;
        if ((m.method === 'Target.targetCreated' || m.method === 'Target.targetInfoChanged') && info) watcher.targets.set(info.targetId, info);
        if (m.method === 'Target.targetDestroyed') watcher.targets.delete(String(m.params?.targetId));
      });
    });
    send(ws, { id: 1, method: 'Target.setDiscoverTargets', params: { discover: true } });
    await ready;
    return watcher;
  }

  hidden(targetId: string | undefined): boolean {
    if (targetId === undefined) return false;
    const info = this.targets.get(targetId);
    return info === undefined || isHiddenTarget(info);
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * One agent connection: `root` is the target a `/devtools/page/<id>` connection is bound to (null for
 * the browser endpoint). Sessions are flattened CDP sessions (`sessionId` on each message).
 */
function bridge(client: WebSocket, upstream: WebSocket, watcher: TargetWatcher, root: string | null): void {
  const sessions = new Map<string, string>(); // sessionId → targetId, for sessions the agent may use
  const hiddenSessions = new Set<string>(); // auto-attached sessions to hidden targets (run, then detached)
  const pending = new Map<string, string>(); // `${sessionId}:${id}` → method, for answers to post-process
  const announced = new Set<string>(); // targets the agent was told about (their destruction is passed on)
  const seen = new Map<string, TargetInfoLike>(); // target infos this connection's events carried
  let ownId = OWN_ID_BASE;
  const infoOf = (targetId: string) => watcher.targets.get(targetId) ?? seen.get(targetId);
  /** Fail closed: a target nobody has described yet counts as hidden. */
  const hiddenNow = (targetId: string) => {
    const info = infoOf(targetId);
    return info === undefined || isHiddenTarget(info);
  };
  const key = (sessionId: string | undefined, id: number | undefined) => `${sessionId ?? ''}:${id ?? ''}`;
  // The extension's own world in a page (its content scripts: the form guard, the Sanitizer): never shown
  // to the agent, and no command may run in it (by id or unique id).
  const extensionContexts = new Set<string>();
  const extensionContextOf = (sessionId: string | undefined, params: Record<string, unknown> | undefined): boolean => {
    if (params === undefined) return false;
    const ids = [params.contextId, params.executionContextId].filter((v): v is number => typeof v === 'number');
    return ids.some((id) => extensionContexts.has(key(sessionId, id))) || (typeof params.uniqueContextId === 'string' && extensionContexts.has(params.uniqueContextId));
  };
  const targetOf = (sessionId: string | undefined): string | null | undefined => (sessionId === undefined ? root : sessions.get(sessionId));

  client.on('message', (data) => {
    const m = parse(data);
    if (m === null || typeof m.id !== 'number' || typeof m.method !== 'string') return;
    const target = targetOf(m.sessionId);
    let reason: string | null;
    if (m.sessionId !== undefined && target === undefined) reason = 'no such session for agents';
    else if (extensionContextOf(m.sessionId, m.params)) reason = `${m.method}: that execution context is the extension's own`;
    else
      reason = refusal(m.method, m.params, {
        onHiddenTarget: target !== null && target !== undefined && hiddenNow(target),
        target: infoOf,
      });
    if (reason !== null) {
      send(client, { id: m.id, ...(m.sessionId !== undefined ? { sessionId: m.sessionId } : {}), error: refusalError(reason) });
      return;
    }
    pending.set(key(m.sessionId, m.id), m.method);
    send(upstream, { ...m, params: rewrite(m.method, m.params) });
  });

  const dropHidden = (m: CdpMessage): void => {
    const sessionId = String(m.params?.sessionId);
    hiddenSessions.add(sessionId);
    const parent = m.sessionId !== undefined ? { sessionId: m.sessionId } : {};
    if (m.params?.waitingForDebugger === true) send(upstream, { id: ownId++, method: 'Runtime.runIfWaitingForDebugger', sessionId });
    send(upstream, { id: ownId++, method: 'Target.detachFromTarget', params: { sessionId }, ...parent });
  };

  upstream.on('message', (data) => {
    const m = parse(data);
    if (m === null) return;
    if (m.sessionId !== undefined && hiddenSessions.has(m.sessionId)) return;
    if (typeof m.id === 'number') {
      if (m.id >= OWN_ID_BASE) return;
      const method = pending.get(key(m.sessionId, m.id));
      pending.delete(key(m.sessionId, m.id));
      if (method === 'Target.getTargets' && Array.isArray(m.result?.targetInfos)) {
        const visible = (m.result.targetInfos as TargetInfoLike[]).filter((t) => !isHiddenTarget(t));
        for (const t of visible) announced.add(t.targetId);
        m.result = { ...m.result, targetInfos: visible };
      }
      send(client, m);
      return;
    }
    const info = m.params?.targetInfo as TargetInfoLike | undefined;
    if (info !== undefined) seen.set(info.targetId, info);
    switch (m.method) {
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged':
        if (info === undefined || isHiddenTarget(info)) return;
        announced.add(info.targetId);
        break;
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed':
        if (!announced.delete(String(m.params?.targetId))) return;
        break;
      case 'Target.attachedToTarget':
        if (info === undefined || isHiddenTarget(info)) {
          dropHidden(m);
          return;
        }
        sessions.set(String(m.params?.sessionId), info.targetId);
        break;
      case 'Target.detachedFromTarget': {
        const sessionId = String(m.params?.sessionId);
        if (hiddenSessions.delete(sessionId)) return;
        sessions.delete(sessionId);
        break;
      }
      case 'Target.receivedMessageFromTarget':
        return;
      case 'Runtime.executionContextCreated': {
        const context = m.params?.context as { id?: number; origin?: string; uniqueId?: string } | undefined;
        if (context === undefined || !isForbiddenUrl(context.origin ?? '')) break;
        extensionContexts.add(key(m.sessionId, context.id));
        if (context.uniqueId !== undefined) extensionContexts.add(context.uniqueId);
        return;
      }
      case 'Runtime.executionContextDestroyed':
        if (extensionContexts.has(key(m.sessionId, m.params?.executionContextId as number | undefined))) return;
        break;
    }
    send(client, m);
  });

  const closeBoth = () => {
    client.close();
    upstream.close();
  };
  client.on('close', closeBoth);
  upstream.on('close', closeBoth);
  client.on('error', closeBoth);
  upstream.on('error', closeBoth);
}

export async function startCdpProxy(options: { upstream: string; port?: number; host?: string }): Promise<CdpProxy> {
  const upstream = options.upstream.replace(/\/$/, '');
  const version = await getJson<Record<string, string>>(`${upstream}/json/version`);
  const watcher = await TargetWatcher.open(version.webSocketDebuggerUrl!);
  const host = options.host ?? '127.0.0.1';
  let base = '';

  const wsUrl = (path: string) => `ws://${base}${path}`;
  const listTargets = async () => {
    const list = await getJson<Array<Record<string, string>>>(`${upstream}/json/list`);
    return list
      .filter((t) => !isHiddenTarget({ type: t.type ?? '', url: t.url ?? '' }))
      .map(({ devtoolsFrontendUrl: _frontend, devtoolsFrontendUrlCompat: _compat, ...t }) => ({ ...t, webSocketDebuggerUrl: wsUrl(`/devtools/page/${t.id}`) }));
  };

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body, null, 2));
  };

  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const path = url.pathname.replace(/\/$/, '');
    void (async () => {
      if (path === '/json/version') {
        answer(res, 200, { ...version, webSocketDebuggerUrl: wsUrl(new URL(version.webSocketDebuggerUrl!).pathname) });
      } else if (path === '/json' || path === '/json/list') {
        answer(res, 200, await listTargets());
      } else if (path === '/json/protocol') {
        answer(res, 200, await getJson(`${upstream}/json/protocol`));
      } else if (path === '/json/new') {
        const target = decodeURIComponent(url.search.slice(1)) || 'about:blank';
        if (isForbiddenUrl(target)) return answer(res, 403, { error: refusalError(`agents may not open ${target}`).message });
        const created = await fetch(`${upstream}/json/new?${encodeURIComponent(target)}`, { method: 'PUT' }).then((r) => r.json() as Promise<Record<string, string>>);
        answer(res, 200, { ...created, webSocketDebuggerUrl: wsUrl(`/devtools/page/${created.id}`) });
      } else if (path.startsWith('/json/activate/') || path.startsWith('/json/close/')) {
        const id = path.split('/').pop() ?? '';
        if (watcher.hidden(id)) return answer(res, 404, { error: 'No such target id' });
        const r = await fetch(`${upstream}${path}/`, { method: 'GET' });
        res.writeHead(r.status).end(await r.text());
      } else {
        answer(res, 404, { error: `unknown path ${path}` });
      }
    })().catch((err: unknown) => answer(res, 502, { error: String(err) }));
  });

  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  http.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const page = /^\/devtools\/page\/([^/]+)$/.exec(path);
    const isBrowser = /^\/devtools\/browser\/[^/]+$/.test(path);
    if ((!page && !isBrowser) || (page && watcher.hidden(page[1]))) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    const up = new WebSocket(`${upstream.replace(/^http/, 'ws')}${path}`, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    up.once('error', () => socket.destroy());
    up.once('open', () => {
      sockets.handleUpgrade(req, socket, head, (client) => bridge(client, up, watcher, page ? page[1]! : null));
    });
  });

  await new Promise<void>((resolve) => http.listen(options.port ?? 0, host, resolve));
  const port = (http.address() as AddressInfo).port;
  base = `${host}:${port}`;
  return {
    url: `http://${base}`,
    port,
    async close() {
      watcher.close();
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
