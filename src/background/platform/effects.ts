import type { Browser } from '@wxt-dev/browser';
import { WAITING_NOTICE } from '../../content/bridge';
import { floorPolicy, floorUpdater } from '../floor/floor-sync';
import type { MonitorEffects } from '../contracts';
import type { Options } from '../../messages/protocol';
import type { OrgFloor } from '../../core/org';
import type { ActiveTask } from '../task/store';
import { pageScripts, pageScriptSync } from '../floor/registration';

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

/** A 1×1 PNG: Chrome requires an icon on basic notifications. */
const NOTIFICATION_ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** chrome.storage.session: the floor this browser session last applied in full (floorKey). */
const APPLIED_FLOOR_KEY = 'appliedFloor';

/** Everything the floor and the registration are built from, and the build that built them. */
function floorKey(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): string {
  const scope = task === null ? null : { policy: floorPolicy(task), floorWriteDomains: task.floorWriteDomains, taint: task.taint, taskTabIds: task.taskTabIds, outsideTabIds: task.outsideTabIds };
  return JSON.stringify([chrome.runtime.getManifest().version, task?.taskId ?? null, scope, options.guardScope, options.sanitizer, controlWindows, org]);
}

/** The monitor's effects in the browser: clock, ids, the network floor, badge, notifications, tabs, timers. */
export function chromeEffects(): Omit<MonitorEffects, 'openOptions' | 'openAuditLog'> {
  const floor = floorUpdater();
  // AF_MAIN_HOOKS is false in the nohooks control build (wxt.config.ts).
  const scripts = pageScriptSync(chrome, pageScripts(import.meta.env.AF_MAIN_HOOKS !== false));
  // The floor first: it holds in the gap before the content scripts run. Once both are in place, the
  // session storage (which lives exactly as long as the session rules: this browser session) remembers
  // what was applied, so a wake repairs only what is missing.
  const applyFloor: MonitorEffects['applyFloor'] = async (task, options, controlWindows, org) => {
    await floor(task, options, controlWindows, org);
    if (!(await scripts(task, options, controlWindows))) return;
    await chrome.storage.session.set({ [APPLIED_FLOOR_KEY]: floorKey(task, options, controlWindows, org) }).catch(() => undefined);
  };
  return {
    now: () => Date.now(),
    newId: () => crypto.randomUUID(),
    applyFloor,
    async repairFloor(task, options, controlWindows, org) {
      const stored = await chrome.storage.session.get(APPLIED_FLOOR_KEY).catch(() => ({}) as Record<string, unknown>);
      if (stored[APPLIED_FLOOR_KEY] !== floorKey(task, options, controlWindows, org)) await applyFloor(task, options, controlWindows, org);
    },
    setBadge(count) {
      void chrome.action.setBadgeText({ text: count > 0 ? String(count) : '' }).catch(() => undefined);
      void chrome.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => undefined);
    },
    notify(approval) {
      const what = `${approval.record.tool} → ${approval.destination}`.slice(0, 200);
      const notification = { type: 'basic' as const, iconUrl: NOTIFICATION_ICON, title: 'AgentsFence: approval needed', message: `${what}\n${approval.record.reason}`.slice(0, 300) };
      // Stays until answered where the browser offers it; Firefox refuses `requireInteraction`, and its
      // notification may fade: the badge and the notice in the agent's tab remain.
      // (Firefox throws its schema errors synchronously: start from a promise so the fallback catches them.)
      void Promise.resolve()
        .then(() => chrome.notifications.create(approval.id, { ...notification, requireInteraction: true }))
        .catch(() => chrome.notifications.create(approval.id, notification))
        .catch(() => undefined);
      if (approval.tabId !== null) {
        const notice = { type: WAITING_NOTICE, tool: approval.record.tool, destination: approval.destination, reason: approval.record.reason, timeoutSeconds: Math.round((approval.expiresAt - approval.createdAt) / 1000) };
        void chrome.tabs.sendMessage(approval.tabId, notice, { frameId: 0 }).catch(() => undefined);
      }
    },
    async activeTabId(controlWindows) {
      const tabs = await chrome.tabs.query({ active: true, windowType: 'normal' });
      const candidates = tabs.filter((t) => t.id !== undefined && !controlWindows.includes(t.windowId));
      const focused = candidates.find((t) => t.highlighted) ?? candidates[0];
      return focused?.id ?? null;
    },
    async openTabIds() {
      return (await chrome.tabs.query({})).flatMap((t) => (t.id === undefined ? [] : [t.id]));
    },
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
    readManaged: () => chrome.storage.managed.get(),
    async insertUserCss({ tabId, frameId, documentId }, css) {
      // By document where the browser names it (a frame that navigated meanwhile is not styled).
      const target = documentId !== undefined ? { tabId, documentIds: [documentId] } : { tabId, frameIds: [frameId] };
      await chrome.scripting.insertCSS({ target, css, origin: 'USER' });
    },
  };
}
