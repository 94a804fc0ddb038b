import type { Readable, Writable } from 'node:stream';

/**
 * The proxy's one connection to Chromium, and how it is shared. `agentsfence browser` starts Chromium with
 * `--remote-debugging-pipe`: CDP over file descriptors 3 (to the browser) and 4 (from it), each message
 * JSON followed by a NUL byte, as Playwright and Puppeteer launch it. Chromium then opens no debugging port
 * and writes no `DevToolsActivePort`: the only way in is this process's pipe, and the filtering proxy is
 * the only door it offers agents.
 *
 * Every agent connection gets its own channel on the pipe: a browser (or page) session of its own
 * (`Target.attachToBrowserTarget` / `Target.attachToTarget {flatten}`), so its auto-attach, discovery and
 * domains are its own, as with a WebSocket of its own. The channel translates the agent's root messages to
 * that session and back, gives each command an id unique on the pipe, and owns every session attached
 * under its root: a message reaches the channel whose session it is, never another.
 */

export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
  sessionId?: string;
}

/** A message transport to the browser: whole JSON texts. */
export interface CdpTransport {
  send(message: string): void;
  onMessage(handler: (message: string) => void): void;
  onClose(handler: () => void): void;
  close(): void;
}

/** CDP over Chromium's `--remote-debugging-pipe` (fd 3 written, fd 4 read; NUL-terminated JSON). */
export function pipeTransport(write: Writable, read: Readable): CdpTransport {
  let pending: Buffer[] = [];
  const messageHandlers: Array<(m: string) => void> = [];
  const closeHandlers: Array<() => void> = [];
  let closed = false;
  const closeOnce = () => {
    if (closed) return;
    closed = true;
    for (const h of closeHandlers) h();
  };
  read.on('data', (chunk: Buffer) => {
    let end = chunk.indexOf(0);
    if (end < 0) {
      pending.push(chunk);
      return;
    }
    let start = 0;
    while (end >= 0) {
      const text = Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
      pending = [];
      for (const h of messageHandlers) h(text);
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  read.on('close', closeOnce);
  read.on('error', closeOnce);
  write.on('error', closeOnce);
  return {
    send(message) {
      if (closed) return;
      write.write(message);
      write.write('\0');
    },
    onMessage: (h) => void messageHandlers.push(h),
    onClose: (h) => void closeHandlers.push(h),
    close() {
      closeOnce();
      write.end();
    },
  };
}

/** Who waits for an answer: the proxy itself, or a channel under the id its agent chose. */
type Waiter = { resolve: (m: CdpMessage) => void; state?: undefined } | { state: ChannelState; id: number; method: string; resolve?: undefined };

/** Commands whose answer names a new session of the caller's. */
const ATTACHING = new Set(['Target.attachToTarget', 'Target.attachToBrowserTarget']);

/** One agent connection's share of the pipe; `root` is its browser or page session upstream. */
export interface Channel {
  send(message: CdpMessage): void;
  onMessage(handler: (message: CdpMessage) => void): void;
  onClose(handler: () => void): void;
  close(): void;
}

interface ChannelState {
  root: string;
  handlers: Array<(m: CdpMessage) => void>;
  closeHandlers: Array<() => void>;
  closed: boolean;
}

export class CdpRouter {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private readonly owners = new Map<string, ChannelState>();
  private readonly channels = new Set<ChannelState>();
  private readonly internal: Array<(m: CdpMessage) => void> = [];
  private readonly closeHandlers: Array<() => void> = [];
  private closed = false;

  constructor(private readonly transport: CdpTransport) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose(() => {
      this.closed = true;
      for (const state of [...this.channels]) this.closeChannel(state, false);
      for (const w of this.waiting.values()) w.resolve?.({ error: { message: 'the browser connection closed' } });
      this.waiting.clear();
      for (const h of this.closeHandlers) h();
    });
  }

  /** A command of the proxy's own (root session unless `sessionId`); rejects with the CDP error. */
  async call(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.closed) throw new Error('the browser connection closed');
    const id = this.nextId++;
    const answer = await new Promise<CdpMessage>((resolve) => {
      this.waiting.set(id, { resolve });
      this.transport.send(JSON.stringify({ id, method, params, ...(sessionId !== undefined ? { sessionId } : {}) }));
    });
    if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message ?? 'failed'}`);
    return answer.result ?? {};
  }

  /** Events (and nothing else) on the root session and on sessions the proxy attached itself; the function returned stops them. */
  onEvent(handler: (message: CdpMessage) => void): () => void {
    this.internal.push(handler);
    return () => {
      const at = this.internal.indexOf(handler);
      if (at >= 0) this.internal.splice(at, 1);
    };
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  /** A channel rooted at a new browser session, or at a new flattened session on `targetId`. */
  async openChannel(targetId: string | null): Promise<Channel> {
    const { sessionId } = targetId === null ? await this.call('Target.attachToBrowserTarget') : await this.call('Target.attachToTarget', { targetId, flatten: true });
    const state: ChannelState = { root: String(sessionId), handlers: [], closeHandlers: [], closed: false };
    this.channels.add(state);
    this.owners.set(state.root, state);
    return {
      send: (message) => {
        if (state.closed || this.closed) return;
        const id = this.nextId++;
        this.waiting.set(id, { state, id: message.id ?? 0, method: String(message.method) });
        this.transport.send(JSON.stringify({ ...message, id, sessionId: message.sessionId ?? state.root }));
      },
      onMessage: (h) => void state.handlers.push(h),
      onClose: (h) => void state.closeHandlers.push(h),
      close: () => this.closeChannel(state, true),
    };
  }

  close(): void {
    this.transport.close();
  }

  private closeChannel(state: ChannelState, detach: boolean): void {
    if (state.closed) return;
    state.closed = true;
    this.channels.delete(state);
    for (const [sessionId, owner] of this.owners) if (owner === state) this.owners.delete(sessionId);
    for (const [id, w] of this.waiting) if (w.state === state) this.waiting.delete(id);
    // Detaching the root session detaches every session attached under it.
    if (detach && !this.closed) this.call('Target.detachFromTarget', { sessionId: state.root }).catch(() => undefined);
    for (const h of state.closeHandlers) h();
  }

  private receive(text: string): void {
    let m: CdpMessage;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null) return;
      m = value as CdpMessage;
    } catch {
      return;
    }
    if (typeof m.id === 'number') {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (w.resolve !== undefined) return w.resolve(m);
      const state = w.state;
      const sessionId = m.result?.sessionId;
      if (ATTACHING.has(w.method) && typeof sessionId === 'string' && !this.owners.has(sessionId)) this.owners.set(sessionId, state);
      this.deliver(state, { ...m, id: w.id });
      return;
    }
    const state = m.sessionId === undefined ? undefined : this.owners.get(m.sessionId);
    if (state === undefined) {
      for (const h of this.internal) h(m);
      return;
    }
    const child = m.params?.sessionId;
    if (m.method === 'Target.attachedToTarget' && typeof child === 'string') this.owners.set(child, state);
    this.deliver(state, m);
    if (m.method === 'Target.detachedFromTarget' && typeof child === 'string' && child !== state.root) this.owners.delete(child);
  }

  /** The channel's root session is its connection's root: no sessionId, as on a WebSocket of its own. */
  private deliver(state: ChannelState, m: CdpMessage): void {
    if (state.closed) return;
    const out = m.sessionId === state.root ? (({ sessionId: _root, ...rest }) => rest)(m) : m;
    for (const h of state.handlers) h(out);
  }
}
