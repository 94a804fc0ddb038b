import { privateHostOf } from '../../core/addresses';
import { BROWSER_TOOLS } from '../../core/call';
import type { DecisionRecord } from '../../core/decision';
import { registrableDomain } from '../../core/domains';
import type { TaskPolicy } from '../../core/policy';
import { DEPENDENCY_TYPES } from './dnr';

/**
 * DNS rebinding, after the fact. An MV3 extension cannot see the address a name resolves to before the
 * request is made; Chromium reports it once the response starts (`webRequest` `details.ip`). A guarded
 * tab's request to an ordinary name (not private by its form, not named by the task) that reached a
 * private address is recorded: one entry per task and site, so a page polling its origin does not flood
 * the log. Names private by their form and IP literals are the floor's and the evaluator's to refuse.
 */

/**
 * Whether requests of every type from a guarded tab can reach a site the task does not name: reading is
 * not limited to a list, or a grant lifts the floor for a site (a granted site is not named below).
 * Otherwise the floor blocks every request to such a site before it is made except a page's
 * dependencies (`DEPENDENCY_TYPES` in dnr.ts), so only those can produce a record, and the listener
 * (index.ts) asks the browser for those alone: each event it is sent costs every guarded request about
 * 0.5 ms (bench, same-origin GET).
 */
export function everyTypeReachesUnnamedSites(policy: TaskPolicy): boolean {
  return policy.domains === null || policy.grants.some((grant) => grant.domains.length > 0);
}

/** Firefox's own names for dependency loads Chromium counts under DEPENDENCY_TYPES (srcset images). */
const DEPENDENCY_EQUIVALENTS = ['imageset'];

/**
 * The listener's request types in this browser's webRequest vocabulary (`known`: its ResourceType enum;
 * a type the browser lacks would make addListener throw): the dependencies, and every other type (null:
 * the enum is not exposed, so no filter, every type).
 */
export function rebindingTypes(known: readonly string[]): { dependencies: string[]; others: string[] | null } {
  const dependencies = [...DEPENDENCY_TYPES, ...DEPENDENCY_EQUIVALENTS];
  if (known.length === 0) return { dependencies: [...DEPENDENCY_TYPES], others: null };
  return { dependencies: known.filter((t) => dependencies.includes(t)), others: known.filter((t) => !dependencies.includes(t)) };
}

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
