import type { RiskClass } from './risk';
import type { Targets } from './classification';

export type Decision = 'ALLOW' | 'BLOCK' | 'ASK_USER';

/** The checks of the evaluator, in the order they run. The first that decides is named in the record. */
export const CHECKS = [
  'schema',
  'expiry',
  'guards',
  'prohibitions',
  'deny_list',
  'grants',
  'argument_constraints',
  'ceiling',
  'recipient_binding',
  'domain_allowlist',
  'exfiltration_url',
  'path_allowlist',
  'outbound_budget',
  'approval_required',
  'allowed',
  'internal_error',
] as const;
export type Check = (typeof CHECKS)[number];

/** Every decision explains itself: which check decided, why, and for ALLOW which entry or grant allowed it. */
export interface DecisionRecord {
  decision: Decision;
  check: Check;
  reason: string;
  tool: string;
  capability: string;
  riskClass: RiskClass;
  targets: Targets;
  /** The policy entry or grant behind the decision, e.g. `allow.classes:COMMUNICATION`, `grant:g1`, `prohibition:p1`. */
  ruleRef?: string;
  /** The user's words behind ruleRef, when the policy carries them. */
  evidence?: string;
}
