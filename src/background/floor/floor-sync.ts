import type { Browser } from '@wxt-dev/browser';
import type { Options } from '../../messages/protocol';
import { ALL_TYPES, buildSessionRules, buildTaintRules, rulesForBrowser, TAB_ID_NONE, type DnrSupport, type FloorScope, type Rule } from './dnr';
import { builtKey, canonicalKey, ruleUpdate, type RuleUpdate } from './rule-update';
import type { RuleSpec } from '../../taint/rules';
import type { ActiveTask } from '../task/store';
import type { OrgFloor } from '../../core/org';
import type { TaskPolicy } from '../../core/policy';

/**
 * The policy as the floor sees it: grants with uses left. A used-up "Allow once" leaves the floor when
 * it is next applied (the monitor applies it shortly after the approved request, see GRANT_FLOOR_WINDOW_MS):
 * until 2026-12-01 its allow rule stayed for the rest of the task, so requests the hooks do not see
 * (workers, pings) reached the approved site without asking.
 */
export function floorPolicy(task: Pick<ActiveTask, 'policy' | 'state'>): TaskPolicy {
  const live = task.policy.grants.filter((g) => g.maxCalls === null || (task.state.grantCalls[g.id] ?? 0) < g.maxCalls);
  return live.length === task.policy.grants.length ? task.policy : { ...task.policy, grants: live };
}

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
 * What this browser's declarativeNetRequest understands (see DnrSupport): resource types from its own
 * enum, the response-header condition by trying a rule that uses it (Firefox refuses the property).
 */
async function detectDnrSupport(): Promise<DnrSupport> {
  const dnr = chrome.declarativeNetRequest;
  const known = Object.values((dnr as unknown as { ResourceType?: Record<string, string> }).ResourceType ?? {});
  const probe: Rule = { id: PROBE_RULE_ID, priority: 1, action: { type: 'block' }, condition: { responseHeaders: [{ header: 'x-agentsfence-probe', values: ['never-sent'] }], resourceTypes: ['main_frame'] } };
  // (Firefox throws its schema errors synchronously: start from a promise so the refusal is caught.)
  const responseHeaders = await Promise.resolve()
    .then(() => dnr.updateSessionRules({ removeRuleIds: [PROBE_RULE_ID], addRules: [probe] }))
    .then(
      () => dnr.updateSessionRules({ removeRuleIds: [PROBE_RULE_ID] }).then(() => true),
      () => false,
    );
  return { resourceTypes: new Set(known.length > 0 ? known : ALL_TYPES), responseHeaders };
}
/** Above any id the floor uses (ids count up from 1). */
const PROBE_RULE_ID = 2_000_000_000;

type RuleChange = Pick<RuleUpdate, 'removeRuleIds' | 'addRules'>;

/**
 * One of the extension's rulesets, kept in line with what the floor wants by the smallest update
 * (ruleUpdate): only the changed rules cross into the browser, and an unchanged set costs no call.
 */
function rulesetSync(read: () => Promise<Rule[]>, update: (change: RuleChange) => Promise<void>) {
  /** The rules as this worker last set them (built here); read from the browser after a wake or a failure. */
  let installed: Rule[] | null = null;
  return async (wanted: readonly RuleSpec[]): Promise<void> => {
    const keyOf = installed === null ? canonicalKey : builtKey;
    const current = installed ?? (await read()).filter((r) => r.id !== PROBE_RULE_ID);
    installed = null; // unknown until the update is through
    const { removeRuleIds, addRules, after } = ruleUpdate(current, wanted, keyOf);
    if (removeRuleIds.length > 0 || addRules.length > 0) await update({ removeRuleIds, addRules });
    installed = after;
  };
}

/**
 * The floor follows the task one update at a time, in the order requested: its session rules, then the
 * taint's dynamic rules (dnr.ts, buildTaintRules, says why they are apart). If Chromium refuses the taint
 * rules (a limit, a regex over its budget), the floor holds without them rather than not at all.
 */
export function floorUpdater() {
  let chain: Promise<void> = Promise.resolve();
  let support: Promise<DnrSupport> | null = null;
  let reportedDropped = false;
  const dnr = chrome.declarativeNetRequest;
  const sessionRules = rulesetSync(() => dnr.getSessionRules(), (change) => dnr.updateSessionRules(change));
  const taintRules = rulesetSync(() => dnr.getDynamicRules(), (change) => dnr.updateDynamicRules(change));
  /** Whether the channel settings were last set for a running task; null until set in this worker. */
  let channelsClosed: boolean | null = null;

  const build = async (task: ActiveTask, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<{ session: RuleSpec[]; taint: RuleSpec[] }> => {
    // Every tab but the control windows' and, for guard scope `task-tabs`, those known to be outside the
    // task: a tab a task page opens is guarded from its first request (session.ts, tabCreated).
    const controlTabs = (await Promise.all(controlWindows.map((windowId) => chrome.tabs.query({ windowId }).catch(() => [])))).flat();
    const outside = options.guardScope === 'all-tabs' ? [] : task.outsideTabIds;
    const scope: FloorScope = { excludedTabIds: [TAB_ID_NONE, ...controlTabs.flatMap((t) => (t.id === undefined ? [] : [t.id])), ...outside] };
    const input = {
      policy: floorPolicy(task),
      floorWriteDomains: task.floorWriteDomains,
      taint: task.taint,
      taintOverflow: task.taintOverflow,
      orgBlockedSites: org?.blockedSites ?? [],
      ledgerRefusedSites: task.ledger?.refusedSites ?? [],
      ledgerRefusesAll: task.ledger?.refusesAll ?? false,
      namedPorts: task.ledger?.namedPorts ?? [],
    };
    // The extension's host: its id in Chromium, its per-profile UUID in Firefox (where runtime.id is the add-on id).
    const extensionHost = new URL(chrome.runtime.getURL('/')).host;
    const browserSupport = await (support ??= detectDnrSupport());
    const session = rulesForBrowser(buildSessionRules(input, scope, extensionHost), browserSupport);
    const taint = rulesForBrowser(buildTaintRules(input), browserSupport);
    const dropped = [...session.dropped, ...taint.dropped];
    if (dropped.length > 0 && !reportedDropped) {
      reportedDropped = true;
      console.warn(`AgentsFence: this browser's declarativeNetRequest cannot express ${dropped.length} floor rules (docs/firefox.md)`, dropped);
    }
    return { session: session.rules, taint: taint.rules };
  };

  return (task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void> => {
    const run = async () => {
      if (channelsClosed !== (task !== null)) {
        await applyChannelSettings(task !== null).then(
          () => (channelsClosed = task !== null),
          (err: unknown) => console.error('AgentsFence: channel settings failed', err),
        );
      }
      const wanted = task === null ? { session: [], taint: [] } : await build(task, options, controlWindows, org);
      // The taint's rules never stand without the session's out-of-scope allows: they go last when they
      // stay, first when they go (a task ending), or they would block the other tabs for a moment.
      if (wanted.taint.length === 0) await taintRules([]);
      await sessionRules(wanted.session);
      try {
        await taintRules(wanted.taint);
      } catch (err) {
        console.error('AgentsFence: network floor refused the taint rules, holding without them', err);
        await taintRules([]);
      }
    };
    const next = chain.then(run, run);
    chain = next.catch((err: unknown) => console.error('AgentsFence: network floor update failed', err));
    return next;
  };
}
