import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { isBlockedPage } from '../background/floor/guards';
import { isReadableBlockedPage, showReadableBlockedPage } from './blocked';
import { isForbiddenUrl, isHiddenTarget, refusal, refusalError, rewrite, type TargetInfoLike } from './rules';
import type { CdpMessage, CdpRouter, Channel } from './upstream';

/**
 * The filtering CDP endpoint `agentsfence browser` hands to agents: HTTP discovery (`/json/version`,
 * `/json/list`, `/json/new`, …) and WebSocket sessions, with ./rules.ts applied to every answer, command and
 * event. Upstream is the browser's DevTools pipe (./upstream.ts), not a debugging port: the proxy answers
 * discovery itself from the target list it keeps (Target.setDiscoverTargets on its own root session), and
 * every agent connection gets a browser (or page) session of its own on the pipe. The same target list
 * lets a session whose page turns into an extension page be restricted at once.
 */

export interface CdpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Chromium's error for a request an extension refused (the floor's rules). */
const BLOCKED_BY_CLIENT = 'net::ERR_BLOCKED_BY_CLIENT';

/** Ids the proxy itself uses upstream on a client's connection (never used by CDP clients in practice). */
const OWN_ID_BASE = 2_000_000_000;

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

interface TargetInfo extends TargetInfoLike {
  title?: string;
  attached?: boolean;
  browserContextId?: string;
}

/** The browser's targets as the proxy's own root session sees them (Target.setDiscoverTargets). */
class TargetWatcher {
  readonly targets = new Map<string, TargetInfo>();
  private readonly created = new Map<string, Array<() => void>>();

  static async open(router: CdpRouter): Promise<TargetWatcher> {
    const watcher = new TargetWatcher();
    router.onEvent((m) => {
      if (m.sessionId !== undefined) return;
      const info = m.params?.targetInfo as TargetInfo | undefined;
      if ((m.method === 'Target.targetCreated' || m.method === 'Target.targetInfoChanged') && info) {
        watcher.targets.set(info.targetId, info);
        for (const wake of watcher.created.get(info.targetId) ?? []) wake();
        watcher.created.delete(info.targetId);
      }
      if (m.method === 'Target.targetDestroyed') {
        watcher.targets.delete(String(m.params?.targetId));
        destroyed.add(String(m.params?.targetId));
      }
    });
    const destroyed = new Set<string>();
    await router.call('Target.setDiscoverTargets', { discover: true });
    // Discovery may already be on for the root session (the CLI's own use): its events were sent then.
    const { targetInfos } = await router.call('Target.getTargets');
    for (const info of (targetInfos ?? []) as TargetInfo[]) {
      if (!watcher.targets.has(info.targetId) && !destroyed.has(info.targetId)) watcher.targets.set(info.targetId, info);
    }
    return watcher;
  }

  /** The target's info once the watcher has it (Target.createTarget answers before its event arrives). */
  async info(targetId: string): Promise<TargetInfo | undefined> {
    if (!this.targets.has(targetId)) {
      await new Promise<void>((resolve) => {
        this.created.set(targetId, [...(this.created.get(targetId) ?? []), resolve]);
        setTimeout(resolve, 2_000);
      });
    }
    return this.targets.get(targetId);
  }

  hidden(targetId: string | undefined): boolean {
    if (targetId === undefined) return false;
    const info = this.targets.get(targetId);
    return info === undefined || isHiddenTarget(info);
  }
}

/**
 * One agent connection: `root` is the target a `/devtools/page/<id>` connection is bound to (null for
 * the browser endpoint). Sessions are flattened CDP sessions (`sessionId` on each message).
 */
function bridge(client: WebSocket, upstream: Channel, watcher: TargetWatcher, root: string | null, copies: ReadableCopies | null): void {
  const sessions = new Map<string, string>(); // sessionId → targetId, for sessions the agent may use
  const hiddenSessions = new Set<string>(); // auto-attached sessions to hidden targets (run, then detached)
  const pending = new Map<string, string>(); // `${sessionId}:${id}` → method, for answers to post-process
  const navigations = new Map<string, { targetId: string; url: string }>(); // the same keys: a tab's own navigations
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
  // to the agent, and no command may run in it (by id or unique id). A numeric id is unique only among a
  // process's live contexts: each renderer process numbers its own from 1, and a tab changes process when it
  // goes to another site. So a new context under an id the extension's world had means that world is gone,
  // and the id is the page's now (kept, it refused the page's own world: in a Playwright MCP run, its utility
  // world, and every later action in that tab hung). Unique ids never repeat: they stay refused.
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
    const frameId = m.params?.frameId;
    // A tab's own navigation (its main frame's id is the target's): where the extension shows its blocked page.
    if (m.method === 'Page.navigate' && typeof target === 'string' && infoOf(target)?.type === 'page' && (frameId === undefined || frameId === target) && typeof m.params?.url === 'string') {
      navigations.set(key(m.sessionId, m.id), { targetId: target, url: m.params.url });
    }
    upstream.send({ ...m, params: rewrite(m.method, m.params) });
  });

  const dropHidden = (m: CdpMessage): void => {
    const sessionId = String(m.params?.sessionId);
    hiddenSessions.add(sessionId);
    const parent = m.sessionId !== undefined ? { sessionId: m.sessionId } : {};
    if (m.params?.waitingForDebugger === true) upstream.send({ id: ownId++, method: 'Runtime.runIfWaitingForDebugger', sessionId });
    upstream.send({ id: ownId++, method: 'Target.detachFromTarget', params: { sessionId }, ...parent });
  };

  upstream.onMessage((m) => {
    if (m.sessionId !== undefined && hiddenSessions.has(m.sessionId)) return;
    if (typeof m.id === 'number') {
      if (m.id >= OWN_ID_BASE) return;
      const method = pending.get(key(m.sessionId, m.id));
      const navigation = navigations.get(key(m.sessionId, m.id));
      pending.delete(key(m.sessionId, m.id));
      navigations.delete(key(m.sessionId, m.id));
      if (method === 'Target.getTargets' && Array.isArray(m.result?.targetInfos)) {
        const visible = (m.result.targetInfos as TargetInfoLike[]).filter((t) => !isHiddenTarget(t));
        for (const t of visible) announced.add(t.targetId);
        m.result = { ...m.result, targetInfos: visible };
      }
      // A tab's navigation the floor refused is answered once the tab shows why (its readable copy), so the
      // agent's next read finds the reason at once instead of a page in between (Playwright's snapshot
      // then waited a second to try again).
      if (navigation !== undefined && copies !== null && m.result?.errorText === BLOCKED_BY_CLIENT) {
        void copies.shown(navigation.targetId, navigation.url).then(() => send(client, m));
        return;
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
        if (context === undefined) break;
        const contextKey = key(m.sessionId, context.id);
        if (!isForbiddenUrl(context.origin ?? '')) {
          extensionContexts.delete(contextKey);
          break;
        }
        extensionContexts.add(contextKey);
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
  client.on('error', closeBoth);
  upstream.onClose(() => client.close());
}

/** Chromium's /json/list entry for a target, with the proxy's own WebSocket URL. */
function describe(t: TargetInfo, wsUrl: (path: string) => string): Record<string, string> {
  return { description: '', id: t.targetId, title: t.title ?? '', type: t.type, url: t.url, webSocketDebuggerUrl: wsUrl(`/devtools/page/${t.targetId}`) };
}

/** Target types /json/list shows (as Chromium's own list: no tabs, no browser, no dedicated workers). */
const LISTED_TYPES = new Set(['page', 'iframe', 'service_worker', 'shared_worker', 'webview']);

/** How long a refused navigation's answer waits for its tab to show why (then it is answered anyway). */
const SHOWN_WITHIN_MS = 2_000;

/** The tabs on their way to a readable copy of the blocked page, for answers that wait on them. */
interface ReadableCopies {
  /**
   * Resolves once the tab `targetId`, whose navigation to `url` the browser just refused, shows its
   * readable copy, goes to another page, or after SHOWN_WITHIN_MS.
   */
  shown(targetId: string, url: string): Promise<void>;
}

/**
 * Tabs that land on the extension's blocked page go on to its readable copy (./blocked.ts), one move per
 * tab at a time, and only while the tab still shows that page (the agent may have navigated on).
 */
function showBlockedPagesReadably(router: CdpRouter, watcher: TargetWatcher, extensionId: string): ReadableCopies {
  const origin = `chrome-extension://${extensionId}`;
  const moving = new Set<string>();
  const waiting = new Map<string, Array<{ url: string; wake: () => void }>>();
  /** Wakes the tab's waiters, but those `stay` says are still on their way. */
  const wake = (targetId: string, stay: (url: string) => boolean = () => false) => {
    const waiters = waiting.get(targetId) ?? [];
    for (const w of waiters) if (!stay(w.url)) w.wake();
    const left = waiters.filter((w) => stay(w.url));
    if (left.length > 0) waiting.set(targetId, left);
    else waiting.delete(targetId);
  };
  router.onEvent((m) => {
    if (m.sessionId !== undefined) return;
    if (m.method === 'Target.targetDestroyed') return wake(String(m.params?.targetId));
    const info = m.params?.targetInfo as TargetInfo | undefined;
    if (info === undefined || info.type !== 'page') return;
    if (m.method !== 'Target.targetCreated' && m.method !== 'Target.targetInfoChanged') return;
    // Still on the way (the browser's error page keeps the refused URL, then the blocked page, then its copy) or gone elsewhere.
    wake(info.targetId, (url) => info.url === url || isBlockedPage(info.url, origin) || isReadableBlockedPage(info.url));
    if (moving.has(info.targetId) || !isBlockedPage(info.url, origin)) return;
    moving.add(info.targetId);
    const stillThere = () => watcher.targets.get(info.targetId)?.url === info.url;
    void showReadableBlockedPage(router, info.targetId, info.url, origin, stillThere)
      .catch(() => undefined)
      .finally(() => {
        moving.delete(info.targetId);
        wake(info.targetId);
      });
  });
  return {
    shown: (targetId, url) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SHOWN_WITHIN_MS);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiting.set(targetId, [...(waiting.get(targetId) ?? []), { url, wake: done }]);
      }),
  };
}

export async function startCdpProxy(options: {
  upstream: CdpRouter;
  port?: number;
  host?: string;
  /** The AgentsFence extension in this browser: its blocked page is shown to agents as a readable copy. */
  extensionId?: string;
}): Promise<CdpProxy> {
  const router = options.upstream;
  const watcher = await TargetWatcher.open(router);
  const copies = options.extensionId === undefined ? null : showBlockedPagesReadably(router, watcher, options.extensionId);
  const product = await router.call('Browser.getVersion');
  const host = options.host ?? '127.0.0.1';
  const browserPath = `/devtools/browser/${randomUUID()}`;
  let base = '';

  const wsUrl = (path: string) => `ws://${base}${path}`;
  const listTargets = () => [...watcher.targets.values()].filter((t) => LISTED_TYPES.has(t.type) && !isHiddenTarget(t)).reverse().map((t) => describe(t, wsUrl));

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body, null, 2));
  };
  const text = (res: ServerResponse, status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=UTF-8' }).end(body);

  const http: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const path = url.pathname.replace(/\/$/, '');
    void (async () => {
      if (path === '/json/version') {
        // Chromium's own answer, from Browser.getVersion.
        answer(res, 200, {
          Browser: product.product,
          'Protocol-Version': product.protocolVersion,
          'User-Agent': product.userAgent,
          'V8-Version': product.jsVersion,
          'WebKit-Version': `537.36 (${String(product.revision)})`,
          webSocketDebuggerUrl: wsUrl(browserPath),
        });
      } else if (path === '/json' || path === '/json/list') {
        answer(res, 200, listTargets());
      } else if (path === '/json/new') {
        const target = decodeURIComponent(url.search.slice(1)) || 'about:blank';
        if (isForbiddenUrl(target)) return answer(res, 403, { error: refusalError(`agents may not open ${target}`).message });
        const { targetId } = await router.call('Target.createTarget', { url: target });
        const info = await watcher.info(String(targetId));
        if (info === undefined || isHiddenTarget(info)) return answer(res, 404, { error: 'No such target id' });
        answer(res, 200, describe(info, wsUrl));
      } else if (path.startsWith('/json/activate/') || path.startsWith('/json/close/')) {
        const id = path.split('/').pop() ?? '';
        if (watcher.hidden(id)) return text(res, 404, `No such target id: ${id}`);
        const activate = path.startsWith('/json/activate/');
        await router.call(activate ? 'Target.activateTarget' : 'Target.closeTarget', { targetId: id });
        text(res, 200, activate ? 'Target activated' : 'Target is closing');
      } else {
        // /json/protocol among them: the pipe has no copy of the browser's protocol description.
        answer(res, 404, { error: `unknown path ${path}` });
      }
    })().catch((err: unknown) => answer(res, 502, { error: String(err) }));
  });

  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  http.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const page = /^\/devtools\/page\/([^/]+)$/.exec(path);
    // Any /devtools/browser/<id> path, as before (clients sometimes rebuild it from the version answer).
    const isBrowser = /^\/devtools\/browser\/[^/]+$/.test(path);
    if ((!page && !isBrowser) || (page && watcher.hidden(page[1]))) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    socket.on('error', () => socket.destroy());
    router.openChannel(page ? page[1]! : null).then(
      (channel) => {
        if (socket.destroyed) return channel.close();
        sockets.handleUpgrade(req, socket, head, (client) => bridge(client, channel, watcher, page ? page[1]! : null, copies));
      },
      () => socket.end('HTTP/1.1 404 Not Found\r\n\r\n'),
    );
  });

  await new Promise<void>((resolve) => http.listen(options.port ?? 0, host, resolve));
  const port = (http.address() as AddressInfo).port;
  base = `${host}:${port}`;
  return {
    url: `http://${base}`,
    port,
    async close() {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
