import { amountWords } from './amounts';
import type { DecisionRecord } from './decision';

const VERDICT: Record<DecisionRecord['decision'], string> = {
  ALLOW: 'Allowed',
  BLOCK: 'Blocked',
  ASK_USER: 'Held for the user to decide',
};

const CHECK_WORDS: Record<DecisionRecord['check'], string> = {
  schema: 'the proposal was malformed',
  expiry: 'the task had expired',
  guards: 'a browser guard',
  org_floor: 'the organisation’s floor (enterprise policy)',
  prohibitions: 'a prohibition in the user’s words',
  deny_list: 'the policy’s deny list',
  grants: 'an approval the user gave',
  private_network: 'the private-network rule (hosts on the user’s machine, LAN or intranet)',
  argument_constraints: 'an argument constraint',
  ceiling: 'the class ceiling and permission list',
  recipient_binding: 'recipient binding',
  domain_allowlist: 'the task’s site list',
  site_binding: 'site binding (a target the user named, on a site the task does not name)',
  exfiltration_url: 'the exfiltration-shaped URL rule',
  path_allowlist: 'the task’s path list',
  outbound_budget: 'the outbound budget',
  approval_required: 'an explicit approval requirement',
  minimizer: 'the Minimizer (confidential data the task does not call for)',
  allowed: 'the task’s permissions',
  internal_error: 'an internal error (fail closed)',
  sanitizer: 'the Sanitizer (text removed from what the agent reads)',
};

/** A decision record in words, for people: verdict, action, the check that decided, and the evidence. */
export function explain(r: DecisionRecord): string {
  const t = r.targets;
  const to = [
    t.recipients.length ? `to ${t.recipients.join(', ')}` : '',
    t.domains.length ? `on ${t.domains.join(', ')}` : '',
    t.paths.length ? `with ${t.paths.join(', ')}` : '',
    t.amounts?.length ? `of ${t.amounts.map(amountWords).join(', ')}` : '',
    t.quantities?.length ? `in quantity ${t.quantities.join(', ')}` : '',
  ].filter(Boolean);
  const lines = [
    `${VERDICT[r.decision]}: ${r.tool} (${r.capability}, ${r.riskClass})${to.length ? ' ' + to.join(' ') : ''}.`,
    `Decided by ${CHECK_WORDS[r.check]}: ${r.reason}.`,
  ];
  if (r.ruleRef) lines.push(`Policy entry: ${r.ruleRef}.`);
  if (r.evidence) lines.push(`The user's words: "${r.evidence}".`);
  return lines.join('\n');
}
