import { z } from '../core/zod';
import { RISK_CLASSES } from '../core/risk';

/**
 * What a drafting backend (rules or LLM) proposes. Untrusted: hardening decides what survives.
 * Every field is required and nullable rather than optional, so the JSON schema derived from it
 * is accepted by strict structured-output endpoints.
 */
const DraftClassSchema = z.enum(RISK_CLASSES);

export const PermissionDraftSchema = z.strictObject({
  riskClass: DraftClassSchema,
  /** Canonical capability (e.g. `email.send`) when the permission is narrower than the class. */
  capability: z.nullable(z.string().check(z.maxLength(128))),
  /** A tool name when the permission is for one tool only. */
  tool: z.nullable(z.string().check(z.maxLength(256))),
  recipients: z.array(z.string().check(z.maxLength(320))).check(z.maxLength(100)),
  domains: z.array(z.string().check(z.maxLength(253))).check(z.maxLength(100)),
  paths: z.array(z.string().check(z.maxLength(4096))).check(z.maxLength(100)),
  maxCalls: z.nullable(z.number().check(z.int(), z.gte(0), z.lte(1000))),
  /** The user's words that ask for this, copied exactly. */
  quote: z.string().check(z.maxLength(2000)),
});
export type PermissionDraft = z.infer<typeof PermissionDraftSchema>;

export const ProhibitionDraftSchema = z.strictObject({
  classes: z.array(DraftClassSchema).check(z.maxLength(9)),
  exceptRecipients: z.array(z.string().check(z.maxLength(320))).check(z.maxLength(100)),
  quote: z.string().check(z.maxLength(2000)),
});
export type ProhibitionDraft = z.infer<typeof ProhibitionDraftSchema>;

export const PolicyDraftSchema = z.strictObject({
  permissions: z.array(PermissionDraftSchema).check(z.maxLength(50)),
  /** Sites the task reads (host names as the user wrote them). */
  readDomains: z.array(z.string().check(z.maxLength(253))).check(z.maxLength(100)),
  /** True only when the user asks for research across the open web. */
  openWeb: z.boolean(),
  prohibitions: z.array(ProhibitionDraftSchema).check(z.maxLength(50)),
});
export type PolicyDraft = z.infer<typeof PolicyDraftSchema>;

export function emptyDraft(): PolicyDraft {
  return { permissions: [], readDomains: [], openWeb: false, prohibitions: [] };
}

/** Size limits many strict structured-output endpoints reject; zod still enforces them on the answer. */
const UNSUPPORTED_KEYWORDS = new Set(['$schema', 'maxItems', 'minItems', 'maxLength', 'minLength', 'minimum', 'maximum']);

function withoutLimits(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLimits);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !UNSUPPORTED_KEYWORDS.has(k)).map(([k, v]) => [k, withoutLimits(v)]));
}

/** The JSON schema handed to structured-output endpoints, derived from the zod draft. */
export function policyDraftJsonSchema(): Record<string, unknown> {
  return withoutLimits(z.toJSONSchema(PolicyDraftSchema, { target: 'draft-7' })) as Record<string, unknown>;
}
