import type { Browser } from '@wxt-dev/browser';
import { ISOLATED_INSTALLED_KEY } from '../../content/bridge';
import type { Options } from '../../messages/protocol';
import { presetFile } from '../../sanitizer/preset';
import type { ActiveTask } from '../task/store';

/**
 * No task, no cost: the content scripts are registered (`scripting.registerContentScripts`) only while
 * a task runs, and unregistered when it ends, so an ordinary page without a task gets none of them.
 * When a task starts, the guarded tabs already open get them by `scripting.executeScript`; until then
 * (and for anything a page did before) the network floor, applied first, is what holds.
 *
 * The registration outlives the worker and the browser session (persistAcrossSessions), like the task
 * in IndexedDB; on every wake the first sync compares it with the stored task and repairs either
 * direction. Registration cannot be scoped to tabs: with guard scope `task-tabs`, frames of other tabs
 * get the scripts during a task too, and their proposals are answered "outside the guard scope".
 */

type Chrome = typeof Browser;

export interface PageScript {
  id: string;
  /** The built file, relative to the extension root. */
  file: string;
  world: 'ISOLATED' | 'MAIN';
}

/** ISOLATED first: its bridge listener must exist before the MAIN script posts its handshake (src/content/bridge.ts). */
export function pageScripts(mainHooks: boolean): PageScript[] {
  const scripts: PageScript[] = [{ id: 'agentsfence-isolated', file: 'frame-guard.js', world: 'ISOLATED' }];
  if (mainHooks) scripts.push({ id: 'agentsfence-main', file: 'page-hooks.js', world: 'MAIN' });
  return scripts;
}

/**
 * The files a script runs, in order: the ISOLATED one is preceded by the Sanitizer's preset for the mode
 * in force (src/sanitizer/preset.ts), so the Sanitizer needs no round trip before the first node.
 */
function filesOf(script: PageScript, options: Options): string[] {
  if (script.world !== 'ISOLATED' || options.sanitizer === 'off') return [script.file];
  return [presetFile(options.sanitizer), script.file];
}

function registration(script: PageScript, options: Options): Browser.scripting.RegisteredContentScript {
  return {
    id: script.id,
    js: filesOf(script, options),
    matches: ['<all_urls>'],
    runAt: 'document_start',
    allFrames: true,
    // about:blank, srcdoc, data: and blob: frames too, judged by the origin that made them.
    matchOriginAsFallback: true,
    world: script.world,
    persistAcrossSessions: true,
  };
}

/** The tabs a task guards, as the floor scopes them. */
async function guardedTabs(chrome: Chrome, task: ActiveTask, options: Options, controlWindows: readonly number[]): Promise<number[]> {
  if (options.guardScope !== 'all-tabs') return task.taskTabIds;
  const tabs = await chrome.tabs.query({});
  return tabs.flatMap((t) => (t.id === undefined || controlWindows.includes(t.windowId) ? [] : [t.id]));
}

/**
 * Into every document of an open guarded tab that does not run the guard yet: the ISOLATED script, then
 * the MAIN one, by document id so a frame that navigated meanwhile (and got the registered scripts) is
 * not injected twice. Pages the browser does not let extensions script (chrome://, the store) are skipped.
 */
async function injectInto(chrome: Chrome, tabId: number, scripts: readonly PageScript[], options: Options): Promise<void> {
  const probes = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    func: (key: string) => (globalThis as Record<string, unknown>)[key] === true,
    args: [ISOLATED_INSTALLED_KEY],
    injectImmediately: true,
  });
  const documentIds = probes.filter((p) => p.result !== true).map((p) => p.documentId);
  if (documentIds.length === 0) return;
  for (const script of scripts) {
    await chrome.scripting.executeScript({ target: { tabId, documentIds }, files: filesOf(script, options), world: script.world, injectImmediately: true });
  }
}

/** Keeps the registration in line with the task; the same arguments as the floor's update, called after it. */
export function pageScriptSync(chrome: Chrome, scripts: readonly PageScript[]) {
  const ids = scripts.map((s) => s.id);
  /** The files registered per script, as this worker last saw them: null until the first sync after a wake, `false` when none. */
  let registered: string | false | null = null;
  let chain: Promise<void> = Promise.resolve();
  const keyOf = (regs: ReadonlyArray<Pick<Browser.scripting.RegisteredContentScript, 'id' | 'js' | 'world'>>) =>
    JSON.stringify(ids.map((id) => regs.find((r) => r.id === id)).map((r) => (r === undefined ? null : [r.world ?? 'ISOLATED', r.js ?? []])));

  const readRegistration = async (): Promise<string | false> => {
    const present = await chrome.scripting.getRegisteredContentScripts({ ids });
    if (present.length === ids.length) return keyOf(present);
    // Partly there (an interrupted sync): start clean.
    if (present.length > 0) await chrome.scripting.unregisterContentScripts({ ids: present.map((p) => p.id) });
    return false;
  };

  const sync = async (task: ActiveTask | null, options: Options, controlWindows: readonly number[]): Promise<void> => {
    registered ??= await readRegistration();
    if (task === null) {
      if (registered !== false) await chrome.scripting.unregisterContentScripts({ ids });
      registered = false;
      return;
    }
    const wanted = scripts.map((s) => registration(s, options));
    const key = keyOf(wanted);
    if (registered === key) return;
    if (registered !== false) {
      // Registered for other files (the Sanitizer's mode changed, an update renamed a file): replace in place, no gap.
      await chrome.scripting.updateContentScripts(wanted);
      registered = key;
      return;
    }
    await chrome.scripting.registerContentScripts(wanted);
    registered = key;
    for (const tabId of await guardedTabs(chrome, task, options, controlWindows)) {
      await injectInto(chrome, tabId, scripts, options).catch((err: unknown) => console.info(`AgentsFence: tab ${tabId} not scripted (the floor still applies):`, err));
    }
  };

  /** Resolves true once the registration matches, false when it failed (logged; tried again next time). */
  return (task: ActiveTask | null, options: Options, controlWindows: readonly number[]): Promise<boolean> => {
    const run = () =>
      sync(task, options, controlWindows).then(
        () => true,
        (err: unknown) => {
          registered = null; // read it again next time
          console.error('AgentsFence: content-script registration failed', err);
          return false;
        },
      );
    const next = chain.then(run, run);
    chain = next.then(() => undefined);
    return next;
  };
}
