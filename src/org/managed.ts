import { z } from '../core/zod';
import { OrgFloorSchema, type OrgFloor } from '../core/org';
import { RiskClassSchema } from '../core/risk';
import { BackendSchema, SanitizerModeSchema } from '../messages/protocol';

/**
 * The organisation's managed policy: what an administrator sets by enterprise policy and the extension
 * reads from `storage.managed` (Chromium: `3rdparty.extensions.<id>` in the managed-policy directory;
 * Firefox: `3rdparty.Extensions.<id>` in policies.json). public/managed_schema.json declares the same
 * keys to the browser; tests/org/managed.test.ts checks the two agree.
 *
 * Parsed here, at the ingest boundary, with a strict schema. Absent (no policy set, or a browser without
 * managed storage) → no floor. Present but malformed → the floor blocks every action (`unreadable`),
 * the popup says so and the audit log records it: an organisation that meant to set limits never gets
 * fewer than it asked for because of a typo.
 */
const Site = z.string().check(z.minLength(1), z.maxLength(253));
export const ManagedPolicySchema = z.strictObject({
  blockedSites: z.optional(z.array(Site).check(z.maxLength(1000))),
  askSites: z.optional(z.array(Site).check(z.maxLength(1000))),
  neverAllowClasses: z.optional(z.array(RiskClassSchema)),
  /** The longest an action may wait for a person before it is blocked (the user may set less). */
  maxAskTimeoutSeconds: z.optional(z.number().check(z.int(), z.gte(5), z.lte(3600))),
  sanitizerMode: z.optional(SanitizerModeSchema),
  minimizerMode: z.optional(z.enum(['off', 'detect', 'model'])),
  /** The compiler endpoint every task uses (the API key stays the user's). */
  compiler: z.optional(
    z.strictObject({
      backend: BackendSchema,
      baseUrl: z.optional(z.url({ protocol: /^https?$/ })),
      model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    }),
  ),
  /** Where audit entries are shipped as OTLP/HTTP JSON log records (the full `/v1/logs` URL). */
  collectorUrl: z.optional(z.url({ protocol: /^https?$/ })),
});
export type ManagedPolicy = z.infer<typeof ManagedPolicySchema>;

/** What the extension made of the managed storage. */
export type OrgState =
  | { status: 'none' }
  | { status: 'active'; policy: ManagedPolicy; floor: OrgFloor }
  | { status: 'malformed'; reason: string; floor: OrgFloor };

export const NO_ORG: OrgState = { status: 'none' };

/** `storage.managed.get()`'s result (or a failure to read it) → the organisation's state. */
export function readManaged(raw: unknown): OrgState {
  if (raw === undefined || raw === null || (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0)) return NO_ORG;
  const parsed = ManagedPolicySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    const reason = `malformed at ${where}: ${issue?.message ?? 'invalid'}`.slice(0, 200);
    return { status: 'malformed', reason, floor: OrgFloorSchema.parse({ unreadable: reason }) };
  }
  const policy = parsed.data;
  const floor = OrgFloorSchema.parse({ blockedSites: policy.blockedSites ?? [], askSites: policy.askSites ?? [], neverAllow: policy.neverAllowClasses ?? [] });
  return { status: 'active', policy, floor };
}

/** The evaluator's part of the state: null when the organisation set nothing. */
export function floorOf(org: OrgState): OrgFloor | null {
  return org.status === 'none' ? null : org.floor;
}
