import { z } from './zod';
import { canonicalDecimal } from './amounts';
import { RiskClassSchema } from './risk';
import { ACTION_IDS, SETTING_POLE_IDS } from './actions/vocabulary';
import { PERSONAL_DATA_KINDS, type PersonalDatum } from './personal';

/**
 * TaskPolicy: the whole authority of one task. Strict everywhere: an unknown key is an error,
 * never silently ignored.
 */

/** The most a class may get: ALLOW (if also listed), ASK_USER, or BLOCK. */
export const CeilingSchema = z.enum(['allow', 'ask', 'block']);
export type Ceiling = z.infer<typeof CeilingSchema>;

const NonEmpty = z.string().check(z.minLength(1));
const Count = z.number().check(z.int(), z.nonnegative());

export const ListingSchema = z.strictObject({
  tools: z._default(z.array(NonEmpty), []),
  capabilities: z._default(z.array(NonEmpty), []),
  classes: z._default(z.array(RiskClassSchema), []),
});
export type Listing = z.infer<typeof ListingSchema>;

/** An exact amount: a canonical decimal string (never a float) and an ISO 4217 code. */
export const MoneySchema = z.strictObject({
  value: z.pipe(
    z.string().check(z.regex(/^\d{1,30}(?:\.\d{1,30})?$/, 'a decimal such as 45 or 45.50')),
    z.transform((v: string) => canonicalDecimal(v)),
  ),
  currency: z.string().check(z.regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR')),
});

/**
 * Amounts tied to recipients ("pay bob@x.test 45 EUR, pay alice@x.test 4,500 EUR"): each payee is bound by
 * the amount the user named for it, and a call to anyone else, or to no readable recipient, by `others` (the
 * least amount the task names for the class). Always within the constraint's `amount`, which still bounds
 * every call; absent in policies stored before (they keep one bound per class).
 */
export const PayeeAmountsSchema = z.strictObject({
  payees: z.array(
    z.strictObject({
      /** An address or IBAN as the classifier reads it (lower case), or a name ("bob"), matched by its words. */
      recipient: NonEmpty,
      amount: MoneySchema,
    }),
  ),
  others: MoneySchema,
});
export type PayeeAmounts = z.infer<typeof PayeeAmountsSchema>;

/** A setting the words change (see Constraint.settings): its direction and its own nouns, lower case. */
export const SettingSchema = z.strictObject({
  to: z.enum(SETTING_POLE_IDS),
  about: z.array(NonEmpty),
});
export type Setting = z.infer<typeof SettingSchema>;

/** Narrows one tool or capability: literal targets and a call budget. */
export const ConstraintSchema = z
  .strictObject({
    id: NonEmpty,
    tool: z.optional(NonEmpty),
    capability: z.optional(NonEmpty),
    riskClass: z.optional(RiskClassSchema),
    recipients: z.optional(z.array(NonEmpty)),
    domains: z.optional(z.array(NonEmpty)),
    paths: z.optional(z.array(NonEmpty)),
    /** The named things the action must act on ("buy one USB-C cable"); matched by words, see items.ts. */
    items: z.optional(z.array(NonEmpty)),
    maxCalls: z.optional(Count),
    /** The most the user named for one call ("pay my bill of 45 EUR"); exact, see amounts.ts. */
    amount: z.optional(MoneySchema),
    /**
     * The words give `amount` as the value a setting takes ("change the price to $25000"), not as a most: a write
     * of the class that carries another amount (a price of $2500) sets something the words do not ask for; it asks.
     */
    amountIsValue: z.optional(z.literal(true)),
    /** Per-recipient bounds within `amount` ("pay bob 45 EUR, alice 4,500 EUR"); see PayeeAmountsSchema. */
    payeeAmounts: z.optional(PayeeAmountsSchema),
    /** The most items one call may order ("buy two packs"). */
    quantity: z.optional(z.number().check(z.int(), z.positive())),
    /**
     * The words ask to post in public on the constraint's sites: a message there that names no recipient is that
     * post. On an EXTERNAL_WRITE constraint ("post a tweet on social.test", "leave a review on shop.test") such a
     * message is decided as the write; on a COMMUNICATION one ("reply in the thread on chat.test") it needs no
     * readable recipient. Only with `domains`, only for an action on them; a message with a recipient is bound as ever.
     */
    publicPost: z.optional(z.literal(true)),
    /**
     * Whom the words name as what this write is about or for ("draft a reply to sam@…", "follow @nasa", an
     * event's invitee "invite her, maria@…"): a call that names them passes recipient binding. Unlike
     * `recipients`, a call need not name any; it never lets a message, share or payment reach them.
     */
    reaches: z.optional(z.array(NonEmpty)),
    /**
     * What the words give a write to carry ("rename the network to 'Casa-Lupo'", "set the price to $250", "change
     * my address to 12 Elm St"): quoted text, numbers, addresses, the value after "to". A write of the class on a
     * site no app table describes carries one of them (in its fields, body or URL), or it asks: the words name
     * no other write there. Lower case; absent when some write clause gives none (it binds nothing then).
     */
    carries: z.optional(z.array(NonEmpty)),
    /**
     * What the words refuse right after the request ("subscribe me to the annual plan, not monthly", "book the
     * double room, not the suite"): a call of the class that carries one of these words asks. Lower case.
     */
    refuses: z.optional(z.array(NonEmpty)),
    /**
     * Counts the words give a noun ("1 room 2 adults", "grab 2 seats"), by the noun as written: a write of the
     * class whose field for that noun (`rooms`, `num_seats`) carries another count asks. Quantities are exact.
     */
    counts: z.optional(z.record(NonEmpty, z.number().check(z.nonnegative()))),
    /**
     * The days the words name a booking or an event for ("dec 18-20"), as `MM-DD` (dates.ts): a tool call of the
     * class whose date field names another day asks.
     */
    dates: z.optional(z.array(NonEmpty)),
    /**
     * The settings the words change and which way ("turn off email notifications", "make my profile private"):
     * a write of the class that sets the other direction asks, on any site; on a site no app table describes,
     * so does one whose names, values, button and route do not name the setting's nouns. A call passes when it
     * is one of them. Absent when some clause of the class gives none (it binds nothing then).
     */
    settings: z.optional(z.array(SettingSchema).check(z.minLength(1))),
    /**
     * The nouns of what the writes act on ("cancel my subscription" → subscription, "unfollow @spammer" → spammer):
     * a browser write of the class on a site no app table describes, whose action no route names and which
     * carries no `carries` value, names one of them (fields, values, button, route) or it asks. Lower case;
     * absent when some clause of the class names none.
     */
    about: z.optional(z.array(NonEmpty).check(z.minLength(1))),
    /**
     * The words name a thing a message carries ("email mark the contract draft", "send bob the photos"): a message
     * of the class may carry attachments. Absent: one that carries an attachment asks (the words send text).
     */
    attachments: z.optional(z.literal(true)),
    /**
     * The web actions the words ask for (docs/actions.md): the constraint applies only to a call read as one
     * of them, and on its `domains` every write must be one of the policy's named actions (check
     * action_binding). Absent in policies stored before: they bind by class as ever.
     */
    actions: z.optional(z.array(z.enum(ACTION_IDS)).check(z.minLength(1))),
    /**
     * The objects those actions act on, canonical (`issue:byteblaze/dotfiles#1000`, `post:130944`;
     * `issue:*#1000` when the words name the number but not the project). Absent: the words left the object
     * open, and a write on an existing object of a known app asks.
     */
    objects: z.optional(z.array(NonEmpty)),
  })
  .check(
    z.refine((c) => c.tool !== undefined || c.capability !== undefined || c.riskClass !== undefined || c.actions !== undefined, {
      message: 'a constraint names a tool, a capability, a risk class or actions',
    }),
    z.refine((c) => c.objects === undefined || c.actions !== undefined, { message: 'objects are those of named actions' }),
  );
export type Constraint = z.infer<typeof ConstraintSchema>;

/** A ban from the user's words. Beats every grant. */
export const ProhibitionSchema = z.strictObject({
  id: NonEmpty,
  classes: z._default(z.array(RiskClassSchema), []),
  capabilities: z._default(z.array(NonEmpty), []),
  tools: z._default(z.array(NonEmpty), []),
  /** "don't send it to anyone except john@x.com": these recipients are not banned. */
  exceptRecipients: z._default(z.array(NonEmpty), []),
  /**
   * The ban names these web actions only ("upvote post 130944, don't downvote anything and don't comment"): a
   * call of its classes is banned when it is read as one of them, and asked when it is read as no action. Absent:
   * the whole classes are banned. Set only for a class the task also asks for by another action.
   */
  actions: z.optional(z.array(z.enum(ACTION_IDS)).check(z.minLength(1))),
  /**
   * The ban names the user's own data ("don't share my phone number"): a call of its classes is banned when it
   * carries a field of one of these kinds (src/core/personal.ts); the classes are not banned otherwise.
   */
  data: z.optional(z.array(z.enum(PERSONAL_DATA_KINDS as [PersonalDatum, ...PersonalDatum[]])).check(z.minLength(1))),
  quote: NonEmpty,
});
export type Prohibition = z.infer<typeof ProhibitionSchema>;

/**
 * An attenuated delegation from a user approval: the exact tool and exactly these targets.
 * Empty target sets stay empty: a grant with no recipients never covers a call that has one.
 */
export const GrantSchema = z.strictObject({
  id: NonEmpty,
  tool: NonEmpty,
  capability: NonEmpty,
  riskClass: RiskClassSchema,
  recipients: z._default(z.array(z.string()), []),
  domains: z._default(z.array(z.string()), []),
  paths: z._default(z.array(z.string()), []),
  items: z._default(z.array(z.string()), []),
  /**
   * The approved call's amounts and quantities, exactly (as in Targets). Absent only in grants stored
   * before amounts were read, which keep their old meaning; an empty list covers no call that has one.
   */
  amounts: z.optional(z.array(z.string())),
  quantities: z.optional(z.array(z.string())),
  /** 1 for "Allow once"; null for "Allow for this task". */
  maxCalls: z.nullable(z.number().check(z.int(), z.positive())),
  issuedAt: Count,
});
export type Grant = z.infer<typeof GrantSchema>;

/** Ties a permission to the user's own words. `ref` names the policy entry, e.g. `allow.classes:COMMUNICATION`. */
export const EvidenceSchema = z.strictObject({ ref: NonEmpty, quote: NonEmpty });
export type Evidence = z.infer<typeof EvidenceSchema>;

/**
 * The policy format's version. 2: grants carry `items` (and may carry `amounts`/`quantities`); a
 * version-1 policy is read through `migratePolicy`. Bump it, and add a migration, whenever a stored or
 * exchanged policy would read differently.
 */
export const POLICY_VERSION = 2;

export const TaskPolicySchema = z.strictObject({
  version: z.literal(POLICY_VERSION),
  taskId: NonEmpty,
  issuedAt: Count,
  /** ms since epoch; null = until the task is ended. */
  expiresAt: z.nullable(Count),
  ceilings: z._default(z.partialRecord(RiskClassSchema, CeilingSchema), {}),
  allow: z._default(ListingSchema, { tools: [], capabilities: [], classes: [] }),
  deny: z._default(ListingSchema, { tools: [], capabilities: [], classes: [] }),
  constraints: z._default(z.array(ConstraintSchema), []),
  /**
   * Task-wide allowlists. `domains: null` = reading is not limited to a list of sites. A private host is
   * listed as its exact endpoint, `localhost:3000`; one without a port names its default ports (80, 443)
   * and no other port or subdomain (addresses.ts, siteKeysOf; the same in constraints' and grants'
   * domains). Policies stored before ports were kept list `localhost` for every port: they now read as
   * the default ports — narrower, never wider, so the format's version is unchanged.
   */
  recipients: z._default(z.array(NonEmpty), []),
  domains: z._default(z.nullable(z.array(NonEmpty)), []),
  paths: z._default(z.array(NonEmpty), []),
  outboundBudget: z._default(z.strictObject({ maxCalls: z.nullable(Count), maxBytes: z.nullable(Count) }), { maxCalls: null, maxBytes: null }),
  prohibitions: z._default(z.array(ProhibitionSchema), []),
  grants: z._default(z.array(GrantSchema), []),
  /** Listed permissions that still need a person to confirm each call. */
  requireApproval: z._default(ListingSchema, { tools: [], capabilities: [], classes: [] }),
  evidence: z._default(z.array(EvidenceSchema), []),
  /**
   * Addresses the user's words name without asking to reach them ("archive the newsletters from news@shop.test"):
   * a URL that carries one of these (a search for that sender) is not exfiltration-shaped for it. It grants
   * nothing: no recipient, no site.
   */
  mentioned: z.optional(z.array(NonEmpty)),
  /**
   * Sites the words name by product name without an address ("on gitlab", "my linkedin"; src/core/products.ts):
   * a consequential call to that product's real host asks once (site binding) instead of being blocked as a site
   * the task does not name. It allows nothing by itself.
   */
  products: z.optional(z.array(NonEmpty)),
  /** Where the policy came from, e.g. `rules`, `openai:model`, `fallback:read-only`. */
  source: z._default(z.string(), 'manual'),
});
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
export const EvalStateSchema = z.strictObject({
  /** Calls allowed so far per constraint id / grant id. */
  constraintCalls: z._default(z.record(z.string(), Count), {}),
  grantCalls: z._default(z.record(z.string(), Count), {}),
  outboundCalls: z._default(Count, 0),
  outboundBytes: z._default(Count, 0),
  /** The ids each constraint's allowed calls acted on (objects.ts): as many as the things its words name. */
  objectRefs: z.optional(z.record(z.string(), z.array(z.string()))),
});
export type EvalState = z.infer<typeof EvalStateSchema>;

export function initialState(): EvalState {
  return { constraintCalls: {}, grantCalls: {}, outboundCalls: 0, outboundBytes: 0 };
}
