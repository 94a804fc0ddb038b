import 'fake-indexeddb/auto';
import { decideClassified } from '../../src/core/evaluator';
import type { TaskCompiler } from '../../src/background/task/compile';
import { composeBackground, type Background } from '../../src/background';
import { TaskStore, type ActiveTask } from '../../src/background/task/store';
import { floorPolicy } from '../../src/background/floor/floor-sync';
import type { TaskPolicy } from '../../src/core/policy';
import { reportWithoutCompile } from '../../src/compiler/report';
import type { MonitorEffects } from '../../src/background/contracts';

export const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
export const POPUP = { url: `${EXTENSION_ORIGIN}/popup.html` };
export const PAGE = (tabId = 7) => ({ url: 'http://app.test/inbox', tab: { id: tabId, windowId: 1 }, frameId: 0 });

/** Effects without a browser: a manual clock, manual timers, recorded floor updates. */
export class FakeEffects implements MonitorEffects {
  clock = 1_000_000;
  ids = 0;
  /** Each floor applied: the task, its write sites and the grants the floor holds (floorPolicy). */
  floors: { taskId: string | null; writes: string[]; grants: string[] }[] = [];
  badge = 0;
  notified: string[] = [];
  timers: { fn: () => void; at: number; live: boolean }[] = [];
  activeTab: number | null = 7;

  now = () => this.clock;
  newId = () => `id-${++this.ids}`;
  applyFloor = async (task: ActiveTask | null) => {
    this.floors.push({ taskId: task?.taskId ?? null, writes: task ? [...task.floorWriteDomains] : [], grants: task ? floorPolicy(task).grants.map((g) => g.id) : [] });
  };
  setBadge = (count: number) => {
    this.badge = count;
  };
  notify = (approval: { id: string }) => {
    this.notified.push(approval.id);
  };
  activeTabId = async () => this.activeTab;
  openTabs: number[] = [7];
  openTabIds = async () => [...this.openTabs];
  optionsOpened = 0;
  openOptions = async () => {
    this.optionsOpened++;
  };
  auditLogOpened = 0;
  openAuditLog = async () => {
    this.auditLogOpened++;
  };
  setTimer = (fn: () => void, ms: number) => {
    const timer = { fn, at: this.clock + ms, live: true };
    this.timers.push(timer);
    return () => {
      timer.live = false;
    };
  };
  /** Advance the clock and fire due timers. */
  advance(ms: number): void {
    this.clock += ms;
    for (const t of this.timers) {
      if (t.live && t.at <= this.clock) {
        t.live = false;
        t.fn();
      }
    }
  }
}

export const fixedCompiler = (policy: (taskId: string, now: number) => TaskPolicy): TaskCompiler => ({
  async compileTask(_request, opts) {
    return { policy: policy(opts.taskId, opts.now), report: reportWithoutCompile('fixed') };
  },
  async compileFollowUp(previous) {
    return { policy: previous, report: reportWithoutCompile('fixed') };
  },
});

let dbCounter = 0;

export async function freshStore(auditLimit?: number): Promise<{ store: TaskStore; name: string }> {
  const name = `af-test-${++dbCounter}-${Date.now()}`;
  return { store: await TaskStore.open(name, auditLimit), name };
}

export async function monitorOn(store: TaskStore, effects: FakeEffects, compiler: TaskCompiler = fixedCompiler(() => { throw new Error('no compiler'); })): Promise<Background> {
  const monitor = composeBackground({ store, effects, evaluate: decideClassified, compiler, extensionOrigin: EXTENSION_ORIGIN });
  await monitor.ready;
  return monitor;
}

export function proposal(id: string, call: unknown, layer: 'isolated' | 'main' = 'main') {
  return { type: 'proposal', id, call, layer };
}

/** Let queued promise callbacks (and fake-indexeddb's) run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Wait until `condition` holds (fake-indexeddb is slow under load); fails after 5 s. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached within 5 s');
}
