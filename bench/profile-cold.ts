import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startTestServer } from '../e2e/fixtures/server';
import { launchAgentBrowser } from '../src/harness';
import { benchExtension } from './chromium';
import { APP, appShell, POLICY, timeColdFetch, workerStopper } from './page';
import { median } from './stats';

/**
 * Where our worker's cold start goes: a Chrome trace (CDP Tracing on the browser endpoint, every process)
 * around each cold POST, as the bench's cold-start probe sends it (stop the worker, one POST). The worker's
 * thread is the one that evaluates our background.js; per start, the self time of each trace event on it
 * (V8's compile — with its code-cache figures in the event's args —, the script's run, microtasks, GC, the
 * script's decoding, IndexedDB) and, from V8's sampling profiler in the same trace, self and inclusive time
 * per JavaScript function (with AF_PROFILE_JS=1; name, file, line: use an unminified build to read them).
 *
 *   AF_HARNESS=1 AF_UNMINIFIED=1 npx wxt build    # → .output/unminified/chrome-mv3
 *   AF_PROFILE_JS=1 AF_BENCH_EXTENSION=$PWD/.output/unminified/chrome-mv3 flock /tmp/af-browser.lock npx tsx bench/profile-cold.ts
 *
 * → bench/results/profile-cold.{json,md}. The sampling profiler (AF_PROFILE_JS=1) slows the worker several
 * times over: its shares count, not its absolute times (the bench's cold-start split is the measure).
 */

const STARTS = Number(process.env.AF_PROFILE_STARTS ?? 12);


interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

/** What the Performance panel records, plus V8's compile and GC events and the worker's own. */
const CATEGORIES = ['devtools.timeline', 'v8', 'v8.execute', 'toplevel', 'disabled-by-default-devtools.timeline', 'ServiceWorker', 'blink', 'IndexedDB', 'extensions', ...(process.env.AF_PROFILE_JS === '1' ? ['disabled-by-default-v8.cpu_profiler'] : [])];

/** The worker's thread: the one whose script evaluation names our background.js. */
function workerThread(events: TraceEvent[], prefix: string): { pid: number; tid: number } | null {
  const hit = events.find((e) => (e.name === 'EvaluateScript' || e.name === 'v8.compile' || e.name === 'v8.run') && JSON.stringify(e.args ?? {}).includes(`${prefix}background.js`));
  return hit === undefined ? null : { pid: hit.pid, tid: hit.tid };
}

interface ChunkNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url?: string; lineNumber?: number };
}

/** V8's samples in the trace (ProfileChunk events of the worker's thread): self and inclusive time per function. */
function jsSamples(chunks: TraceEvent[], tid: number, self: Map<string, number>, total: Map<string, number>): void {
  const mine = chunks.some((c) => c.tid === tid) ? chunks.filter((c) => c.tid === tid) : chunks;
  const nodes = new Map<number, ChunkNode>();
  for (const chunk of mine) {
    const data = (chunk.args?.data ?? {}) as { cpuProfile?: { nodes?: ChunkNode[]; samples?: number[] }; timeDeltas?: number[] };
    for (const node of data.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    const samples = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    samples.forEach((id, i) => {
      const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
      const key = (n: ChunkNode) => `${n.callFrame.functionName || '(anonymous)'} ${(n.callFrame.url ?? '').split('/').pop()}:${(n.callFrame.lineNumber ?? -1) + 1}`;
      const leaf = nodes.get(id);
      if (leaf === undefined || leaf.callFrame.functionName === '(idle)') return;
      self.set(key(leaf), (self.get(key(leaf)) ?? 0) + ms);
      const seen = new Set<string>();
      for (let at: ChunkNode | undefined = leaf; at !== undefined; at = at.parent === undefined ? undefined : nodes.get(at.parent)) {
        const k = key(at);
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + ms);
      }
    });
  }
}

/** Self time by event name on one thread (complete events; nesting by time). Returns the top-level total. */
function selfTimes(events: TraceEvent[], byName: Map<string, number>): number {
  const spans = events.filter((e) => e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const stack: { end: number; name: string; child: number; dur: number }[] = [];
  let top = 0;
  const close = (until: number) => {
    while (stack.length > 0 && stack.at(-1)!.end <= until) {
      const done = stack.pop()!;
      byName.set(done.name, (byName.get(done.name) ?? 0) + Math.max(0, done.dur - done.child) / 1000);
      if (stack.length > 0) stack.at(-1)!.child += done.dur;
      else top += done.dur / 1000;
    }
  };
  for (const e of spans) {
    close(e.ts);
    const url = typeof (e.args?.data as { url?: string } | undefined)?.url === 'string' ? ` ${((e.args!.data as { url: string }).url.split('/').pop() ?? '')}` : '';
    const fn = typeof (e.args?.data as { functionName?: string } | undefined)?.functionName === 'string' ? ` ${(e.args!.data as { functionName: string }).functionName}` : '';
    stack.push({ end: e.ts + e.dur!, name: `${e.name}${url}${fn}`.slice(0, 120), child: 0, dur: e.dur! });
  }
  close(Infinity);
  return top;
}

class Cdp {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners: ((method: string, params: Record<string, unknown>, sessionId?: string) => void)[] = [];
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: Record<string, unknown>; sessionId?: string };
      if (message.id !== undefined) {
        const waiter = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error.message));
        else waiter?.resolve(message.result);
      } else if (message.method !== undefined) {
        for (const listener of this.listeners) listener(message.method, message.params ?? {}, message.sessionId);
      }
    });
  }
  static async connect(url: string): Promise<Cdp> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return new Cdp(ws);
  }
  send<R = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<R> {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId !== undefined ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }
  on(listener: (method: string, params: Record<string, unknown>, sessionId?: string) => void): void {
    this.listeners.push(listener);
  }
  close(): void {
    this.ws.close();
  }
}

async function main(): Promise<void> {
  const extension = benchExtension();
  const server = await startTestServer();
  server.setPage('/app', appShell());
  const browser = await launchAgentBrowser({ extensionPath: extension.path, remoteDebuggingPort: 0 });
  const cdp = await Cdp.connect(((await (await fetch(`${browser.cdpEndpoint!}/json/version`)).json()) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl);
  const prefix = `chrome-extension://${browser.extensionId}/`;
  try {
    await browser.setPolicy(POLICY);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(APP)}/app`);
    const postUrl = `${server.origin(APP)}/w`;
    for (let i = 0; i < 10; i++) await timeColdFetch(page, `${postUrl}?warm=${i}`);
    const stopper = await workerStopper({ name: 'guarded', browser });

    const events: TraceEvent[] = [];
    cdp.on((method, params) => {
      if (method === 'Tracing.dataCollected') events.push(...(params.value as TraceEvent[]));
    });
    const byName = new Map<string, number>();
    const jsSelf = new Map<string, number>();
    const jsTotal = new Map<string, number>();
    const took: number[] = [];
    const busy: number[] = [];
    let offset = 0;
    for (let i = 0; i < STARTS; i++) {
      await stopper.stop();
      events.length = 0;
      const complete = new Promise<void>((resolve) => cdp.on((method) => method === 'Tracing.tracingComplete' && resolve()));
      await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: CATEGORIES } });
      const { ms } = await timeColdFetch(page, `${postUrl}?cold=${(offset += 1)}`);
      took.push(ms);
      await cdp.send('Tracing.end');
      await complete;
      if (process.env.AF_PROFILE_DEBUG) writeFileSync(`/tmp/cold-trace-${i}.json`, JSON.stringify(events));
      const worker = workerThread(events, prefix);
      if (worker === null) {
        process.stderr.write(`start ${i}: no worker thread in the trace\n`);
        continue;
      }
      busy.push(selfTimes(events.filter((e) => e.pid === worker.pid && e.tid === worker.tid), byName));
      jsSamples(events.filter((e) => e.pid === worker.pid && e.name === 'ProfileChunk'), worker.tid, jsSelf, jsTotal);
    }
    await stopper.close();
    const n = busy.length;
    const rows = [...byName.entries()].map(([name, v]) => ({ name, selfMs: v / n })).sort((a, b) => b.selfMs - a.selfMs).slice(0, 40);
    const js = (m: Map<string, number>) => [...m.entries()].map(([name, v]) => ({ name, ms: v / n })).sort((a, b) => b.ms - a.ms).slice(0, 50);
    const result = { jsSelf: js(jsSelf), jsTotal: js(jsTotal), at: new Date().toISOString(), starts: n, coldFetchMs: { median: median(took), samples: took }, busyMsPerStart: { median: median(busy), samples: busy }, selfTimePerStart: rows };
    const dir = join(process.cwd(), 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'profile-cold.json'), JSON.stringify(result, null, 2));
    const f = (x: number) => x.toFixed(2);
    const md = [
      "# Cold start: our worker's thread from its start to the first answer (Chrome trace)",
      '',
      `${n} starts, ${result.at}; cold fetch p50 ${f(median(took))} ms (traced); the worker thread's traced time p50 ${f(median(busy))} ms per start.`,
      '',
      '| trace event (self time: its duration less the events nested in it) | ms per start |',
      '| --- | --- |',
      ...rows.map((r) => `| ${r.name} | ${f(r.selfMs)} |`),
      '',
      "## The worker's JavaScript (V8's sampling profiler in the trace), inclusive ms per start",
      '',
      '| function | ms |',
      '| --- | --- |',
      ...result.jsTotal.map((r) => `| \`${r.name}\` | ${f(r.ms)} |`),
      '',
      '## Self time, ms per start',
      '',
      '| function | ms |',
      '| --- | --- |',
      ...result.jsSelf.map((r) => `| \`${r.name}\` | ${f(r.ms)} |`),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'profile-cold.md'), md);
    process.stdout.write(md);
  } finally {
    cdp.close();
    await browser.close();
    await server.close();
    extension.dispose();
  }
}

await main();
