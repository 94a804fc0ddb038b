import { siteKeysOf } from '../addresses';
import type { Classification } from '../classification';
import type { Constraint, TaskPolicy } from '../policy';
import type { RuleRef } from '../ruleRef';
import { isConsequential } from '../risk';
import { describeObject, describeReading, objectCovered, type ActionReading } from './read';
import { ACTIONS, type ActionId } from './vocabulary';

/**
 * Action binding (docs/actions.md): every write on a site the task names actions for, and every write of
 * a known app, is one of the (site, action, object) the user's words name. Pure: the evaluator runs it
 * as its own check, after argument constraints and before the class ceiling.
 */

/** Actions that make something new: their object is where it goes (a forum, a project), never one that exists. */
const CREATING: ReadonlySet<ActionId> = new Set(['post', 'message', 'order', 'pay', 'invite', 'share', 'member']);

export interface Binding {
  decision: 'ASK_USER' | 'BLOCK';
  reason: string;
  ruleRef: RuleRef;
  /** The ask of a generic site's write nobody read: a later check's refusal still decides (evaluator.ts). */
  unread?: true;
}

/**
 * An action constraint for a call's sites: one with no domains binds everywhere, else one of its domains is the
 * call's. (Words that name no site bind tool calls, not the browser's writes: those stay bound by the sites.)
 */
function forSites(k: Constraint, domains: readonly string[], web: boolean): boolean {
  if (k.actions === undefined) return false;
  if (k.domains === undefined) return !web;
  const keys = keysOnce(k, k.domains);
  return domains.some((d) => keys.has(d));
}

/**
 * A policy entry list's targets (siteKeysOf), read once per constraint or policy object: policies are
 * immutable values, and parsing them again for every call was most of this check's cost.
 */
const entryKeys = new WeakMap<object, ReadonlySet<string>>();
function keysOnce(owner: object, entries: readonly string[]): ReadonlySet<string> {
  let keys = entryKeys.get(owner);
  if (keys === undefined) entryKeys.set(owner, (keys = new Set(entries.flatMap(siteKeysOf))));
  return keys;
}

/** Whether an action constraint covers a reading: its action, and its object when the constraint names objects. */
export function constraintCoversAction(k: Constraint, reading: ActionReading | undefined): boolean {
  if (k.actions === undefined) return true;
  if (reading === undefined || reading.id === null || !(k.actions.includes(reading.id) || (reading.alsoAs !== undefined && k.actions.includes(reading.alsoAs)))) return false;
  // (A site the table does not know shows an object only where its form says so — a channel —: else its
  // writes are bound by action alone.)
  if (reading.app === null && !ACTIONS[reading.id].security && (reading.object === null || k.objects === undefined)) return true;
  return k.objects === undefined || objectCovered(reading.object, k.objects);
}

/** What the task's action constraints ask for, in words: "comments on issue 1000 of byteblaze/dotfiles and reacts to it". */
export function describeTask(constraints: readonly Constraint[]): string {
  const parts = constraints.flatMap((k) =>
    (k.actions ?? []).map((id) => {
      const says = ACTIONS[id].says;
      if (k.objects === undefined || k.objects.length === 0) return `${says.replace(/ (?:on|to|of|in)$/, '')} (no object named)`;
      return `${says} ${k.objects.map(describeObject).join(', ')}`;
    }),
  );
  return parts.length === 0 ? 'names no action here' : [...new Set(parts)].join('; ');
}

/**
 * An object a generic site's URL names by its kind (`/orders/301`, `/order_id/301`), of a kind the words named
 * objects of on that site but not this one; null when it names none of those kinds, or one the words name.
 */
function otherObjectInUrl(here: readonly Constraint[], urls: readonly string[]): string | null {
  const named = here.flatMap((k) => k.objects ?? []).filter((o) => /^[a-z_]+:[^/#!*]+$/.test(o));
  const kinds = new Set(named.map((o) => o.slice(0, o.indexOf(':'))));
  if (kinds.size === 0) return null;
  for (const raw of urls) {
    let segments: string[];
    try {
      segments = new URL(raw).pathname.split('/').filter((x) => x !== '').map((x) => x.toLowerCase());
    } catch {
      continue;
    }
    for (let i = 0; i + 1 < segments.length; i++) {
      const kind = segments[i]!.replace(/(?:_id|s)$/, '');
      if (!kinds.has(kind) || !/^\d+$/.test(segments[i + 1]!)) continue;
      // (Order 000000302 is order 302: the number, not its zero padding.)
      const object = `${kind}:${segments[i + 1]!.replace(/^0+(?=\d)/, '')}`;
      if (!named.some((o) => o.replace(/:0+(?=\d)/, ':') === object)) return object;
    }
  }
  return null;
}

/**
 * The binding's refusal of a call, or null when it passes (or does not apply). `matched` is the action
 * constraint that names the call, when one does: it grants the call as a listing would.
 */
// (The refusals' words, built only for a refusal; module functions, not closures made for every call.)
const taskWords = (here: readonly Constraint[]) => `your task ${describeTask(here)}`;
const siteWords = (c: Classification) => c.targets.domains.join(', ') || 'this site';
const refOf = (k: Constraint | undefined): RuleRef => (k === undefined ? 'builtin:action-binding' : `constraints:${k.id}`);

export function bindAction(policy: TaskPolicy, c: Classification): { refusal: Binding | null; matched: Constraint | null } {
  if (!isConsequential(c.riskClass)) return { refusal: null, matched: null };
  const reading = c.action;
  const here = policy.constraints.filter((k) => forSites(k, c.targets.domains, c.layer === 'web'));
  // Account security: only its own words grant it, on any site.
  if (reading !== undefined && reading.id !== null && ACTIONS[reading.id].security) {
    const named = here.find((k) => constraintCoversAction(k, reading) || (k.objects === undefined && k.actions!.includes(reading.id!)));
    if (named === undefined) {
      return { refusal: { decision: 'BLOCK', reason: `${taskWords(here)}; this ${describeReading(reading)} on ${siteWords(c)}: an account-security action needs the user's own words`, ruleRef: 'builtin:action-binding' }, matched: null };
    }
    // ("make my profile private" names no project: the same action on a project that exists asks which one,
    // as any action does on a known app — never every project's visibility.)
    if (named.objects === undefined && reading.app !== null && reading.object !== null && !CREATING.has(reading.id)) {
      return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this ${describeReading(reading)}, and the task names no object for it`, ruleRef: refOf(named) }, matched: null };
    }
    return { refusal: null, matched: ACTIONS[reading.id].riskClass === c.riskClass ? named : null };
  }
  // (A site the task does not name is the domain allowlist's to refuse: it blocks, binding would only ask.)
  const known = c.knownApp && (policy.domains === null || c.targets.domains.every((d) => keysOnce(policy, policy.domains!).has(d)));
  if (here.length === 0 && !known) return { refusal: null, matched: null };
  // (A tool call whose name says no action — `send_email`, `create_file` — under words that name no site is
  // bound by its class, its recipients and its items, as before tool names were read: only a name that says
  // its action (`cancel_calendar_event`) is bound to the words' actions.)
  if (reading === undefined && c.layer !== 'web' && here.every((k) => k.domains === undefined)) return { refusal: null, matched: null };
  if (reading === undefined || reading.id === null) {
    // A write whose action nobody read asks where the words name actions (issue 35: unknown write actions stay
    // unknown) — on a generic site too, and there also when its URL names, by kind, an object other than the
    // ones the words name (`…/order_id/301/` under "update order #299").
    if (!known) {
      const other = otherObjectInUrl(here, c.urls);
      if (other !== null) return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this write on ${siteWords(c)} acts on ${describeObject(other)}`, ruleRef: refOf(here[0]) }, matched: null };
      // (A payment or a message is read from its money and its recipients, and bound by them — amounts, payees,
      // recipients, items —: under words that ask for one on this site it keeps the class rules. An upload is
      // bound by the files the words name.)
      if (c.capability === 'file.upload') return { refusal: null, matched: null };
      // (Where the words ask only for an order there, an unread payment-class write is no order the guard can
      // count — Magento's `checkout/account/delegateCreate` — and asks: an order is read from its route.)
      const classActions = here.flatMap((k) => k.actions!.filter((id) => ACTIONS[id].riskClass === c.riskClass));
      if ((c.riskClass === 'FINANCIAL' || c.riskClass === 'COMMUNICATION') && classActions.length > 0 && !(c.riskClass === 'FINANCIAL' && classActions.every((id) => id === 'order'))) return { refusal: null, matched: null };
    }
    const why = reading?.why ?? 'the write could not be read as an action';
    return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this write on ${siteWords(c)} is not an action the guard can name (${why})`, ruleRef: refOf(here[0]), ...(known ? {} : { unread: true as const }) }, matched: null };
  }
  const same = here.filter((k) => k.actions!.includes(reading.id!) || (reading.alsoAs !== undefined && k.actions!.includes(reading.alsoAs)));
  if (same.length === 0) return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this ${describeReading(reading)}`, ruleRef: refOf(here[0]) }, matched: null };
  const covering = same.find((k) => constraintCoversAction(k, reading));
  if (covering === undefined) return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this ${describeReading(reading)}`, ruleRef: refOf(same[0]) }, matched: null };
  // (A generic site's route names its action, not its object: the URL may still name another one by kind.)
  const other = known || reading.object !== null ? null : otherObjectInUrl([covering], c.urls);
  if (other !== null) return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this ${describeReading(reading)} ${describeObject(other)}`, ruleRef: refOf(covering) }, matched: null };
  // The words named no object: on a known app, an action on one that exists is asked (which one?), never any.
  if (covering.objects === undefined && known && !CREATING.has(reading.id)) {
    return { refusal: { decision: 'ASK_USER', reason: `${taskWords(here)}; this ${describeReading(reading)}, and the task names no object for it`, ruleRef: refOf(covering) }, matched: null };
  }
  // (The constraint stands in for a listing only for a call of its action's own class: a route word never
  // lets a write the heuristics read as a message or a payment past the class rules.)
  return { refusal: null, matched: ACTIONS[reading.id].riskClass === c.riskClass ? covering : null };
}
