import type { Browser } from '@wxt-dev/browser';
import { evaluateBrowserAction } from '../core/evaluator';
import { parsePolicy, type TaskPolicyInput } from '../core/policy';
import type { Options } from '../messages/protocol';
import { extensionCompiler, type TaskCompiler } from './compile';
import { modelFindings } from '../minimizer/model';
import { buildSessionRules, TAB_ID_NONE, type FloorScope, type Rule } from './dnr';
import { BLOCKED_PAGE_PATH, blockedPageUrl, downloadCall, forbiddenNavigation, guardRecord, parseBlockedPageUrl } from './guards';
import { Monitor, type MessageSender, type MonitorEffects } from './monitor';
import { WAITING_NOTICE } from '../content/bridge';
import { rebindingRecord } from './rebinding';
import { redactUrl } from './redact';
import { TaskStore, type ActiveTask } from './store';
import { reportWithoutCompile } from '../compiler/report';

/**
 * Wiring of the background service worker: browser events → monitor. Every listener is registered
 * synchronously at start-up (MV3 only wakes a worker for listeners registered in its first turn), and
 * each one waits for the monitor, which rebuilds its memory from IndexedDB.
 */

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

/** A 1×1 PNG: Chrome requires an icon on basic notifications. */
const NOTIFICATION_ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * During a task, channels the network floor cannot see are closed through browser settings, and given
 * back when the task ends:
 *  - WebRTC: `disable_non_proxied_udp` — no UDP unless through a proxy, so ICE connectivity checks (STUN
 *    binding requests carrying the username fragment) never reach an address a page names;
 *  - network prediction off: `<link rel=preconnect>` and dns-prefetch open no connection to a host the
 *    task does not name. Chromium's preconnect handler asks `IsPreconnectAllowed`, which reads this
 *    setting (chrome/browser/predictors/loading_predictor_config.cc, via
 *    chrome/browser/predictors/network_hints_handler_impl.cc).
 * Both are checked end to end by e2e/floor-exfil.spec.ts.
 */
async function applyChannelSettings(taskRunning: boolean): Promise<void> {
  const { webRTCIPHandlingPolicy, networkPredictionEnabled } = chrome.privacy.network;
  if (taskRunning) {
    await webRTCIPHandlingPolicy.set({ value: 'disable_non_proxied_udp' });
    await networkPredictionEnabled.set({ value: false });
  } else {
    await webRTCIPHandlingPolicy.clear({});
    await networkPredictionEnabled.clear({});
  }
}

/**
 * Session rules are replaced as a whole, one update at a time, in the order requested. If Chromium
 * refuses the set (a limit, a regex over its budget), the floor is applied again without the taint rules
 * rather than not at all.
 */
function floorUpdater() {
  let chain: Promise<void> = Promise.resolve();
  return (task: ActiveTask | null, options: Options, controlWindows: readonly number[]): Promise<void> => {
    const run = async () => {
      const build = async (withTaint: boolean): Promise<Rule[]> => {
        if (task === null) return [];
        let scope: FloorScope;
        if (options.guardScope === 'all-tabs') {
          const controlTabs = (await Promise.all(controlWindows.map((windowId) => chrome.tabs.query({ windowId }).catch(() => [])))).flat();
          scope = { excludedTabIds: [TAB_ID_NONE, ...controlTabs.flatMap((t) => (t.id === undefined ? [] : [t.id]))] };
        } else {
          scope = { tabIds: task.taskTabIds };
        }
        const input = { policy: task.policy, floorWriteDomains: task.floorWriteDomains, taint: withTaint ? task.taint : [] };
        return buildSessionRules(input, scope, chrome.runtime.id);
      };
      await applyChannelSettings(task !== null).catch((err: unknown) => console.error('AgentsFence: channel settings failed', err));
      const existing = await chrome.declarativeNetRequest.getSessionRules();
      const removeRuleIds = existing.map((r) => r.id);
      try {
        await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds, addRules: await build(true) });
      } catch (err) {
        console.error('AgentsFence: network floor refused with the taint rules, applying it without them', err);
        await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds, addRules: await build(false) });
      }
    };
    const next = chain.then(run, run);
    chain = next.catch((err: unknown) => console.error('AgentsFence: network floor update failed', err));
    return next;
  };
}

function chromeEffects(): Omit<MonitorEffects, 'openOptions'> {
  return {
    now: () => Date.now(),
    newId: () => crypto.randomUUID(),
    applyFloor: floorUpdater(),
    setBadge(count) {
      void chrome.action.setBadgeText({ text: count > 0 ? String(count) : '' }).catch(() => undefined);
      void chrome.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => undefined);
    },
    notify(approval) {
      const what = `${approval.record.tool} → ${approval.destination}`.slice(0, 200);
      void chrome.notifications
        .create(approval.id, { type: 'basic', iconUrl: NOTIFICATION_ICON, title: 'AgentsFence: approval needed', message: `${what}\n${approval.record.reason}`.slice(0, 300), requireInteraction: true })
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
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
  };
}

export interface BackgroundHandle {
  monitor: Promise<Monitor>;
  /** Opens the extension's own control window (popup.html) and remembers it as a place approvals may come from. */
  openControlWindow(path?: string): Promise<number>;
}

export function startBackground(compiler: TaskCompiler = extensionCompiler): BackgroundHandle {
  const extensionOrigin = chrome.runtime.getURL('/').replace(/\/$/, '');
  const effects: MonitorEffects = { ...chromeEffects(), openOptions: () => openControlWindow('/options.html').then(() => undefined) };
  const minimizerModel = (task: string, action: Parameters<typeof modelFindings>[1], options: Options) =>
    modelFindings(task, action, { baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, timeoutMs: 8_000 });
  const monitor = TaskStore.open().then((store) => new Monitor({ store, effects, evaluate: evaluateBrowserAction, compiler, extensionOrigin, minimizerModel }));
  const withMonitor = (fn: (m: Monitor) => Promise<unknown>) => void monitor.then(fn).catch((err: unknown) => console.error('AgentsFence:', err));

  // Messages: the classic sendResponse + `return true` form works with every caller.
  chrome.runtime.onMessage.addListener((raw: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => {
    monitor
      .then((m) => m.handleMessage(raw, sender))
      .then(sendResponse, (err: unknown) => sendResponse({ ok: false, code: 'internal', error: String(err) }));
    return true;
  });

  // Guards: internals, other extensions and our own pages are off limits to guarded tabs.
  const lastGuarded = new Map<number, string>();
  const guardTab = (tabId: number, windowId: number | undefined, url: string) =>
    withMonitor(async (m) => {
      await m.ready;
      if (!m.isGuarded(tabId, windowId)) return;
      const why = forbiddenNavigation(url, extensionOrigin);
      if (why === null || lastGuarded.get(tabId) === url) return;
      lastGuarded.set(tabId, url);
      setTimeout(() => lastGuarded.delete(tabId), 1000);
      await chrome.tabs.update(tabId, { url: 'about:blank' }).catch(() => chrome.tabs.remove(tabId).catch(() => undefined));
      await m.auditGuard(guardRecord(url, why), { tabId, destination: redactUrl(url) });
    });
  chrome.webNavigation.onBeforeNavigate.addListener((details) => {
    if (details.frameId === 0) guardTab(details.tabId, undefined, details.url);
  });
  chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.url !== undefined) guardTab(tabId, tab.windowId, change.url);
  });

  // A top-level navigation the floor blocked fails (net::ERR_BLOCKED_BY_CLIENT, so an agent's page.goto
  // rejects); the tab then shows the blocked page, which says why and can ask the user. Skipped when
  // the agent has already started another navigation in that tab.
  chrome.webNavigation.onErrorOccurred.addListener((details) => {
    if (details.frameId !== 0 || details.error !== 'net::ERR_BLOCKED_BY_CLIENT') return;
    withMonitor(async (m) => {
      await m.ready;
      if (!m.isGuarded(details.tabId)) return;
      const tab = await chrome.tabs.get(details.tabId).catch(() => null);
      if (tab === null || (tab.pendingUrl !== undefined && tab.pendingUrl !== details.url)) return;
      const { check, reason } = m.floorNavigationVerdict(details.url);
      await chrome.tabs.update(details.tabId, { url: blockedPageUrl(extensionOrigin, check, reason, details.url) });
    });
  });

  // The page a blocked navigation lands on: audit the floor's decision.
  chrome.webNavigation.onCommitted.addListener((details) => {
    if (details.frameId !== 0 || !details.url.startsWith(`${extensionOrigin}${BLOCKED_PAGE_PATH}`)) return;
    const parsed = parseBlockedPageUrl(details.url);
    if (parsed !== null) withMonitor((m) => m.auditFloorBlock(parsed.url, parsed.check, parsed.reason, details.tabId));
  });

  // DNS rebinding, after the fact: Chromium reports the address once the response starts.
  const rebindingSeen = new Set<string>();
  chrome.webRequest.onResponseStarted.addListener(
    (details) => {
      if (details.tabId < 0 || details.ip === undefined) return;
      withMonitor(async (m) => {
        await m.ready;
        const task = m.snapshot().task;
        if (task === null || !m.isGuarded(details.tabId)) return;
        const record = rebindingRecord(details, task.policy);
        if (record === null) return;
        const key = `${task.taskId} ${record.targets.domains[0]}`;
        if (rebindingSeen.has(key)) return;
        rebindingSeen.add(key);
        await m.auditGuard(record, { layer: 'network', tabId: details.tabId, destination: redactUrl(details.url) });
      });
    },
    { urls: ['<all_urls>'] },
  );

  // Guard scope `task-tabs`: tabs and popups a task tab opens join the task.
  chrome.tabs.onCreated.addListener((tab) => {
    if (tab.id !== undefined) withMonitor((m) => m.tabOpened(tab.id!, tab.openerTabId));
  });
  chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => withMonitor((m) => m.tabOpened(details.tabId, details.sourceTabId)));
  chrome.windows.onRemoved.addListener((windowId) => withMonitor((m) => m.windowClosed(windowId)));

  // Downloads, decided as browser.download: held in onDeterminingFilename where Chrome offers it, and
  // paused in onCreated (downloads a debugger manages, e.g. Playwright's, skip onDeterminingFilename).
  // One decision per download, whichever event comes first; cancelled unless allowed.
  const downloadDecisions = new Map<number, Promise<'ALLOW' | 'BLOCK'>>();
  // The popup's audit export: a blob only this extension's own pages can mint, never a page's download.
  const isOwnExport = (url: string) => url.startsWith(`blob:chrome-extension://${chrome.runtime.id}/`);
  const decideDownload = (item: Browser.downloads.DownloadItem): Promise<'ALLOW' | 'BLOCK'> => {
    let decision = downloadDecisions.get(item.id);
    if (decision === undefined) {
      decision = monitor
        .then(async (m) => {
          await m.ready;
          if (m.snapshot().task === null || isOwnExport(item.url)) return 'ALLOW' as const;
          return (await m.decide(downloadCall(item), { layer: 'guard', tabId: null, origin: null })).decision;
        })
        .catch(() => 'BLOCK' as const)
        .then(async (verdict) => {
          if (verdict !== 'ALLOW') await chrome.downloads.cancel(item.id).catch(() => undefined);
          setTimeout(() => downloadDecisions.delete(item.id), 60_000);
          return verdict;
        });
      downloadDecisions.set(item.id, decision);
    }
    return decision;
  };
  chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
    void decideDownload(item).then(() => suggest());
    return true;
  });
  chrome.downloads.onCreated.addListener((item) => {
    if (isOwnExport(item.url)) return;
    // Pause before anything else: a small download can finish while the monitor wakes.
    const paused = chrome.downloads.pause(item.id).catch(() => undefined);
    withMonitor(async (m) => {
      await paused;
      await m.ready;
      if (m.snapshot().task === null || (await decideDownload(item)) === 'ALLOW') await chrome.downloads.resume(item.id).catch(() => undefined);
    });
  });

  const openControlWindow = async (path = '/popup.html'): Promise<number> => {
    const m = await monitor;
    const created = chrome.windows.create({ url: chrome.runtime.getURL(path as '/popup.html'), type: 'popup', width: 460, height: 720 }).then((w) => w?.id ?? -1);
    m.expectControlWindow(created);
    const windowId = await created;
    await m.registerControlWindow(windowId);
    return windowId;
  };

  const handle: BackgroundHandle = { monitor, openControlWindow };
  exposeTestHook(handle);
  return handle;
}

/**
 * `globalThis.__agentsfence` in the service worker, for the harness and the e2e suite. Reachable only by
 * code running in the worker itself (or a debugger attached to it — out of scope per the threat model).
 */
function exposeTestHook(handle: BackgroundHandle): void {
  (globalThis as Record<string, unknown>).__agentsfence = {
    handle,
    openControlWindow: handle.openControlWindow,
    async handleMessage(raw: unknown, sender?: MessageSender) {
      const m = await handle.monitor;
      return m.handleMessage(raw, sender ?? { url: chrome.runtime.getURL('/background.js') });
    },
    /** Installs a precise policy as the active task (tests only; the user path is task.start). */
    async setPolicy(input: TaskPolicyInput) {
      const m = await handle.monitor;
      await m.ready;
      const policy = parsePolicy(input);
      await m.installTask(policy.taskId, '(policy set by the test hook)', policy, reportWithoutCompile('test-hook'));
      return m.snapshot();
    },
    async snapshot() {
      const m = await handle.monitor;
      await m.ready;
      return m.snapshot();
    },
    sessionRules: () => chrome.declarativeNetRequest.getSessionRules(),
  };
}
