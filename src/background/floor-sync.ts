import type { Browser } from '@wxt-dev/browser';
import type { Options } from '../messages/protocol';
import { buildSessionRules, TAB_ID_NONE, type FloorScope, type Rule } from './dnr';
import type { ActiveTask } from './store';

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

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
export function floorUpdater() {
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
