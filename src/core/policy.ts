import { z } from 'zod';
import { canonicalDecimal } from './amounts';
import { RiskClassSchema } from './risk';

/**
 * TaskPolicy: the whole authority of one task. Strict everywhere: an unknown key is an error,
 * never silently ignored.
 */

/** The most a class may get: ALLOW (if also listed), ASK_USER, or BLOCK. */
export const CeilingSchema = z.enum(['allow', 'ask', 'block']);
export type Ceiling = z.infer<typeof CeilingSchema>;

export const ListingSchema = z
  .object({
    tools: z.array(z.string().min(1)).default([]),
    capabilities: z.array(z.string().min(1)).default([]),
    classes: z.array(RiskClassSchema).default([]),
  })
  .strict();
export type Listing = z.infer<typeof ListingSchema>;

/** An exact amount: a canonical decimal string (never a float) and an ISO 4217 code. */
export const MoneySchema = z
  .object({
    value: z
      .string()
      .regex(/^\d{1,30}(?:\.\d{1,30})?$/, 'a decimal such as 45 or 45.50')
      .transform((v) => canonicalDecimal(v)),
    currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR'),
  })
  .strict();

/** Narrows one tool or capability: literal targets and a call budget. */
export const ConstraintSchema = z
  .object({
    id: z.string().min(1),
    tool: z.string().min(1).optional(),
    capability: z.string().min(1).optional(),
    riskClass: RiskClassSchema.optional(),
    recipients: z.array(z.string().min(1)).optional(),
    domains: z.array(z.string().min(1)).optional(),
    paths: z.array(z.string().min(1)).optional(),
    /** The named things the action must act on ("buy one USB-C cable"); matched by words, see items.ts. */
    items: z.array(z.string().min(1)).optional(),
    maxCalls: z.number().int().nonnegative().optional(),
    /** The most the user named for one call ("pay my bill of 45 EUR"); exact, see amounts.ts. */
    amount: MoneySchema.optional(),
    /** The most items one call may order ("buy two packs"). */
    quantity: z.number().int().positive().optional(),
  })
  .strict()
  .refine((c) => c.tool !== undefined || c.capability !== undefined || c.riskClass !== undefined, {
    message: 'a constraint names a tool, a capability or a risk class',
  });
export type Constraint = z.infer<typeof ConstraintSchema>;

/** A ban from the user's words. Beats every grant. */
export const ProhibitionSchema = z
  .object({
    id: z.string().min(1),
    classes: z.array(RiskClassSchema).default([]),
    capabilities: z.array(z.string().min(1)).default([]),
    tools: z.array(z.string().min(1)).default([]),
    /** "don't send it to anyone except john@x.com": these recipients are not banned. */
    exceptRecipients: z.array(z.string().min(1)).default([]),
    quote: z.string().min(1),
  })
  .strict();
export type Prohibition = z.infer<typeof ProhibitionSchema>;

/**
 * An attenuated delegation from a user approval: the exact tool and exactly these targets.
 * Empty target sets stay empty: a grant with no recipients never covers a call that has one.
 */
export const GrantSchema = z
  .object({
    id: z.string().min(1),
    tool: z.string().min(1),
    capability: z.string().min(1),
    riskClass: RiskClassSchema,
    recipients: z.array(z.string()).default([]),
    domains: z.array(z.string()).default([]),
    paths: z.array(z.string()).default([]),
    items: z.array(z.string()).default([]),
    /**
     * The approved call's amounts and quantities, exactly (as in Targets). Absent only in grants stored
     * before amounts were read, which keep their old meaning; an empty list covers no call that has one.
     */
    amounts: z.array(z.string()).optional(),
    quantities: z.array(z.string()).optional(),
    /** 1 for "Allow once"; null for "Allow for this task". */
    maxCalls: z.number().int().positive().nullable(),
    issuedAt: z.number().int().nonnegative(),
  })
  .strict();
export type Grant = z.infer<typeof GrantSchema>;

/** Ties a permission to the user's own words. `ref` names the policy entry, e.g. `allow.classes:COMMUNICATION`. */
export const EvidenceSchema = z.object({ ref: z.string().min(1), quote: z.string().min(1) }).strict();
export type Evidence = z.infer<typeof EvidenceSchema>;

/**
 * The policy format's version. 2: grants carry `items` (and may carry `amounts`/`quantities`); a
 * version-1 policy is read through `migratePolicy`. Bump it, and add a migration, whenever a stored or
 * exchanged policy would read differently.
 */
export const POLICY_VERSION = 2;

export const TaskPolicySchema = z
  .object({
    version: z.literal(POLICY_VERSION),
    taskId: z.string().min(1),
    issuedAt: z.number().int().nonnegative(),
    /** ms since epoch; null = until the task is ended. */
    expiresAt: z.number().int().nonnegative().nullable(),
    ceilings: z.partialRecord(RiskClassSchema, CeilingSchema).default({}),
    allow: ListingSchema.default({ tools: [], capabilities: [], classes: [] }),
    deny: ListingSchema.default({ tools: [], capabilities: [], classes: [] }),
    constraints: z.array(ConstraintSchema).default([]),
    /** Task-wide allowlists. `domains: null` = reading is not limited to a list of sites. */
    recipients: z.array(z.string().min(1)).default([]),
    domains: z.array(z.string().min(1)).nullable().default([]),
    paths: z.array(z.string().min(1)).default([]),
    outboundBudget: z
      .object({ maxCalls: z.number().int().nonnegative().nullable(), maxBytes: z.number().int().nonnegative().nullable() })
      .strict()
      .default({ maxCalls: null, maxBytes: null }),
    prohibitions: z.array(ProhibitionSchema).default([]),
    grants: z.array(GrantSchema).default([]),
    /** Listed permissions that still need a person to confirm each call. */
    requireApproval: ListingSchema.default({ tools: [], capabilities: [], classes: [] }),
    evidence: z.array(EvidenceSchema).default([]),
    /** Where the policy came from, e.g. `rules`, `openai:model`, `fallback:read-only`. */
    source: z.string().default('manual'),
  })
  .strict();
export type TaskPolicy = z.infer<typeof TaskPolicySchema>;
/** A policy as callers write it: the current format, or version 1 (read through `migratePolicy`). */
export type TaskPolicyInput = Omit<z.input<typeof TaskPolicySchema>, 'version'> & { version: 1 | typeof POLICY_VERSION };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Lifts an older policy to the current version; anything else is returned as is for the schema to judge.
 * v1 → v2: grants gained `items` (an approval for no named item stays one: `[]`).
 */
export function migratePolicy(input: unknown): unknown {
  if (!isObject(input) || input.version !== 1) return input;
  const grants = Array.isArray(input.grants) ? input.grants.map((g: unknown) => (isObject(g) && g.items === undefined ? { ...g, items: [] } : g)) : input.grants;
  return { ...input, version: 2, ...(grants !== undefined ? { grants } : {}) };
}

/** Parse untrusted policy JSON of any readable version; throws a ZodError whose issues carry the path. */
export function parsePolicy(input: unknown): TaskPolicy {
  return TaskPolicySchema.parse(migratePolicy(input));
}

/** Counters σ carried across calls. Pure data so it can be persisted and compared. */
export const EvalStateSchema = z
  .object({
    /** Calls allowed so far per constraint id / grant id. */
    constraintCalls: z.record(z.string(), z.number().int().nonnegative()).default({}),
    grantCalls: z.record(z.string(), z.number().int().nonnegative()).default({}),
    outboundCalls: z.number().int().nonnegative().default(0),
    outboundBytes: z.number().int().nonnegative().default(0),
  })
  .strict();
export type EvalState = z.infer<typeof EvalStateSchema>;

export function initialState(): EvalState {
  return { constraintCalls: {}, grantCalls: {}, outboundCalls: 0, outboundBytes: 0 };
}
