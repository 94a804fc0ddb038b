import { startTestServer } from '../e2e/fixtures/server';
import type { TaskPolicyInput } from '../src/core/policy';
import { launchAgentBrowser } from '../src/harness';
import type { CpuProfile } from './chromium';
import { heavyPage } from './sanitizer';

/**
 * Where the ISOLATED script's time goes on a page load (issue 40): a V8 CPU profile of the renderer
 * (Profiler.start on the page's session keeps sampling across same-site loads; 100 µs sampling) while the
 * bench's heavy page (bench/sanitizer.ts) loads, scaled to `AF_PROFILE_ELEMENTS` (default 20000), with
 * the Sanitizer `AF_PROFILE_SANITIZER` (hidden or off; off leaves the taint collector alone in
 * frame-guard.js). Names are readable with an unminified build:
 *
 *   AF_BENCH_EXTENSION=<unminified harness build> flock /tmp/af-browser.lock npx tsx bench/profile-content.ts
 *
 * Prints inclusive and self time per load of frame-guard.js's functions (a function counted once per
 * sample however deep it recurses).
 */

const APP = 'app.test';
const POLICY: TaskPolicyInput = { version: 1, taskId: 'profile-content', issuedAt: 0, expiresAt: null, domains: [APP] };
const elements = Number(process.env.AF_PROFILE_ELEMENTS ?? 20_000);
const mode = process.env.AF_PROFILE_SANITIZER === 'off' ? 'off' : 'hidden';
const loads = Number(process.env.AF_PROFILE_LOADS ?? 3);
const SCRIPT = 'frame-guard.js';

function summary(profile: CpuProfile, perLoad: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  const self = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const name = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anonymous)'}${f.url ? ` ${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`;
  };
  samples.forEach((id, i) => {
    const us = deltas[i + 1] ?? 0;
    // Only samples under our script: its own frames and the natives (DOM calls) it made.
    const stack: number[] = [];
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) stack.push(n);
    if (!stack.some((n) => (byId.get(n)!.callFrame.url ?? '').endsWith(SCRIPT))) return;
    self.set(name(id), (self.get(name(id)) ?? 0) + us);
    for (const key of new Set(stack.map(name))) inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  });
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([fn, us]) => `${(us / 1000 / perLoad).toFixed(2).padStart(8)} ms  ${fn}`);
  return ['inclusive per load:', ...rows(inclusive), '', 'self per load:', ...rows(self)];
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
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 100 });
  await session.send('Profiler.start');
  for (let i = 0; i < loads; i++) {
    await page.goto(url(`p=${i}`), { waitUntil: 'load' });
    // The collector's and the Sanitizer's work after load (idle slices, timers) belongs to the load too.
    await page.waitForTimeout(1_500);
  }
  const { profile } = (await session.send('Profiler.stop')) as unknown as { profile: CpuProfile };
  const count = await page.evaluate(() => document.getElementsByTagName('*').length);
  process.stdout.write(`${count} elements, Sanitizer ${mode}, ${loads} loads\n${summary(profile, loads).join('\n')}\n`);
} finally {
  await browser.close();
  await server.close();
}
