import { z } from './zod';
import type { Classification } from './classification';
import { hostOf } from './domains';
import { RiskClassSchema } from './risk';
import type { RuleRef } from './ruleRef';

/**
 * The organisation's floor: limits an administrator sets by enterprise policy (`storage.managed`, parsed
 * in src/org/managed.ts) that every task lives under. The evaluator applies it as a deny-overrides layer:
 * a task's policy, its grants, the person's approvals and follow-ups can only be narrower.
 *
 *  - `blockedSites`: every action on these hosts (and their subdomains) is BLOCKed;
 *  - `neverAllow`: risk classes that are BLOCKed whatever the task or the person says (e.g. FINANCIAL);
 *  - `askSites`: an action on these hosts is never allowed by the task's policy or a standing approval
 *    ("for this task"): a person approves each one ("Allow once");
 *  - `unreadable`: the managed policy was present but malformed — every action is BLOCKed until it is
 *    fixed (the safe reading of "the organisation set limits we cannot read").
 */
export const OrgFloorSchema = z.lazy(() =>
  z.strictObject({
    blockedSites: z._default(z.array(z.string().check(z.minLength(1))), []),
    askSites: z._default(z.array(z.string().check(z.minLength(1))), []),
    neverAllow: z._default(z.array(RiskClassSchema), []),
    unreadable: z.optional(z.string()),
  }),
);
export type OrgFloor = z.infer<typeof OrgFloorSchema>;

export interface OrgVerdict {
  decision: 'BLOCK' | 'ASK_USER';
  reason: string;
  /** `org.blockedSites:<site>`, `org.neverAllow:<class>`, `org.askSites:<site>` or `org.unreadable`. */
  ruleRef: RuleRef;
}

/** A site entry as written by an administrator: `bank.test`, `*.bank.test`, `https://bank.test/` all name bank.test. */
export function canonicalSite(entry: string): string {
  const trimmed = entry.trim().toLowerCase().replace(/^\*\./, '');
  return hostOf(trimmed) ?? trimmed.replace(/\.$/, '');
}

/**
 * The hosts an action reaches: its URLs' hosts, its domain targets, and its recipients' domains (a
 * message to someone at a blocked site acts on that site too).
 */
function hostsOf(c: Classification): string[] {
  const hosts = new Set<string>();
  for (const url of c.urls) {
    const host = hostOf(url);
    if (host !== null) hosts.add(host);
  }
  // A private host's target is its endpoint (`localhost:5432`): its host is what the organisation lists.
  for (const d of c.targets.domains) hosts.add((hostOf(d) ?? d).toLowerCase());
  for (const r of c.targets.recipients) {
    const at = r.lastIndexOf('@');
    if (at >= 0) hosts.add(r.slice(at + 1).toLowerCase());
  }
  return [...hosts];
}

/** The first listed site a host is on (the site itself or a subdomain of it), or null. */
function listedSite(hosts: readonly string[], entries: readonly string[]): string | null {
  for (const entry of entries) {
    const site = canonicalSite(entry);
    if (site === '') continue;
    if (hosts.some((h) => h === site || h.endsWith(`.${site}`))) return site;
  }
  return null;
}

/**
 * The deny part of the floor, checked before anything that can allow (grants included): null when the
 * floor does not forbid the action.
 */
export function orgDenies(org: OrgFloor, c: Classification): OrgVerdict | null {
  if (org.unreadable !== undefined) {
    return { decision: 'BLOCK', reason: `the organisation's managed policy could not be read (${org.unreadable}); every action is blocked until it is fixed`, ruleRef: 'org.unreadable' };
  }
  const blocked = listedSite(hostsOf(c), org.blockedSites);
  if (blocked !== null) return { decision: 'BLOCK', reason: `your organisation blocks ${blocked}`, ruleRef: `org.blockedSites:${blocked}` };
  if (org.neverAllow.includes(c.riskClass)) {
    return { decision: 'BLOCK', reason: `your organisation never allows ${c.riskClass} actions`, ruleRef: `org.neverAllow:${c.riskClass}` };
  }
  return null;
}

/**
 * The ask part of the floor, applied to an ALLOW: on an always-ask site only a single-use approval of
 * exactly this action (`onceGrant`) lets it through; the task's own permissions and standing approvals
 * do not.
 */
export function orgAsks(org: OrgFloor, c: Classification, onceGrant: boolean): OrgVerdict | null {
  if (onceGrant) return null;
  const site = listedSite(hostsOf(c), org.askSites);
  if (site === null) return null;
  return { decision: 'ASK_USER', reason: `your organisation requires a person to approve each action on ${site}`, ruleRef: `org.askSites:${site}` };
}
