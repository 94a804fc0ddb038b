import { ACTIONS } from '../core/actions';
import { compareDecimal } from '../core/amounts';
import type { Classifier } from '../core/classifier';
import { capabilityClass } from '../core/classifier/capabilities';
import { TaskPolicySchema, type Constraint, type PayeeAmounts, type TaskPolicy } from '../core/policy';
import { CONSEQUENTIAL_CLASSES, type RiskClass } from '../core/risk';
import { analyzeInstruction } from './clauses';
import type { Removal } from './harden';
import { isolateInput } from './isolate';
import { classOfAnyForm } from './verbs';
import { uniqueSettings } from './settings';

/**
 * Step 5, follow-up turns. A cheap pre-filter skips turns that cannot change authority; the rest
 * are compiled alone and merged: a new prohibition removes older allowances of its classes, a new
 * evidenced allowance lifts an older prohibition of the same class, and the newer statement wins.
 */

const AUTHORITY_WORDS = /\b(?:stop|cancel|revoke|only|instead|actually|allow|allowed|permission|approve|don'?t|do not|never|no longer|not|nothing|anyone|everyone|anything|also|too)\b/i;
const CORRECTION = /\b(?:actually|instead|rather|correction|scratch that|change of plan|i meant)\b/i;

/** False only for turns that name no action, no target and no ban ("thanks, what did the second one say?"). */
export function followUpMayChangeAuthority(text: string): boolean {
  const isolated = isolateInput(text).text;
  if (AUTHORITY_WORDS.test(isolated)) return true;
  const analysis = analyzeInstruction(isolated);
  if (analysis.targets.length > 0) return true;
  return isolated
    .toLowerCase()
    .split(/[^a-z'-]+/)
    .some((w) => {
      const cls = classOfAnyForm(w);
      return cls !== null && cls !== 'READ';
    });
}

/** "…actually, send it to john@example.com": the newer statement replaces what it corrects. */
export function isCorrection(text: string): boolean {
  return CORRECTION.test(text);
}

export interface MergeOptions {
  /** The newer turn corrects the older one: its constraints replace the older ones of the same class. */
  replace?: boolean;
  /** Reads the tool names constraints and listings name (see HardenOptions.classify). */
  classify: Classifier;
}

function classOfConstraint(k: Constraint, classify: Classifier): RiskClass | undefined {
  if (k.riskClass !== undefined) return k.riskClass;
  if (k.capability !== undefined) return capabilityClass(k.capability);
  if (k.tool !== undefined) return classify({ tool: k.tool, args: {} }).riskClass;
  // (An action constraint is of its action's class: a later ban of that class ends it.)
  if (k.actions !== undefined) return ACTIONS[k.actions[0]!].riskClass;
  return undefined;
}

const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];

function mergedAmount(older: Constraint['amount'], newer: Constraint['amount']): Constraint['amount'] {
  if (older === undefined || newer === undefined) return older ?? newer;
  if (older.currency !== newer.currency) return undefined;
  return compareDecimal(older.value, newer.value) >= 0 ? older : newer;
}

/**
 * A constraint's amounts by payee: its own, or for one compiled before payees were read (or whose bound
 * every payee shares) each listed recipient at the class bound, anyone else too.
 */
function payeeView(k: Constraint): PayeeAmounts | undefined {
  if (k.amount === undefined) return undefined;
  return k.payeeAmounts ?? { payees: (k.recipients ?? []).map((recipient) => ({ recipient, amount: k.amount! })), others: k.amount };
}

/**
 * Payees across turns ("pay bob@… 45 EUR", then "also pay alice@… 4,500 EUR"): each keeps the most either
 * turn named for it (each pays its own), anyone else the least of the two turns' `others` — so a later
 * turn's larger amount is no bound for an earlier payee. Only in the merged bound's one currency; none when
 * no turn ties an amount to anyone.
 */
function mergedPayees(older: Constraint, newer: Constraint, amount: Constraint['amount']): PayeeAmounts | undefined {
  const views = [payeeView(older), payeeView(newer)].filter((v): v is PayeeAmounts => v !== undefined && v.others.currency === amount?.currency);
  if (amount === undefined || views.length === 0 || views.every((v) => v.payees.length === 0)) return undefined;
  const payees = new Map<string, PayeeAmounts['payees'][number]['amount']>();
  for (const v of views) {
    for (const p of v.payees) {
      const before = payees.get(p.recipient);
      if (before === undefined || compareDecimal(p.amount.value, before.value) > 0) payees.set(p.recipient, p.amount);
    }
  }
  const others = views.map((v) => v.others).reduce((least, m) => (compareDecimal(m.value, least.value) < 0 ? m : least));
  return { payees: [...payees].map(([recipient, m]) => ({ recipient, amount: m })), others };
}

function mergeConstraint(older: Constraint, newer: Constraint): Constraint {
  const merged: Constraint = { ...older };
  const recipients = older.recipients && newer.recipients ? union(older.recipients, newer.recipients) : undefined;
  const domains = older.domains && newer.domains ? union(older.domains, newer.domains) : undefined;
  const paths = older.paths && newer.paths ? union(older.paths, newer.paths) : undefined;
  const items = older.items && newer.items ? union(older.items, newer.items) : undefined;
  // A list on only one side would narrow the other turn's grant to it; an absent list is no limit.
  if (recipients) merged.recipients = recipients;
  else delete merged.recipients;
  if (domains) merged.domains = domains;
  else delete merged.domains;
  if (paths) merged.paths = paths;
  else delete merged.paths;
  if (items) merged.items = items;
  else delete merged.items;
  const carries = older.carries && newer.carries ? union(older.carries, newer.carries) : undefined;
  if (carries) merged.carries = carries;
  else delete merged.carries;
  // (A setting binds only while every turn's writes of the class change one: "… and turn it back on" adds one.)
  const settings = older.settings && newer.settings ? uniqueSettings([...older.settings, ...newer.settings]) : undefined;
  if (settings) merged.settings = settings;
  else delete merged.settings;
  const about = older.about && newer.about ? union(older.about, newer.about) : undefined;
  if (about) merged.about = about;
  else delete merged.about;
  // (A refusal of either turn stands: it only narrows.)
  const refuses = union(older.refuses ?? [], newer.refuses ?? []);
  if (refuses.length > 0) merged.refuses = refuses;
  if (older.maxCalls !== undefined && newer.maxCalls !== undefined) merged.maxCalls = older.maxCalls + newer.maxCalls;
  else delete merged.maxCalls;
  // Amounts and quantities merge as across the clauses of one turn (harden.ts boundAmount): the largest binds the
  // class, one named on either side still binds it, amounts in two currencies bind none.
  const amount = mergedAmount(older.amount, newer.amount);
  if (amount !== undefined) merged.amount = amount;
  else delete merged.amount;
  const payeeAmounts = mergedPayees(older, newer, amount);
  if (payeeAmounts !== undefined) merged.payeeAmounts = payeeAmounts;
  else delete merged.payeeAmounts;
  const quantity = older.quantity !== undefined && newer.quantity !== undefined ? Math.max(older.quantity, newer.quantity) : (older.quantity ?? newer.quantity);
  if (quantity !== undefined) merged.quantity = quantity;
  else delete merged.quantity;
  // A public post stays allowed only when both turns asked for one (each bound to its sites, unioned above).
  if (!(older.publicPost === true && newer.publicPost === true && domains !== undefined)) delete merged.publicPost;
  return merged;
}

export function mergePolicies(older: TaskPolicy, newer: TaskPolicy, options: MergeOptions): { policy: TaskPolicy; removed: Removal[] } {
  const removed: Removal[] = [];
  const banned = new Map<RiskClass, string>();
  for (const p of newer.prohibitions) for (const c of p.classes) if (p.exceptRecipients.length === 0 && p.actions === undefined && !banned.has(c)) banned.set(c, p.quote);
  const newlyAllowed: ReadonlySet<RiskClass> = new Set(CONSEQUENTIAL_CLASSES.filter((c) => newer.ceilings[c] === 'allow'));
  const isBanned = (c: RiskClass | undefined) => c !== undefined && banned.has(c);

  // Older allowances of newly banned classes go.
  const ceilings: TaskPolicy['ceilings'] = {};
  for (const c of CONSEQUENTIAL_CLASSES) {
    const ceiling = older.ceilings[c];
    if (ceiling === undefined) continue;
    if (ceiling === 'allow' && banned.has(c)) removed.push({ ref: `allow.classes:${c}`, why: `the user now says: "${banned.get(c)}"` });
    else ceilings[c] = ceiling;
  }
  const allowClasses = older.allow.classes.filter((c) => !banned.has(c));
  const allowCapabilities = older.allow.capabilities.filter((k) => !isBanned(capabilityClass(k)));
  const allowTools = older.allow.tools.filter((t) => !isBanned(options.classify({ tool: t, args: {} }).riskClass));
  const grants = older.grants.filter((g) => !banned.has(g.riskClass));
  const removedRefs = new Set<string>();
  for (const c of older.allow.classes) if (banned.has(c)) removedRefs.add(`allow.classes:${c}`);
  for (const k of older.allow.capabilities) if (!allowCapabilities.includes(k)) removedRefs.add(`allow.capabilities:${k}`);
  for (const t of older.allow.tools) if (!allowTools.includes(t)) removedRefs.add(`allow.tools:${t}`);

  // Scoped bans ("anyone except john@x.com") narrow older recipients of their classes.
  const scoped = newer.prohibitions.filter((p) => p.exceptRecipients.length > 0);
  let constraints: Constraint[] = [];
  for (const k of older.constraints) {
    const cls = classOfConstraint(k, options.classify);
    if (isBanned(cls)) {
      removedRefs.add(`constraints:${k.id}`);
      continue;
    }
    const limits = scoped.filter((p) => cls !== undefined && p.classes.includes(cls));
    if (limits.length > 0 && k.recipients) {
      const kept = k.recipients.filter((r) => limits.every((p) => p.exceptRecipients.includes(r)));
      for (const r of k.recipients) if (!kept.includes(r)) removed.push({ ref: `recipients:${r}`, why: 'the user now excludes this recipient' });
      constraints.push({ ...k, recipients: kept });
    } else constraints.push(k);
  }

  // Newer constraints: a correction replaces the older limits of each class it allows (with a fresh id,
  // so the corrected grant starts its own call count); otherwise they merge into one per class.
  if (options.replace) {
    constraints = constraints.filter((k) => {
      const cls = classOfConstraint(k, options.classify);
      if (cls === undefined || !newlyAllowed.has(cls)) return true;
      removedRefs.add(`constraints:${k.id}`);
      for (const r of k.recipients ?? []) removed.push({ ref: `recipients:${r}`, why: 'replaced by the newer instruction' });
      return false;
    });
  }
  const newerConstraintIds = new Map<string, string>();
  for (const k of newer.constraints) {
    const cls = classOfConstraint(k, options.classify);
    // (Each action constraint keeps its own action, object and budget: it is added, never merged into another.)
    const at = options.replace || k.actions !== undefined ? -1 : constraints.findIndex((o) => o.actions === undefined && cls !== undefined && classOfConstraint(o, options.classify) === cls);
    if (at === -1) {
      const id = freshId(k.id, [...older.constraints, ...constraints]);
      constraints.push({ ...k, id });
      newerConstraintIds.set(k.id, id);
    } else {
      constraints[at] = mergeConstraint(constraints[at]!, k);
      newerConstraintIds.set(k.id, constraints[at]!.id);
    }
  }

  // A newer evidenced allowance lifts older prohibitions of the same class.
  const prohibitions: TaskPolicy['prohibitions'] = [];
  for (const p of older.prohibitions) {
    const classes = p.classes.filter((c) => !newlyAllowed.has(c));
    if (classes.length < p.classes.length) removed.push({ ref: `prohibition:${p.id}`, why: `lifted for ${p.classes.filter((c) => newlyAllowed.has(c)).join(', ')} by the newer request` });
    if (classes.length === 0 && p.capabilities.length === 0 && p.tools.length === 0) {
      removedRefs.add(`prohibition:${p.id}`);
      continue;
    }
    prohibitions.push({ ...p, classes });
  }
  const prohibitionIds = new Map<string, string>();
  for (const p of newer.prohibitions) {
    const id = freshId(p.id, prohibitions);
    prohibitionIds.set(p.id, id);
    prohibitions.push({ ...p, id });
  }

  const idsNow = new Set(constraints.map((k) => k.id));
  const evidence = new Map<string, string>();
  for (const e of older.evidence) if (!removedRefs.has(e.ref) && !(e.ref.startsWith('constraints:') && !idsNow.has(e.ref.slice(12)))) evidence.set(e.ref, e.quote);
  for (const e of newer.evidence) {
    let ref = e.ref;
    if (ref.startsWith('prohibition:')) ref = `prohibition:${prohibitionIds.get(ref.slice(12)) ?? ref.slice(12)}`;
    if (ref.startsWith('constraints:')) ref = `constraints:${newerConstraintIds.get(ref.slice(12)) ?? ref.slice(12)}`;
    evidence.set(ref, e.quote);
  }

  for (const c of newlyAllowed) ceilings[c] = 'allow';
  // A later turn that writes money the compiler cannot read ("also tip 15%") makes the class ask from then
  // on: the older bound says nothing about it.
  for (const c of CONSEQUENTIAL_CLASSES) if (newer.ceilings[c] === 'ask' && ceilings[c] === 'allow') ceilings[c] = 'ask';
  const policy = TaskPolicySchema.parse({
    ...older,
    ceilings,
    allow: {
      classes: union(allowClasses, newer.allow.classes),
      capabilities: union(allowCapabilities, newer.allow.capabilities),
      tools: union(allowTools, newer.allow.tools),
    },
    deny: {
      classes: union(older.deny.classes, newer.deny.classes),
      capabilities: union(older.deny.capabilities, newer.deny.capabilities),
      tools: union(older.deny.tools, newer.deny.tools),
    },
    requireApproval: {
      classes: union(older.requireApproval.classes, newer.requireApproval.classes),
      capabilities: union(older.requireApproval.capabilities, newer.requireApproval.capabilities),
      tools: union(older.requireApproval.tools, newer.requireApproval.tools),
    },
    constraints,
    recipients: union(older.recipients, newer.recipients),
    domains: mergedDomains(older, newer),
    paths: union(older.paths, newer.paths),
    ...((older.mentioned ?? []).length + (newer.mentioned ?? []).length === 0 ? {} : { mentioned: union(older.mentioned ?? [], newer.mentioned ?? []) }),
    prohibitions,
    grants,
    evidence: [...evidence].map(([ref, quote]) => ({ ref, quote })),
    source: `${older.source}+${newer.source}`,
  });
  return { policy, removed };
}

/**
 * Reading sites after a turn: open-web research (evidence `domains:*`) in either turn opens reading; a
 * later turn that writes no site keeps the earlier list (it never widens it); a site-less first turn
 * stays site-less.
 */
function mergedDomains(older: TaskPolicy, newer: TaskPolicy): string[] | null {
  if (older.domains === null) return null;
  if (newer.domains === null) return newer.evidence.some((e) => e.ref === 'domains:*') ? null : older.domains;
  return union(older.domains, newer.domains);
}

function freshId(base: string, taken: ReadonlyArray<{ id: string }>): string {
  if (!taken.some((t) => t.id === base)) return base;
  for (let n = 2; ; n++) if (!taken.some((t) => t.id === `${base}-${n}`)) return `${base}-${n}`;
}
