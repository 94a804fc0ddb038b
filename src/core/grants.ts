import type { Classification } from './classification';
import type { Grant } from './policy';

export type ApprovalScope = 'once' | 'task';

/**
 * The attenuated delegation for one approval: exactly the approved call's tool, capability and targets.
 * The id is derived from the task and that delta alone, so approving the same action twice yields the
 * same grant and no runtime state can turn one approval into a broader permission.
 */
export function grantFor(taskId: string, tool: string, c: Pick<Classification, 'capability' | 'riskClass' | 'targets'>, scope: ApprovalScope, now: number): Grant {
  const recipients = [...new Set(c.targets.recipients)].sort();
  const domains = [...new Set(c.targets.domains)].sort();
  const paths = [...new Set(c.targets.paths)].sort();
  const items = [...new Set(c.targets.items)].sort();
  // The approved amount and quantity exactly: another amount is another action and asks again.
  const amounts = [...new Set(c.targets.amounts ?? [])].sort();
  const quantities = [...new Set(c.targets.quantities ?? [])].sort();
  const delta = JSON.stringify([tool, c.capability, recipients, domains, paths, items, ...(amounts.length + quantities.length > 0 ? [amounts, quantities] : [])]);
  return {
    id: `${taskId}:${scope}:${delta}`,
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
