import { z } from 'zod';
import { RiskClassSchema } from './risk';

export const DecisionSchema = z.enum(['ALLOW', 'BLOCK', 'ASK_USER']);
export type Decision = z.infer<typeof DecisionSchema>;

/** The checks of the evaluator, in the order they run. The first that decides is named in the record. */
export const CHECKS = [
  'schema',
  'expiry',
  'guards',
  /** The organisation's floor (managed policy): deny-overrides, no grant or approval lifts it. */
  'org_floor',
  'prohibitions',
  'deny_list',
  'grants',
  'private_network',
  'argument_constraints',
  'ceiling',
  'recipient_binding',
  'domain_allowlist',
  'site_binding',
  'exfiltration_url',
  'path_allowlist',
  'outbound_budget',
  'approval_required',
  'minimizer',
  'allowed',
  'internal_error',
  /** Not an action: the Sanitizer removed text from what the agent reads (audited with counts, never the text). */
  'sanitizer',
] as const;
export const CheckSchema = z.enum(CHECKS);
export type Check = z.infer<typeof CheckSchema>;

/** Every decision explains itself: which check decided, why, and for ALLOW which entry or grant allowed it. */
export const DecisionRecordSchema = z
  .object({
    decision: DecisionSchema,
    check: CheckSchema,
    reason: z.string(),
    tool: z.string(),
    capability: z.string(),
    riskClass: RiskClassSchema,
    targets: z
      .object({ recipients: z.array(z.string()), domains: z.array(z.string()), paths: z.array(z.string()), items: z.array(z.string()).default([]), amounts: z.array(z.string()).optional(), quantities: z.array(z.string()).optional() })
      .strict(),
    /** The policy entry or grant behind the decision, e.g. `allow.classes:COMMUNICATION`, `grant:…`, `prohibition:p1`. */
    ruleRef: z.string().optional(),
    /** The user's words behind ruleRef, when the policy carries them. */
    evidence: z.string().optional(),
  })
  .strict();
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;
