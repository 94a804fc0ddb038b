import { privateHostOf } from '../core/addresses';
import { BROWSER_TOOLS } from '../core/call';
import type { DecisionRecord } from '../core/decision';
import { registrableDomain } from '../core/domains';
import type { TaskPolicy } from '../core/policy';

/**
 * DNS rebinding, after the fact. An MV3 extension cannot see the address a name resolves to before the
 * request is made; Chromium reports it once the response starts (`webRequest` `details.ip`). A guarded
 * tab's request to an ordinary name (not private by its form, not named by the task) that reached a
 * private address is recorded: one entry per task and site, so a page polling its origin does not flood
 * the log. Names private by their form and IP literals are the floor's and the evaluator's to refuse.
 */

export interface ResolvedRequest {
  url: string;
  /** The address Chromium connected to, when it reports one. */
  ip?: string;
}

/** The audit record for a request that resolved to a private address, or null when there is nothing to record. */
export function rebindingRecord(request: ResolvedRequest, policy: TaskPolicy): DecisionRecord | null {
  if (request.ip === undefined || request.ip === '' || privateHostOf(request.url) !== null) return null;
  const site = registrableDomain(request.url);
  const resolved = privateHostOf(request.ip);
  if (site === null || resolved === null) return null;
  const named = [...(policy.domains ?? []), ...policy.constraints.flatMap((k) => k.domains ?? [])].some((d) => registrableDomain(d) === site);
  if (named) return null;
  return {
    decision: 'ALLOW',
    check: 'private_network',
    reason: `after the fact: ${site} resolved to ${resolved.host} (${resolved.range}); an extension learns the address only once the request is made`,
    ruleRef: 'builtin:private-network',
    tool: BROWSER_TOOLS.request,
    capability: 'web.read',
    riskClass: 'READ',
    targets: { recipients: [], domains: [site], paths: [], items: [] },
  };
}
