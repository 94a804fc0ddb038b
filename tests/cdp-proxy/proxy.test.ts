import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startCdpProxy, type CdpProxy } from '../../src/cdp-proxy/proxy';
import { CdpRouter, pipeTransport, type CdpTransport } from '../../src/cdp-proxy/upstream';

/**
 * The proxy against a fake Chromium at the other end of its DevTools pipe: discovery, commands and events pass through the rules
 * (the e2e suite does the same against real Chromium). The fake records what reached "the browser".
 */

const EXT = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const TARGETS = [
  { targetId: 'P1', type: 'page', url: 'http://news.test/', title: 'news', attached: false },
  { targetId: 'SW', type: 'service_worker', url: `${EXT}/background.js`, title: '', attached: false },
  { targetId: 'POP', type: 'page', url: `${EXT}/popup.html`, title: 'AgentsFence', attached: false },
];

interface Fake {
  router: CdpRouter;
  /** What the agents' connections sent "the browser" (their own browser sessions shown as no session). */
  received: Array<{ id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string }>;
  /** Sends an event to the proxy's root session and to every agent connection (as if on its own socket). */
  emit(message: { sessionId?: string } & Record<string, unknown>): void;
  close(): Promise<void>;
}

/** A fake Chromium at the other end of the DevTools pipe: one root session, browser sessions per agent. */
function fakeChromium(): Fake {
  const received: Fake['received'] = [];
  const browserSessions = new Set<string>();
  let handler: (message: string) => void = () => undefined;
  let onClose: () => void = () => undefined;
  const deliver = (m: unknown) => setImmediate(() => handler(JSON.stringify(m)));
  const transport: CdpTransport = {
    send(text) {
      const m = JSON.parse(text) as Fake['received'][number];
      const onBrowserSession = m.sessionId !== undefined && browserSessions.has(m.sessionId);
      if (m.sessionId !== undefined) received.push(onBrowserSession ? (({ sessionId: _s, ...rest }) => rest)(m) : m);
      const reply = (result: unknown) => deliver({ id: m.id, ...(m.sessionId ? { sessionId: m.sessionId } : {}), result });
      if (m.method === 'Target.attachToBrowserTarget') {
        const sessionId = `B${browserSessions.size + 1}`;
        browserSessions.add(sessionId);
        reply({ sessionId });
      } else if (m.method === 'Target.setDiscoverTargets') {
        for (const t of TARGETS) deliver({ method: 'Target.targetCreated', params: { targetInfo: t }, ...(m.sessionId ? { sessionId: m.sessionId } : {}) });
        reply({});
      } else if (m.method === 'Target.getTargets') reply({ targetInfos: TARGETS });
      // The proxy's own root session attaching to a page (the readable blocked page): a session of its own.
      else if (m.method === 'Target.attachToTarget' && m.sessionId === undefined) reply({ sessionId: `R-${String(m.params?.targetId)}` });
      // The proxy's own navigation to the readable copy (parsed at once), and an agent's navigation the floor refuses.
      else if (m.method === 'Page.navigate' && m.sessionId?.startsWith('R-') === true) {
        reply({ frameId: 'P1', loaderId: `L-${received.length}` });
        deliver({ method: 'Page.lifecycleEvent', sessionId: m.sessionId, params: { frameId: 'P1', loaderId: `L-${received.length}`, name: 'DOMContentLoaded' } });
      } else if (m.method === 'Page.navigate' && String(m.params?.url).startsWith('http://evil.test/')) reply({ frameId: 'P1', loaderId: 'L-refused', errorText: 'net::ERR_BLOCKED_BY_CLIENT' });
      else if (m.method === 'Page.getNavigationHistory') reply({ currentIndex: 1, entries: [{ id: 1, url: 'http://news.test/' }, { id: 2, url: 'chrome-error://chromewebdata/' }] });
      else if (m.method === 'Browser.getVersion') reply({ product: 'Fake/1', protocolVersion: '1.3', revision: '@0', userAgent: 'Fake', jsVersion: '1' });
      else reply({ ok: m.method });
    },
    onMessage: (h) => void (handler = h),
    onClose: (h) => void (onClose = h),
    close: () => onClose(),
  };
  const router = new CdpRouter(transport);
  return {
    router,
    received,
    emit: (message) => {
      if (message.sessionId !== undefined) return deliver(message);
      deliver(message);
      for (const sessionId of browserSessions) deliver({ ...message, sessionId });
    },
    close: async () => router.close(),
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
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
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
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
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
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
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
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
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
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
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

  it("forgets the extension world's id once the page's own world has it (a tab's new renderer process numbers from 1 again)", async () => {
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
    const agent = await agentSocket();
    const created = (id: number, origin: string, uniqueId: string, name = '') =>
      fake!.emit({ method: 'Runtime.executionContextCreated', sessionId: 'S1', params: { context: { id, origin, name, uniqueId, auxData: { isDefault: name === '' } } } });
    fake.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: TARGETS[0], waitingForDebugger: false } });
    // news.test's process: the page's worlds 1 and 2, the extension's world 3.
    created(1, 'http://news.test', 'a-main');
    created(2, 'http://news.test', 'a-utility', '__playwright_utility_world__');
    created(3, EXT, 'a-ext', 'AgentsFence');
    await settle();
    const evaluateIn = async (contextId: number) => (await agent.call('Runtime.evaluate', { expression: '1', contextId }, 'S1')).error as { message: string } | undefined;
    // Control: while the extension's world lives, its id is refused.
    expect((await evaluateIn(3))?.message).toMatch(/the extension's own/);
    // The tab goes to mail.test in a new process: the page's utility world is 3 there, the extension's world is 4.
    fake.emit({ method: 'Runtime.executionContextsCleared', sessionId: 'S1', params: {} });
    created(1, 'http://mail.test', 'b-main');
    created(3, 'http://mail.test', 'b-utility', '__playwright_utility_world__');
    created(4, EXT, 'b-ext', 'AgentsFence');
    await settle();
    expect(await evaluateIn(3)).toBeUndefined();
    expect(fake.received.filter((m) => m.method === 'Runtime.evaluate' && m.params?.contextId === 3)).toHaveLength(1);
    // The page's own world is shown to the agent; the extension's worlds, old and new, stay refused.
    expect(agent.events.filter((e) => e.method === 'Runtime.executionContextCreated').map((e) => (e.params as { context: { uniqueId: string } }).context.uniqueId)).toEqual(['a-main', 'a-utility', 'b-main', 'b-utility']);
    expect((await evaluateIn(4))?.message).toMatch(/the extension's own/);
    for (const uniqueContextId of ['a-ext', 'b-ext']) {
      expect(((await agent.call('Runtime.evaluate', { expression: '1', uniqueContextId }, 'S1')).error as { message: string }).message).toMatch(/the extension's own/);
    }
    agent.ws.close();
  });

  it('refuses a WebSocket straight to an extension target', async () => {
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
    const ws = new WebSocket(`ws://${proxy.url.slice(7)}/devtools/page/SW`);
    const outcome = await new Promise((r) => {
      ws.once('open', () => r('open'));
      ws.once('error', (e) => r(e.message));
    });
    expect(outcome).toMatch(/404/);
  });

  it('gives each agent connection its own browser session on the pipe: answers and events reach their own connection only', async () => {
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
    const a = await agentSocket();
    const b = await agentSocket();
    // Both use id 1; each gets its own answer.
    const [ra, rb] = await Promise.all([a.call('Page.enable'), b.call('Runtime.enable')]);
    expect(ra.result).toEqual({ ok: 'Page.enable' });
    expect(rb.result).toEqual({ ok: 'Runtime.enable' });
    expect(ra.sessionId).toBeUndefined();
    fake.emit({ method: 'Target.attachedToTarget', sessionId: 'B1', params: { sessionId: 'S1', targetInfo: TARGETS[0], waitingForDebugger: false } });
    fake.emit({ method: 'Runtime.consoleAPICalled', sessionId: 'S1', params: { type: 'log' } });
    await settle();
    expect(a.events.map((e) => e.method)).toEqual(['Target.attachedToTarget', 'Runtime.consoleAPICalled']);
    expect(b.events).toEqual([]);
    // b cannot use a's session.
    expect(((await b.call('Runtime.evaluate', { expression: '1' }, 'S1')).error as { message: string }).message).toMatch(/no such session/);
    expect(fake.received.filter((m) => m.sessionId === 'S1')).toEqual([]);
    a.ws.close();
    b.ws.close();
  });

  it('answers discovery itself: /json/version with its own browser URL, /json/new through Target.createTarget, no /json/protocol', async () => {
    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
    const version = (await (await fetch(`${proxy.url}/json/version`)).json()) as Record<string, string>;
    expect(version.Browser).toBe('Fake/1');
    expect(version.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://${proxy.url.slice(7)}/devtools/browser/[0-9a-f-]{36}$`));
    expect((await fetch(`${proxy.url}/json/new?chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html`, { method: 'PUT' })).status).toBe(403);
    expect((await fetch(`${proxy.url}/json/protocol`)).status).toBe(404);
  });
});

describe('the DevTools pipe transport', () => {
  it('frames NUL-terminated JSON both ways, across and within chunks', async () => {
    const toBrowser = new PassThrough();
    const fromBrowser = new PassThrough();
    const transport = pipeTransport(toBrowser, fromBrowser);
    const got: string[] = [];
    transport.onMessage((m) => got.push(m));
    fromBrowser.write('{"id":1,"result":{}}\0{"method":"A.b","par');
    fromBrowser.write('ams":{"x":"é"}}\0{"id":2');
    fromBrowser.write(',"result":{}}\0');
    await settle();
    expect(got).toEqual(['{"id":1,"result":{}}', '{"method":"A.b","params":{"x":"é"}}', '{"id":2,"result":{}}']);
    transport.send('{"id":3}');
    expect(toBrowser.read().toString()).toBe('{"id":3}\0');
  });

  it('answers a navigation the floor refused once the tab shows its readable copy; a proxy not told the extension id answers at once (the control)', async () => {
    const blocked = `${EXT}/blocked.html?check=domain_allowlist&reason=${encodeURIComponent('evil.test is outside the task')}&url=http://evil.test/x`;
    const copies = () => fake!.received.filter((m) => m.sessionId === 'R-P1' && m.method === 'Page.navigate');
    const navigate = async (extensionId: string | undefined) => {
      fake = fakeChromium();
      proxy = await startCdpProxy({ upstream: fake.router, ...(extensionId !== undefined ? { extensionId } : {}) });
      const agent = await agentSocket();
      fake.emit({ method: 'Target.attachedToTarget', params: { sessionId: 'S1', targetInfo: TARGETS[0], waitingForDebugger: false } });
      await settle();
      let answer: Record<string, unknown> | null = null;
      const answered = agent.call('Page.navigate', { url: 'http://evil.test/x', frameId: 'P1' }, 'S1').then((m) => (answer = m));
      await settle();
      return { agent, answered, answer: () => answer };
    };

    const control = await navigate(undefined);
    expect((control.answer()?.result as { errorText?: string } | undefined)?.errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
    control.agent.ws.close();
    await proxy!.close();
    await fake!.close();

    const held = await navigate(new URL(EXT).host);
    // The browser's error page keeps the refused URL: still on the way.
    fake!.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: 'http://evil.test/x' } } });
    await settle();
    expect(held.answer()).toBeNull();
    fake!.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: blocked } } });
    await held.answered;
    expect((held.answer()?.result as { errorText?: string }).errorText).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(copies()).toHaveLength(1);
    // A navigation that is not refused is answered at once.
    expect((await held.agent.call('Page.navigate', { url: 'http://news.test/', frameId: 'P1' }, 'S1')).result).toEqual({ ok: 'Page.navigate' });
    held.agent.ws.close();
  });

  it("sends a tab that lands on the extension's blocked page on to its readable copy; a proxy not told the extension's id does not (the control)", async () => {
    const blocked = `${EXT}/blocked.html?check=domain_allowlist&reason=${encodeURIComponent('evil.test is not among the sites the task names')}&url=http://evil.test/x`;
    const navigations = () => fake!.received.filter((m) => m.sessionId === 'R-P1' && m.method === 'Page.navigate').map((m) => String(m.params?.url));

    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router });
    fake.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: blocked } } });
    await settle();
    expect(navigations()).toEqual([]);
    await proxy.close();
    await fake.close();

    fake = fakeChromium();
    proxy = await startCdpProxy({ upstream: fake.router, extensionId: new URL(EXT).host });
    fake.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: blocked } } });
    await settle();
    expect(navigations()).toHaveLength(1);
    expect(decodeURIComponent(navigations()[0]!)).toContain('Why: evil.test is not among the sites the task names');
    // Another extension's page, or one of this extension's other pages: left alone (the rules hide them).
    fake.emit({ method: 'Target.targetInfoChanged', params: { targetInfo: { ...TARGETS[0], url: `${EXT}/popup.html` } } });
    await settle();
    expect(navigations()).toHaveLength(1);
  });
});
