import { callCarries, callMentions, countOtherThanSaid, streetsOf } from './carried';
import { exfiltrationShape, taskWordsInQuery } from './exfil';
import { amountTarget, amountWords, compareDecimal, formatMoney, moneyOfTarget, UNREADABLE_AMOUNT, UNREADABLE_QUANTITY, type Money } from './amounts';
import { ToolCallSchema, type ToolCall } from './call';
import { emptyTargets, type Classification, type Targets } from './classification';
import { classifyWeb, type Classifier } from './classifier';
import type { Check, Decision, EvaluatorRecord } from './decision';
import { hostOf } from './domains';
import { orgAsks, orgDenies, type OrgFloor } from './org';
import { siteKeysOf } from './addresses';
import { itemsCovered } from './items';
import { bindRefs, isObjectRef, refsBeyondWords } from './objects';
import { dayOtherThanSaid } from './dates';
import { pathCovered } from './paths';
import type { ListingKind, RuleRef } from './ruleRef';
import { personalFieldCarried } from './personal';
import { productOfHost } from './products';
import { schemeOf } from './schemes';
import type { Ceiling, Constraint, EvalState, Grant, Listing, PayeeAmounts, TaskPolicy } from './policy';
import { isConsequential, OUTBOUND_CLASSES, type RiskClass } from './risk';
import { bindAction, constraintCoversAction } from './actions/binding';
import { isOrderStep } from './actions/read';
import { describeReading } from './actions/read';
import { namesAnyThing, settingRefusal, unnamedObjectSlug } from './actions/settings';
import { ACTIONS, SECURITY_ACTIONS } from './actions/vocabulary';

/** Browser writes whose fields, button and route say what they act on. */
const WEB_WRITES: ReadonlySet<string> = new Set(['browser.form_submit', 'browser.request']);

export interface EvalResult {
  record: EvaluatorRecord;
  /** σ' — equal to the input state unless the call was allowed and counted. */
  state: EvalState;
}

/**
 * E(P, σ, t, a) with the classifier passed in (the extension passes the browser-action classifier, the
 * CLI the one for any agent's tools, src/tools): total and deterministic. Checks run in the fixed order
 * docs/architecture.md states ("Evaluation order"; the table EVALUATION below is it) and the first that
 * decides wins. Counting is part of the same synchronous step. Any internal error is a BLOCK, never a
 * skipped check.
 *
 * `org` is the organisation's floor (core/org.ts), passed in as data: its denials run right after the
 * guards, before anything that can allow, and its always-ask sites turn every ALLOW but a single-use
 * approval into ASK_USER. No policy, grant or follow-up can lift either (tests/properties/org.test.ts).
 */
export function evaluateWith(classify: Classifier, policy: TaskPolicy, state: EvalState, rawCall: unknown, now: number, org: OrgFloor | null = null): EvalResult {
  let classification: Classification | null = null;
  try {
    const parsed = ToolCallSchema.safeParse(rawCall);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
      return { record: failClosed(rawCall, 'schema', `malformed tool call at ${where}: ${issue?.message ?? 'invalid'}`, null), state };
    }
    classification = classify(parsed.data);
    return decideUnderFloor(policy, state, parsed.data, classification, now, org);
  } catch (err) {
    return { record: failClosed(rawCall, 'internal_error', `evaluator error: ${err instanceof Error ? err.message : String(err)}`, classification), state };
  }
}

/** E for the browser's actions: what the extension decides with (any other tool is UNKNOWN). */
export function evaluateBrowserAction(policy: TaskPolicy, state: EvalState, rawCall: unknown, now: number, org: OrgFloor | null = null): EvalResult {
  return evaluateWith(classifyWeb, policy, state, rawCall, now, org);
}

/**
 * The decision for a call the caller has already parsed and classified (the extension classifies once
 * for the decision and the audit entry). Same checks, same order, same totality as `evaluateWith`.
 */
export function decideClassified(policy: TaskPolicy, state: EvalState, call: ToolCall, c: Classification, now: number, org: OrgFloor | null = null): EvalResult {
  try {
    return decideUnderFloor(policy, state, call, c, now, org);
  } catch (err) {
    return { record: failClosed(call, 'internal_error', `evaluator error: ${err instanceof Error ? err.message : String(err)}`, c), state };
  }
}

/** BLOCK for a malformed call or an error inside the checks; an error keeps what the classifier had read. */
function failClosed(rawCall: unknown, check: 'schema' | 'internal_error', reason: string, c: Classification | null): EvaluatorRecord {
  const ruleRef = check === 'schema' ? 'builtin:tool-call-schema' : 'builtin:fail-closed';
  const tool = toolNameOf(rawCall);
  if (c === null) return { decision: 'BLOCK', check, reason, tool, capability: 'unknown', riskClass: 'UNKNOWN', targets: emptyTargets(), ruleRef };
  return { decision: 'BLOCK', check, reason, tool, capability: c.capability, riskClass: c.riskClass, targets: c.targets, ruleRef, classifierLayer: c.layer, basis: c.basis };
}

function toolNameOf(raw: unknown): string {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const tool = (raw as { tool?: unknown }).tool;
    if (typeof tool === 'string') return tool.slice(0, 256);
  }
  return '(malformed)';
}

interface ListingSets {
  tools: ReadonlySet<string>;
  capabilities: ReadonlySet<string>;
  classes: ReadonlySet<string>;
}

/**
 * Set views of a policy's lists, built once per policy object so a decision costs the same with
 * 10 or 10,000 entries. Policies are immutable values; a changed policy is a new object.
 */
interface PolicyIndex {
  allow: ListingSets;
  deny: ListingSets;
  requireApproval: ListingSets;
  recipients: ReadonlySet<string>;
  domains: ReadonlySet<string>;
}

const indexes = new WeakMap<TaskPolicy, PolicyIndex>();

function indexOf(policy: TaskPolicy): PolicyIndex {
  let index = indexes.get(policy);
  if (!index) {
    const sets = (l: Listing): ListingSets => ({ tools: new Set(l.tools), capabilities: new Set(l.capabilities), classes: new Set(l.classes) });
    index = {
      allow: sets(policy.allow),
      deny: sets(policy.deny),
      requireApproval: sets(policy.requireApproval),
      recipients: new Set(lower(policy.recipients)),
      domains: new Set((policy.domains ?? []).flatMap(siteKeysOf)),
    };
    indexes.set(policy, index);
  }
  return index;
}

/** The targets a list of policy entries names (a private host's exact endpoints, see addresses.ts). */
const keysOf = (entries: readonly string[]): string[] => entries.flatMap(siteKeysOf);

/** What a consequential class does, for a site-binding question ("send to alice@x.test on mail.test?"). */
const ACTION_VERB: Partial<Record<RiskClass, string>> = {
  LOCAL_WRITE: 'save', EXTERNAL_WRITE: 'write', COMMUNICATION: 'send', DELETE: 'delete', PERMISSION_CHANGE: 'share', FINANCIAL: 'pay', EXECUTION: 'run',
};

function listed(listing: ListingSets, call: ToolCall, c: Classification): `${ListingKind}:${string}` | null {
  if (listing.tools.has(call.tool)) return `tools:${call.tool}`;
  if (listing.capabilities.has(c.capability)) return `capabilities:${c.capability}`;
  if (listing.classes.has(c.riskClass)) return `classes:${c.riskClass}`;
  return null;
}

function constraintApplies(k: Constraint, call: ToolCall, c: Classification): boolean {
  return (
    (k.tool === undefined || k.tool === call.tool) &&
    (k.capability === undefined || k.capability === c.capability) &&
    (k.riskClass === undefined || k.riskClass === c.riskClass) &&
    // An action constraint binds (and its budget is spent by) only the action and object it names.
    constraintCoversAction(k, c.action)
  );
}

function lower(xs: readonly string[]): string[] {
  return xs.map((x) => x.toLowerCase());
}
const subsetOf = (xs: readonly string[], of: readonly string[]) => xs.every((x) => of.includes(x));

/**
 * A grant's domains as targets (parsed once per grant object): a grant stored before private hosts kept
 * their port (`localhost`) covers its default ports, as a policy's entry does.
 */
const grantKeys = new WeakMap<Grant, string[]>();
function grantDomainKeys(g: Grant): string[] {
  let keys = grantKeys.get(g);
  if (keys === undefined) grantKeys.set(g, (keys = keysOf(g.domains)));
  return keys;
}

/** A constraint's domains as targets, parsed once per constraint object (policies are immutable values). */
const constraintKeys = new WeakMap<Constraint, string[]>();
function constraintDomainKeys(k: Constraint): string[] {
  let keys = constraintKeys.get(k);
  if (keys === undefined) constraintKeys.set(k, (keys = keysOf(k.domains ?? [])));
  return keys;
}

function grantCovers(g: Grant, call: ToolCall, c: Classification, used: number): boolean {
  return (
    g.tool === call.tool &&
    g.capability === c.capability &&
    g.riskClass === c.riskClass &&
    (g.maxCalls === null || used < g.maxCalls) &&
    subsetOf(c.targets.recipients, lower(g.recipients)) &&
    subsetOf(c.targets.domains, grantDomainKeys(g)) &&
    subsetOf(c.targets.paths, g.paths) &&
    // An approval for an item covers that item only, never an action whose item cannot be read.
    (g.items.length === 0 || c.targets.items.length > 0) &&
    subsetOf(c.targets.items, g.items) &&
    exactlyApproved(c.targets.amounts ?? [], g.amounts, UNREADABLE_AMOUNT, g.maxCalls) &&
    exactlyApproved(c.targets.quantities ?? [], g.quantities, UNREADABLE_QUANTITY, g.maxCalls)
  );
}

/** Whether the task's domain list or a constraint's domains name this endpoint (only asked for a private host). */
function namedPrivateEndpoint(policy: TaskPolicy, index: PolicyIndex, key: string | null): boolean {
  return key !== null && (index.domains.has(key) || policy.constraints.some((k) => k.domains !== undefined && constraintDomainKeys(k).includes(key)));
}

/**
 * A grant covers exactly the amounts (or quantities) it approved: the same ones, never another and
 * never none for some. One approved while unreadable covers that one call only ("Allow once"), never
 * "for this task". A grant stored before amounts were read (`approved` undefined) keeps its meaning.
 */
function exactlyApproved(proposed: readonly string[], approved: readonly string[] | undefined, unreadable: string, maxCalls: number | null): boolean {
  if (approved === undefined) return true;
  if (maxCalls === null && proposed.includes(unreadable)) return false;
  return (approved.length === 0 || proposed.length > 0) && subsetOf(proposed, approved);
}

/** Why a call's amounts are not within the amount the user named; null when they are. */
function amountOutsideBound(proposed: readonly string[], bound: Money, named = `the ${formatMoney(bound)} the user named`, unread = `the user named ${formatMoney(bound)}`): string | null {
  if (proposed.length === 0) return `the action carries no amount to check against ${named}`;
  for (const target of proposed) {
    const m = target === UNREADABLE_AMOUNT ? null : moneyOfTarget(target);
    if (m === null) return `the amount could not be read; ${unread}`;
    // An amount without a currency is taken in the named one: a form's currency is often only on its label.
    if (m.currency !== null && m.currency !== bound.currency) return `amount ${amountWords(target)} is in another currency than ${named}`;
    if (compareDecimal(m.value, bound.value) > 0) return `amount ${formatMoney({ value: m.value, currency: m.currency ?? bound.currency })} is above ${named}`;
  }
  return null;
}

/** The first amount a write carries that is not the value the words set (same number, same or no currency); null when none. */
function amountOtherThanSet(proposed: readonly string[], set: Money): string | null {
  for (const target of proposed) {
    const m = target === UNREADABLE_AMOUNT ? null : moneyOfTarget(target);
    if (m === null) return `the amount could not be read; the user set it to ${formatMoney(set)}`;
    if ((m.currency !== null && m.currency !== set.currency) || compareDecimal(m.value, set.value) !== 0) {
      return `the user's words set it to ${formatMoney(set)}; this write carries ${formatMoney({ value: m.value, currency: m.currency ?? set.currency })}`;
    }
  }
  return null;
}

/** An address or an IBAN: matched exactly, never by its words. */
const ADDRESS_LIKE = /@|^[a-z]{2}\d{2}[a-z0-9]{11,30}$/i;
const wordsOfName = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');

/**
 * Whether a call's recipient is a payee the user tied an amount to: the same address or IBAN, or for a
 * name ("bob") a recipient that is no address and carries each of its words ("Bob Smith"). A recipient
 * the user's words do not spell this way is tied to nothing: it gets the task's least amount.
 */
function payeeMatches(payee: string, recipient: string): boolean {
  const p = payee.toLowerCase();
  const r = recipient.toLowerCase();
  if (p === r) return true;
  // (Nor a marker such as the recipient past the part of a body read: it is nobody the user named.)
  if (ADDRESS_LIKE.test(p) || ADDRESS_LIKE.test(r) || r.startsWith('(')) return false;
  const words = new Set(wordsOfName(r));
  const named = wordsOfName(p);
  return named.length > 0 && named.every((w) => words.has(w));
}

/**
 * Why a call's amounts are not within the bounds of the payees it pays ("pay bob 45 EUR, alice 4,500 EUR":
 * a payment to bob of 4,500 EUR); null when they are. Each recipient of the call is bound by the amount the
 * user named for it (every one that matches it); a recipient tied to none, or a call with no readable
 * recipient, by every amount of the task at once — `others` and each payee's — so it never borrows one.
 * `quoteOf` gives the user's words that tied an amount, for the reason.
 */
function payeeAmountOutside(proposed: readonly string[], recipients: readonly string[], tied: PayeeAmounts, quoteOf: (ref: string) => string | undefined): string | null {
  const within = (bound: Money, named: string, unread = named) => amountOutsideBound(proposed, bound, named, unread);
  const quoted = (ref: string) => ((q) => (q === undefined ? '' : ` ("${q}")`))(quoteOf(ref));
  const untied: string[] = [];
  for (const r of recipients) {
    const own = tied.payees.filter((p) => payeeMatches(p.recipient, r));
    if (own.length === 0) untied.push(r);
    for (const p of own) {
      // (A payee merged from a turn compiled before payees were read has its class bound's quote.)
      const quote = quoted(`amount:${p.recipient}:${amountTarget(p.amount)}`) || quoted(`amount:${amountTarget(p.amount)}`);
      const why = within(p.amount, `the ${formatMoney(p.amount)} the user named for ${p.recipient}${quote}`, `the user named ${formatMoney(p.amount)} for ${p.recipient}${quote}`);
      if (why !== null) return why;
    }
  }
  if (recipients.length > 0 && untied.length === 0) return null;
  const whom = untied.length === 0 ? 'a payment whose recipient could not be read' : `${untied.join(', ')}, to whom the user tied no amount`;
  for (const bound of [tied.others, ...tied.payees.map((p) => p.amount)]) {
    const why = within(bound, `${formatMoney(bound)}, the least amount the task names (${whom})`, `it is bound to ${formatMoney(bound)}, the least amount the task names (${whom})`);
    if (why !== null) return why;
  }
  return null;
}

/**
 * Which amount bound an allowed call was within, for its reason: "4,500.00 EUR within the 4,500.00 EUR the
 * user named for alice@…", "… within 45.00 EUR, the least amount the task names"; null when none applied.
 */
function boundsApplied(constraints: readonly Constraint[], targets: Targets): string | null {
  if ((targets.amounts ?? []).length === 0 || !constraints.some((k) => k.amount !== undefined)) return null;
  const carried = (targets.amounts ?? []).map(amountWords).join(', ');
  const notes = constraints.flatMap((k): string[] => {
    if (k.amount === undefined || carried === '') return [];
    const tied = k.payeeAmounts;
    if (tied === undefined) return [`within the ${formatMoney(k.amount)} the user named`];
    const own = tied.payees.filter((p) => targets.recipients.some((r) => payeeMatches(p.recipient, r)));
    const untied = targets.recipients.length === 0 || targets.recipients.some((r) => !tied.payees.some((p) => payeeMatches(p.recipient, r)));
    return [...own.map((p) => `within the ${formatMoney(p.amount)} the user named for ${p.recipient}`), ...(untied ? [`within ${formatMoney(tied.others)}, the least amount the task names`] : [])];
  });
  return notes.length === 0 ? null : `${carried} ${notes.join('; ')}`;
}

/** Why a call's quantities are above the count the user named; null when they are not (none is not above). */
function quantityOutsideBound(proposed: readonly string[], bound: number): string | null {
  for (const target of proposed) {
    if (target === UNREADABLE_QUANTITY || !/^\d+$/.test(target)) return `the quantity could not be read; the user named ${bound}`;
    if (compareDecimal(target.replace(/^0+(?=\d)/, ''), String(bound)) > 0) return `quantity ${target} is above the ${bound} the user named`;
  }
  return null;
}

/**
 * The task's decision under the organisation's floor. An ALLOW the floor turns into ASK_USER counts
 * nothing (σ unchanged). The floor's denials are checked inside decideUnsafe, after the guards.
 */
function decideUnderFloor(policy: TaskPolicy, state: EvalState, call: ToolCall, c: Classification, now: number, org: OrgFloor | null): EvalResult {
  const result = decideUnsafe(policy, state, call, c, now, org);
  if (org === null || result.record.decision !== 'ALLOW') return result;
  const ruleRef = result.record.ruleRef;
  const onceGrant = result.record.check === 'grants' && policy.grants.some((g) => `grant:${g.id}` === ruleRef && g.maxCalls !== null);
  const ask = orgAsks(org, c, onceGrant);
  if (ask === null) return result;
  return { record: { ...result.record, decision: ask.decision, check: 'org_floor', reason: ask.reason, ruleRef: ask.ruleRef }, state };
}

function defaultCeiling(cls: RiskClass): Ceiling {
  return cls === 'READ' ? 'allow' : 'ask';
}

/** A page's own load of a resource (an image, a ping, a script): never the agent's navigation or a data request. */
function isDependencyLoad(call: ToolCall): boolean {
  if (call.tool !== 'browser.request') return false;
  const kind = (call.args as { kind?: unknown }).kind;
  return kind === 'image' || kind === 'ping' || kind === 'other';
}

/**
 * A load to a host the task does not name whose query joins the words the task acts on (its constraints' `about`,
 * a product's own name aside): the user's words carried off (exfil.ts, taskWordsInQuery).
 */
function wordsCarriedOff(urls: readonly string[], policy: TaskPolicy): Classification['exfiltration'] {
  const words = taskWordsOf(policy);
  for (const url of urls) {
    const found = taskWordsInQuery(url, words);
    if (found !== null) return { url, reason: `the query carries the task's own words (${found.join(', ')}) to a host the task does not name` };
  }
  return null;
}

/** The words a task acts on, built once per policy (policies are immutable; a page makes many such loads). */
const taskWords = new WeakMap<TaskPolicy, ReadonlySet<string>>();
function taskWordsOf(policy: TaskPolicy): ReadonlySet<string> {
  let words = taskWords.get(policy);
  if (words === undefined) {
    const products = new Set((policy.products ?? []).map((p) => p.toLowerCase()));
    words = new Set(policy.constraints.flatMap((k) => k.about ?? []).filter((w) => w.length >= 3 && !products.has(w)));
    taskWords.set(policy, words);
  }
  return words;
}

function firstShapedUrl(urls: readonly string[], named: readonly string[], ownSite: boolean): Classification['exfiltration'] {
  for (const url of urls) {
    const shape = exfiltrationShape(url, named, ownSite);
    if (shape.shaped) return { url, reason: shape.reason };
  }
  return null;
}

/**
 * A message that names no recipient, on sites where the task's write constraint says the words ask for a
 * public post there ("post a tweet on social.test", "leave a review on shop.test"): the site shows the post
 * as a message, the words asked for the write. Null for anything else.
 */
function publicPostAsWrite(policy: TaskPolicy, c: Classification): Classification | null {
  if (c.riskClass !== 'COMMUNICATION' || c.targets.recipients.length > 0 || c.targets.domains.length === 0) return null;
  const write = policy.constraints.find(
    (k) => k.publicPost === true && k.riskClass === 'EXTERNAL_WRITE' && k.tool === undefined && k.capability === undefined && k.domains !== undefined && c.targets.domains.every((d) => constraintDomainKeys(k).includes(d)),
  );
  if (write === undefined) return null;
  const asWrite: Classification = { ...c, riskClass: 'EXTERNAL_WRITE', capability: 'web.write', basis: `${c.basis}; no recipient: the public post the task asks for on ${c.targets.domains.join(', ')}` };
  if (c.action !== undefined) return asWrite;
  // (Unread, it is the post or comment the words ask for there — what made it this write — never another action.)
  const posting = policy.constraints.flatMap((k) => (k.actions === undefined || (k.domains !== undefined && !c.targets.domains.every((d) => constraintDomainKeys(k).includes(d))) ? [] : k.actions.filter((id) => id === 'post' || id === 'comment')));
  return posting.length === 0 ? asWrite : { ...asWrite, action: { id: posting[0]!, object: null, app: null, why: 'the public post the task asks for' } };
}

/**
 * A message the task does not allow as one (it asks at action binding, the ceiling or recipient binding) that is the
 * public post the words ask for is decided as that write, with the write's constraints (sites, budget).
 * Every refusal of the message itself (guards, the floor, prohibitions, deny list) stands.
 */
function decideUnsafe(policy: TaskPolicy, state: EvalState, call: ToolCall, read: Classification, now: number, org: OrgFloor | null): EvalResult {
  const c = orderStepAsOrder(policy, read) ?? read;
  const first = decideOne(policy, state, call, c, now, org);
  if (first.record.decision !== 'ASK_USER' || (first.record.check !== 'ceiling' && first.record.check !== 'recipient_binding' && first.record.check !== 'action_binding')) return first;
  const asWrite = publicPostAsWrite(policy, c);
  return asWrite === null ? first : decideOne(policy, state, call, asWrite, now, org);
}

/**
 * A cart add on a site where the words ask for an order there ("order a large pepperoni from slicehouse.test") is a
 * step of that order, decided from the start in the order's class: the order's items, quantities, sites and
 * prohibitions bind it (its budget counted apart, budgetKey). Null for anything else: a cart add under "add it to
 * my cart" is the edit the words ask for.
 */
function orderStepAsOrder(policy: TaskPolicy, c: Classification): Classification | null {
  if (c.riskClass !== 'EXTERNAL_WRITE' || !isOrderStep(c.action) || c.targets.domains.length === 0) return null;
  const here = (k: Constraint) => k.domains === undefined || c.targets.domains.every((d) => constraintDomainKeys(k).includes(d));
  // (Only where the words name what is ordered: a cart add is bound by the order's items, and one whose items the
  // words leave unread would pass on the class's rules alone — it stays the write it is, and asks.)
  const orders = policy.constraints.some((k) => k.actions?.includes('order') === true && here(k)) && policy.constraints.some((k) => k.riskClass === 'FINANCIAL' && k.items !== undefined && here(k));
  return orders ? { ...c, riskClass: 'FINANCIAL', capability: 'payment.send', basis: `${c.basis}; a step of the order the task asks for` } : null;
}

function decideOne(policy: TaskPolicy, state: EvalState, call: ToolCall, c: Classification, now: number, org: OrgFloor | null): EvalResult {
  const walk = new Walk(policy, state, call, c, now, org);
  for (let i = 0; i < EVALUATION.length; i++) {
    const result = EVALUATION[i]!.run(walk);
    if (result === null) continue;
    if (result.record.decision !== 'ASK_USER' || result.record.check !== 'action_binding' || walk.binding.refusal?.unread !== true) return result;
    // The question about a generic write nobody read never stands in front of a refusal: its approval would lift
    // what a later check refuses (a write to a site the task does not name, an exfiltration-shaped URL). The
    // first later BLOCK decides instead, as it did before such writes asked; else the question stands.
    for (const later of EVALUATION.slice(i + 1, -1)) {
      const refusal = later.run(walk);
      if (refusal !== null && refusal.record.decision === 'BLOCK') return refusal;
    }
    return result;
  }
  // The walk ends in `allowed`, which always decides.
  throw new Error('the evaluation order ended without a decision');
}

/**
 * One decision's inputs, and what a check computes that a later one reads (the exfiltration verdict, the
 * constraints that apply, the action binding, the rule an ALLOW cites), each computed once when first read.
 */
class Walk {
  readonly index: PolicyIndex;
  readonly targets: Targets;
  readonly cls: RiskClass;
  /** The items the call names only by an id (objects.ts). */
  readonly refs: readonly string[];
  /** The rule an ALLOW cites, set by the ceiling check. */
  allowedBy: RuleRef = 'ceilings.READ';
  private exfilOnce: Classification['exfiltration'] | undefined;
  private constraintsOnce: Constraint[] | undefined;
  private bindingOnce: ReturnType<typeof bindAction> | undefined;
  private offOnce: { off: string[]; fromConstraints: string[] } | undefined;

  constructor(
    readonly policy: TaskPolicy,
    readonly state: EvalState,
    readonly call: ToolCall,
    readonly c: Classification,
    readonly now: number,
    readonly org: OrgFloor | null,
  ) {
    this.index = indexOf(policy);
    this.targets = c.targets;
    this.cls = c.riskClass;
    this.refs = c.targets.items.filter(isObjectRef);
  }

  /**
   * The exfiltration-shaped URL, if any. (A URL whose only shape is an address the user's words name — a
   * search for that sender — is not a carrier on the task's own sites; sent to a host the task does not name,
   * while it names its sites by address or by product name, the address is carried off as any other.)
   */
  get exfil(): Classification['exfiltration'] {
    if (this.exfilOnce === undefined) {
      const off = this.carriesOff();
      const mentioned = off ? [] : (this.policy.mentioned ?? []);
      // (Every host the call reaches is one the task names, by address: a record's id there is no carrier.)
      const ownSite = !off && this.index.domains.size > 0 && this.offDomains.off.length === 0;
      this.exfilOnce = this.c.exfiltration === null || (mentioned.length === 0 && !ownSite) ? this.c.exfiltration : firstShapedUrl(this.c.urls, mentioned, ownSite);
      if (this.exfilOnce === null && off && this.cls === 'READ' && isDependencyLoad(this.call)) this.exfilOnce = wordsCarriedOff(this.c.urls, this.policy);
    }
    return this.exfilOnce;
  }

  /** The policy's constraints that name this call (by tool, capability, class and action). */
  get constraints(): Constraint[] {
    if (this.constraintsOnce === undefined) {
      // (Loops, not callbacks, on this path: a decision is a few microseconds, and most policies have none.)
      const applying: Constraint[] = [];
      for (const k of this.policy.constraints) if (constraintApplies(k, this.call, this.c)) applying.push(k);
      this.constraintsOnce = applying;
    }
    return this.constraintsOnce;
  }

  get binding(): ReturnType<typeof bindAction> {
    return (this.bindingOnce ??= bindAction(this.policy, this.c));
  }

  /** The call goes to a host the task does not name, while the task names its sites (by address or product). */
  private carriesOff(): boolean {
    const products = this.policy.products ?? [];
    if (this.policy.domains === null && products.length === 0) return false;
    return this.offDomains.off.some((d) => productOfHost(d, products) === null);
  }

  /** The call's domains the task names nowhere (its list or an applying constraint's domains). */
  get offDomains(): { off: string[]; fromConstraints: string[] } {
    if (this.offOnce === undefined) {
      const fromConstraints: string[] = [];
      for (const k of this.constraints) if (k.domains !== undefined) fromConstraints.push(...constraintDomainKeys(k));
      const off: string[] = [];
      for (const d of this.targets.domains) if (!this.index.domains.has(d) && !fromConstraints.includes(d)) off.push(d);
      this.offOnce = { off, fromConstraints };
    }
    return this.offOnce;
  }

  evidenceFor(ref: string): string | undefined {
    for (const e of this.policy.evidence) if (e.ref === ref) return e.quote;
    return undefined;
  }

  decide(decision: Decision, check: Check, reason: string, ruleRef: RuleRef, state: EvalState = this.state): EvalResult {
    const c = this.c;
    const record: EvaluatorRecord = { decision, check, reason, tool: this.call.tool, capability: c.capability, riskClass: this.cls, targets: this.targets, ruleRef, classifierLayer: c.layer, basis: c.basis };
    if (c.action !== undefined) record.action = { id: c.action.id, object: c.action.object, app: c.action.app };
    const evidence = this.evidenceFor(ruleRef);
    if (evidence !== undefined) record.evidence = evidence;
    return { record, state };
  }
}

/** A check of the walk: the decision it makes, or null to pass the call on to the next. */
interface Step {
  check: Exclude<Check, 'schema' | 'minimizer' | 'internal_error' | 'sanitizer'>;
  run: (w: Walk) => EvalResult | null;
}

function expiry(w: Walk): EvalResult | null {
  const { expiresAt } = w.policy;
  return expiresAt !== null && w.now >= expiresAt ? w.decide('BLOCK', 'expiry', 'the task policy has expired', 'expiresAt') : null;
}

/**
 * Only the schemes on the allowlist (schemes.ts): browser internals, extension pages and any scheme
 * nobody listed are out of reach of a guarded agent.
 */
function guards(w: Walk): EvalResult | null {
  for (const url of w.c.urls) {
    const { scheme, use } = schemeOf(url);
    if (use === 'forbidden') return w.decide('BLOCK', 'guards', `guarded tabs may not open ${scheme === 'about:' ? 'about: pages other than about:blank' : `${scheme} URLs`}`, 'builtin:scheme-allowlist');
  }
  return null;
}

/** The organisation's floor: deny-overrides, before anything that can allow. */
function orgFloor(w: Walk): EvalResult | null {
  if (w.org === null) return null;
  const denied = orgDenies(w.org, w.c);
  return denied === null ? null : w.decide(denied.decision, 'org_floor', denied.reason, denied.ruleRef);
}

/** Prohibitions beat everything that follows, grants included. */
function prohibitions(w: Walk): EvalResult | null {
  const { c, cls, targets } = w;
  // (An order's step is decided as part of the order, yet it is still the cart write it is: a ban of such writes
  // holds it where the call carries what the ban names — "dont add any extended warranty" and `options[warranty]`.)
  const step = cls === 'FINANCIAL' && isOrderStep(c.action);
  for (const p of w.policy.prohibitions) {
    const hit = p.classes.includes(cls) || p.capabilities.includes(c.capability) || p.tools.includes(w.call.tool) || (step && p.classes.includes('EXTERNAL_WRITE') && carriesWhatIsBanned(p.quote, w.call.args));
    if (!hit) continue;
    // (A ban of the user's own data — "don't share my phone number" — holds the writes that carry it.)
    if (p.data !== undefined) {
      const carried = personalFieldCarried(w.call.args, p.data);
      if (carried === null) continue;
      return w.decide('BLOCK', 'prohibitions', `the user said: "${p.quote}", and this call carries their ${carried}`, `prohibition:${p.id}`);
    }
    // (A ban of named actions — "don't downvote" — holds those; a write read as no action cannot be told apart: it asks.)
    if (p.actions !== undefined && c.action?.id != null && !p.actions.includes(c.action.id)) continue;
    if (p.actions !== undefined && c.action?.id == null) return w.decide('ASK_USER', 'prohibitions', `the user said: "${p.quote}", and this write could not be read as an action`, `prohibition:${p.id}`);
    const excepted = targets.recipients.length > 0 && subsetOf(targets.recipients, lower(p.exceptRecipients));
    if (!excepted) return w.decide('BLOCK', 'prohibitions', `the user said: "${p.quote}"`, `prohibition:${p.id}`);
  }
  return null;
}

/** Words of a ban that say what it is about, not how it is said ("dont add any extended warranty" → extended, warranty). */
const BAN_FRAME_WORDS = new Set(['dont', 'never', 'please', 'anything', 'other', 'more', 'them', 'that', 'this', 'these', 'those', 'with', 'from', 'your', 'their', 'into', 'about', 'also', 'just', 'without', 'adding', 'sign', 'create', 'make', 'order', 'check', 'send', 'post', 'share', 'thing', 'things', 'stuff', 'else', 'extra']);

function carriesWhatIsBanned(quote: string, args: unknown): boolean {
  const words = quote.toLowerCase().replace(/['’]/g, '').split(/[^a-z0-9]+/).filter((x) => x.length >= 4 && !BAN_FRAME_WORDS.has(x));
  if (words.length === 0) return false;
  const text = JSON.stringify(args).toLowerCase();
  return words.some((x) => text.includes(x));
}

function denyList(w: Walk): EvalResult | null {
  const denied = listed(w.index.deny, w.call, w.c);
  return denied ? w.decide('BLOCK', 'deny_list', `denied by the policy (${denied})`, `deny.${denied}`) : null;
}

/**
 * A user approval covers exactly the approved tool and targets. It never covers UNKNOWN (UNKNOWN is never
 * allowed) nor an exfiltration-shaped URL (the approval showed other data).
 */
function grants(w: Walk): EvalResult | null {
  if (w.policy.grants.length === 0 || w.cls === 'UNKNOWN' || w.exfil) return null;
  const { state } = w;
  const grant = w.policy.grants.find((g) => grantCovers(g, w.call, w.c, state.grantCalls[g.id] ?? 0));
  if (!grant) return null;
  const next: EvalState = { ...state, grantCalls: { ...state.grantCalls, [grant.id]: (state.grantCalls[grant.id] ?? 0) + 1 } };
  return w.decide('ALLOW', 'grants', `approved by the user (${grant.maxCalls === null ? 'for this task' : 'once'})`, `grant:${grant.id}`, next);
}

/**
 * A host on the user's machine, LAN or intranet (any spelling of the address, see addresses.ts) is reached
 * only when the task names it or the user approved it (a grant, above). The classifier read the private
 * hosts with the rest of the action (Classification.privateHosts): a call to public hosts has none, and
 * nothing is parsed here.
 */
function privateNetwork(w: Walk): EvalResult | null {
  // A private host is named down to its port: `localhost:3000` names neither `localhost:9222`,
  // `admin.localhost:3000` nor `127.0.0.1:3000` (addresses.ts, siteKeysOf).
  for (const { key, shown, range } of w.c.privateHosts) {
    if (namedPrivateEndpoint(w.policy, w.index, key)) continue;
    if (w.cls === 'READ') return w.decide('ASK_USER', 'private_network', `${shown} is on the private network (${range}) and the task does not name it`, 'builtin:private-network');
    return w.decide('BLOCK', 'private_network', `${w.cls} to ${shown}, on the private network (${range}), which the task does not name`, 'builtin:private-network');
  }
  return null;
}

/**
 * Literal targets and call budgets for a tool, capability or class; then money in a consequential action
 * of another class.
 */
function argumentConstraints(w: Walk): EvalResult | null {
  const { targets, cls, state } = w;
  const constraints = w.constraints;
  // What a message carries: an attachment the words name none of is another thing sent than the one they
  // name ("forward the flight confirmation" never sends file 2 as well).
  if (cls === 'COMMUNICATION' && targets.items.length > 0 && constraints.length > 0 && !constraints.some((k) => k.items !== undefined || k.attachments === true)) {
    return w.decide('ASK_USER', 'argument_constraints', `the message carries ${targets.items.join(', ')}, which the task's words do not name`, `constraints:${constraints[0]!.id}`);
  }
  // Where an order goes: a street the user's words do not write is another destination than theirs ("to my
  // saved home address" never ships to 99 Elm St).
  if (cls === 'FINANCIAL' && constraints.length > 0) {
    const said = w.policy.evidence.map((e) => e.quote.toLowerCase().replace(/\s+/g, ' '));
    const street = streetsOf(w.call.args).find((st) => !said.some((q) => q.includes(st)));
    if (street !== undefined) return w.decide('ASK_USER', 'argument_constraints', `the order goes to ${street}, which the task's words do not name`, `constraints:${constraints[0]!.id}`);
  }
  if (constraints.length === 0 && (targets.amounts ?? []).length === 0) return null;
  const evidenceFor = (ref: string) => w.evidenceFor(ref);
  for (const k of constraints) {
    // Which thing, before how many calls: an id the words' things are not yet bound to is another thing (asks),
    // whatever budget is left; the same id again is the same thing.
    const beyond = isConsequential(cls) ? refsBeyondWords(k, w.refs, state) : null;
    if (beyond !== null) return w.decide('ASK_USER', 'argument_constraints', beyond, `constraints:${k.id}`);
    const used = state.constraintCalls[budgetKey(k, w.c)] ?? 0;
    if (k.maxCalls !== undefined && used >= k.maxCalls) {
      return w.decide('BLOCK', 'argument_constraints', `call budget of ${k.maxCalls} used up`, `constraints:${k.id}`);
    }
    // Named recipients bind every call the constraint covers: one with no readable recipient (a
    // password form under "share X with dave") is not one of them.
    if (k.recipients && (targets.recipients.length === 0 || !subsetOf(targets.recipients, lower(k.recipients)))) {
      const reached = targets.recipients.length === 0 ? 'no readable recipient' : `recipient not among ${k.recipients.join(', ')}`;
      return w.decide('ASK_USER', 'argument_constraints', reached, `constraints:${k.id}`);
    }
    if (k.domains && !targets.domains.every((d) => constraintDomainKeys(k).includes(d))) {
      return w.decide('ASK_USER', 'argument_constraints', `domain not among ${k.domains.join(', ')}`, `constraints:${k.id}`);
    }
    if (k.paths && !targets.paths.every((p) => pathCovered(p, k.paths!))) {
      return w.decide('ASK_USER', 'argument_constraints', `path not among ${k.paths.join(', ')}`, `constraints:${k.id}`);
    }
    // (An order's placement carries no item — the cart holds them —: once a step of this task put the named items
    // there, item-bound, the placement orders them. An item named only by its id is bound by how many things the
    // words name, below: no name matches an id.)
    const named = w.refs.length === 0 ? targets.items : targets.items.filter((i) => !isObjectRef(i));
    const placesBoundCart = named.length === 0 && w.c.action?.id === 'order' && (state.constraintCalls[`${k.id}:steps`] ?? 0) > 0;
    if (k.items && !placesBoundCart && !(named.length === 0 && w.refs.length > 0) && !itemsCovered(named, k.items)) {
      const acted = named.length === 0 ? 'an item the action does not name' : named.join(', ');
      return w.decide('ASK_USER', 'argument_constraints', `acts on ${acted}, not on ${k.items.join(', ')}`, `constraints:${k.id}`);
    }

    // What: a write on a site no app table describes carries a value the words give it, else the words name
    // no such write (a router's DNS form under "rename the wifi to 'Casa-Lupo'"). A known app's write is bound
    // by its action and object instead (6c).
    // (On a known app too for an account-security action: the key or address the words give is the one set.)
    if (k.carries !== undefined && (cls === 'EXTERNAL_WRITE' || cls === 'PERMISSION_CHANGE') && (w.c.action?.app == null || (k.actions !== undefined && w.c.action.id !== null && SECURITY_ACTIONS.has(w.c.action.id))) && !callCarries(w.call.args, k.carries)) {
      return w.decide('ASK_USER', 'argument_constraints', `this write carries nothing the task's words give it (${k.carries.slice(0, 3).map((v) => `"${v}"`).join(', ')})`, `constraints:${k.id}`);
    }
    // Which way: "make it private" never grants "make it public", nor a write that names another setting (issue 35).
    const unset = k.settings === undefined ? null : settingRefusal(k.settings, w.call.args, w.c.action?.app == null);
    if (unset !== null) return w.decide('ASK_USER', 'argument_constraints', unset, `constraints:${k.id}`);
    // What: a generic web write that names none of the things the words act on there is another thing (issue 35).
    if (k.about !== undefined && k.carries === undefined && cls === 'EXTERNAL_WRITE' && (w.c.action?.id == null || (w.c.action.app === null && !SECURITY_ACTIONS.has(w.c.action.id))) && WEB_WRITES.has(w.call.tool) && !namesAnyThing(k.about, w.call.args)) {
      return w.decide('ASK_USER', 'argument_constraints', `this write names none of what the task's words act on (${k.about.slice(0, 4).join(', ')})`, `constraints:${k.id}`);
    }
    // Which thing: a share whose route names its object by name (`/files/finance-2027/permissions`) shares that
    // thing; one the words do not name is another thing, whatever word the rest of the call shares with them.
    const other = k.about === undefined || cls !== 'PERMISSION_CHANGE' || !WEB_WRITES.has(w.call.tool) || w.c.action?.app != null ? null : unnamedObjectSlug(k.about, w.call.args);
    if (other !== null) return w.decide('ASK_USER', 'argument_constraints', `this acts on ${other}, which is none of what the task's words name (${(k.about ?? []).slice(0, 4).join(', ')})`, `constraints:${k.id}`);
    const refused = k.refuses === undefined ? undefined : k.refuses.find((v) => callMentions(w.call.args, v));
    if (refused !== undefined) return w.decide('ASK_USER', 'argument_constraints', `the call carries "${refused}", which the user's words refuse`, `constraints:${k.id}`);
    // How much: an amount above the named one, in another currency, or unreadable asks; so does a
    // payment that carries no amount at all, since it cannot be shown to be within the bound. (A write
    // under a bound — "book the flight under £300" — is held only by the amounts it carries: one that
    // carries none moves no money the guard can see, as it would under no bound.)
    const carriesNone = (targets.amounts ?? []).length === 0;
    const overAmount = k.amount === undefined || (carriesNone && cls !== 'FINANCIAL') ? null : amountOutsideBound(targets.amounts ?? [], k.amount);
    if (overAmount !== null) return w.decide('ASK_USER', 'argument_constraints', overAmount, `constraints:${k.id}`);
    // Which value: "change the price to $25000" sets 25000; a write carrying $2500 sets another price (issue 35).
    const otherValue = k.amount === undefined || k.amountIsValue !== true ? null : amountOtherThanSet(targets.amounts ?? [], k.amount);
    if (otherValue !== null) return w.decide('ASK_USER', 'argument_constraints', otherValue, `constraints:${k.id}`);
    // Whom: an amount the user tied to one payee is no bound for another ("pay bob 45 EUR, alice 4,500 EUR").
    const overPayee = k.payeeAmounts === undefined || (carriesNone && cls !== 'FINANCIAL') ? null : payeeAmountOutside(targets.amounts ?? [], targets.recipients, k.payeeAmounts, evidenceFor);
    if (overPayee !== null) return w.decide('ASK_USER', 'argument_constraints', overPayee, `constraints:${k.id}`);
    const overQuantity = k.quantity === undefined ? null : quantityOutsideBound(targets.quantities ?? [], k.quantity);
    if (overQuantity !== null) return w.decide('ASK_USER', 'argument_constraints', overQuantity, `constraints:${k.id}`);
    // How many of what: "1 room 2 adults" books one room; a booking of 3 rooms is another booking.
    const miscount = k.counts === undefined ? null : countOtherThanSaid(w.call.args, k.counts);
    if (miscount !== null) return w.decide('ASK_USER', 'argument_constraints', miscount, `constraints:${k.id}`);
    // When: a tool's booking or event on a day the words do not name is another one ("dec 18-20", not the 25th).
    const otherDay = k.dates === undefined || WEB_WRITES.has(w.call.tool) ? null : dayOtherThanSaid(w.call.args, k.dates);
    if (otherDay !== null) return w.decide('ASK_USER', 'argument_constraints', `this call is for ${otherDay} (month-day), a day the task's words do not name (${k.dates!.join(', ')})`, `constraints:${k.id}`);
    // The named amount bounds one item of an order that names no count: 100 at the named price is not it.
    if (k.amount !== undefined && k.quantity === undefined && (cls === 'FINANCIAL' || !carriesNone) && quantityOutsideBound(targets.quantities ?? [], 1) !== null) {
      return w.decide('ASK_USER', 'argument_constraints', `the order carries a quantity (${(targets.quantities ?? []).join(', ')}); ${formatMoney(k.amount)} was named for one item`, `constraints:${k.id}`);
    }
  }

  // Money in a consequential action of another class (a "message" whose form carries an amount): when the
  // task bounds amounts, every amount such an action carries is within one of the bounds. (Reading is left
  // alone: a shop's `?max_price=100` is a filter; a GET to a payment path with an amount is classified
  // FINANCIAL.)
  const carried = targets.amounts ?? [];
  const unchecked = isConsequential(cls) && carried.length > 0 && !constraints.some((k) => k.amount !== undefined);
  if (unchecked) {
    //   A bound with amounts per payee holds only within the payee's (a write naming bob@… that carries
    //   4,500 EUR is not within "pay bob@… 45 EUR, alice@… 4,500 EUR").
    const bounds = w.policy.constraints.flatMap((k) => (k.amount === undefined ? [] : [{ id: k.id, amount: k.amount, payees: k.payeeAmounts }]));
    const payeeWhy = (b: (typeof bounds)[number]) => (b.payees === undefined ? null : payeeAmountOutside(carried, targets.recipients, b.payees, evidenceFor));
    if (bounds.length > 0 && bounds.every((b) => amountOutsideBound(carried, b.amount) !== null || payeeWhy(b) !== null)) {
      const named = bounds.map((b) => formatMoney(b.amount)).join(' or ');
      const payee = bounds.every((b) => amountOutsideBound(carried, b.amount) === null) ? payeeWhy(bounds[0]!) : null;
      return w.decide('ASK_USER', 'argument_constraints', `a ${cls} action carries an amount (${carried.map(amountWords).join(', ')}); ${payee ?? `the task bounds payments to ${named}`}`, `constraints:${bounds[0]!.id}`);
    }
    // A write the words bind by what it acts on, carrying money where the words name none — no amount, no
    // payment or order —: a fee added to "schedule a free pickup" is a charge the user never asked for.
    // (A value the words give as a number — "lower the price to 180" — is theirs, currency or not.)
    if (bounds.length === 0 && cls !== 'FINANCIAL' && constraints.length > 0 && !namesMoney(w.policy) && !carried.every((t) => saysNumber(w.policy, t))) {
      return w.decide('ASK_USER', 'argument_constraints', `this ${cls} action carries an amount (${carried.map(amountWords).join(', ')}), and the task's words name no payment`, `constraints:${constraints[0]!.id}`);
    }
  }
  return null;
}

/** Whether the words give an amount's number ("to 180", "$14.99"): a number token of a quote, equal in value. */
function saysNumber(policy: TaskPolicy, target: string): boolean {
  const m = moneyOfTarget(target);
  if (m === null) return false;
  return policy.evidence.some((e) => (e.quote.match(/\d+(?:[.,]\d+)?/g) ?? []).some((n) => compareDecimal(n.replace(',', '.'), m.value) === 0));
}

/** Whether the words name money at all: a payment or order allowed, asked for or bound anywhere in the task. */
function namesMoney(policy: TaskPolicy): boolean {
  // ("dont pay for anything" names money only to refuse it: a charge is still none the words ask for.)
  if ((policy.ceilings.FINANCIAL !== undefined && policy.ceilings.FINANCIAL !== 'block') || policy.allow.classes.includes('FINANCIAL')) return true;
  return policy.constraints.some((k) => k.riskClass === 'FINANCIAL' || k.amount !== undefined || (k.actions ?? []).some((id) => ACTIONS[id].riskClass === 'FINANCIAL'));
}

/**
 * docs/actions.md: a write on a site the task names actions for, or of a known app, is one of the (site,
 * action, object) the words name; an account-security action only by its own words.
 */
function actionBinding(w: Walk): EvalResult | null {
  const { refusal } = w.binding;
  return refusal === null ? null : w.decide(refusal.decision, 'action_binding', refusal.reason, refusal.ruleRef);
}

/**
 * Ceiling AND listing: a consequential class needs both; UNKNOWN never gets past ASK_USER. An action
 * constraint that names the call (action_binding) is its listing: the words granted that action on that object.
 */
function ceiling(w: Walk): EvalResult | null {
  const { cls, c } = w;
  const ceiling = w.policy.ceilings[cls] ?? defaultCeiling(cls);
  if (ceiling === 'block') return w.decide('BLOCK', 'ceiling', `${cls} actions are not allowed in this task`, `ceilings.${cls}`);
  if (cls === 'UNKNOWN') return w.decide('ASK_USER', 'ceiling', 'the action could not be classified; a person must decide', 'builtin:unclassified-asks');
  if (ceiling === 'ask') return w.decide('ASK_USER', 'ceiling', `${cls} actions need approval in this task`, `ceilings.${cls}`);
  if (isConsequential(cls)) {
    const entry = listed(w.index.allow, w.call, c);
    const { matched } = w.binding;
    if (!entry && matched === null) return w.decide('ASK_USER', 'ceiling', `${c.capability} is not among the task's permissions`, `ceilings.${cls}`);
    // (The action constraint that names the call is the rule that decides it: the words' (site, action, object).)
    w.allowedBy = matched !== null ? `constraints:${matched.id}` : `allow.${entry!}`;
  }
  return null;
}

/** Account-security actions whose value is an address: the one the words give is the one set. */
const ADDRESS_SETTING: ReadonlySet<string> = new Set(['email_change', 'recovery_change', 'mail_forward']);

/** Every recipient of a consequential action was named by the user. */
function recipientBinding(w: Walk): EvalResult | null {
  const { cls, targets } = w;
  if (!isConsequential(cls)) return null;
  const constraints = w.constraints;
  // (The constraints' recipients are read only for a recipient the task's list does not name.)
  let unbound: string[] = [];
  for (const r of targets.recipients) if (!w.index.recipients.has(r)) unbound.push(r);
  if (unbound.length > 0 && constraints.length > 0) {
    // (The address an e-mail change sets is whom the words name it for: "change the email … to sam.r@…".)
    const setting = w.c.action?.id;
    const setsAddress = setting != null && ADDRESS_SETTING.has(setting) && constraints.some((k) => k.actions?.includes(setting) === true);
    const fromConstraints = [
      ...constraints.flatMap((k) => lower([...(k.recipients ?? []), ...(cls === 'EXTERNAL_WRITE' ? (k.reaches ?? []) : [])])),
      ...(setsAddress ? w.policy.constraints.flatMap((k) => lower(k.reaches ?? [])) : []),
    ];
    unbound = unbound.filter((r) => !fromConstraints.includes(r));
  }
  if (unbound.length > 0) return w.decide('ASK_USER', 'recipient_binding', `recipient ${unbound.join(', ')} was not named in the task`, 'recipients');
  // (A reply in a conversation the words ask for on a named site has no recipient: argument_constraints bound it to that site.)
  const inPlace = targets.domains.length > 0 && constraints.some((k) => k.publicPost === true && k.domains !== undefined);
  if (cls === 'COMMUNICATION' && targets.recipients.length === 0 && !inPlace) {
    return w.decide('ASK_USER', 'recipient_binding', 'a message whose recipient could not be read', 'builtin:readable-recipient');
  }
  return null;
}

/**
 * The targets a site-binding question names, when it applies: the task names no site at all and the
 * action's targets are all ones the user named (recipients that passed recipient_binding, items that passed
 * argument_constraints). Null when it does not apply.
 */
function siteBound(w: Walk): string[] | null {
  const { targets } = w;
  if (!isConsequential(w.cls) || w.exfil) return null;
  // ("update my linkedin headline": the words name the site by its product's name; its real host asks once.)
  const products = w.policy.products ?? [];
  const off = w.offDomains.off;
  if (products.length > 0 && off.length > 0) {
    const named = off.map((d) => productOfHost(d, products));
    if (named.every((p) => p !== null)) return [...new Set(named as string[])];
  }
  if (w.index.domains.size > 0 || w.offDomains.fromConstraints.length > 0) return null;
  const bound = [...targets.recipients, ...(w.constraints.some((k) => k.items !== undefined) ? targets.items : [])];
  return bound.length > 0 ? bound : null;
}

/**
 * Data-bearing actions off the list are blocked (unless site_binding asks, below); reading off the list
 * asks, unless the URL is also exfiltration-shaped, which exfiltration_url then blocks.
 */
function domainAllowlist(w: Walk): EvalResult | null {
  if (w.targets.domains.length === 0) return null;
  const { off } = w.offDomains;
  if (off.length === 0) return null;
  if (isConsequential(w.cls)) return siteBound(w) !== null ? null : w.decide('BLOCK', 'domain_allowlist', `${w.cls} to ${off.join(', ')}, which the task does not name`, 'domains');
  if (w.policy.domains !== null && !w.exfil) return w.decide('ASK_USER', 'domain_allowlist', `${off.join(', ')} is outside the task's sites`, 'domains');
  return null;
}

/**
 * "Reply to alice@x.test" rarely names the mail site: when the task names no site, a consequential action
 * off the list whose targets the user all named asks once, naming site and target. Approval grants that
 * site for that target only (grants.ts); anything else off the list was blocked above.
 */
function siteBinding(w: Walk): EvalResult | null {
  const { targets, cls } = w;
  if (targets.domains.length === 0 || w.offDomains.off.length === 0) return null;
  const bound = siteBound(w);
  if (bound === null) return null;
  const sites = [...new Set(w.c.urls.map((u) => hostOf(u) ?? '').filter((h) => h !== ''))];
  const where = sites.length > 0 ? sites.join(', ') : w.offDomains.off.join(', ');
  const products = w.policy.products ?? [];
  if (products.length > 0 && w.offDomains.off.every((d) => productOfHost(d, products) !== null)) {
    return w.decide('ASK_USER', 'site_binding', `${ACTION_VERB[cls]} on ${where}? The task names ${bound.join(', ')} but not its address`, 'builtin:site-binding');
  }
  return w.decide('ASK_USER', 'site_binding', `${cls === 'FINANCIAL' && targets.recipients.length === 0 ? 'buy' : ACTION_VERB[cls]} ${targets.recipients.length > 0 ? 'to ' : ''}${bound.join(', ')} on ${where}? The task names ${bound.length > 1 ? 'these targets' : 'this target'} but no site`, 'builtin:site-binding');
}

function exfiltrationUrl(w: Walk): EvalResult | null {
  const { exfil } = w;
  return exfil ? w.decide('BLOCK', 'exfiltration_url', exfil.reason, 'builtin:exfiltration-url') : null;
}

/** Uploads off the list are exfiltration; other writes ask. */
function pathAllowlist(w: Walk): EvalResult | null {
  const { targets, cls } = w;
  if (!isConsequential(cls) || targets.paths.length === 0) return null;
  const constraints = w.constraints;
  const allowedPaths = [...w.policy.paths, ...constraints.flatMap((k) => k.paths ?? [])];
  // (A document a share or deletion names by title — `drive.share {file: "Q3-plan.docx"}` — is also its item:
  // an items constraint that passed argument_constraints already holds it to what the words name.)
  const named = constraints.flatMap((k) => (k.items === undefined ? [] : [k.items]));
  const off = targets.paths.filter((p) => !pathCovered(p, allowedPaths) && !(targets.items.includes(p) && named.some((items) => itemsCovered([p], items))));
  if (off.length === 0) return null;
  const decision: Decision = cls === 'EXTERNAL_WRITE' ? 'BLOCK' : 'ASK_USER';
  return w.decide(decision, 'path_allowlist', `path ${off.join(', ')} is outside the task's paths`, 'paths');
}

function outboundBudget(w: Walk): EvalResult | null {
  if (!OUTBOUND_CLASSES.includes(w.cls)) return null;
  const b = w.policy.outboundBudget;
  const { state } = w;
  if (b.maxCalls !== null && state.outboundCalls >= b.maxCalls) return w.decide('BLOCK', 'outbound_budget', `outbound budget of ${b.maxCalls} calls used up`, 'outboundBudget.maxCalls');
  if (b.maxBytes !== null && state.outboundBytes + w.c.outboundBytes > b.maxBytes) return w.decide('BLOCK', 'outbound_budget', `outbound budget of ${b.maxBytes} bytes exceeded`, 'outboundBudget.maxBytes');
  return null;
}

/** The task's explicit approval requirements. */
function approvalRequired(w: Walk): EvalResult | null {
  const needsApproval = listed(w.index.requireApproval, w.call, w.c);
  return needsApproval ? w.decide('ASK_USER', 'approval_required', `the task asks for approval of each ${needsApproval.split(':')[1]}`, `requireApproval.${needsApproval}`) : null;
}

/**
 * The counter a call spends of a constraint's budget: an order's steps (cart adds) are counted apart from its
 * placement, each within the same count — "buy one cable" is one cart add and one order, never two orders or
 * two cart adds.
 */
function budgetKey(k: Constraint, c: Classification): string {
  return isOrderStep(c.action) ? `${k.id}:steps` : k.id;
}

/**
 * Allowed: count it in the same step. σ stays the same object when nothing counts, so callers can tell a
 * counted ALLOW (which must be persisted) from a free one by identity.
 */
function allowed(w: Walk): EvalResult {
  const { state, cls, c } = w;
  const constraints = w.constraints;
  const outbound = OUTBOUND_CLASSES.includes(cls);
  const budgeted = constraints.filter((k) => k.maxCalls !== undefined);
  let next = state;
  if (budgeted.length > 0 || outbound) {
    const constraintCalls = { ...state.constraintCalls };
    for (const k of budgeted) constraintCalls[budgetKey(k, c)] = (constraintCalls[budgetKey(k, c)] ?? 0) + 1;
    next = {
      ...state,
      constraintCalls,
      outboundCalls: state.outboundCalls + (outbound ? 1 : 0),
      outboundBytes: state.outboundBytes + (outbound ? c.outboundBytes : 0),
    };
  }
  if (isConsequential(cls)) next = bindRefs(next, constraints, w.refs);
  const within = boundsApplied(constraints, w.targets);
  const { matched } = w.binding;
  const named = matched !== null && c.action !== undefined ? `: it ${describeReading(c.action)}, as the task asks` : '';
  return w.decide('ALLOW', 'allowed', isConsequential(cls) ? `${cls} allowed by the task${named}${within === null ? '' : ` (${within})`}` : 'reading is allowed', w.allowedBy, next);
}

/**
 * The evaluation order, as a table: each check by the name a decision record carries, in the order they
 * run (after `schema`, which the caller's parse is). docs/architecture.md ("Evaluation order") states it,
 * and tests/docs/readme.test.ts keeps that statement, CHECKS (decision.ts) and this table equal.
 */
const EVALUATION: readonly Step[] = [
  { check: 'expiry', run: expiry },
  { check: 'guards', run: guards },
  { check: 'org_floor', run: orgFloor },
  { check: 'prohibitions', run: prohibitions },
  { check: 'deny_list', run: denyList },
  { check: 'grants', run: grants },
  { check: 'private_network', run: privateNetwork },
  { check: 'argument_constraints', run: argumentConstraints },
  { check: 'action_binding', run: actionBinding },
  { check: 'ceiling', run: ceiling },
  { check: 'recipient_binding', run: recipientBinding },
  { check: 'domain_allowlist', run: domainAllowlist },
  { check: 'site_binding', run: siteBinding },
  { check: 'exfiltration_url', run: exfiltrationUrl },
  { check: 'path_allowlist', run: pathAllowlist },
  { check: 'outbound_budget', run: outboundBudget },
  { check: 'approval_required', run: approvalRequired },
  { check: 'allowed', run: allowed },
];

/** The checks of the walk in the order they run, by name (what docs/architecture.md states). */
export const EVALUATION_ORDER: readonly Check[] = ['schema', ...EVALUATION.map((s) => s.check)];
