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
 * shows an extension page, everything but navigating away or closing it. Also refused: what sends or changes
 * requests behind the extension's back (a browser-side fetch, a replayed XHR, an intercepted request
 * changed on its way, headers or a user agent added to every request) and files chosen for the page.
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

/**
 * A URL as Chromium's parser reads its scheme: tabs and line breaks dropped wherever they are, leading and
 * trailing controls and spaces trimmed (`"chrome-ext\tension://…"` and `"\u0001chrome-extension://…"` open
 * the extension's pages), lower case, and the inner URL of a `blob:` or `filesystem:` URL.
 */
function schemeForm(url: string): string {
  // eslint-disable-next-line no-control-regex -- these are the characters the URL parser drops
  const cleaned = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').toLowerCase();
  return cleaned.replace(/^(?:blob|filesystem):/, '');
}

export function isForbiddenUrl(url: string): boolean {
  const lower = schemeForm(url);
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
  ['Network.loadNetworkResource', 'fetches from the browser side, where neither the page guard nor the network floor sees it'],
  ['DOMDebugger.getEventListeners', "hands out listeners, the extension's own among them, to run code in their world"],
  ['Network.replayXHR', 'sends a request again without a new decision (a payment twice)'],
  ['Network.setUserAgentOverride', 'puts agent-chosen text into every request, to every site'],
  ['Emulation.setUserAgentOverride', 'puts agent-chosen text into every request, to every site'],
]);

/**
 * Interception may stop a request or answer it, never change it: the extension checked the request the
 * page made, and a URL, method, body or headers changed on the way (Fetch.continueRequest, Playwright's
 * route.continue) go out after the page guard and the network floor have passed the original.
 */
const REQUEST_CHANGES: Record<string, readonly string[]> = {
  'Fetch.continueRequest': ['url', 'method', 'postData', 'headers'],
  'Network.continueInterceptedRequest': ['url', 'method', 'postData', 'headers', 'rawResponse'],
};

/** A file chosen over DevTools reaches the page (which reads it) without the task's upload check. */
function selectsFiles(method: string, p: Record<string, unknown>): boolean {
  if (method === 'DOM.setFileInputFiles') return true;
  const data = p.data as { files?: unknown } | undefined;
  return method === 'Input.dispatchDragEvent' && Array.isArray(data?.files) && data.files.length > 0;
}

/** Headers the agent adds go with every request to every site; the floor reads URLs only. */
function addsHeaders(method: string, p: Record<string, unknown>): boolean {
  return method === 'Network.setExtraHTTPHeaders' && typeof p.headers === 'object' && p.headers !== null && Object.keys(p.headers).length > 0;
}

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
  const changed = (REQUEST_CHANGES[method] ?? []).filter((key) => p[key] !== undefined);
  if (changed.length > 0) return `${method} may not change a request's ${changed.join(', ')}: it goes out after the extension checked the original`;
  if (selectsFiles(method, p)) return `${method} hands local files to the page without the task's upload check (uploads through agentsfence browser are not supported)`;
  if (addsHeaders(method, p)) return `${method} adds headers to every request, to every site, where the network floor cannot see them`;
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
 * manages skip the extension's download guard (docs/limits.md, limit 22): the proxy answers it, and the
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
