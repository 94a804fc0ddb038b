import { startTestServer } from '../e2e/fixtures/server';
import type { TaskPolicyInput } from '../src/core/policy';
import { launchAgentBrowser } from '../src/harness';
import { heavyPage } from './sanitizer';

/**
 * Where the ISOLATED script's time goes on a page load (issue 40): V8's sampling profiles of every renderer,
 * taken from a Chrome trace (`disabled-by-default-v8.cpu_profiler`) while the bench's heavy page
 * (bench/sanitizer.ts) loads, scaled to `AF_PROFILE_ELEMENTS` (default 20000), with the Sanitizer
 * `AF_PROFILE_SANITIZER` (hidden or off; off leaves the taint collector alone in frame-guard.js). A CDP
 * `Profiler` on the page's session sampled only the renderer it started in, and a load in another one
 * (a same-site navigation may swap processes) was missing from its per-load figures: at 1k elements it
 * showed ≈ 11 ms of the Sanitizer's JS per load where this shows ≈ 120. Names are readable with an
 * unminified build:
 *
 *   AF_BENCH_EXTENSION=<unminified harness build> flock /tmp/af-browser.lock npx tsx bench/profile-content.ts
 *
 * Prints inclusive and self time per load of frame-guard.js's functions and the natives they call (a
 * function counted once per sample however deep it recurses; a forced style or layout is the self time of
 * the native, or of the JS function whose property read forced it).
 */

const APP = 'app.test';
const POLICY: TaskPolicyInput = { version: 1, taskId: 'profile-content', issuedAt: 0, expiresAt: null, domains: [APP] };
const elements = Number(process.env.AF_PROFILE_ELEMENTS ?? 20_000);
const mode = process.env.AF_PROFILE_SANITIZER === 'off' ? 'off' : 'hidden';
const loads = Number(process.env.AF_PROFILE_LOADS ?? 3);
const SCRIPT = 'frame-guard.js';

interface TraceEvent {
  name: string;
  pid: number;
  id?: string;
  args?: { data?: { cpuProfile?: { nodes?: { id: number; parent?: number; callFrame: { functionName: string; url?: string; lineNumber?: number } }[]; samples?: number[] }; timeDeltas?: number[] } };
}

/** One sampling profile per traced isolate (pid and profile id), assembled from its ProfileChunk events. */
function summary(events: readonly TraceEvent[], perLoad: number): string[] {
  const frames = new Map<string, { parent?: string; name: string; url: string }>();
  const profiles = new Map<string, { samples: number[]; deltas: number[] }>();
  for (const event of events) {
    if (event.name !== 'ProfileChunk') continue;
    const key = `${event.pid}:${event.id}`;
    const chunk = event.args?.data;
    for (const n of chunk?.cpuProfile?.nodes ?? []) {
      const f = n.callFrame;
      frames.set(`${key}:${n.id}`, { ...(n.parent === undefined ? {} : { parent: `${key}:${n.parent}` }), name: `${f.functionName || '(anonymous)'}${f.url ? ` ${f.url.split('/').pop()}:${(f.lineNumber ?? 0) + 1}` : ''}`, url: f.url ?? '' });
    }
    const profile = profiles.get(key) ?? { samples: [], deltas: [] };
    profile.samples.push(...(chunk?.cpuProfile?.samples ?? []));
    profile.deltas.push(...(chunk?.timeDeltas ?? []));
    profiles.set(key, profile);
  }
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  for (const [key, { samples, deltas }] of profiles) {
    samples.forEach((id, i) => {
      const us = deltas[i + 1] ?? 0;
      const stack: string[] = [];
      for (let n: string | undefined = `${key}:${id}`; n !== undefined; n = frames.get(n)?.parent) stack.push(n);
      // Only samples under our script: its own frames and the natives (DOM calls) it made.
      if (!stack.some((n) => frames.get(n)?.url.endsWith(SCRIPT))) return;
      const names = stack.map((n) => frames.get(n)?.name ?? '(unknown)');
      self.set(names[0]!, (self.get(names[0]!) ?? 0) + us);
      for (const name of new Set(names)) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    });
  }
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([fn, us]) => `${(us / 1000 / perLoad).toFixed(2).padStart(8)} ms  ${fn.slice(0, 160)}`);
  return [`${profiles.size} sampling profiles (a process's isolate each)`, 'inclusive per load:', ...rows(inclusive), '', 'self per load:', ...rows(self)];
}

const server = await startTestServer();
server.setPage('/page', heavyPage(true, Math.max(1, Math.round((elements - 88) / 9))));
const browser = await launchAgentBrowser({ ...(process.env.AF_BENCH_EXTENSION ? { extensionPath: process.env.AF_BENCH_EXTENSION } : {}), sanitizer: mode });
try {
  await browser.setPolicy(POLICY);
  const page = await browser.context.newPage();
  const url = (q: string) => `${server.origin(APP)}/page?${q}`;
  for (let i = 0; i < 2; i++) await page.goto(url(`warm=${i}`), { waitUntil: 'load' });
  const session = await browser.context.newCDPSession(page);
  const events: TraceEvent[] = [];
  session.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as TraceEvent[])));
  const complete = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve));
  await session.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['disabled-by-default-v8.cpu_profiler', 'v8.execute'] } });
  for (let i = 0; i < loads; i++) {
    await page.goto(url(`p=${i}`), { waitUntil: 'load' });
    // The collector's and the Sanitizer's work after load (idle slices, timers) belongs to the load too.
    await page.waitForTimeout(1_500);
  }
  await session.send('Tracing.end');
  await complete;
  const count = await page.evaluate(() => document.getElementsByTagName('*').length);
  process.stdout.write(`${count} elements, Sanitizer ${mode}, ${loads} loads\n${summary(events, loads).join('\n')}\n`);
} finally {
  await browser.close();
  await server.close();
}
