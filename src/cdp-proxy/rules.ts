/**
 * What an agent may see and do through `agentsfence browser`'s CDP endpoint. Pure rules, no I/O: the
 * proxy (./proxy.ts) applies them to every HTTP discovery answer, every command and every event.
 *
 * The agent gets its own page targets. Hidden from it: every target showing an extension page
 * (service worker, popup or control window, options, the blocked page — any chrome-extension:// URL)
 * or a browser-internal page (chrome://, devtools://, …), and the browser's own targets other than
 * pages, tabs, iframes and workers of web pages. Refused: the domains that load, inspect or stop
 * extensions or workers (`Extensions`, `ServiceWorker`), browser-wide changes that would widen what the
 * task may do (permissions, downloads, new browser contexts — which run without the extension), any
 * command that names an extension or internal origin or URL, and, in a session whose page currently
 * shows an extension page, everything but navigating away or closing it.
 */

/** Schemes an agent may never open, attach to or name in a command. */
const FORBIDDEN_SCHEMES = ['chrome-extension:', 'moz-extension:', 'chrome:', 'chrome-untrusted:', 'devtools:', 'chrome-search:', 'chrome-devtools:', 'edge:', 'view-source:'];

/** Target types an agent may see (when their URL is not forbidden). */
const VISIBLE_TYPES = new Set(['page', 'tab', 'iframe', 'worker', 'shared_worker', 'service_worker', 'webview', 'browser']);

export interface TargetInfoLike {
  targetId: string;
  type: string;
  url: string;
}

export function isForbiddenUrl(url: string): boolean {
  const lower = url.trim().toLowerCase();
  return FORBIDDEN_SCHEMES.some((scheme) => lower.startsWith(scheme));
}

/** Whether the agent must not see or attach to this target. */
export function isHiddenTarget(info: Pick<TargetInfoLike, 'type' | 'url'>): boolean {
  return !VISIBLE_TYPES.has(info.type) || (info.type !== 'browser' && isForbiddenUrl(info.url));
}

/** The first string inside `value` (objects and arrays, a few levels deep) that names a forbidden URL or origin. */
export function forbiddenStringIn(value: unknown, depth = 0): string | null {
  if (typeof value === 'string') return isForbiddenUrl(value) ? value : null;
  if (depth > 4 || value === null || typeof value !== 'object') return null;
  for (const v of Object.values(value as Record<string, unknown>)) {
    const found = forbiddenStringIn(v, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** Domains the agent may not use at all. */
const REFUSED_DOMAINS = new Set(['Extensions', 'ServiceWorker']);

/** Commands the agent may not send, whatever their parameters. */
const REFUSED_COMMANDS = new Map<string, string>([
  ['Browser.grantPermissions', 'grants the site permissions the task did not give'],
  ['Browser.setPermission', 'grants the site permissions the task did not give'],
  ['Browser.executeBrowserCommand', 'runs browser commands outside the page'],
  ['Browser.close', 'the browser belongs to the user\'s agentsfence session (Ctrl-C there ends it)'],
  ['Browser.addPrivacySandboxEnrollmentOverride', 'changes the profile'],
  ['Target.createBrowserContext', 'a new browser context runs without the extension, unguarded'],
  ['Target.exposeDevToolsProtocol', 'exposes the DevTools protocol to page script'],
  ['Target.setRemoteLocations', 'opens other debugging endpoints'],
  ['Target.sendMessageToTarget', 'the legacy session API bypasses the session filter; use flattened sessions'],
  ['Page.setDownloadBehavior', 'downloads follow the task, not the agent'],
  ['Storage.clearDataForOrigin', 'clears site or extension data'],
  ['Storage.clearDataForStorageKey', 'clears site or extension data'],
]);

/** Target.* commands whose `targetId` must be a visible target. */
const TARGET_ID_COMMANDS = new Set(['Target.attachToTarget', 'Target.activateTarget', 'Target.closeTarget', 'Target.getTargetInfo', 'Target.autoAttachRelated', 'Target.detachFromTarget']);

/** What a session on a page that shows an extension page may still do: leave it, close it, or look at its history. */
const ON_EXTENSION_PAGE = new Set([
  'Page.navigate',
  'Page.reload',
  'Page.close',
  'Page.stopLoading',
  'Page.getNavigationHistory',
  'Page.navigateToHistoryEntry',
  'Page.getFrameTree',
  'Page.bringToFront',
  'Page.enable',
  'Page.disable',
  'Page.setLifecycleEventsEnabled',
  'Runtime.runIfWaitingForDebugger',
  'Network.enable',
  'Network.disable',
  'Target.setAutoAttach',
  'Target.getTargetInfo',
  'Target.closeTarget',
  'Target.detachFromTarget',
]);

export interface CommandContext {
  /** The target the session is attached to shows an extension or internal page right now. */
  onHiddenTarget: boolean;
  /** Looks a target id up: undefined when unknown. */
  target(targetId: string): Pick<TargetInfoLike, 'type' | 'url'> | undefined;
}

/** Why the agent may not send this command, or null when it may. */
export function refusal(method: string, params: unknown, ctx: CommandContext): string | null {
  const domain = method.split('.')[0] ?? '';
  if (REFUSED_DOMAINS.has(domain)) return `the ${domain} domain is not available to agents`;
  const fixed = REFUSED_COMMANDS.get(method);
  if (fixed !== undefined) return `${method} ${fixed}`;
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  if (TARGET_ID_COMMANDS.has(method) && typeof p.targetId === 'string') {
    const info = ctx.target(p.targetId);
    if (info === undefined || isHiddenTarget(info)) return `${method}: no such target for agents`;
  }
  const named = forbiddenStringIn(p);
  if (named !== null) return `${method} names ${named.slice(0, 80)}, which agents may not open or touch`;
  if (ctx.onHiddenTarget && !ON_EXTENSION_PAGE.has(method)) return `${method}: this page shows an extension or browser page; navigate away first`;
  return null;
}

/**
 * Parameters the proxy changes before forwarding an allowed command. Playwright's connectOverCDP sends
 * `Browser.setDownloadBehavior {behavior: 'allowAndName'}` and fails without it, but downloads a debugger
 * manages skip the extension's download guard (README, known limits): the proxy answers it, and the
 * browser keeps its own download handling, which the guard checks against the task's paths.
 */
export function rewrite(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (method === 'Browser.setDownloadBehavior' && params !== undefined && params.behavior !== 'deny') {
    return { ...params, behavior: 'default', downloadPath: undefined, eventsEnabled: false };
  }
  return params;
}

/** The CDP error an agent gets for a refused command. */
export function refusalError(reason: string): { code: number; message: string } {
  return { code: -32000, message: `refused by AgentsFence: ${reason}` };
}
