import type { Browser } from '@wxt-dev/browser';
import { evaluateBrowserAction } from '../core/evaluator';
import type { Options } from '../messages/protocol';
import { extensionCompiler, type TaskCompiler } from './compile';
import { minimizerModelOnDemand } from '../llm/model-modes-on-demand';
import { guardDownloads } from './downloads';
import { chromeEffects } from './effects';
import { ANSWER_FRAGMENT, BLOCKED_PAGE_PATH, blockedPageAsk, blockedPageUrl, forbiddenNavigation, guardRecord, isBlockedByExtension, parseBlockedPageUrl } from './guards';
import { BROWSER_TOOLS } from '../core/call';
import { ProposalAnswerSchema } from '../messages/protocol';
import { Monitor, type MessageSender, type MonitorEffects } from './monitor';
import { serveFramePorts } from './port';
import { everyTypeReachesUnnamedSites, rebindingRecord, rebindingTypes } from './rebinding';
import { FloorBlockLog, requestKindOf } from './floor-audit';
import type { TaskPolicy } from '../core/policy';
import { redactUrl } from './redact';
import { TaskStore, type ActiveTask } from './store';
import { onDemandShipper, type Shipper } from '../org/collector-on-demand';
import { startupMark } from './startup-marks';
import { keepWarm } from './keep-warm';

/**
 * Wiring of the background service worker: browser events → monitor. Every listener is registered
 * synchronously at start-up (MV3 only wakes a worker for listeners registered in its first turn), and
 * each one waits for the monitor, which rebuilds its memory from IndexedDB.
 */

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

export interface BackgroundHandle {
  monitor: Promise<Monitor>;
  /** Opens the extension's own control window (popup.html) and remembers it as a place approvals may come from. */
  openControlWindow(path?: string): Promise<number>;
}

/** Control windows: the popup's and the options page's size, and the audit log's full page. */
const CONTROL_WINDOW = { width: 460, height: 720 };
const AUDIT_WINDOW = { width: 1040, height: 760 };

/** The alarm that wakes a restarted worker to retry shipping the audit log. */
const COLLECTOR_ALARM = 'agentsfence-collector-retry';

export function startBackground(compiler: TaskCompiler = extensionCompiler): BackgroundHandle {
  const extensionOrigin = chrome.runtime.getURL('/').replace(/\/$/, '');
  let shipper: Shipper | null = null;
  const browserEffects = chromeEffects();
  // Set below, once the listener exists; the floor is never applied before the monitor is (monitor.ready).
  let watchEveryType: (policy: TaskPolicy | null) => void = () => undefined;
  let watchRefusals: (running: boolean) => void = () => undefined;
  const warmth = keepWarm({
    ping: () => chrome.runtime.getPlatformInfo(),
    now: () => Date.now(),
    every(fn, ms) {
      const handle = setInterval(fn, ms);
      return () => clearInterval(handle);
    },
  });
  // The rebinding listener and the keep-warm follow the task, like the floor: when it is applied and on every wake.
  const followTask = (task: ActiveTask | null) => {
    watchEveryType(task?.policy ?? null);
    watchRefusals(task !== null);
    warmth.follow(task !== null);
  };
  const effects: MonitorEffects = {
    ...browserEffects,
    applyFloor: (task, ...rest) => {
      followTask(task);
      return browserEffects.applyFloor(task, ...rest);
    },
    repairFloor: (task, ...rest) => {
      followTask(task);
      return (browserEffects.repairFloor ?? browserEffects.applyFloor)(task, ...rest);
    },
    openOptions: () => openControlWindow('/options.html').then(() => undefined),
    openAuditLog: () => openControlWindow('/audit.html', AUDIT_WINDOW).then(() => undefined),
    audited: () => {
      warmth.activity();
      shipper?.kick();
    },
  };
  const minimizerModel = (task: string, action: Parameters<typeof minimizerModelOnDemand>[1], options: Options) =>
    minimizerModelOnDemand(task, action, { baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, timeoutMs: 8_000 });
  const monitor = TaskStore.open().then((store) => {
    startupMark('store-open');
    const m = new Monitor({ store, effects, evaluate: evaluateBrowserAction, compiler, extensionOrigin, minimizerModel });
    // The organisation's collector: entries still waiting from before a restart go out on every wake.
    shipper = onDemandShipper({
      store,
      async collectorUrl() {
        await m.ready;
        const org = m.orgState();
        return org.status === 'active' ? (org.policy.collectorUrl ?? null) : null;
      },
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      newId: () => crypto.randomUUID(),
      version: chrome.runtime.getManifest().version,
      setTimer: effects.setTimer,
      wakeLater: (ms) => void chrome.alarms.create(COLLECTOR_ALARM, { when: Date.now() + ms }),
    });
    shipper.kick();
    void m.ready.then(() => startupMark('ready'));
    return m;
  });
  const withMonitor = (fn: (m: Monitor) => Promise<unknown>) => void monitor.then(fn).catch((err: unknown) => console.error('AgentsFence:', err));
  // The browser started: session rules are gone, so the floor is applied at once rather than after an answer.
  chrome.runtime.onStartup.addListener(() =>
    withMonitor(async (m) => {
      await m.browserStarted();
      await m.repairAfterWake();
    }),
  );
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === COLLECTOR_ALARM) withMonitor(async () => shipper?.flush());
  });

  // The organisation's floor changed (enterprise policy pushed anew): apply it at once.
  chrome.storage.onChanged.addListener((_changes, area) => {
    if (area === 'managed')
      withMonitor(async (m) => {
        await m.orgChanged();
        shipper?.kick();
      });
  });

  // Each guarded frame's port (proposals, taint, Sanitizer): the content scripts' path.
  serveFramePorts(chrome.runtime, monitor);

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
    if (details.frameId !== 0) return;
    guardTab(details.tabId, undefined, details.url);
    withMonitor((m) => m.tabNavigating(details.tabId));
  });
  chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (change.url !== undefined) guardTab(tabId, tab.windowId, change.url);
  });

  // A top-level navigation the floor blocked fails (net::ERR_BLOCKED_BY_CLIENT in Chromium, NS_ERROR_ABORT
  // in Firefox, so an agent's page.goto
  // rejects); the tab then shows the blocked page, which says why and can ask the user. Skipped when
  // the agent has already started another navigation in that tab.
  const retried = new Set<string>();
  chrome.webNavigation.onErrorOccurred.addListener((details) => {
    if (details.frameId !== 0 || !isBlockedByExtension(details.error)) return;
    withMonitor(async (m) => {
      await m.ready;
      if (!m.isGuarded(details.tabId)) {
        // Guard scope `task-tabs`: a new tab is guarded until it is placed outside the task, and its first
        // navigation can start before the floor has heard. Once it has, the navigation goes again (once
        // per tab and address: the organisation's floor may refuse it too).
        const key = `${details.tabId} ${details.url}`;
        if (m.snapshot().task === null || retried.has(key)) return;
        retried.add(key);
        setTimeout(() => retried.delete(key), 10_000);
        await m.floorCurrent();
        await chrome.tabs.update(details.tabId, { url: details.url }).catch(() => undefined);
        return;
      }
      const tab = await chrome.tabs.get(details.tabId).catch(() => null);
      if (tab === null || (tab.pendingUrl !== undefined && tab.pendingUrl !== details.url)) return;
      const { check, reason } = m.floorVerdict({ tool: BROWSER_TOOLS.navigate, args: { url: details.url } });
      await chrome.tabs.update(details.tabId, { url: blockedPageUrl(extensionOrigin, check, reason, details.url) });
    });
  });

  // The page a blocked navigation lands on: audit the floor's decision.
  // (Both blocked-page listeners are filtered to that page: no other navigation wakes or reaches the worker.)
  const onBlockedPage = { url: [{ urlPrefix: `${extensionOrigin}${BLOCKED_PAGE_PATH}` }] };
  chrome.webNavigation.onCommitted.addListener((details) => {
    if (details.frameId !== 0 || !details.url.startsWith(`${extensionOrigin}${BLOCKED_PAGE_PATH}`)) return;
    const parsed = parseBlockedPageUrl(details.url);
    if (parsed !== null) withMonitor((m) => m.auditFloorBlock(parsed.url, parsed.check, parsed.reason, details.tabId));
  }, onBlockedPage);

  // "Ask the user" on the sandboxed blocked page (guards.ts, ASK_FRAGMENT): proposed for its tab; on ALLOW
  // the tab opens the page, otherwise the page is told why (while it still shows).
  chrome.webNavigation.onReferenceFragmentUpdated.addListener((details) => {
    const ask = details.frameId === 0 ? blockedPageAsk(details.url, extensionOrigin) : null;
    if (ask === null) return;
    withMonitor(async (m) => {
      const proposal = { type: 'proposal', id: crypto.randomUUID(), call: { tool: BROWSER_TOOLS.navigate, args: { url: ask.blocked.url } }, layer: 'isolated' };
      const answer = ProposalAnswerSchema.safeParse(await m.handleMessage(proposal, { url: ask.page, tab: { id: details.tabId }, frameId: 0 }));
      const tab = await chrome.tabs.get(details.tabId).catch(() => null);
      if (tab?.url?.startsWith(ask.page) !== true) return;
      const allowed = answer.success && answer.data.decision === 'ALLOW';
      const url = allowed ? ask.blocked.url : `${ask.page}#${ANSWER_FRAGMENT}${encodeURIComponent(answer.success ? answer.data.reason : 'no valid answer')}`;
      await chrome.tabs.update(details.tabId, { url }).catch(() => undefined);
    });
  }, onBlockedPage);

  // A guarded page's request the floor refused before any hook saw it (a dependency, a worker's or a
  // frame's request, every request once the hooks are bypassed): audited, bounded per tab (floor-audit.ts).
  // Only while a task runs (no task, no rules of ours, and another extension's blocks must not wake us).
  const refusals = new FloorBlockLog();
  const onRefused = (details: { tabId: number; url: string; method: string; type: string; error: string }) => {
    if (details.tabId < 0 || details.type === 'main_frame' || !isBlockedByExtension(details.error)) return;
    const kind = requestKindOf(details.type);
    if (!refusals.admit(details.tabId, details.url, kind, Date.now())) return;
    withMonitor((m) => m.auditFloorRequest({ url: details.url, method: details.method, kind, tabId: details.tabId }));
  };
  const refused = chrome.webRequest.onErrorOccurred;
  // Registered in the first turn (an event that wakes a stopped worker reaches only those), removed once the floor shows no task.
  refused.addListener(onRefused, { urls: ['<all_urls>'] });
  watchRefusals = (running) => {
    watchRequests(running);
    if (running === refused.hasListener(onRefused)) return;
    if (running) refused.addListener(onRefused, { urls: ['<all_urls>'] });
    else refused.removeListener(onRefused);
  };

  // The dependency ledger (src/background/dependency-floor.ts): every request the guarded tabs and their
  // workers start, as it leaves (MV3's webRequest observes; the floor's rules are what block). Registered in
  // the first turn and removed once the floor shows no task, as the refusal listener is.
  const onRequest = (details: { tabId: number; url: string; type: string; initiator?: string }): undefined => {
    // Extensions' own requests (ours, and others', which the browser keeps out of our rules) are no page's dependencies.
    if (details.tabId < 0 && /^(?:chrome|moz)-extension:/.test(details.initiator ?? '')) return;
    withMonitor((m) => m.observeRequest({ url: details.url, type: details.type, tabId: details.tabId }));
  };
  const starting = chrome.webRequest.onBeforeRequest;
  starting.addListener(onRequest, { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] });
  const watchRequests = (running: boolean) => {
    if (running === starting.hasListener(onRequest)) return;
    if (running) starting.addListener(onRequest, { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] });
    else starting.removeListener(onRequest);
  };

  // DNS rebinding, after the fact: Chromium reports the address once the response starts. Only the
  // request types that can reach a site the task does not name (src/background/rebinding.ts): a page's
  // dependencies always, every other type while the task's policy lets them (`watchEveryType`).
  const rebindingSeen = new Set<string>();
  const onResponseStarted = (details: { tabId: number; ip?: string; url: string }) => {
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
  };
  type WebRequestType = `${Browser.webRequest.ResourceType}`;
  const types = rebindingTypes(Object.values((chrome.webRequest as { ResourceType?: Record<string, string> }).ResourceType ?? {}));
  const responseStarted = chrome.webRequest.onResponseStarted;
  responseStarted.addListener(onResponseStarted, { urls: ['<all_urls>'], types: types.dependencies as WebRequestType[] });
  const onOtherResponseStarted: typeof onResponseStarted = (details) => onResponseStarted(details);
  const otherTypes = { urls: ['<all_urls>'], ...(types.others !== null ? { types: types.others as WebRequestType[] } : {}) };
  // Registered in the first turn too, and removed once the floor shows the task does not need it: a
  // response that woke a stopped worker is delivered only to listeners that exist in that turn.
  responseStarted.addListener(onOtherResponseStarted, otherTypes);
  watchEveryType = (policy) => {
    const wanted = policy !== null && everyTypeReachesUnnamedSites(policy);
    if (wanted === responseStarted.hasListener(onOtherResponseStarted)) return;
    if (!wanted) responseStarted.removeListener(onOtherResponseStarted);
    else responseStarted.addListener(onOtherResponseStarted, otherTypes);
  };

  // Guard scope `task-tabs`: tabs and popups a task tab opens join the task; the others are placed outside
  // it on evidence (src/background/session.ts, tabCreated).
  chrome.tabs.onCreated.addListener((tab) => {
    if (tab.id !== undefined) withMonitor((m) => m.tabCreated(tab.id!, tab.openerTabId, tab.pendingUrl ?? tab.url));
  });
  chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => withMonitor((m) => m.navigationTargetCreated(details.tabId, details.sourceTabId)));
  chrome.tabs.onRemoved.addListener((tabId) => withMonitor((m) => m.tabClosed(tabId)));
  chrome.windows.onRemoved.addListener((windowId) => withMonitor((m) => m.windowClosed(windowId)));

  guardDownloads(chrome.downloads, monitor, extensionOrigin);

  const openControlWindow = async (path = '/popup.html', size = CONTROL_WINDOW): Promise<number> => {
    const m = await monitor;
    const created = chrome.windows.create({ url: chrome.runtime.getURL(path as '/popup.html'), type: 'popup', ...size }).then((w) => w?.id ?? -1);
    m.expectControlWindow(created);
    const windowId = await created;
    await m.registerControlWindow(windowId);
    return windowId;
  };

  return { monitor, openControlWindow };
}
