import type { Classification, Targets } from './classification';
import type { DecisionRecord } from './decision';
import type { Grant } from './policy';

export type ApprovalScope = 'once' | 'task';

/**
 * Approvals that cover one action whatever the answer: a payment or purchase (money moves one approval at
 * a time — "for this task" let an agent repeat an approved 120 EUR payment until the task ended) and an
 * action on a site the organisation always asks about.
 */
export function approvalIsOnceOnly(record: Pick<DecisionRecord, 'riskClass' | 'check'>): boolean {
  return record.riskClass === 'FINANCIAL' || record.check === 'org_floor';
}

const uniqueSorted = (xs: readonly string[] | undefined): string[] => [...new Set(xs ?? [])].sort();

/** A call's targets as an approval holds them: each list without duplicates, sorted. */
function approvedTargets(t: Targets): Required<Targets> {
  return {
    recipients: uniqueSorted(t.recipients),
    domains: uniqueSorted(t.domains),
    paths: uniqueSorted(t.paths),
    items: uniqueSorted(t.items),
    amounts: uniqueSorted(t.amounts),
    quantities: uniqueSorted(t.quantities),
  };
}

/**
 * The delta an approval is about: the tool, the capability and the sorted targets (amounts and
 * quantities only when the call carries any). The one key for both a grant's id and a pending
 * approval: identical asks share one approval, and approving the same delta twice yields the same grant.
 */
export function deltaOf(tool: string, c: Pick<Classification, 'capability' | 'targets'>): string {
  const t = approvedTargets(c.targets);
  return JSON.stringify([tool, c.capability, t.recipients, t.domains, t.paths, t.items, ...(t.amounts.length + t.quantities.length > 0 ? [t.amounts, t.quantities] : [])]);
}

/** The key a pending approval is shared by: its delta; a Minimizer ask (data, not authority) is its own per finding. */
export function approvalKeyOf(record: DecisionRecord): string {
  const delta = deltaOf(record.tool, record);
  return record.check === 'minimizer' ? JSON.stringify([delta, record.check, record.reason]) : delta;
}

/**
 * The attenuated delegation for one approval: exactly the approved call's tool, capability and targets.
 * The id is derived from the task and that delta alone, so approving the same action twice yields the
 * same grant and no runtime state can turn one approval into a broader permission.
 */
export function grantFor(taskId: string, tool: string, c: Pick<Classification, 'capability' | 'riskClass' | 'targets'>, scope: ApprovalScope, now: number): Grant {
  // The approved amount and quantity exactly: another amount is another action and asks again.
  const { recipients, domains, paths, items, amounts, quantities } = approvedTargets(c.targets);
  return {
    id: `${taskId}:${scope}:${deltaOf(tool, c)}`,
    tool,
    capability: c.capability,
    riskClass: c.riskClass,
    recipients,
    domains,
    paths,
    items,
    amounts,
    quantities,
    maxCalls: scope === 'once' ? 1 : null,
    issuedAt: now,
  };
}
