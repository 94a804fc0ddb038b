import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startCdpProxy, type CdpProxy } from '../../src/cdp-proxy/proxy';

/**
 * The proxy against a fake Chromium on 127.0.0.1: discovery, commands and events pass through the rules
 * (the e2e suite does the same against real Chromium). The fake records what reached "the browser".
 */

const EXT = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const TARGETS = [
  { targetId: 'P1', type: 'page', url: 'http://news.test/', title: 'news', attached: false },
  { targetId: 'SW', type: 'service_worker', url: `${EXT}/background.js`, title: '', attached: false },
  { targetId: 'POP', type: 'page', url: `${EXT}/popup.html`, title: 'AgentsFence', attached: false },
];

interface Fake {
  url: string;
  received: Array<{ id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string }>;
  emit(message: unknown): void;
  close(): Promise<void>;
}

async function fakeChromium(): Promise<Fake> {
  const received: Fake['received'] = [];
  const sockets = new Set<WebSocket>();
  let base = '';
  const http: Server = createServer((req, res) => {
    const list = TARGETS.map((t) => ({ id: t.targetId, type: t.type, url: t.url, title: t.title, webSocketDebuggerUrl: `ws://${base}/devtools/page/${t.targetId}`, devtoolsFrontendUrl: '/devtools/inspector.html' }));
    const body = req.url?.startsWith('/json/version') ? { Browser: 'Fake/1', webSocketDebuggerUrl: `ws://${base}/devtools/browser/B` } : list;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as Fake['received'][number];
      received.push(m);
      const reply = (result: unknown) => ws.send(JSON.stringify({ id: m.id, ...(m.sessionId ? { sessionId: m.sessionId } : {}), result }));
      if (m.method === 'Target.setDiscoverTargets') {
        for (const t of TARGETS) ws.send(JSON.stringify({ method: 'Target.targetCreated', params: { targetInfo: t } }));
        reply({});
      } else if (m.method === 'Target.getTargets') reply({ targetInfos: TARGETS });
      else reply({ ok: m.method });
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `http://${base}`,
    received,
    emit: (message) => {
      for (const ws of sockets) ws.send(JSON.stringify(message));
    },
    close: async () => {
      for (const ws of sockets) ws.terminate();
      await new Promise((r) => http.close(r));
    },
  };
}

let fake: Fake | null = null;
let proxy: CdpProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await fake?.close();
});

async function agentSocket(): Promise<{ ws: WebSocket; call: (method: string, params?: unknown, sessionId?: string) => Promise<Record<string, unknown>>; events: Array<Record<string, unknown>> }> {
  const version = (await (await fetch(`${proxy!.url}/json/version`)).json()) as { webSocketDebuggerUrl: string };
  expect(version.webSocketDebuggerUrl.startsWith(`ws://${proxy!.url.slice('http://'.length)}/`)).toBe(true);
  const ws = new WebSocket(version.webSocketDebuggerUrl);
  await new Promise((r) => ws.once('open', r));
  const events: Array<Record<string, unknown>> = [];
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as Record<string, unknown>;
    if (typeof m.id === 'number') waiting.get(m.id)?.(m);
    else events.push(m);
  });
  let id = 0;
  const call = (method: string, params: unknown = {}, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      waiting.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  return { ws, call, events };
}

const settle = () => new Promise((r) => setTimeout(r, 150));

describe('the filtering CDP proxy (against a fake Chromium)', () => {
  it('lists only the agent’s pages over HTTP and Target.getTargets, with its own WebSocket URLs', async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const list = (await (await fetch(`${proxy.url}/json/list`)).json()) as Array<{ id: string; webSocketDebuggerUrl: string; devtoolsFrontendUrl?: string }>;
    expect(list.map((t) => t.id)).toEqual(['P1']);
    expect(list[0]!.webSocketDebuggerUrl).toBe(`ws://${proxy.url.slice(7)}/devtools/page/P1`);
    expect(list[0]!.devtoolsFrontendUrl).toBeUndefined();
    const agent = await agentSocket();
    const targets = (await agent.call('Target.getTargets')).result as { targetInfos: Array<{ targetId: string }> };
    expect(targets.targetInfos.map((t) => t.targetId)).toEqual(['P1']);
    agent.ws.close();
  });

  it('refuses with a CDP error and never forwards: attach to the worker, Extensions.*, a new context', async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const agent = await agentSocket();
    for (const [method, params] of [['Target.attachToTarget', { targetId: 'SW', flatten: true }], ['Extensions.loadUnpacked', { path: '/x' }], ['Target.createBrowserContext', {}]] as const) {
      const answer = await agent.call(method, params);
      expect((answer.error as { message: string }).message, method).toMatch(/^refused by AgentsFence: /);
    }
    expect(fake.received.filter((m) => m.method !== 'Target.setDiscoverTargets')).toEqual([]);
    expect((await agent.call('Target.attachToTarget', { targetId: 'P1', flatten: true })).result).toEqual({ ok: 'Target.attachToTarget' });
    agent.ws.close();
  });

  it('hides events about extension targets; an auto-attached extension target is resumed and detached upstream, never shown', async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const agent = await agentSocket();
    await agent.call('Target.setDiscoverTargets', { discover: true });
    await settle();
    expect(agent.events.filter((e) => e.method === 'Target.targetCreated').map((e) => (e.params as { targetInfo: { targetId: string } }).targetInfo.targetId)).toEqual(['P1']);
    fake.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S-SW', targetInfo: TARGETS[1], waitingForDebugger: true } });
    fake.emit({ method: 'Runtime.consoleAPICalled', sessionId: 'S-SW', params: { type: 'log' } });
    await settle();
    expect(agent.events.some((e) => JSON.stringify(e).includes('S-SW'))).toBe(false);
    expect(fake.received.filter((m) => m.sessionId === 'S-SW' || (m.params as { sessionId?: string } | undefined)?.sessionId === 'S-SW').map((m) => m.method)).toEqual([
      'Runtime.runIfWaitingForDebugger',
      'Target.detachFromTarget',
    ]);
    // The session it never saw cannot be used either.
    expect(((await agent.call('Runtime.evaluate', { expression: '1' }, 'S-SW')).error as { message: string }).message).toMatch(/no such session/);
    agent.ws.close();
  });

  it('restricts a session whose page turns into an extension page, and lifts it when it leaves', async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const agent = await agentSocket();
    fake.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: TARGETS[0], waitingForDebugger: false } });
    await settle();
    expect((await agent.call('Runtime.evaluate', { expression: '1' }, 'S1')).result).toEqual({ ok: 'Runtime.evaluate' });
    fake.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: `${EXT}/blocked.html?check=x&url=http://evil.test/` } } });
    await settle();
    expect(((await agent.call('Runtime.evaluate', { expression: '1' }, 'S1')).error as { message: string }).message).toMatch(/navigate away first/);
    expect((await agent.call('Page.navigate', { url: 'http://news.test/' }, 'S1')).result).toEqual({ ok: 'Page.navigate' });
    fake.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: TARGETS[0] } });
    await settle();
    expect((await agent.call('Runtime.evaluate', { expression: '1' }, 'S1')).result).toEqual({ ok: 'Runtime.evaluate' });
    agent.ws.close();
  });

  it("hides the extension's own world in a page and refuses any command aimed at it", async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const agent = await agentSocket();
    fake.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: TARGETS[0], waitingForDebugger: false } });
    fake.emit({ method: 'Runtime.executionContextCreated', sessionId: 'S1', params: { context: { id: 1, origin: 'http://news.test', name: '', uniqueId: 'u-main', auxData: { isDefault: true } } } });
    fake.emit({ method: 'Runtime.executionContextCreated', sessionId: 'S1', params: { context: { id: 2, origin: `${EXT}`, name: 'AgentsFence', uniqueId: 'u-ext', auxData: { isDefault: false, type: 'isolated' } } } });
    await settle();
    expect(agent.events.filter((e) => e.method === 'Runtime.executionContextCreated').map((e) => (e.params as { context: { id: number } }).context.id)).toEqual([1]);
    for (const [method, params] of [
      ['Runtime.evaluate', { expression: 'chrome.runtime.id', contextId: 2 }],
      ['Runtime.evaluate', { expression: '1', uniqueContextId: 'u-ext' }],
      ['Runtime.callFunctionOn', { functionDeclaration: '() => 1', executionContextId: 2 }],
      ['DOM.resolveNode', { nodeId: 1, executionContextId: 2 }],
    ] as const) {
      expect(((await agent.call(method, params, 'S1')).error as { message: string }).message, method).toMatch(/the extension's own/);
    }
    expect((await agent.call('Runtime.evaluate', { expression: '1', contextId: 1 }, 'S1')).result).toEqual({ ok: 'Runtime.evaluate' });
    expect(fake.received.filter((m) => m.params?.contextId === 2 || m.params?.executionContextId === 2 || m.params?.uniqueContextId === 'u-ext')).toEqual([]);
    agent.ws.close();
  });

  it('refuses a WebSocket straight to an extension target', async () => {
    fake = await fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.url });
    const ws = new WebSocket(`ws://${proxy.url.slice(7)}/devtools/page/SW`);
    const outcome = await new Promise((r) => {
      ws.once('open', () => r('open'));
      ws.once('error', (e) => r(e.message));
    });
    expect(outcome).toMatch(/404/);
  });
});
