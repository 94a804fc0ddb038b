import type { Browser } from '@wxt-dev/browser';
import { decideClassified } from '../core/evaluator';
import type { DecisionRecord } from '../core/decision';
import type { MessageType, Options, Reply } from '../messages/protocol';
import { extensionCompiler, type TaskCompiler } from './task/compile';
import { minimizerModelOnDemand } from '../llm/model-modes-on-demand';
import { guardDownloads } from './floor/downloads';
import { chromeEffects } from './platform/effects';
import { ANSWER_FRAGMENT, BLOCKED_PAGE_PATH, blockedPageAsk, blockedPageUrl, forbiddenNavigation, guardRecord, isBlockedByExtension, parseBlockedPageUrl } from './floor/guards';
import { BROWSER_TOOLS } from '../core/call';
import { ProposalAnswerSchema } from '../messages/protocol';
import type { MessageSender, MonitorDeps, MonitorEffects } from './contracts';
import { ApprovalQueue } from './decide/approvals';
import { Decider } from './decide/decider';
import { SanitizerDesk } from './decide/sanitizer';
import { MessageRouter } from './intake/router';
import { serveFramePorts } from './intake/port';
import { everyTypeReachesUnnamedSites, rebindingRecord, rebindingTypes } from './floor/rebinding';
import { FloorBlockLog, requestKindOf } from './floor/floor-audit';
import type { TaskPolicy } from '../core/policy';
import { redactUrl } from './decide/redact';
import { AuditWriter } from './task/audit';
import { TaskSession } from './task/session';
import { TaskStore, type ActiveTask, type StoredApproval, type StoredAuditEntry } from './task/store';
import { onDemandShipper, type Shipper } from '../org/collector-on-demand';
import { startupMark } from './platform/startup-marks';
import { keepWarm } from './platform/keep-warm';

/** A wake that no message follows (an alarm, the browser starting) repairs after this long. */
const WAKE_REPAIR_DELAY_MS = 200;

/**
 * The background's parts, composed once (composeBackground): intake (the router) hands a parsed proposal
 * to the decider, which asks the core evaluator and hands the outcome to the approval queue or the audit
 * writer; the session holds the task. Browser events go straight to the session and the decider.
 */
export interface Background {
  /** Memory rebuilt from IndexedDB (every wake): everything but parsing waits for it. */
  readonly ready: Promise<void>;
  readonly store: TaskStore;
  readonly session: TaskSession;
  readonly decider: Decider;
  readonly approvals: ApprovalQueue;
  readonly writer: AuditWriter;
  /** Intake: every runtime message and port envelope enters here. */
  readonly router: MessageRouter;
  /** Total: every input gets an answer; nothing here throws. */
  handleMessage(raw: unknown, sender: MessageSender): Promise<Reply<MessageType>>;
  /** The repairs a wake owes (session.repairAfterWake), once per worker, after the first answer. */
  repairAfterWake(): Promise<void>;
  /** A guard or the floor stopped something: audited under the active task. */
  auditGuard(record: DecisionRecord, extra?: Partial<StoredAuditEntry>): Promise<void>;
  /** For tests and the harness: the durable view of the background's memory. */
  snapshot(): { task: ActiveTask | null; approvals: StoredApproval[]; controlWindows: number[]; options: Options };
}

/**
 * The one composition root of the background's parts (the unit tests compose them with fakes here too).
 * The approval queue re-decides a held call through the decider, which holds calls in the queue: the
 * queue reaches the decider through a function, so neither imports the other.
 */
export function composeBackground(deps: MonitorDeps): Background {
  const writer: AuditWriter = new AuditWriter(deps.store, deps.effects, () => session.task);
  const approvals: ApprovalQueue = new ApprovalQueue(deps.store, deps.effects, writer, {
    task: () => session.task,
    options: () => session.options,
    applyFloor: () => session.applyFloor(),
    redecide: (task, waiter, minimizer) => decider.redecide(task, waiter, minimizer),
  });
  const session: TaskSession = new TaskSession(deps, writer, approvals);
  const decider: Decider = new Decider({ effects: deps.effects, evaluate: deps.evaluate, minimizerModel: deps.minimizerModel, session, approvals, writer });
  const ready = session.load();
  const sanitizer = new SanitizerDesk(
    {
      modeFor: (sender) => (session.isGuarded(sender.tab?.id, sender.tab?.windowId) && sender.tab?.id !== undefined ? session.options.sanitizer : 'off'),
      task: () => session.task,
      options: () => session.options,
      audit: (record, where) => writer.audit({ record, layer: 'isolated', ...where }),
      insertUserCss: (target, css) => deps.effects.insertUserCss?.(target, css) ?? Promise.resolve(),
    },
    deps.reviewer,
  );
  const router = new MessageRouter({ ready, base: deps, writer, session, approvals, sanitizer, decisions: decider });
  // A wake's repairs follow its first answer, or a moment after the wake when nothing asks: on a cold
  // start the first answer does not wait for them, nor share the browser with them.
  let wakeRepair: Promise<void> | null = null;
  const repairAfterWake = (): Promise<void> => {
    wakeRepair ??= ready.then(() => session.repairAfterWake()).catch((err: unknown) => console.error('AgentsFence: repair after wake failed', err));
    return wakeRepair;
  };
  void ready.then(() => deps.effects.setTimer(() => void repairAfterWake(), WAKE_REPAIR_DELAY_MS)).catch(() => undefined);
  return {
    ready,
    store: deps.store,
    session,
    decider,
    approvals,
    writer,
    router,
    handleMessage(raw, sender) {
      const answer = router.handleMessage(raw, sender);
      if (wakeRepair === null) void answer.then(() => repairAfterWake());
      return answer;
    },
    repairAfterWake,
    async auditGuard(record, extra = {}) {
      await ready;
      await writer.audit({ record, layer: 'guard', ...extra });
    },
    snapshot: () => ({ task: session.task, approvals: approvals.list(), controlWindows: session.windows(), options: session.options }),
  };
}

/**
 * Wiring of the background service worker: browser events → the session and the decider. Every listener
 * is registered synchronously at start-up (MV3 only wakes a worker for listeners registered in its first
 * turn), and each one waits for the background's memory, rebuilt from IndexedDB (`ready`).
 */

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

export interface BackgroundHandle {
  monitor: Promise<Background>;
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
  // Set below, once the listener exists; the floor is never applied before memory is back (ready).
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
    const b = composeBackground({ store, effects, evaluate: decideClassified, compiler, extensionOrigin, minimizerModel });
    // The organisation's collector: entries still waiting from before a restart go out on every wake.
    shipper = onDemandShipper({
      store,
      async collectorUrl() {
        await b.ready;
        const org = b.session.orgState;
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
    void b.ready.then(() => startupMark('ready'));
    return b;
  });
  // Every event waits for memory to be back before it reaches the session or the decider.
  const withBackground = (fn: (b: Background) => Promise<unknown>) =>
    void monitor
      .then(async (b) => {
        await b.ready;
        return fn(b);
      })
      .catch((err: unknown) => console.error('AgentsFence:', err));
  // The browser started: session rules are gone, so the floor is applied at once rather than after an answer.
  chrome.runtime.onStartup.addListener(() =>
    withBackground(async (b) => {
      await b.session.browserStarted();
      await b.repairAfterWake();
    }),
  );
  chrome.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === COLLECTOR_ALARM) void monitor.then(() => shipper?.flush()).catch((err: unknown) => console.error('AgentsFence:', err));
  });

  // The organisation's floor changed (enterprise policy pushed anew): apply it at once.
  chrome.storage.onChanged.addListener((_changes, area) => {
    if (area === 'managed')
      withBackground(async (b) => {
        await b.session.orgChanged();
        shipper?.kick();
      });
  });

  // Each guarded frame's port (proposals, taint, Sanitizer): the content scripts' path.
  serveFramePorts(chrome.runtime, monitor);

  // Messages: the classic sendResponse + `return true` form works with every caller.
  chrome.runtime.onMessage.addListener((raw: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => {
    monitor
      .then((b) => b.handleMessage(raw, sender))
      .then(sendResponse, (err: unknown) => sendResponse({ ok: false, code: 'internal', error: String(err) }));
    return true;
  });

  // Guards: internals, other extensions and our own pages are off limits to guarded tabs.
  const lastGuarded = new Map<number, string>();
  const guardTab = (tabId: number, windowId: number | undefined, url: string) =>
    withBackground(async (b) => {
      if (!b.session.isGuarded(tabId, windowId)) return;
      const why = forbiddenNavigation(url, extensionOrigin);
      if (why === null || lastGuarded.get(tabId) === url) return;
      lastGuarded.set(tabId, url);
      setTimeout(() => lastGuarded.delete(tabId), 1000);
      await chrome.tabs.update(tabId, { url: 'about:blank' }).catch(() => chrome.tabs.remove(tabId).catch(() => undefined));
      await b.auditGuard(guardRecord(url, why), { tabId, destination: redactUrl(url) });
    });
  chrome.webNavigation.onBeforeNavigate.addListener((details) => {
    if (details.frameId !== 0) return;
    guardTab(details.tabId, undefined, details.url);
    withBackground((b) => b.session.tabNavigating(details.tabId));
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
    withBackground(async (b) => {
      if (!b.session.isGuarded(details.tabId)) {
        // Guard scope `task-tabs`: a new tab is guarded until it is placed outside the task, and its first
        // navigation can start before the floor has heard. Once it has, the navigation goes again (once
        // per tab and address: the organisation's floor may refuse it too).
        const key = `${details.tabId} ${details.url}`;
        if (b.session.task === null || retried.has(key)) return;
        retried.add(key);
        setTimeout(() => retried.delete(key), 10_000);
        await b.session.applyFloor();
        await chrome.tabs.update(details.tabId, { url: details.url }).catch(() => undefined);
        return;
      }
      const tab = await chrome.tabs.get(details.tabId).catch(() => null);
      if (tab === null || (tab.pendingUrl !== undefined && tab.pendingUrl !== details.url)) return;
      const { check, reason } = b.decider.floorVerdict({ tool: BROWSER_TOOLS.navigate, args: { url: details.url } });
      await chrome.tabs.update(details.tabId, { url: blockedPageUrl(extensionOrigin, check, reason, details.url) });
    });
  });

  // The page a blocked navigation lands on: audit the floor's decision.
  // (Both blocked-page listeners are filtered to that page: no other navigation wakes or reaches the worker.)
  const onBlockedPage = { url: [{ urlPrefix: `${extensionOrigin}${BLOCKED_PAGE_PATH}` }] };
  chrome.webNavigation.onCommitted.addListener((details) => {
    if (details.frameId !== 0 || !details.url.startsWith(`${extensionOrigin}${BLOCKED_PAGE_PATH}`)) return;
    const parsed = parseBlockedPageUrl(details.url);
    if (parsed !== null) withBackground((b) => b.decider.auditFloorBlock(parsed.url, parsed.check, parsed.reason, details.tabId));
  }, onBlockedPage);

  // "Ask the user" on the sandboxed blocked page (guards.ts, ASK_FRAGMENT): proposed for its tab; on ALLOW
  // the tab opens the page, otherwise the page is told why (while it still shows).
  chrome.webNavigation.onReferenceFragmentUpdated.addListener((details) => {
    const ask = details.frameId === 0 ? blockedPageAsk(details.url, extensionOrigin) : null;
    if (ask === null) return;
    withBackground(async (b) => {
      const proposal = { type: 'proposal', id: crypto.randomUUID(), call: { tool: BROWSER_TOOLS.navigate, args: { url: ask.blocked.url } }, layer: 'isolated' };
      const answer = ProposalAnswerSchema.safeParse(await b.handleMessage(proposal, { url: ask.page, tab: { id: details.tabId }, frameId: 0 }));
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
    withBackground((b) => b.decider.auditFloorRequest({ url: details.url, method: details.method, kind, tabId: details.tabId }));
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

  // The dependency ledger (src/background/floor/dependency-floor.ts): every request the guarded tabs and their
  // workers start, as it leaves (MV3's webRequest observes; the floor's rules are what block). Registered in
  // the first turn and removed once the floor shows no task, as the refusal listener is.
  const onRequest = (details: { tabId: number; url: string; type: string; initiator?: string }): undefined => {
    // Extensions' own requests (ours, and others', which the browser keeps out of our rules) are no page's dependencies.
    if (details.tabId < 0 && /^(?:chrome|moz)-extension:/.test(details.initiator ?? '')) return;
    withBackground((b) => b.decider.observeRequest({ url: details.url, type: details.type, tabId: details.tabId }));
  };
  const starting = chrome.webRequest.onBeforeRequest;
  starting.addListener(onRequest, { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] });
  const watchRequests = (running: boolean) => {
    if (running === starting.hasListener(onRequest)) return;
    if (running) starting.addListener(onRequest, { urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] });
    else starting.removeListener(onRequest);
  };

  // DNS rebinding, after the fact: Chromium reports the address once the response starts. Only the
  // request types that can reach a site the task does not name (src/background/floor/rebinding.ts): a page's
  // dependencies always, every other type while the task's policy lets them (`watchEveryType`).
  const rebindingSeen = new Set<string>();
  const onResponseStarted = (details: { tabId: number; ip?: string; url: string }) => {
    if (details.tabId < 0 || details.ip === undefined) return;
    withBackground(async (b) => {
      const task = b.session.task;
      if (task === null || !b.session.isGuarded(details.tabId)) return;
      const record = rebindingRecord(details, task.policy);
      if (record === null) return;
      const key = `${task.taskId} ${record.targets.domains[0]}`;
      if (rebindingSeen.has(key)) return;
      rebindingSeen.add(key);
      await b.auditGuard(record, { layer: 'network', tabId: details.tabId, destination: redactUrl(details.url) });
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
  // it on evidence (src/background/task/session.ts, tabCreated).
  chrome.tabs.onCreated.addListener((tab) => {
    if (tab.id !== undefined) withBackground((b) => b.session.tabCreated(tab.id!, tab.openerTabId, tab.pendingUrl ?? tab.url));
  });
  chrome.webNavigation.onCreatedNavigationTarget.addListener((details) => withBackground((b) => b.session.navigationTargetCreated(details.tabId, details.sourceTabId)));
  chrome.tabs.onRemoved.addListener((tabId) => withBackground((b) => b.session.tabClosed(tabId)));
  chrome.windows.onRemoved.addListener((windowId) => withBackground((b) => b.session.windowClosed(windowId)));

  guardDownloads(chrome.downloads, monitor, extensionOrigin);

  const openControlWindow = async (path = '/popup.html', size = CONTROL_WINDOW): Promise<number> => {
    const b = await monitor;
    const created = chrome.windows.create({ url: chrome.runtime.getURL(path as '/popup.html'), type: 'popup', ...size }).then((w) => w?.id ?? -1);
    b.session.expectControlWindow(created);
    const windowId = await created;
    await b.ready;
    await b.session.registerControlWindow(windowId);
    return windowId;
  };

  return { monitor, openControlWindow };
}
