import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startTestServer, type TestServer } from '../e2e/fixtures/server';
import type { TaskPolicyInput } from '../src/core/policy';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { attachToWorker, benchExtension, cpuProfile, profilePage, timeProposalsInWorker, timeStoreWritesInWorker, topFunctions, traceMainThread, type MainThreadTime, type ProfileLine } from './chromium';
import { durableEchoExtension, echoCarrying, echoExtension, emptyScriptExtension } from './controls';
import { median, percentile, summarise, type Figure } from './stats';

/**
 * The page figures, measured inside pages of browsers running side by side, batches interleaved so all
 * see the same machine noise: guarded (our extension, a task running), unguarded (no extension), idle
 * (our extension, no task), the empty-script control and the echo floor (bench/controls.ts):
 *  - an intercepted page action's round trip (page → MAIN hook → ISOLATED → port → background decision
 *    → page): `await fetch()` timed with performance.now in the page, against no extension and the echo;
 *  - DOMContentLoaded of an ordinary page, with no task and with one, against no extension and the control;
 *  - the cold start: the first decision after CDP ServiceWorker.stopAllWorkers, against the echo's.
 */

const APP = 'app.test';
const ROUNDS = 6;
const BATCH = 40;
const PAIRS = 40;
const PROFILED_LOADS = 20;
/** Issue 40: our scripts' main-thread time per load over the page-cost control. */
const SCRIPT_BUDGET_MS = 2;
/** The extension's content scripts as built (wxt names them after their entrypoints). */
const CONTENT_SCRIPT_FILES = ['page-hooks.js', 'frame-guard.js'];
/** What the background registers before frame-guard.js in each Sanitizer mode (src/sanitizer/preset.ts). */
const PRESET_FILES = ['sanitizer-hidden.js', 'sanitizer-model.js'];
/** Cold starts per extension (each one stops the worker and waits until it is stopped). */
const COLD_STARTS = 10;
const API = 'api.test';

/** Reading and writing on app.test and api.test, as a task that names both sites would get. */
export const POLICY: TaskPolicyInput = {
  version: 1,
  taskId: 'bench-page',
  issuedAt: 0,
  expiresAt: null,
  ceilings: { EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['READ', 'EXTERNAL_WRITE'] },
  domains: [APP, API],
};

/** An ordinary page: some markup, a stylesheet and a script, like a light web app's shell. */
function appShell(): string {
  const rows = Array.from({ length: 60 }, (_, i) => `<tr><td>Item ${i}</td><td><a href="/item/${i}">open</a></td><td>${(i * 37) % 101} EUR</td></tr>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>app</title>
<style>body{font:14px sans-serif}td{padding:2px 6px}</style></head>
<body><h1>Inbox</h1><form action="/search"><input name="q"><button>Search</button></form>
<table>${rows}</table><script>document.title = 'app ' + document.querySelectorAll('tr').length;</script></body></html>`;
}

interface Arm {
  /**
   * control: two empty document_start scripts; idle: our extension with no task; echo: the echo floor;
   * floor: our extension with a task but its script files emptied (network floor, worker listeners and
   * the dynamic registration, no script work); durable: the durable echo (bench/controls.ts), our rules
   * and one commit per answer.
   */
  name: 'guarded' | 'unguarded' | 'control' | 'idle' | 'echo' | 'echoDeclared' | 'echoCarrying' | 'durable' | 'floor';
  browser: AgentBrowser;
  page: Page;
}

type Kind = 'consequential' | 'readCrossOrigin' | 'readSameOrigin';

/** One batch of `n` sequential fetches timed in the page; the response body is read outside the timing. */
function timeFetches(page: Page, url: string, method: 'GET' | 'POST', n: number, offset: number): Promise<number[]> {
  return page.evaluate(
    async ({ url, method, n, offset }) => {
      const samples: number[] = [];
      for (let i = 0; i < n; i++) {
        const target = `${url}?i=${offset + i}`;
        const init: RequestInit = method === 'POST' ? { method, body: `note=bench+${offset + i}&to=team` } : { method };
        const t0 = performance.now();
        const response = await fetch(target, init);
        samples.push(performance.now() - t0);
        await response.text();
      }
      return samples;
    },
    { url, method, n, offset },
  );
}

function fetchTarget(server: TestServer, kind: Kind): { url: string; method: 'GET' | 'POST' } {
  switch (kind) {
    case 'consequential':
      return { url: `${server.origin(APP)}/w`, method: 'POST' };
    case 'readCrossOrigin':
      return { url: `${server.origin(API)}/r`, method: 'GET' };
    case 'readSameOrigin':
      return { url: `${server.origin(APP)}/r`, method: 'GET' };
  }
}

async function domContentLoaded(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'load' });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    return nav === undefined ? NaN : nav.domContentLoadedEventEnd - nav.startTime;
  });
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

/**
 * Stops an extension's worker for a cold-start probe, from one extension page and CDP session kept open for
 * the whole section: opening a page per stop made tab and navigation events that woke our worker again
 * right after the stop (the bench failed "worker not stopped (running)"). Every status the worker reports
 * is kept in order; a stop counts once `stopped` follows the request, and the probe runs only while the
 * worker is still stopped: if an event woke it meanwhile, it is stopped again (attempts are reported).
 */
interface WorkerStopper {
  /** Resolves with the number of stop requests it took. */
  stop(): Promise<number>;
  /** For each stop a wake undid, the statuses seen after it. */
  woken: string[];
  /** The worker's User Timing marks of its latest start (harness builds only, src/background/platform/startup-marks.ts), ms since its start. */
  marks(): Promise<{ timeOrigin: number; marks: Record<string, number> } | null>;
  close(): Promise<void>;
}

async function workerStopper(arm: Arm): Promise<WorkerStopper> {
  const prefix = `chrome-extension://${arm.browser.extensionId}/`;
  const page = await arm.browser.context.newPage();
  await page.goto(`${prefix}manifest.json`);
  const cdp = await arm.browser.context.newCDPSession(page);
  const history: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
    const ours = event.versions.filter((v) => v.scriptURL.startsWith(prefix));
    if (ours.length > 0) history.push(ours.map((v) => v.runningStatus).join(','));
  });
  await cdp.send('ServiceWorker.enable');
  const stopped = () => history.length > 0 && history.at(-1)!.split(',').every((s) => s === 'stopped');
  /** The statuses of each stop that something undid (what woke the worker shows in the figure's data). */
  const woken: string[] = [];
  return {
    woken,
    async stop() {
      for (let attempt = 1; attempt <= 5; attempt++) {
        const from = history.length;
        await cdp.send('ServiceWorker.stopAllWorkers');
        const reachedStopped = () => history.slice(from).some((status) => status.split(',').every((s) => s === 'stopped'));
        for (const deadline = Date.now() + 15_000; !reachedStopped(); ) {
          if (Date.now() > deadline) throw new Error(`${arm.name}: worker not stopped within 15 s (statuses: ${history.slice(from).join(' → ') || 'none'})`);
          await new Promise((r) => setTimeout(r, 20));
        }
        // Let stray events (the stop's own aftermath) arrive; the probe starts only from a stopped worker.
        await new Promise((r) => setTimeout(r, 200));
        if (stopped()) return attempt;
        woken.push(history.slice(from).join(' → '));
      }
      throw new Error(`${arm.name}: the worker kept waking after 5 stops (statuses: ${history.slice(-6).join(' → ')})`);
    },
    async marks() {
      const { targetInfos } = await cdp.send('Target.getTargets');
      const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(prefix));
      if (worker === undefined) return null;
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
      try {
        const reply = new Promise<string>((resolve) => {
          const onMessage = (event: { sessionId: string; message: string }) => {
            if (event.sessionId !== sessionId || (JSON.parse(event.message) as { id?: number }).id !== 1) return;
            cdp.off('Target.receivedMessageFromTarget', onMessage);
            resolve(event.message);
          };
          cdp.on('Target.receivedMessageFromTarget', onMessage);
        });
        const expression = 'JSON.stringify({ timeOrigin: performance.timeOrigin, marks: Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])) })';
        await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression, returnByValue: true } }) });
        const value = (JSON.parse(await reply) as { result?: { result?: { value?: string } } }).result?.result?.value;
        return value === undefined ? null : (JSON.parse(value) as { timeOrigin: number; marks: Record<string, number> });
      } finally {
        await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
      }
    },
    async close() {
      await cdp.detach().catch(() => undefined);
      await page.close().catch(() => undefined);
    },
  };
}

/** One cold POST timed in the page, with the absolute time it started (page timeOrigin + t0). */
function timeColdFetch(page: Page, url: string): Promise<{ ms: number; startedAt: number }> {
  return page.evaluate(async (target) => {
    const t0 = performance.now();
    const response = await fetch(target, { method: 'POST', body: 'note=cold&to=team' });
    const ms = performance.now() - t0;
    await response.text();
    return { ms, startedAt: performance.timeOrigin + t0 };
  }, url);
}

/** Where our cold starts went, each phase's median end in ms after the page's fetch began. */
const COLD_PHASES = ['worker started', 'script-start', 'evaluated', 'store-open', 'ready', 'first-answer'] as const;
type ColdArm = 'guarded' | 'echo' | 'echoCarrying' | 'durable';
type ColdSplit = Partial<Record<(typeof COLD_PHASES)[number], number>>;

/** A tab id no browser here has: our rules' conditions on our own tabs keep their shape, and match nothing. */
const NO_SUCH_TAB = 999_999;

/** The part of chrome.declarativeNetRequest the seeding uses (the bench is typed without the extension's chrome types). */
interface Dnr {
  getSessionRules(): Promise<DnrRule[]>;
  getDynamicRules(): Promise<DnrRule[]>;
  updateSessionRules(update: { removeRuleIds: number[]; addRules: DnrRule[] }): Promise<void>;
  updateDynamicRules(update: { removeRuleIds: number[]; addRules: DnrRule[] }): Promise<void>;
}
type WithDnr = { chrome: { declarativeNetRequest: Dnr } };

interface DnrRule {
  id: number;
  condition: { tabIds?: number[]; excludedTabIds?: number[] } & Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * Gives the durable echo what ours holds under the running task: every session and dynamic DNR rule
 * (tab conditions moved off our browser's tab ids, which mean nothing in the echo's), and the task record
 * and newest audit entry exactly as our store holds them (what one commit writes). Returns the counts.
 */
async function seedDurableEcho(ours: AgentBrowser, durable: AgentBrowser): Promise<{ sessionRules: number; dynamicRules: number; taskBytes: number; entryBytes: number }> {
  if (ours.serviceWorker === null || durable.serviceWorker === null) throw new Error('no service worker to seed the durable echo from');
  // No named helpers inside evaluate: tsx would wrap them in a `__name` call the worker does not have.
  const held = await ours.serviceWorker.evaluate(async () => {
    type Db = { get(store: string, key: string): Promise<unknown>; transaction(store: string): { store: { openCursor(q: null, d: string): Promise<{ value: Record<string, unknown> } | null> } } };
    type Hook = { handle: { monitor: Promise<{ store: { db: Db } }> } };
    const { db } = (await (globalThis as unknown as { __agentsfence: Hook }).__agentsfence.handle.monitor).store;
    const cursor = await db.transaction('audit').store.openCursor(null, 'prev');
    const entry: Record<string, unknown> = cursor === null ? { at: 0 } : { ...cursor.value };
    delete entry.seq;
    const dnr = (globalThis as unknown as WithDnr).chrome.declarativeNetRequest;
    return { task: await db.get('kv', 'task'), entry, session: await dnr.getSessionRules(), dynamic: await dnr.getDynamicRules() };
  });
  const retab = (rule: DnrRule): DnrRule => {
    const condition = { ...rule.condition };
    if (condition.excludedTabIds !== undefined) condition.excludedTabIds = condition.excludedTabIds.map((t) => (t === -1 ? t : NO_SUCH_TAB)).filter((t, i, all) => all.indexOf(t) === i);
    if (condition.tabIds !== undefined) condition.tabIds = condition.tabIds.map((t) => (t === -1 ? t : NO_SUCH_TAB)).filter((t, i, all) => all.indexOf(t) === i);
    return { ...rule, condition };
  };
  const seeded = { session: held.session.map(retab), dynamic: held.dynamic, task: held.task, entry: held.entry };
  const counts = await durable.serviceWorker.evaluate(async ({ session, dynamic, task, entry }) => {
    const dnr = (globalThis as unknown as WithDnr).chrome.declarativeNetRequest;
    await dnr.updateSessionRules({ removeRuleIds: (await dnr.getSessionRules()).map((r) => r.id), addRules: session });
    await dnr.updateDynamicRules({ removeRuleIds: (await dnr.getDynamicRules()).map((r) => r.id), addRules: dynamic });
    await (globalThis as unknown as { seed(task: unknown, entry: unknown): Promise<void> }).seed(task, entry);
    return { sessionRules: (await dnr.getSessionRules()).length, dynamicRules: (await dnr.getDynamicRules()).length };
  }, seeded);
  if (counts.sessionRules !== held.session.length || counts.dynamicRules !== held.dynamic.length) throw new Error(`durable echo: ${counts.sessionRules}/${held.session.length} session and ${counts.dynamicRules}/${held.dynamic.length} dynamic rules installed`);
  return { ...counts, taskBytes: JSON.stringify(held.task ?? null).length, entryBytes: JSON.stringify(held.entry).length };
}

export async function pageFigures(): Promise<Figure[]> {
  const extension = benchExtension();
  const control = emptyScriptExtension();
  const echo = echoExtension();
  const echoDeclared = echoExtension((JSON.parse(readFileSync(join(extension.path, 'manifest.json'), 'utf8')) as { permissions: string[] }).permissions);
  const durable = durableEchoExtension((JSON.parse(readFileSync(join(extension.path, 'manifest.json'), 'utf8')) as { permissions: string[] }).permissions);
  const carrying = echoCarrying(readFileSync(join(extension.path, 'background.js'), 'utf8'));
  const floorOnly = benchExtension();
  for (const file of [...CONTENT_SCRIPT_FILES, ...PRESET_FILES]) writeFileSync(join(floorOnly.path, file), 'void 0;\n');
  const server = await startTestServer();
  server.setPage('/app', appShell());
  const arms: Arm[] = [];
  try {
    const open = async (name: Arm['name'], options: Parameters<typeof launchAgentBrowser>[0]) => {
      const browser = await launchAgentBrowser(options);
      if (name === 'guarded' || name === 'floor') await browser.setPolicy(POLICY);
      const page = await browser.context.newPage();
      await page.goto(`${server.origin(APP)}/app`);
      const arm: Arm = { name, browser, page };
      arms.push(arm);
      return arm;
    };
    const g = await open('guarded', { extensionPath: extension.path });
    const u = await open('unguarded', { extension: false });
    const e = await open('echo', { extensionPath: echo.path });
    const ed = await open('echoDeclared', { extensionPath: echoDeclared.path });
    const ec = await open('echoCarrying', { extensionPath: carrying.path });
    const d = await open('durable', { extensionPath: durable.path });
    const c = await open('control', { extensionPath: control.path });
    const idle = await open('idle', { extensionPath: extension.path });
    const f = await open('floor', { extensionPath: floorOnly.path });

    // Round trips: warm up (first write to a domain also opens the network floor), then interleaved rounds.
    const kinds: Kind[] = ['consequential', 'readCrossOrigin', 'readSameOrigin'];
    const trip = [g, u, e, ed, d];
    const samples = Object.fromEntries(kinds.map((k) => [k, { guarded: [], unguarded: [], echo: [], echoDeclared: [], durable: [] }])) as unknown as Record<Kind, RoundTripSamples>;
    let offset = 0;
    // The durable echo is seeded after our warm-up, once ours holds the rules and an audit entry a running task has.
    for (const kind of kinds) {
      const { url, method } = fetchTarget(server, kind);
      for (const arm of trip) if (arm !== d) await timeFetches(arm.page, url, method, 20, (offset += 20));
    }
    const seeded = await seedDurableEcho(g.browser, d.browser);
    for (const kind of kinds) {
      const { url, method } = fetchTarget(server, kind);
      await timeFetches(d.page, url, method, 20, (offset += 20));
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        const { url, method } = fetchTarget(server, kind);
        for (let k = 0; k < trip.length; k++) {
          const arm = trip[(round + k) % trip.length]!;
          samples[kind][arm.name as keyof RoundTripSamples].push(...(await timeFetches(arm.page, url, method, BATCH, (offset += BATCH))));
        }
      }
    }
    // Where the guarded consequential round trip goes: the background's share (the same call handed to
    // the monitor inside the worker, no messaging) and the worker's CPU profile over one more batch.
    const postCall = (i: number) => ({
      tool: 'browser.request',
      args: { method: 'POST', url: `${server.origin(APP)}/w?i=${i}`, kind: 'fetch', body: `note=bench+${i}&to=team`, bodyBytes: 20 },
    });
    const worker = g.browser.serviceWorker;
    if (worker === null) throw new Error('no service worker');
    const inWorker = await timeProposalsInWorker(worker, Array.from({ length: 200 }, () => postCall((offset += 1))), 1, 'rt');
    const writes = await timeStoreWritesInWorker(worker, 100);
    const cdp = await attachToWorker(g.browser);
    let workerProfile: ProfileLine[] = [];
    try {
      const { url, method } = fetchTarget(server, 'consequential');
      const profile = await cpuProfile(cdp.send, async () => {
        await timeFetches(g.page, url, method, 100, (offset += 100));
      });
      workerProfile = topFunctions(profile);
    } finally {
      await cdp.detach();
    }
    // And the page side: the content scripts' own CPU per guarded POST.
    const PROFILED_FETCHES = 100;
    const pageProfile = await profilePage(g.page, async () => {
      const { url, method } = fetchTarget(server, 'consequential');
      await timeFetches(g.page, url, method, PROFILED_FETCHES, (offset += PROFILED_FETCHES));
    });
    // JS self time in our scripts only: the native fetch they hand the call on to is the page's own cost.
    const ours = topFunctions(pageProfile, 1000).filter((l) => CONTENT_SCRIPT_FILES.some((f) => l.fn.includes(` ${f}:`)));
    const pageScriptMs = ours.reduce((sum, l) => sum + l.selfMs, 0) / PROFILED_FETCHES;
    const pageTop = ours.slice(0, 5).map((l) => ({ ...l, perFetchMs: l.selfMs / PROFILED_FETCHES }));
    const allowed = (await g.browser.audit({ decision: 'ALLOW', limit: 1 }))[0];

    // DOMContentLoaded of the same page in every browser but the echo, order rotating per round.
    const dcl: Record<LoadArm, number[]> = { guarded: [], unguarded: [], control: [], idle: [], floor: [] };
    const load = (arm: Arm, query: string) => domContentLoaded(arm.page, `${server.origin(APP)}/app?${query}`);
    const loaders = [g, u, c, idle, f];
    for (const arm of loaders) for (let i = 0; i < 5; i++) await load(arm, `warm=${i}`);
    for (let i = 0; i < PAIRS; i++) {
      for (let k = 0; k < loaders.length; k++) {
        const arm = loaders[(i + k) % loaders.length]!;
        dcl[arm.name as LoadArm].push(await load(arm, `n=${i}`));
      }
    }
    // Where a load's time goes: a trace of each browser's page renderer over the same loads.
    const traces = {} as Record<LoadArm, MainThreadTime>;
    for (const arm of loaders) {
      traces[arm.name as LoadArm] = await traceMainThread(arm.page, PROFILED_LOADS, async () => {
        for (let i = 0; i < PROFILED_LOADS; i++) await load(arm, `p=${i}`);
      });
    }
    // No task: which of our scripts a page has (none expected: nothing is registered).
    const idleScripts = await idle.page.evaluate(() => ({ fetchNative: String(window.fetch).includes('[native code]') }));

    // Cold start last (Playwright's worker handle waits for a stopped worker): stop, then one POST, interleaved.
    const cold: Record<ColdArm, number[]> = { guarded: [], echo: [], echoCarrying: [], durable: [] };
    const splits: ColdSplit[] = [];
    const stops: Record<ColdArm, number[]> = { guarded: [], echo: [], echoCarrying: [], durable: [] };
    const wakes: string[] = [];
    const { url: postUrl } = fetchTarget(server, 'consequential');
    const coldArms = [g, e, ec, d];
    const stoppers = new Map(coldArms.map((arm) => [arm, workerStopper(arm)]));
    try {
      for (let i = 0; i < COLD_STARTS; i++) {
        for (let k = 0; k < coldArms.length; k++) {
          const arm = coldArms[(i + k) % coldArms.length]!;
          const name = arm.name as ColdArm;
          const stopper = await stoppers.get(arm)!;
          stops[name].push(await stopper.stop());
          const { ms: took, startedAt } = await timeColdFetch(arm.page, `${postUrl}?cold=${(offset += 1)}`);
          cold[name].push(took);
          if (arm !== g) continue;
          const worker = await stopper.marks();
          if (worker === null) continue;
          const split: ColdSplit = { 'worker started': worker.timeOrigin - startedAt };
          for (const phase of COLD_PHASES) {
            const at = worker.marks[`agentsfence:${phase}`];
            if (at !== undefined) split[phase] = worker.timeOrigin + at - startedAt;
          }
          splits.push(split);
        }
      }
      for (const [arm, stopper] of stoppers) wakes.push(...(await stopper).woken.map((w) => `${arm.name}: ${w}`));
    } finally {
      for (const stopper of stoppers.values()) await (await stopper).close();
    }

    return [
      ...roundTripFigures(samples, { workerProfile, inWorkerMs: inWorker.samplesMs, ...writes, pageScriptMs, pageTop }, allowed?.record.check ?? 'none', seeded),
      ...pageLoadFigures(dcl, traces, idleScripts.fetchNative),
      ...coldStartFigures(cold, samples.consequential, splits, stops, wakes),
    ];
  } finally {
    for (const arm of arms) await arm.browser.close().catch(() => undefined);
    await server.close();
    control.dispose();
    echo.dispose();
    echoDeclared.dispose();
    carrying.dispose();
    durable.dispose();
    floorOnly.dispose();
    extension.dispose();
  }
}

type RoundTripSamples = Record<'guarded' | 'unguarded' | 'echo' | 'echoDeclared' | 'durable', number[]>;
type LoadArm = 'guarded' | 'unguarded' | 'control' | 'idle' | 'floor';

function roundTripFigures(
  samples: Record<Kind, RoundTripSamples>,
  background: { workerProfile: ProfileLine[]; inWorkerMs: number[]; putTaskMs: number[]; appendAuditMs: number[]; commitMs: number[]; pageScriptMs: number; pageTop: (ProfileLine & { perFetchMs: number })[] },
  allowCheck: string,
  seeded: { sessionRules: number; dynamicRules: number; taskBytes: number; entryBytes: number },
): Figure[] {
  const stats = (kind: Kind) => {
    const guarded = summarise(samples[kind].guarded);
    const unguarded = summarise(samples[kind].unguarded);
    const echo = summarise(samples[kind].echo);
    const echoDeclared = summarise(samples[kind].echoDeclared);
    const durable = summarise(samples[kind].durable);
    const echoAddedP50 = echo.p50 - unguarded.p50;
    const durableAddedP50 = durable.p50 - unguarded.p50;
    const addedP50 = guarded.p50 - unguarded.p50;
    return { guarded, unguarded, echo, echoDeclared, durable, durableAddedP50, overDurable: (guarded.p50 - unguarded.p50) / durableAddedP50, echoDeclaredAddedP50: echoDeclared.p50 - unguarded.p50, addedP50, addedP99: guarded.p99 - unguarded.p99, echoAddedP50, echoAddedP99: echo.p99 - unguarded.p99, ratio: guarded.p50 / unguarded.p50, overEcho: addedP50 / echoAddedP50 };
  };
  const c = stats('consequential');
  const rc = stats('readCrossOrigin');
  const rs = stats('readSameOrigin');
  const inWorker = summarise(background.inWorkerMs);
  const putTask = summarise(background.putTaskMs);
  const appendAudit = summarise(background.appendAuditMs);
  const commit = summarise(background.commitMs);
  const met = c.overDurable <= 1.3;
  const { workerProfile } = background;
  const dominant = workerProfile
    .slice(0, 5)
    .map((l) => `${l.fn} ${(l.share * 100).toFixed(0)} %`)
    .join(', ');
  const method =
    'In the page: performance.now around `await fetch()` (response read outside the timing); a guarded browser (extension, active task allowing EXTERNAL_WRITE on app.test/api.test), an unguarded one and the echo floor (bench/controls.ts: the same MAIN → MessagePort → ISOLATED → runtime.connect port → worker path, answered ALLOW at once) side by side, ' +
    `${ROUNDS} interleaved rounds × ${BATCH} sequential fetches per kind and browser after 20 warm-up fetches; added = percentile − the unguarded percentile. Each guarded consequential fetch is decided by the background (last ALLOW check: ${allowCheck}) and audited before the page is answered. ` +
    `Split of the added p50: the background's own share (the same call handed to the monitor inside the worker: parse, evaluate, persist, audit) p50 ${ms(inWorker.p50)} (p99 ${ms(inWorker.p99)}), of which the IndexedDB writes an ALLOW waits for — σ' and the audit entry in one transaction (commitDecision) — p50 ${ms(commit.p50)} (timed as two separate transactions: putTask p50 ${ms(putTask.p50)}, appendAudit p50 ${ms(appendAudit.p50)}; a separate probe in the worker measured the default durability the same as durability 'relaxed', so nothing is to be had there without giving up the commit before the answer); ` +
    `our content scripts' own JS time per fetch (page CPU profile over 100 guarded POSTs, self time in page-hooks.js and frame-guard.js) ${ms(background.pageScriptMs)}, mostly ${background.pageTop
      .slice(0, 3)
      .map((l) => `${l.fn} ${ms(l.perFetchMs)}`)
      .join(', ')}; the messaging itself — MAIN → ISOLATED MessagePort → the frame's runtime.connect port → worker and back, as the echo floor pays it with no work at all — ${ms(c.echoAddedP50)}; ` +
    `the network floor every guarded request passes, measured on a same-origin GET that makes no round trip, ${ms(rs.addedP50)}: of it, the proxy Chromium puts in front of every request once an extension declares declarativeNetRequest or webRequest — the echo with our manifest's permissions and no rules, same-origin GET — ${ms(rs.echoDeclaredAddedP50)}, the rest our session rules and the rebinding listener (which asks only for a page's dependencies under this policy); ` +
    `so the echo with our declarations adds ${ms(c.echoDeclaredAddedP50)} to the same POST (${(c.addedP50 / c.echoDeclaredAddedP50).toFixed(2)}× of it is ours); ` +
    `left unexplained (scheduling on a shared 2-core machine, noise) ${ms(c.addedP50 - inWorker.p50 - background.pageScriptMs - c.echoAddedP50 - rs.addedP50)}. ` +
    'The MAIN hook reads a POST body from its snapshot Request itself and sends the bytes it read: reading a clone() instead (as before 2026-11-30 19:30) added about 1.1 ms per POST (a tee into streams), the largest avoidable share found. ' +
    `Worker CPU profile over 100 more guarded POSTs, top self time: ${dominant} ((idle) = the worker waiting on IndexedDB and messages). ` +
    `The floor, the durable echo (bench/controls.ts durableEchoExtension), in the same rounds: the echo's path with our manifest's permissions, the ${seeded.sessionRules} session and ${seeded.dynamicRules} dynamic DNR rules ours held under this task (copied from our worker after the warm-up, tab ids moved off ours), and before each answer one IndexedDB transaction shaped like ours (our task record, ${seeded.taskBytes} B as JSON, put; our newest audit entry, ${seeded.entryBytes} B, added); added p50 ${ms(c.durableAddedP50)} (p50 ${ms(c.durable.p50)}, p99 ${ms(c.durable.p99)}).`;
  return [
    {
      id: 'roundtrip-consequential',
      figure: 'Intercepted page action round trip, consequential (same-origin POST fetch, page → decision → page)',
      target: 'added p50 ≤ 1.3× the durable echo\'s added p50',
      measured: `added p50 ${ms(c.addedP50)}, p99 ${ms(c.addedP99)}; durable echo added p50 ${ms(c.durableAddedP50)}; plain echo (no permissions, rules or commit) added p50 ${ms(c.echoAddedP50)}, p99 ${ms(c.echoAddedP99)} (guarded p50 ${ms(c.guarded.p50)} / p99 ${ms(c.guarded.p99)}; durable echo ${ms(c.durable.p50)} / ${ms(c.durable.p99)}; echo ${ms(c.echo.p50)} / ${ms(c.echo.p99)}; unguarded ${ms(c.unguarded.p50)} / ${ms(c.unguarded.p99)})`,
      ratio: `${c.overDurable.toFixed(2)}× the durable echo's added p50 (${c.overEcho.toFixed(2)}× the plain echo's)`,
      vsFloor: { floor: 'durable echo, added p50', value: c.overDurable, unit: '×', target: 1.3 },
      verdict: met ? 'met' : 'missed',
      method,
      data: { guarded: c.guarded, unguarded: c.unguarded, echo: c.echo, echoDeclared: c.echoDeclared, durable: c.durable, durableAddedP50Ms: c.durableAddedP50, overDurable: c.overDurable, durableSeed: seeded, echoDeclaredAddedP50Ms: c.echoDeclaredAddedP50, addedP50Ms: c.addedP50, addedP99Ms: c.addedP99, echoAddedP50Ms: c.echoAddedP50, echoAddedP99Ms: c.echoAddedP99, inWorker, inWorkerSamplesMs: background.inWorkerMs, putTask, appendAudit, commit, pageScriptMsPerFetch: background.pageScriptMs, pageTop: background.pageTop, workerProfile, samplesMs: samples.consequential },
    },
    {
      id: 'roundtrip-read',
      figure: 'Intercepted page action round trip, READ class (GET fetch)',
      target: 'as close to zero as is safe',
      measured:
        `cross-origin GET to an allowed site: added p50 ${ms(rc.addedP50)}, p99 ${ms(rc.addedP99)} (echo floor ${ms(rc.echoAddedP50)}, ${ms(rc.echoAddedP99)}); ` +
        `same-origin GET (exempt from the round trip, the network floor still applies): added p50 ${ms(rs.addedP50)}, p99 ${ms(rs.addedP99)}`,
      ratio: `${rc.overEcho.toFixed(2)}× the echo's added p50 (cross-origin)`,
      verdict: 'info',
      method: 'Same browsers and rounds as the consequential figure. A cross-origin GET is proposed to the background like any request; a same-origin GET/HEAD with no body and a short query goes straight to the network (src/content/main/hooks.ts).',
      data: {
        crossOrigin: { guarded: rc.guarded, unguarded: rc.unguarded, echo: rc.echo, echoAddedP50Ms: rc.echoAddedP50, addedP50Ms: rc.addedP50, addedP99Ms: rc.addedP99, samplesMs: samples.readCrossOrigin },
        sameOrigin: { guarded: rs.guarded, unguarded: rs.unguarded, echoDeclaredAddedP50Ms: rs.echoDeclaredAddedP50, addedP50Ms: rs.addedP50, addedP99Ms: rs.addedP99, samplesMs: samples.readSameOrigin },
      },
    },
  ];
}

/** Our scripts' JS per load in a trace: the content scripts and the Sanitizer's preset. */
function ourScriptMs(trace: MainThreadTime): number {
  return trace.byScript.filter((l) => [...CONTENT_SCRIPT_FILES, ...PRESET_FILES].includes(l.script)).reduce((sum, l) => sum + l.msPerLoad, 0);
}

/** What the guarded arm's main thread spends over the floor arm's, per trace event type (self CPU per load), largest first. */
function extraByEvent(guarded: MainThreadTime, floor: MainThreadTime): { event: string; ms: number }[] {
  const events = new Set([...Object.keys(guarded.byEvent), ...Object.keys(floor.byEvent)]);
  return [...events]
    .map((event) => ({ event, ms: Math.round(((guarded.byEvent[event] ?? 0) - (floor.byEvent[event] ?? 0)) * 100) / 100 }))
    .filter((row) => Math.abs(row.ms) >= 0.05)
    .sort((a, b) => b.ms - a.ms);
}

function pageLoadFigures(dcl: Record<LoadArm, number[]>, traces: Record<LoadArm, MainThreadTime>, idleFetchNative: boolean): Figure[] {
  const [g, u, c, idle, floor] = [median(dcl.guarded), median(dcl.unguarded), median(dcl.control), median(dcl.idle), median(dcl.floor)];
  // Paired differences (each round loaded back to back) are less exposed to drift than two medians.
  const paired = (a: number[], b: number[]) => median(a.map((x, i) => x - (b[i] ?? NaN)));
  // Run-to-run noise: half the spread between the quartiles of the no-extension loads themselves.
  const sorted = [...dcl.unguarded].sort((a, b) => a - b);
  const noise = (percentile(sorted, 75) - percentile(sorted, 25)) / 2;
  const guardedTrace = traces.guarded;
  const scriptMs = ourScriptMs(guardedTrace);
  const idleAdded = idle - u;
  const busy = (arm: LoadArm) => ms(traces[arm].busyMsPerLoad);
  const cpu = (arm: LoadArm) => ms(traces[arm].cpuMsPerLoad);
  const extra = extraByEvent(guardedTrace, traces.floor);
  const cpuOverControl = guardedTrace.cpuMsPerLoad - traces.control.cpuMsPerLoad;
  const method =
    `A 60-row app page (markup, stylesheet, inline script) on a *.test host; PerformanceNavigationTiming.domContentLoadedEventEnd − startTime (from the navigation's start, so the previous page's pagehide handlers count); ${PAIRS} loads per browser after 5 warm-up loads, interleaved with the order rotating: no extension, our extension with no task (idle), our extension with a task (guarded), the empty-script control (bench/controls.ts: one ISOLATED and one MAIN document_start script, all frames, declared in the manifest) and the floor arm (our extension with a task, its content-script files emptied: the network floor's session rules, the worker's webRequest/webNavigation listeners and the dynamic registration with persistAcrossSessions/matchOriginAsFallback, no script work), so the browser's injection cost and our floor show apart from our scripts' work. ` +
    `Where a load's time goes: a Chrome trace (CDP Tracing, devtools.timeline + v8.execute, what the Performance panel records) of each page's renderer over ${PROFILED_LOADS} more loads; main-thread task time per load: guarded ${busy('guarded')}, floor arm ${busy('floor')}, control ${busy('control')}, idle ${busy('idle')}, no extension ${busy('unguarded')}; main-thread CPU (thread time, not inflated by other processes) guarded ${cpu('guarded')}, floor arm ${cpu('floor')}, control ${cpu('control')}; the guarded arm's extra CPU over the floor arm by trace event (self time per load): ${extra
      .slice(0, 8)
      .map((row) => `${row.event} ${ms(row.ms)}`)
      .join(', ')}; our scripts' JS per load (top-most calls and evaluations, by file): ${guardedTrace.byScript
      .filter((l) => [...CONTENT_SCRIPT_FILES, ...PRESET_FILES].includes(l.script))
      .map((l) => `${l.script} ${ms(l.msPerLoad)}`)
      .join(', ')}; largest: ${guardedTrace.top
      .filter((l) => [...CONTENT_SCRIPT_FILES, ...PRESET_FILES].some((file) => l.fn.startsWith(`${file} `)))
      .slice(0, 5)
      .map((l) => `${l.fn} ${ms(l.msPerLoad)}`)
      .join(', ')} (frame-guard.js anonymous calls are the MutationObserver callbacks: the Sanitizer's and the taint collector's). ` +
    `Profiled on 2026-11-30 (issue 18): the +28 ms a task used to add over the control was our scripts' JS, not waiting. By elimination (25 loads per arm, DCL medians): a task with the content scripts unregistered loaded like no extension (network floor, webRequest listener and privacy settings cost nothing measurable), removing the floor's session rules changed nothing, our registration with empty script files cost within a few ms of the control (+4 ms in that run, noisy); MAIN alone, ISOLATED alone and the Sanitizer off each removed part of it. The old figure "our scripts' CPU 2.1 ms per load" came from a CDP CPU profile, which keeps sampling only the document it started in (113 ms of a 2.3 s window of 20 loads); the trace showed ≈ 27 ms of our JS per load: the Sanitizer ≈ 16 ms (its observer visited each node once per ancestor the parser reported — six times for a table cell — asked chrome.dom.openOrClosedShadowRoot about every element, and rescanned the whole document at DOMContentLoaded and again at load), page-hooks.js install ≈ 7 ms (a synchronous blob: URL registration for XHR's block path), the taint collector ≈ 4 ms (its pagehide flush re-read every inserted subtree). Fixed since: one visit per node per batch, shadow roots asked only of elements that can host one, the two rescans reduced to rechecking style-dependent blocks and finding new shadow roots, the taint flush reads the document once, the blob: URL made on the first block. Second round (a trace with V8's sampling profiler, disabled-by-default-v8.cpu_profiler): the Sanitizer's observer was binding calls, not its rules (a walk up from every text node to its block, the tag read four times per element), now handed down the descent; the MAIN markup observer (≈ 1.5 ms, a callback per parser batch) watches the document only once a fragment or parsed document holds a parked load; compiling our scripts is ≈ 0.05 ms per load (v8.compile), so a code cache is no lever. Third round (2026-12-01, the split by event above, in thread time): the navigation timing of the guarded arm matches the floor arm's up to responseEnd (request, response, the previous page's unload), so nothing is waited on: the difference is parse time, our JS plus ≈ 1–1.5 ms spread over port messages, microtask checkpoints, the MAIN → ISOLATED handshake and the parser's mutation records, with no style recalc or layout among it; the Sanitizer's observer read the addedNodes of every parser record (a NodeList each) although the batch had already read the subtree they were inserted into, and walked NodeLists with for…of (≈ 4× slower per element than by index): our JS per load 9.4–9.5 → 7.3–7.4 ms.`;
  const data = { extraCpuOverFloorByEvent: extra, guarded: summarise(dcl.guarded), unguarded: summarise(dcl.unguarded), control: summarise(dcl.control), idle: summarise(dcl.idle), floor: summarise(dcl.floor), noiseMs: noise, contentScriptMsPerLoad: scriptMs, traces, samplesMs: dcl };
  return [
    {
      id: 'page-load-no-task',
      figure: 'Page load with the extension installed and no task running (DOMContentLoaded)',
      target: 'indistinguishable from no extension (within run-to-run noise; no script injected)',
      measured: `added ${ms(idleAdded)} (median ${ms(idle)} vs ${ms(u)}; median paired difference ${ms(paired(dcl.idle, dcl.unguarded))}; noise ±${ms(noise)}, half the interquartile range of the no-extension loads); scripts in the page: ${idleFetchNative ? 'none (fetch is native)' : 'hooks present'}`,
      ratio: `${(idle / u).toFixed(2)}×`,
      verdict: idleFetchNative && Math.abs(idleAdded) <= noise ? 'met' : 'missed',
      method,
      data: { ...data, addedMs: idleAdded, idleFetchNative },
    },
    {
      id: 'page-load-scripts',
      figure: "Our scripts' main-thread time per page load with a task running, over the page-cost control",
      target: `≤ ${SCRIPT_BUDGET_MS} ms main thread per load over the control`,
      measured: `main-thread CPU per load (trace, thread time) guarded ${cpu('guarded')} vs control ${cpu('control')}: ${ms(cpuOverControl)}; of it our scripts' JS (FunctionCall and EvaluateScript in our files) ${ms(scriptMs)}; the floor arm (our extension with a task, script files emptied) ${cpu('floor')}, ${ms(traces.floor.cpuMsPerLoad - traces.control.cpuMsPerLoad)} over the control`,
      ratio: `${(cpuOverControl / SCRIPT_BUDGET_MS).toFixed(2)}× the ${SCRIPT_BUDGET_MS} ms budget`,
      vsFloor: { floor: 'page-cost control (empty content scripts), main-thread CPU per load', value: cpuOverControl, unit: 'ms', target: SCRIPT_BUDGET_MS },
      verdict: cpuOverControl <= SCRIPT_BUDGET_MS ? 'met' : 'missed',
      method: `The page-cost control is bench/controls.ts emptyScriptExtension: an extension whose two content scripts (one ISOLATED, one MAIN, declared like ours: document_start, all frames, match_origin_as_fallback) do nothing. Its main-thread CPU per load is the browser's own cost of injecting two scripts; guarded − control is what our scripts cost the page's main thread (their JS and what it makes the renderer do: port messages, microtasks, mutation records), from the same trace as the page-load row (${PROFILED_LOADS} loads per arm, CDP Tracing devtools.timeline + v8.execute, thread time of the renderer main thread's top-level tasks). Extra over the floor arm by event: ${extra
        .slice(0, 6)
        .map((row) => `${row.event} ${ms(row.ms)}`)
        .join(', ')}.`,
      data: { cpuOverControlMs: cpuOverControl, ourScriptsJsMs: scriptMs, cpuMsPerLoad: Object.fromEntries(Object.entries(traces).map(([arm, t]) => [arm, t.cpuMsPerLoad])), extraCpuOverFloorByEvent: extra },
    },
    {
      id: 'page-load',
      figure: 'Page load with a task running (DOMContentLoaded, our two scripts injected)',
      target: '≤ the empty-script control + 1 ms',
      measured:
        `added ${ms(g - u)} over no extension (median ${ms(g)} vs ${ms(u)}; median paired difference ${ms(paired(dcl.guarded, dcl.unguarded))}); ` +
        `the empty-script control adds ${ms(c - u)}; guarded − control ${ms(g - c)} (paired ${ms(paired(dcl.guarded, dcl.control))}); floor arm (task, script files emptied) − control ${ms(floor - c)} (paired ${ms(paired(dcl.floor, dcl.control))}); our scripts' JS per load (trace) ${ms(scriptMs)}`,
      ratio: `${(g / c).toFixed(2)}× the control`,
      verdict: g - c <= 1 ? 'met' : 'missed',
      method,
      data: { ...data, addedMs: g - u, controlAddedMs: c - u, overControlMs: g - c, floorOverControlMs: floor - c },
    },
  ];
}

/** Where a background.js of our size would leave the cold start within its target. */
const SIZE_COST_TARGET_MS = 2;

function coldStartFigures(cold: Record<ColdArm, number[]>, warm: RoundTripSamples, splits: ColdSplit[], stops: Record<ColdArm, number[]>, wakes: string[]): Figure[] {
  const base = median(warm.unguarded);
  const [g, e, carried, durable] = [median(cold.guarded), median(cold.echo), median(cold.echoCarrying), median(cold.durable)];
  const [gAdded, eAdded, dAdded] = [g - base, e - base, durable - base];
  const ratio = gAdded / dAdded;
  // The size's cost, paired by rotation round (each round starts the echo and the carrying echo cold once).
  const sizeCost = carried - e;
  const pairedSizeCost = median(cold.echoCarrying.map((x, i) => x - (cold.echo[i] ?? NaN)));
  const split = Object.fromEntries(COLD_PHASES.flatMap((phase) => {
    const at = splits.flatMap((s) => (s[phase] === undefined ? [] : [s[phase]]));
    return at.length === 0 ? [] : [[phase, median(at)]];
  })) as ColdSplit;
  const splitWords = COLD_PHASES.filter((p) => split[p] !== undefined).map((p) => `${p} ${ms(split[p]!)}`).join(', ');
  const restops = (xs: number[]) => xs.filter((n) => n > 1).length;
  return [{
    id: 'cold-start',
    figure: 'Cold start: the first decision after the worker stopped (same-origin POST fetch)',
    target: '≤ 1.5× the durable echo\'s cold start (added p50); report ms',
    measured: `added p50 ${ms(gAdded)} (fetch ${ms(g)}, max ${ms(Math.max(...cold.guarded))}); durable echo added p50 ${ms(dAdded)} (fetch ${ms(durable)}); plain echo added p50 ${ms(eAdded)} (fetch ${ms(e)}); the warm unguarded fetch p50 ${ms(base)}`,
    ratio: `${ratio.toFixed(2)}× the durable echo (${(gAdded / eAdded).toFixed(2)}× the plain echo)`,
    vsFloor: { floor: 'durable echo cold start, added p50', value: ratio, unit: '×', target: 1.5 },
    verdict: ratio <= 1.5 ? 'met' : 'missed',
    method:
      `${COLD_STARTS} times per extension, in rotation: CDP ServiceWorker.stopAllWorkers from one extension page kept open for the section, wait until the worker reports stopped and is still stopped 200 ms later (stopped again if something woke it: ${restops(stops.guarded)} of ours and ${restops(stops.echo)} of the echo's needed it), then one POST fetch timed in the page (as the round trip). ` +
      "The page's port was disconnected by the stop, so the fetch reconnects: the browser starts the worker, which evaluates background.js, registers its listeners, and (ours) reopens IndexedDB and reads the task before deciding. Added = median − the warm unguarded fetch p50. " +
      `Where ours goes (median ms after the page's fetch began, from the worker's performance.timeOrigin and the harness build's User Timing marks, src/background/platform/startup-marks.ts): ${splitWords || 'no marks read'}; the rest, to the fetch's end, is the answer's way back to the page and the request itself. ` +
      `The floor, the durable echo (bench/controls.ts durableEchoExtension, seeded with our rules and records as in the round trip), started cold in the same rotation: at its start it opens its IndexedDB database and reads the task record, then answers after one commit. ` +
      `What our script's size costs before any of it runs: the echo carrying our background.js inside a function it never calls (bench/controls.ts echoCarrying), started cold in the same rotation, fetch p50 ${ms(carried)}, ${ms(carried - e)} over the echo.`,
    data: { guarded: summarise(cold.guarded), echo: summarise(cold.echo), echoCarrying: summarise(cold.echoCarrying), durable: summarise(cold.durable), carriedOverEchoMs: carried - e, guardedAddedMs: gAdded, echoAddedMs: eAdded, durableAddedMs: dAdded, split, splitsMs: splits, stopAttempts: stops, wokenAfterStop: wakes, samplesMs: cold },
  }, {
    id: 'bundle-cold-cost',
    figure: "What background.js's size costs a cold start (the echo carrying our script, never run, vs the echo)",
    target: `≤ ${SIZE_COST_TARGET_MS} ms (or background.js ≤ 250 kB, the bundle row)`,
    measured: `carrying echo fetch p50 ${ms(carried)} vs echo ${ms(e)}: ${ms(sizeCost)} (median of the ${COLD_STARTS} rotation-paired differences ${ms(pairedSizeCost)})`,
    ratio: `${(sizeCost / SIZE_COST_TARGET_MS).toFixed(2)}× the ${SIZE_COST_TARGET_MS} ms budget`,
    vsFloor: { floor: 'plain echo cold start', value: sizeCost, unit: 'ms', target: SIZE_COST_TARGET_MS },
    verdict: sizeCost <= SIZE_COST_TARGET_MS ? 'met' : 'missed',
    method: `Both started cold ${COLD_STARTS} times in the cold-start rotation (CDP ServiceWorker.stopAllWorkers, then one POST timed in the page). The carrying echo's background.js is the echo's worker followed by our production-size harness background.js wrapped in a function that is never called, so the difference is the cost of loading, scanning and lazily compiling that much script, before any of it runs; what running it costs is the cold-start row's split (script-start → evaluated).`,
    data: { echo: summarise(cold.echo), echoCarrying: summarise(cold.echoCarrying), sizeCostMs: sizeCost, pairedSizeCostMs: pairedSizeCost },
  }];
}
