import { z } from './zod';
import { CLASSIFIER_LAYERS } from './classification';
import { RiskClassSchema } from './risk';
import { ACTION_IDS } from './actions/vocabulary';
import { RuleRefSchema, type RuleRef } from './ruleRef';

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
  /** Every write bound to a (site, action, object) the words name (docs/actions.md). */
  'action_binding',
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

/**
 * Every decision explains itself: which check decided, why, which rule (a policy entry, a grant or a
 * built-in rule, see ruleRef.ts), and what the classifier read the action as and why.
 */
/** The web action a call was read as: its id (null: a write of a known app the table does not name), object and app. */
export const RecordActionSchema = z.strictObject({ id: z.nullable(z.enum(ACTION_IDS)), object: z.nullable(z.string()), app: z.nullable(z.string()) });

export const DecisionRecordSchema = z.strictObject({
  decision: DecisionSchema,
  check: CheckSchema,
  reason: z.string(),
  tool: z.string(),
  capability: z.string(),
  riskClass: RiskClassSchema,
  targets: z.strictObject({
    recipients: z.array(z.string()),
    domains: z.array(z.string()),
    paths: z.array(z.string()),
    items: z._default(z.array(z.string()), []),
    amounts: z.optional(z.array(z.string())),
    quantities: z.optional(z.array(z.string())),
  }),
  /**
   * The rule that decided, e.g. `allow.classes:COMMUNICATION`, `grant:…`, `prohibition:p1`, `domains`,
   * `builtin:exfiltration-url`. Every evaluator decision sets it; optional for records written before.
   */
  ruleRef: z.optional(RuleRefSchema),
  /** The user's words behind ruleRef, when the policy carries them. */
  evidence: z.optional(z.string()),
  /** The classifier layer that read the action (absent when the call was never classified). */
  classifierLayer: z.optional(z.enum(CLASSIFIER_LAYERS)),
  /** The classifier's reason in words, e.g. `carries a card-number field`. */
  basis: z.optional(z.string()),
  /** The web action and object the classifier read (docs/actions.md); absent when none was read. */
  action: z.optional(RecordActionSchema),
});
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

/** A record the evaluator made: it always names the rule that decided. */
export type EvaluatorRecord = DecisionRecord & { ruleRef: RuleRef };
