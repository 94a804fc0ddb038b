import { productsNamed } from '../core/products';
import { carriedValues, refusedValues, setsAmount } from './carries';
import { daysNamed } from '../core/dates';
import { namesAttachment, settingOfClause, thingsOfClause, uniqueSettings } from './settings';
import { amountTarget, compareDecimal, currencyOf, type MoneyMention, type UnreadMoney } from '../core/amounts';
import type { Classifier } from '../core/classifier';
import { BROWSER_EQUIVALENTS, canonicalCapability, capabilityClass } from '../core/classifier/capabilities';
import { privateEndpointOf, siteKeyOf } from '../core/addresses';
import type { Removal } from './report';
import { POLICY_VERSION, TaskPolicySchema, type Constraint, type Evidence, type Prohibition, type Setting, type TaskPolicy } from '../core/policy';
import { CONSEQUENTIAL_CLASSES, type RiskClass } from '../core/risk';
import { analyzeInstruction, openWebClause, type Analysis, type Clause } from './clauses';
import type { PermissionDraft, PolicyDraft } from './draft';
import { callsAskedFor } from './rules';
import { canonicalRecipient, isRefusedPath } from './targets';
import { actionsAskedFor, isKnownAppSite } from './actions';
import { ACTIONS, type ActionId } from '../core/actions';

/**
 * Step 4, hardening: bounds ANY draft (rules or LLM) by the user's words. A consequential permission
 * survives only with an evidence quote that appears in the isolated instruction and covers the verb
 * of a non-negated request clause of that very class. Targets survive only as literal tokens:
 * recipients that are the object of such a request, hosts written as their own token, paths written
 * out (never a root or home directory). No wildcards; capabilities canonical and of the same class;
 * tools only when the classifier puts them in that class.
 */

export type { Removal } from './report';

export interface HardenOptions {
  taskId: string;
  now: number;
  /** Recorded in the policy, e.g. `rules`, `openai:model`, `fallback:read-only`. */
  source: string;
  /** Deterministic prohibitions from the whole instruction. */
  prohibitions: Prohibition[];
  /** Refused as a root, like `/` and `~`. */
  homeDir?: string;
  /** The user's quoted strings the isolation step removed (Isolated.quoted): values a setting may carry. */
  quoted?: readonly string[];
  /**
   * Reads the tool names a draft lists: src/tools for any agent's tools (CLI); the extension passes the
   * browser-action classifier, since it proposes no other tools.
   */
  classify: Classifier;
}

export interface Hardened {
  policy: TaskPolicy;
  removed: Removal[];
}

const RECIPIENT_CLASSES: ReadonlySet<RiskClass> = new Set(['COMMUNICATION', 'PERMISSION_CHANGE', 'FINANCIAL']);
/** Classes whose calls are bounded even when the words give no number ("pay Bob" = once). */
const ALWAYS_BOUNDED: ReadonlySet<RiskClass> = new Set(['FINANCIAL', 'DELETE']);

/** Everything the words alone allow: the upper bound of any hardened policy. */
export interface WordsBound {
  requests: Map<RiskClass, Clause[]>;
  /** Recipient → the clause that asks to reach it, per class. */
  recipients: Map<RiskClass, Map<string, Clause>>;
  domains: Map<string, Clause>;
  paths: Map<string, Clause>;
  openWeb: Clause | null;
  /** Upper bound of calls per class; absent = unbounded. */
  calls: Map<RiskClass, number>;
  /**
   * The items each class must act on, with the clause that names each. A class is bound only when
   * every request clause of it names its items ("buy one USB-C cable"); "pay Bob" names none.
   */
  items: Map<RiskClass, Map<string, Clause>>;
  /** The most a payment or purchase may move, with the clause that names it (see boundAmount). */
  amounts: Map<RiskClass, MoneyMention & { clause: Clause }>;
  /**
   * Amounts tied to payees ("pay bob 45 EUR, alice 4,500 EUR"), per class: each payee's own bound and the
   * least bound of the class, which binds a payment to anyone else (see payeeBounds).
   */
  payeeAmounts: Map<RiskClass, { payees: Map<string, MoneyMention & { clause: Clause }>; others: MoneyMention & { clause: Clause } }>;
  /** The most items one order may carry, with the clause that names it. */
  quantities: Map<RiskClass, { quantity: number; clause: Clause }>;
  /**
   * Money the words write for a class but the compiler cannot read exactly ("pay bob 45", "pay 99 cents",
   * "tip 15%", "don't spend more than 50"): the class asks rather than binding wider than it reads.
   */
  unreadAmounts: Map<RiskClass, UnreadMoney & { clause: Clause }>;
}

/** A count and the noun it counts, as written: "1 room", "2 adults", "grab 2 seats" (never inside quoted text). */
const COUNTED = /(?<![\p{L}\p{N}.,$€£:/-])(\d{1,4})\s+([a-z]{3,})(?![\p{L}\p{N}])/giu;
const NOT_COUNTED = /^(?:and|the|for|from|with|but|nor|per|via|then|times)$/;

/** The counts the words give nouns in these clauses (Constraint.counts); undefined when none, or when one noun gets two. */
function countsOf(clauses: readonly Clause[]): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const clause of clauses) {
    const text = clause.text.replace(/"[^"]*"|'[^']*'|“[^”]*”/g, ' ');
    for (const m of text.matchAll(COUNTED)) {
      const noun = m[2]!.toLowerCase();
      // (Money is no count: "45 EUR", "20 euros", "5 dollars" are amounts, bound as such.)
      if (NOT_COUNTED.test(noun) || currencyOf(noun) !== null) continue;
      if (out[noun] !== undefined && out[noun] !== Number(m[1])) return undefined;
      out[noun] = Number(m[1]);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Classes whose clauses bind an amount and a quantity: money moves only there. */
const MONEY_CLASSES: ReadonlySet<RiskClass> = new Set(['FINANCIAL']);
/**
 * Classes whose money the words bound besides payments: a write that moves or prices money ("book the
 * cheapest flight under £300", "move 500 EUR to savings", "add 50 EUR to my balance") is bound to it too;
 * such a write that carries no amount is not held by it (the evaluator asks only a payment for one).
 */
const BOUND_CLASSES: ReadonlySet<RiskClass> = new Set(['FINANCIAL', 'EXTERNAL_WRITE']);

/** A clause without what it dictates: a message's text says what it says, it moves no money. */
function undictated(clause: Clause): Clause {
  if (clause.dictated === null) return clause;
  const [s, e] = clause.dictated;
  const outside = (m: { start: number; end: number }) => m.end <= s || m.start >= e;
  return { ...clause, amounts: clause.amounts.filter(outside), unread: clause.unread.filter(outside) };
}

/**
 * The amount a class is bound to: per request clause the least amount it names ("pay the 30 EUR invoice
 * from my 500 EUR budget" pays 30; where the words do not say which of a clause's amounts is paid, the
 * smaller reading asks rather than allows), in the currency of its first amount ("… from my 500 USD
 * account" is not what it pays), then the most over the clauses (each pays its own). Clauses paying in
 * more than one currency bind nothing (one bound cannot say "10 EUR or 20 USD"; a known limit: docs/limits.md#13-amount-binding).
 */
function boundAmount(clauses: readonly Clause[]): (MoneyMention & { clause: Clause }) | undefined {
  const paid = clauses.flatMap((clause) => {
    const currency = clause.amounts[0]?.money.currency;
    const named = clause.amounts.filter((m) => m.money.currency === currency).map((m) => ({ ...m, clause }));
    return named.length === 0 ? [] : [named.reduce((least, n) => (compareDecimal(n.money.value, least.money.value) < 0 ? n : least))];
  });
  if (paid.length === 0 || new Set(paid.map((n) => n.money.currency)).size > 1) return undefined;
  return paid.reduce((most, n) => (compareDecimal(n.money.value, most.money.value) > 0 ? n : most));
}

type Bound = MoneyMention & { clause: Clause };
const least = (xs: readonly Bound[]) => xs.reduce((l, n) => (compareDecimal(n.money.value, l.money.value) < 0 ? n : l));
const most = (xs: readonly Bound[]) => xs.reduce((m, n) => (compareDecimal(n.money.value, m.money.value) > 0 ? n : m));

/** The least of some amounts in the currency of the first (as boundAmount reads one clause). */
function leastNamed(amounts: readonly MoneyMention[], clause: Clause): Bound | undefined {
  const currency = amounts[0]?.money.currency;
  const named = amounts.filter((m) => m.money.currency === currency).map((m) => ({ ...m, clause }));
  return named.length === 0 ? undefined : least(named);
}

/**
 * The amounts of a class with the payees the words tie them to (Clause.payees): per payee the most over
 * the clauses that pay it (each pays its own), the least of the amounts each clause ties to it; a clause
 * that does not say whose its amount is counts with its least amount (boundAmount's reading of it). `class`
 * is the most of all of them — the one bound a policy kept before — and `others` the least, the bound of a
 * payment to anyone the words tie no amount to. `named`: some clause names a payee. Undefined when no amount
 * is named or they are in more than one currency (a known limit: one bound cannot say "10 EUR or 20 USD").
 */
function payeeBounds(clauses: readonly Clause[]): { class: Bound; others: Bound; payees: Map<string, Bound>; named: boolean } | undefined {
  const payees = new Map<string, Bound>();
  /** Every clause's and every tie's amount: the least of them binds a payment to anyone tied to none. */
  const all: Bound[] = [];
  for (const clause of clauses) {
    const tied = clause.payees?.filter((t) => t.amounts.length > 0) ?? [];
    if (tied.length === 0) {
      const bound = leastNamed(clause.amounts, clause);
      if (bound !== undefined) all.push(bound);
      continue;
    }
    for (const t of tied) {
      const bound = leastNamed(t.amounts, clause)!;
      all.push(bound);
      const before = payees.get(t.recipient);
      payees.set(t.recipient, before === undefined || before.money.currency !== bound.money.currency ? bound : most([before, bound]));
    }
  }
  if (all.length === 0 || new Set(all.map((b) => b.money.currency)).size > 1) return undefined;
  return { class: most(all), others: least(all), payees, named: clauses.some((c) => (c.payees ?? []).length > 0) };
}

/** Words that make the amount after them a ceiling: "more than 50 EUR", "under €50", "a budget of 50 EUR". */
const CEILING_WORDS = /\b(?:more than|less than|over|above|under|below|beyond|exceed(?:s|ing)?|at most|up to|max(?:imum)?|budget|limit|cap)\b/i;

type Ceiling = MoneyMention & { clause: Clause; stated: boolean };

/**
 * Spending ceilings written outside a payment's own clause ("buy a gift on etsy.com, don't spend more
 * than 50 EUR", "keep it under €50"): each amount a ceiling word leads to (since the clause's start or its
 * previous amount) in a clause that is not itself a money request, negated or not. An amount merely
 * stated in a clause that requests nothing ("The amount is 120 EUR.") is `stated`: it binds only a
 * payment whose own clause names none.
 */
/** A clause that is all message text the user dictates ("Post this: we will pay 900 EUR"): it bounds nothing. */
const dictatedWhole = (clause: Clause) => clause.dictated !== null && clause.dictated[0] <= clause.start;

function ceilingsOf(analysis: Analysis): Ceiling[] {
  return analysis.clauses.flatMap((clause) => {
    if ((clause.request !== null && MONEY_CLASSES.has(clause.request)) || dictatedWhole(clause)) return [];
    return clause.amounts.flatMap((m, i): Ceiling[] => {
      const lead = analysis.text.slice(i === 0 ? clause.start : clause.amounts[i - 1]!.end, m.start);
      if (CEILING_WORDS.test(lead)) return [{ ...m, clause, stated: false }];
      return clause.request === null && !clause.negated ? [{ ...m, clause, stated: true }] : [];
    });
  });
}

/**
 * Money the compiler could not read that a payment's bound would have to reflect: any in a money
 * request's own clause, and in other clauses what a ceiling word leads to or a clause that requests
 * nothing states (as ceilingsOf reads the amounts it can).
 */
function unreadOf(analysis: Analysis, requests: readonly Clause[]): (UnreadMoney & { clause: Clause })[] {
  const own = requests.flatMap((clause) => clause.unread.map((u) => ({ ...u, clause })));
  const elsewhere = analysis.clauses.flatMap((clause) => {
    if ((clause.request !== null && MONEY_CLASSES.has(clause.request)) || dictatedWhole(clause)) return [];
    return clause.unread.flatMap((u) => {
      const lead = analysis.text.slice(clause.start, u.start);
      return CEILING_WORDS.test(lead) || (clause.request === null && !clause.negated) ? [{ ...u, clause }] : [];
    });
  });
  return [...own, ...elsewhere];
}

/**
 * The bound once the ceilings apply: the lowest of the named amount and the ceilings in its currency (in
 * the ceilings' one currency when no amount is named). A ceiling only ever lowers the bound.
 */
function withCeilings(amount: (MoneyMention & { clause: Clause }) | undefined, all: readonly Ceiling[]): (MoneyMention & { clause: Clause }) | undefined {
  const ceilings = all.filter((c) => amount === undefined || !c.stated);
  const currencies = new Set(ceilings.map((c) => c.money.currency));
  const currency = amount?.money.currency ?? (currencies.size === 1 ? [...currencies][0] : undefined);
  const candidates = [...(amount === undefined ? [] : [amount]), ...ceilings.filter((c) => c.money.currency === currency)];
  if (candidates.length === 0) return undefined;
  return candidates.reduce((least, n) => (compareDecimal(n.money.value, least.money.value) < 0 ? n : least));
}

export function wordsBound(analysis: Analysis, homeDir?: string): WordsBound {
  const requests = new Map<RiskClass, Clause[]>();
  const recipients = new Map<RiskClass, Map<string, Clause>>();
  const domains = new Map<string, Clause>();
  const paths = new Map<string, Clause>();
  const openWeb = openWebClause(analysis);
  for (const clause of analysis.clauses) {
    if (clause.negated) continue;
    for (const t of clause.targets) {
      if (clause.refused.includes(t)) continue;
      if (t.kind === 'domain' && !domains.has(t.value)) domains.set(t.value, clause);
      if (t.kind === 'path' && !isRefusedPath(t.value, homeDir) && !paths.has(t.value)) paths.set(t.value, clause);
    }
    const cls = clause.request;
    if (cls === null || cls === 'READ') continue;
    requests.set(cls, [...(requests.get(cls) ?? []), clause]);
    if (RECIPIENT_CLASSES.has(cls)) {
      const byValue = recipients.get(cls) ?? new Map<string, Clause>();
      for (const t of clause.objects) {
        if (!byValue.has(t.value)) byValue.set(t.value, clause);
        // (A handle as the site writes it, with its @: `to: "@sam-lee"`.)
        if (t.kind === 'handle' && !byValue.has(`@${t.value}`)) byValue.set(`@${t.value}`, clause);
      }
      recipients.set(cls, byValue);
    }
  }
  const calls = new Map<RiskClass, number>();
  for (const [cls, clauses] of requests) {
    const counts = clauses.map(callsAskedFor);
    if (ALWAYS_BOUNDED.has(cls) || counts.every((n) => n !== null)) calls.set(cls, counts.reduce<number>((sum, n) => sum + (n ?? 1), 0));
  }
  const items = new Map<RiskClass, Map<string, Clause>>();
  for (const [cls, clauses] of requests) {
    if (!clauses.every((c) => c.items.length > 0)) continue;
    const named = new Map<string, Clause>();
    for (const c of clauses) for (const item of c.items) if (!named.has(item)) named.set(item, c);
    items.set(cls, named);
  }
  const amounts = new Map<RiskClass, MoneyMention & { clause: Clause }>();
  const quantities = new Map<RiskClass, { quantity: number; clause: Clause }>();
  const unreadAmounts = new Map<RiskClass, UnreadMoney & { clause: Clause }>();
  const payeeAmounts: WordsBound['payeeAmounts'] = new Map();
  const ceilings = ceilingsOf(analysis);
  for (const [cls, all] of requests) {
    const clauses = all.map(undictated);
    if (!BOUND_CLASSES.has(cls)) {
      // "send 20 to ann@…" reads as a message: a bare sum after a paying verb makes it ask, never pay freely.
      const sum = clauses.flatMap((clause) => clause.unread.filter((u) => u.kind === 'sum').map((u) => ({ ...u, clause })))[0];
      if (sum !== undefined) unreadAmounts.set(cls, sum);
      continue;
    }
    const unread = unreadOf(analysis, clauses)[0];
    if (unread !== undefined) unreadAmounts.set(cls, unread);
    if (!MONEY_CLASSES.has(cls)) {
      const amount = withCeilings(boundAmount(clauses), ceilings);
      if (amount !== undefined) amounts.set(cls, amount);
      continue;
    }
    // Payments: each payee the words tie an amount to is bound by its own, anyone else by the least.
    const tied = payeeBounds(clauses);
    // (Amounts in two currencies tie nothing; the class keeps the bound it had: each clause's first currency.)
    const amount = withCeilings(tied?.class ?? boundAmount(clauses), ceilings);
    if (amount !== undefined) amounts.set(cls, amount);
    // (Once the words name any payee: one whose amount they do not say gets the least, not the class bound.)
    if (tied !== undefined && tied.named) {
      const payees = new Map([...tied.payees].map(([r, b]) => [r, withCeilings(b, ceilings)!]));
      payeeAmounts.set(cls, { payees, others: withCeilings(tied.others, ceilings)! });
    }
    for (const clause of clauses) {
      const most = quantities.get(cls);
      if (clause.quantity !== null && (most === undefined || clause.quantity > most.quantity)) quantities.set(cls, { quantity: clause.quantity, clause });
    }
  }
  return { requests, recipients, domains, paths, openWeb, calls, items, amounts, quantities, unreadAmounts, payeeAmounts };
}

/** All occurrences of `quote` in `text`, case-insensitive. */
function occurrences(text: string, quote: string): number[] {
  const hay = text.toLowerCase();
  const needle = quote.toLowerCase();
  const out: number[] = [];
  if (needle.length === 0) return out;
  for (let at = hay.indexOf(needle); at !== -1 && out.length < 1000; at = hay.indexOf(needle, at + 1)) out.push(at);
  return out;
}

/** Negation scopes of the instruction ("do not send, post or share anything", "without paying"). */
function negatedSpans(analysis: Analysis): Array<[number, number]> {
  return analysis.clauses.flatMap((c) => (c.negatedSpan === null ? [] : [c.negatedSpan]));
}

const inside = (start: number, end: number, spans: ReadonlyArray<[number, number]>) => spans.some(([s, e]) => start >= s && end <= e);

/**
 * The request clause of `cls` whose verb the quote covers, if any. Words under a negation are never
 * evidence: an occurrence of the quote that lies inside a negated span, or whose verb does, is skipped,
 * whatever the clause reader made of it (a defence against a mis-split list such as "post or share
 * anything" out of "do not send, post or share anything").
 */
function supportingClause(text: string, quote: string, clauses: readonly Clause[], negated: ReadonlyArray<[number, number]>): Clause | null {
  const trimmed = quote.trim();
  for (const at of occurrences(text, trimmed)) {
    const end = at + trimmed.length;
    if (inside(at, end, negated)) continue;
    const hit = clauses.find((c) => c.verb !== null && c.verb.start >= at && c.verb.end <= end && !inside(c.verb.start, c.verb.end, negated));
    if (hit) return hit;
  }
  return null;
}

interface Listing {
  classes: boolean;
  capabilities: Set<string>;
  tools: Set<string>;
}

interface ClassGrant {
  listing: Listing;
  clause: Clause;
  recipients: Map<string, Clause>;
  domains: Map<string, Clause>;
  paths: Map<string, Clause>;
  /** Sum of bounded calls; null once any permission is unbounded. */
  calls: number | null;
}

function listingRef(cls: RiskClass, p: PermissionDraft): string {
  if (p.tool !== null) return `allow.tools:${p.tool}`;
  if (p.capability !== null) return `allow.capabilities:${p.capability}`;
  return `allow.classes:${cls}`;
}

/** What the permission is listed as, or why it cannot be listed. */
function listingOf(p: PermissionDraft, cls: RiskClass, classify: Classifier): { kind: 'class' | 'capability' | 'tool'; name: string } | { why: string } {
  if (p.tool !== null) {
    if (p.tool.includes('*')) return { why: 'wildcards are never granted' };
    const c = classify({ tool: p.tool, args: {} });
    if (c.riskClass !== cls) return { why: `the classifier puts tool ${p.tool} in ${c.riskClass}, not ${cls}` };
    return { kind: 'tool', name: p.tool };
  }
  if (p.capability !== null) {
    if (p.capability.includes('*')) return { why: 'wildcards are never granted' };
    const canonical = canonicalCapability(p.capability);
    if (canonical === undefined) return { why: `${p.capability} is not a known capability` };
    if (capabilityClass(canonical) !== cls) return { why: `${canonical} is not a ${cls} capability` };
    return { kind: 'capability', name: canonical };
  }
  return { kind: 'class', name: cls };
}

function keepRecipients(p: PermissionDraft, cls: RiskClass, bound: WordsBound, removed: Removal[]): Map<string, Clause> {
  const out = new Map<string, Clause>();
  const allowed = bound.recipients.get(cls);
  for (const raw of p.recipients) {
    const r = canonicalRecipient(raw);
    const clause = allowed?.get(r);
    if (clause === undefined) {
      const why = !RECIPIENT_CLASSES.has(cls)
        ? `${cls} takes no recipients`
        : r.includes('*')
          ? 'wildcards are never granted'
          : `not the object of a ${cls} request in the user's words`;
      removed.push({ ref: `recipients:${r}`, why });
    } else out.set(r, clause);
  }
  return out;
}

function keepDomains(list: readonly string[], bound: WordsBound, removed: Removal[]): Map<string, Clause> {
  const out = new Map<string, Clause>();
  for (const raw of list) {
    const site = raw.includes('*') || raw.includes('@') ? null : siteKeyOf(raw);
    const clause = site === null ? undefined : bound.domains.get(site);
    if (site !== null && clause !== undefined) {
      out.set(site, clause);
      continue;
    }
    // A private host is named with the port the user wrote: a draft that left the port out (`localhost`
    // for "localhost:3000") gets the ports of that host in the user's words, never another.
    const endpoint = site === null ? null : privateEndpointOf(raw);
    const written = endpoint === null || endpoint.port !== null ? [] : [...bound.domains].filter(([key]) => privateEndpointOf(key)?.host === endpoint.host);
    for (const [key, c] of written) out.set(key, c);
    if (written.length === 0) removed.push({ ref: `domains:${raw}`, why: raw.includes('*') ? 'wildcards are never granted' : 'not written as a host in the user\'s words' });
  }
  return out;
}

function keepPaths(p: PermissionDraft, bound: WordsBound, removed: Removal[], homeDir?: string): Map<string, Clause> {
  const out = new Map<string, Clause>();
  for (const raw of p.paths) {
    const clause = bound.paths.get(raw);
    if (isRefusedPath(raw, homeDir)) removed.push({ ref: `paths:${raw}`, why: 'roots, home directories, wildcards and `..` are never granted' });
    else if (clause === undefined) removed.push({ ref: `paths:${raw}`, why: "not written literally in the user's words" });
    else out.set(raw, clause);
  }
  return out;
}

function minCalls(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

function fullyBans(prohibitions: readonly Prohibition[], cls: RiskClass): Prohibition | undefined {
  return prohibitions.find((p) => p.classes.includes(cls) && p.exceptRecipients.length === 0 && p.actions === undefined);
}

function hardenProhibitions(draft: PolicyDraft, text: string, deterministic: Prohibition[], analysis: Analysis, removed: Removal[]): Prohibition[] {
  const literalRecipients = new Set(analysis.targets.filter((t) => t.kind === 'email' || t.kind === 'iban' || t.kind === 'phone').map((t) => t.value));
  const out = deterministic.map((p) => ({ ...p }));
  for (const d of draft.prohibitions) {
    const classes = CONSEQUENTIAL_CLASSES.filter((c) => d.classes.includes(c));
    if (classes.length === 0 || d.quote.trim() === '' || occurrences(text, d.quote.trim()).length === 0) {
      removed.push({ ref: `prohibition:${d.quote.slice(0, 60)}`, why: 'a drafted ban must quote the user verbatim and name a consequential class' });
      continue;
    }
    const exceptRecipients = d.exceptRecipients.map(canonicalRecipient).filter((r) => literalRecipients.has(r));
    const key = `${classes.join(',')}|${[...exceptRecipients].sort().join(',')}`;
    if (out.some((p) => `${p.classes.join(',')}|${[...p.exceptRecipients].sort().join(',')}` === key)) continue;
    out.push({ id: 'p', classes, capabilities: [], tools: [], exceptRecipients, quote: d.quote.trim() });
  }
  return out.map((p, i) => ({ ...p, id: `p${i + 1}` }));
}

export function harden(draft: PolicyDraft, instruction: string, opts: HardenOptions, analysis: Analysis = analyzeInstruction(instruction)): Hardened {
  const removed: Removal[] = [];
  const bound = wordsBound(analysis, opts.homeDir);
  const prohibitions = hardenProhibitions(draft, instruction, opts.prohibitions, analysis, removed);
  const grants = new Map<RiskClass, ClassGrant>();
  const readDomains = keepDomains(draft.readDomains, bound, removed);
  const negated = negatedSpans(analysis);

  for (const p of draft.permissions) {
    const cls = p.riskClass;
    const ref = listingRef(cls, p);
    if (cls === 'READ') {
      // Reading needs no grant; its sites are bounded like any other.
      for (const [d, c] of keepDomains(p.domains, bound, removed)) readDomains.set(d, c);
      continue;
    }
    if (cls === 'UNKNOWN') {
      removed.push({ ref, why: 'UNKNOWN is never granted' });
      continue;
    }
    const clause = supportingClause(instruction, p.quote, bound.requests.get(cls) ?? [], negated);
    if (clause === null) {
      const quoted = occurrences(instruction, p.quote.trim());
      const why =
        p.quote.trim() === '' || quoted.length === 0
          ? "the evidence quote is not in the user's words"
          : quoted.every((at) => inside(at, at + p.quote.trim().length, negated))
            ? 'the quote lies inside a negation: words the user negated are never evidence'
            : `the quote contains no request for a ${cls} action (a clause opening with a ${cls} verb, not negated)`;
      removed.push({ ref, why });
      continue;
    }
    const listing = listingOf(p, cls, opts.classify);
    if ('why' in listing) {
      removed.push({ ref, why: listing.why });
      continue;
    }
    const ban = fullyBans(prohibitions, cls);
    if (ban !== undefined) {
      removed.push({ ref, why: `the user also said: "${ban.quote}"` });
      continue;
    }
    const grant: ClassGrant = grants.get(cls) ?? {
      listing: { classes: false, capabilities: new Set(), tools: new Set() },
      clause,
      recipients: new Map(),
      domains: new Map(),
      paths: new Map(),
      calls: 0,
    };
    if (listing.kind === 'class') grant.listing.classes = true;
    if (listing.kind === 'capability') {
      grant.listing.capabilities.add(listing.name);
      // On a named site the action is a page's form or request, which shows no service: list what it shows.
      const seen = BROWSER_EQUIVALENTS[listing.name];
      if (seen !== undefined && bound.domains.size > 0) grant.listing.capabilities.add(seen);
    }
    if (listing.kind === 'tool') grant.listing.tools.add(listing.name);
    for (const [r, c] of keepRecipients(p, cls, bound, removed)) grant.recipients.set(r, c);
    for (const [d, c] of keepDomains(p.domains, bound, removed)) grant.domains.set(d, c);
    for (const [path, c] of keepPaths(p, bound, removed, opts.homeDir)) grant.paths.set(path, c);
    const wordsCalls = bound.calls.get(cls) ?? null;
    const calls = minCalls(p.maxCalls, wordsCalls);
    // Several permissions may cite the same clause: their sum is still bounded by what the words ask for.
    grant.calls = grant.calls === null || calls === null ? null : minCalls(grant.calls + calls, wordsCalls);
    grants.set(cls, grant);
  }

  const openWeb = draft.openWeb && bound.openWeb !== null;
  const evidence: Evidence[] = [];
  const addEvidence = (ref: string, clause: Clause) => {
    if (!evidence.some((e) => e.ref === ref)) evidence.push({ ref, quote: clause.text });
  };
  const ceilings: TaskPolicy['ceilings'] = {};
  const allow = { tools: [] as string[], capabilities: [] as string[], classes: [] as RiskClass[] };
  const constraints: Constraint[] = [];
  const allDomains = new Map(readDomains);
  const allPaths = new Map<string, Clause>();
  for (const g of grants.values()) {
    for (const [d, c] of g.domains) allDomains.set(d, c);
    for (const [p, c] of g.paths) allPaths.set(p, c);
  }

  // A public post the words ask for on a named site ("post a tweet on social.test", "leave a review on shop.test"):
  // the site shows it as a message with no recipient; the write constraint says it is the write.
  const postSites = publicPostSites(bound, grants, prohibitions);

  for (const cls of CONSEQUENTIAL_CLASSES) {
    const g = grants.get(cls);
    if (g === undefined) continue;
    // Money the words write but the compiler cannot read exactly: no bound it could set is known to be
    // within what the user meant, so each payment asks (showing its amount) instead of binding wider.
    const unread = bound.unreadAmounts.get(cls);
    if (unread !== undefined) {
      ceilings[cls] = 'ask';
      addEvidence(`ceilings:${cls}`, unread.clause);
      removed.push({ ref: `allow.classes:${cls}`, why: `could not read the amount "${unread.text}" exactly: each ${cls} action asks` });
      continue;
    }
    ceilings[cls] = 'allow';
    if (g.listing.classes) {
      allow.classes.push(cls);
      addEvidence(`allow.classes:${cls}`, g.clause);
    }
    for (const k of g.listing.capabilities) {
      allow.capabilities.push(k);
      addEvidence(`allow.capabilities:${k}`, g.clause);
    }
    for (const t of g.listing.tools) {
      allow.tools.push(t);
      addEvidence(`allow.tools:${t}`, g.clause);
    }
    // A scoped ban ("anyone except john@x.com") also narrows who this class may reach.
    const scoped = prohibitions.filter((p) => p.classes.includes(cls) && p.exceptRecipients.length > 0);
    for (const r of [...g.recipients.keys()]) {
      if (scoped.some((p) => !p.exceptRecipients.includes(r))) {
        g.recipients.delete(r);
        removed.push({ ref: `recipients:${r}`, why: 'the user excluded this recipient' });
      }
    }
    const constraint: Constraint = { id: `c-${cls.toLowerCase().replace(/_/g, '-')}`, riskClass: cls };
    if (g.recipients.size > 0) constraint.recipients = [...g.recipients.keys()];
    const domains = g.domains.size > 0 ? g.domains : openWeb ? allDomains : new Map<string, Clause>();
    if (domains.size > 0) constraint.domains = [...domains.keys()];
    if (g.paths.size > 0) constraint.paths = [...g.paths.keys()];
    if (g.calls !== null) constraint.maxCalls = g.calls;
    // Items come from the words whatever the draft says: binding an action to what the user named only narrows.
    const items = bound.items.get(cls) ?? (cls === 'EXTERNAL_WRITE' ? bookedPlaces(bound.requests.get(cls) ?? [], analysis.text, opts.quoted ?? []) : undefined);
    if (items !== undefined) constraint.items = [...items.keys()];
    // So do amounts and quantities: "45 EUR" and "two packs" bound the class whatever a draft says.
    const amount = bound.amounts.get(cls);
    if (amount !== undefined) constraint.amount = amount.money;
    // ("change the price to $25000": the amount is the value set, so $2500 is another setting, not one within it.)
    if (amount !== undefined && (cls === 'EXTERNAL_WRITE' || cls === 'PERMISSION_CHANGE') && setsAmount(amount.clause, amount.money.value, analysis)) constraint.amountIsValue = true;
    // And whom each amount was named for: a payee never borrows another's larger bound.
    const payeeAmounts = amount === undefined ? undefined : bound.payeeAmounts.get(cls);
    // (Not when it says nothing the class bound and the recipient list do not: every payee a listed
    // address, every bound the class's — the usual "pay bob@… 45 EUR".)
    const same = (m: { value: string }) => compareDecimal(m.value, amount!.money.value) === 0;
    const says =
      payeeAmounts !== undefined &&
      (!same(payeeAmounts.others.money) || [...payeeAmounts.payees].some(([r, b]) => !same(b.money) || !(constraint.recipients ?? []).includes(r)));
    if (payeeAmounts !== undefined && says) {
      constraint.payeeAmounts = { payees: [...payeeAmounts.payees].map(([recipient, b]) => ({ recipient, amount: b.money })), others: payeeAmounts.others.money };
      for (const [recipient, b] of payeeAmounts.payees) addEvidence(`amount:${recipient}:${amountTarget(b.money)}`, b.clause);
    }
    const quantity = bound.quantities.get(cls);
    if (quantity !== undefined) constraint.quantity = quantity.quantity;
    const counts = countsOf(bound.requests.get(cls) ?? []);
    if (counts !== undefined) constraint.counts = counts;
    // When: the days every write clause of the class names ("book … for dec 18-20"); one that names none binds none.
    if (cls === 'EXTERNAL_WRITE' || cls === 'FINANCIAL') {
      const days = (bound.requests.get(cls) ?? []).map((c) => daysNamed(c.text.replace(/"[^"]*"|'[^']*'|“[^”]*”/g, ' ')));
      if (days.length > 0 && days.every((d) => d.length > 0)) constraint.dates = [...new Set(days.flat())];
    }
    if (cls === 'COMMUNICATION' && constraint.domains !== undefined && g.recipients.size === 0 && answersInPlace(bound.requests.get(cls) ?? [])) constraint.publicPost = true;
    if (cls === 'EXTERNAL_WRITE' && g.domains.size > 0 && [...g.domains.keys()].every((d) => postSites.has(d))) constraint.publicPost = true;
    if (cls === 'EXTERNAL_WRITE') {
      const reached = reachedBy(bound, analysis, prohibitions);
      if (reached.size > 0) {
        constraint.reaches = [...reached.keys()];
        for (const [r, c] of reached) addEvidence(`reaches:${r}`, c);
      }
    }
    if (cls === 'EXTERNAL_WRITE' || cls === 'PERMISSION_CHANGE') {
      // What the writes carry: only when every write clause gives something (one that gives nothing binds nothing).
      // ("update my phone number to +1 415 555 0100": an account's own settings carry the value the words give.)
      const values = (bound.requests.get(cls) ?? []).map((c) => carriedValues(c, opts.quoted ?? [], analysis));
      if (values.length > 0 && values.every((v) => v.length > 0)) constraint.carries = [...new Set(values.flat())];
    }
    // Which setting, which way: only when every clause of the class changes one ("turn off email notifications").
    const settings = (bound.requests.get(cls) ?? []).map((c) => settingOfClause(c, analysis.text));
    if (settings.length > 0 && settings.every((x) => x !== null)) constraint.settings = uniqueSettings(settings as Setting[]);
    // What: the nouns of what every write clause of the class acts on (none named by one: nothing bound).
    if (cls === 'EXTERNAL_WRITE' || cls === 'PERMISSION_CHANGE') {
      const things = (bound.requests.get(cls) ?? []).map((c) => thingsOfClause(c, analysis.text));
      if (things.length > 0 && things.every((t) => t.length > 0)) constraint.about = [...new Set(things.flat())];
    }
    if (cls === 'COMMUNICATION' && (bound.requests.get(cls) ?? []).some((c) => namesAttachment(c, analysis.text))) constraint.attachments = true;
    const refuses = [...new Set((bound.requests.get(cls) ?? []).flatMap((c) => refusedValues(c, analysis)))];
    if (refuses.length > 0) constraint.refuses = refuses;
    for (const [r, c] of g.recipients) addEvidence(`recipients:${r}`, c);
    for (const [item, c] of items ?? []) addEvidence(`items:${item}`, c);
    if (amount !== undefined) addEvidence(`amount:${amountTarget(amount.money)}`, amount.clause);
    if (quantity !== undefined) addEvidence(`quantity:${quantity.quantity}`, quantity.clause);
    if (Object.keys(constraint).length > 2) {
      constraints.push(constraint);
      addEvidence(`constraints:${constraint.id}`, g.clause);
    }
  }
  // Web actions (docs/actions.md): each write clause on a named site is bound to the action it asks for,
  // the object it names and its own budget. Its class needs no listing of its own (the constraint is the
  // listing), but the class may not be banned, and the class ceiling lets it through.
  const actionBound = new Map<RiskClass, boolean>();
  if (!openWeb) {
    let n = 0;
    const products = productsNamed(analysis.text);
    for (const asked of actionsAskedFor(analysis)) {
      const cls = asked.clause.request!;
      const sites = namedSites(asked.clause).map((t) => t.value);
      const domains = sites.length > 0 ? sites : [...allDomains.keys()];
      const granted = grants.has(cls) && ceilings[cls] === 'allow';
      // (Only a known app's routes, or account-security field shapes and a REST route's last word, read a request
      // as an action: elsewhere a write is bound by its class. An action of another class than the clause's
      // ("update order #412": an order) binds nothing there; the clause's own class then stands for it — an
      // edit —, so a route that names another action ("…/order/cancel/…") asks instead of passing as the class.)
      const readable = domains.some(isKnownAppSite) || asked.actions.every((a) => ACTIONS[a].security || ACTIONS[a].riskClass === cls);
      const own = asked.actions.filter((a) => ACTIONS[a].riskClass === cls && !ACTIONS[a].security);
      if (!readable && own.length === 0 && cls !== 'EXTERNAL_WRITE') continue;
      const ask = readable ? asked : { ...asked, actions: own.length > 0 ? own : (['edit'] as ActionId[]) };
      const classes = new Set(ask.actions.map((a) => ACTIONS[a].riskClass));
      // (Words that name no site at all bind their actions everywhere: a tool call whose name says what it
      // does — `cancel_calendar_event` under "move my dentist appt" — is bound to them, src/core/actions/binding.ts.)
      // (A site named by its product — "my github" — is a site: the browser's writes there keep their own binding.)
      // (Payments, messages and deletions are bound by their payees, recipients and items there, not by action.)
      const anywhere = domains.length === 0 && allDomains.size === 0 && products.length === 0 && (cls === 'EXTERNAL_WRITE' || cls === 'PERMISSION_CHANGE');
      if ((domains.length === 0 && !anywhere) || !granted || [...classes].some((k) => fullyBans(prohibitions, k) !== undefined || bound.unreadAmounts.has(k))) {
        actionBound.set(cls, false);
        continue;
      }
      const k: Constraint = { id: `a${++n}-${ask.actions[0]!.replace(/_/g, '-')}`, actions: ask.actions, ...(anywhere ? {} : { domains }) };
      if (ask.objects !== undefined) k.objects = ask.objects;
      if (ask.maxCalls !== undefined) k.maxCalls = ask.maxCalls;
      const setting = settingOfClause(ask.clause, analysis.text);
      if (setting !== null) k.settings = [setting];
      // ("update my phone number to +1 415 555 0100": the new value binds the action, whatever class it is read in.)
      const carried = carriedValues(ask.clause, opts.quoted ?? [], analysis);
      // ("add this SSH key …: ssh-ed25519 AAAA…": the key the words give is the one added, no other.)
      const keys = ask.actions.some((a) => KEY_ACTIONS.has(a)) ? [...instruction.matchAll(KEY_LITERAL)].map((m) => m[1]!.toLowerCase()) : [];
      if (carried.length > 0 || keys.length > 0) k.carries = [...new Set([...carried, ...keys])];
      // ("forward my mail to bob@…": mail sent on reaches the address the words give, and no other.)
      const forwardTo = ask.actions.includes('mail_forward') ? ask.clause.targets.filter((t) => t.kind === 'email').map((t) => t.value) : [];
      if (forwardTo.length > 0) k.recipients = [...new Set(forwardTo)];
      constraints.push(k);
      addEvidence(`constraints:${k.id}`, ask.clause);
      for (const a of classes) if (ceilings[a] === undefined) ceilings[a] = 'allow';
      actionBound.set(cls, (actionBound.get(cls) ?? true) && domains.length > 0 && domains.every(isKnownAppSite));
    }
  }
  // A class whose every request is bound to actions on known apps is budgeted by those actions alone: one
  // write of another action does not spend the one the words asked for.
  for (const [cls, onApps] of actionBound) {
    const k = constraints.find((x) => x.id === `c-${cls.toLowerCase().replace(/_/g, '-')}`);
    const all = (bound.requests.get(cls) ?? []).every((c) => actionsAskedFor({ ...analysis, clauses: [c] }).length > 0);
    if (onApps && all && k !== undefined && k.maxCalls !== undefined) delete k.maxCalls;
  }
  // The hosts the user named, not their registrable domains: the floor and the taint's exemption read the lists as written.
  const asNamed = namedHosts(analysis);
  for (const k of constraints) if (k.domains !== undefined) k.domains = asNamed(k.domains);
  for (const [d, c] of allDomains) for (const h of asNamed([d])) addEvidence(`domains:${h}`, c);
  for (const [p, c] of allPaths) addEvidence(`paths:${p}`, c);
  if (openWeb && bound.openWeb !== null) addEvidence('domains:*', bound.openWeb);
  for (const p of prohibitions) evidence.push({ ref: `prohibition:${p.id}`, quote: p.quote });

  const policy = TaskPolicySchema.parse({
    version: POLICY_VERSION,
    taskId: opts.taskId,
    issuedAt: opts.now,
    expiresAt: null,
    ceilings,
    allow,
    constraints,
    recipients: [],
    // An instruction that writes no site at all does not limit reading to a list (there is none);
    // data-bearing actions stay bound by the evaluator's domain and site-binding checks.
    domains: openWeb || !analysis.targets.some((t) => t.kind === 'domain') ? null : asNamed([...allDomains.keys()]),
    paths: [...allPaths.keys()],
    prohibitions,
    evidence,
    source: opts.source,
    // Addresses the words name (not refused, outside negations): a search for that sender is no exfiltration shape.
    ...mentionedOf(analysis),
    // Sites named by product name ("on gitlab", "my linkedin"): their real host asks once, it is not blocked.
    ...productsOf(analysis),
  });
  return { policy, removed: dedupe(removed) };
}

/** Verbs that book a place ("book 'hotel lumiere' …", "reserve a table at 'roscioli'", "rent a car from 'sunrise rentals'"). */
const BOOKING_VERBS: ReadonlySet<string> = new Set(['book', 'reserve', 'rent']);
const QUOTE_MARK = '[…]';

/**
 * The places the words book, by the names they quote (isolate.ts set a long quote apart, in order): only when
 * every write clause of the class books and quotes one, else none is bound (a write clause naming no place binds
 * nothing). A reservation tool's place is its item (src/tools/classify.ts).
 */
function bookedPlaces(clauses: readonly Clause[], text: string, quoted: readonly string[]): Map<string, Clause> | undefined {
  const out = new Map<string, Clause>();
  for (const c of clauses) {
    if (c.verb === null || !BOOKING_VERBS.has(c.verb.w)) return undefined;
    // (A short quote stays in the words: "reserve a table at 'roscioli'".)
    const literal = [...c.text.matchAll(/(?:^|[\s(])['‘"“]([^'’"”[\]]{2,60})['’"”](?=$|[\s,.;:!?)])/g)].map((m) => m[1]!.trim());
    for (const name of literal) if (!out.has(name)) out.set(name, c);
    let at = text.indexOf(QUOTE_MARK, c.start);
    if ((at === -1 || at >= c.end) && literal.length === 0) return undefined;
    for (; at !== -1 && at < c.end; at = text.indexOf(QUOTE_MARK, at + QUOTE_MARK.length)) {
      const index = text.slice(0, at).split(QUOTE_MARK).length - 1;
      const name = quoted[index];
      if (name === undefined) return undefined;
      if (!out.has(name)) out.set(name, c);
    }
  }
  return out.size > 0 ? out : undefined;
}

/** Actions that add a key, and a public key as the words write it (its type, then its base64 body). */
const KEY_ACTIONS: ReadonlySet<ActionId> = new Set(['ssh_key', 'deploy_key', 'gpg_key']);
const KEY_LITERAL = /\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+([A-Za-z0-9+/]{16,}={0,3})/g;

/** Write verbs that publish where the words say: "post …", "comment on …", "tweet …", "leave a review …". */
const PUBLIC_POST_VERBS = new Set(['post', 'comment', 'publish', 'tweet', 'leave']);
/** Message verbs that answer in a conversation, not to a person: "reply in the thread", "answer in #help". */
/** A write that carries a posted text ("close issue #88 with a comment that …", "rate it and add a review"). */
const POSTED_TEXTS = /\b(?:comments?|reviews?|tweet)\b/i;
const IN_PLACE_REPLY_VERBS = new Set(['reply', 'answer', 'respond']);
const CONVERSATION_WORDS = /(?:^|\s)#[\p{L}\p{N}_-]+|\b(?:thread|channel|forum|question|discussion|issue|comments?)\b/iu;

const namedSites = (clause: Clause) => clause.targets.filter((t) => t.kind === 'domain' && !clause.refused.includes(t));

/** Every message request answers in a conversation on a named site and names nobody to send to. */
function answersInPlace(clauses: readonly Clause[]): boolean {
  return clauses.length > 0 && clauses.every((c) => c.verb !== null && IN_PLACE_REPLY_VERBS.has(c.verb.w) && c.objects.length === 0 && namedSites(c).length > 0 && CONVERSATION_WORDS.test(c.text.slice(0, (c.dictated?.[0] ?? c.end) - c.start)));
}

/**
 * The sites the words ask to post on in public: those the posting clauses name. None when the words ban
 * messages or already ask for messages of their own (those are bound to their recipients), or the write
 * was not granted.
 */
function publicPostSites(bound: WordsBound, grants: ReadonlyMap<RiskClass, ClassGrant>, prohibitions: readonly Prohibition[]): Set<string> {
  if (grants.has('COMMUNICATION') || !grants.has('EXTERNAL_WRITE') || fullyBans(prohibitions, 'COMMUNICATION') !== undefined) return new Set();
  const posting = (bound.requests.get('EXTERNAL_WRITE') ?? []).filter((c) => c.verb !== null && (PUBLIC_POST_VERBS.has(c.verb.w) || POSTED_TEXTS.test(c.text.slice(0, (c.dictated?.[0] ?? c.end) - c.start))));
  return new Set(posting.flatMap((c) => namedSites(c).map((t) => t.value)));
}

/**
 * Whom the words name as what a write is about or for: the addresses and handles write clauses reach ("draft
 * a reply to sam@…", "follow @nasa"; a handle as the site writes it, with and without its @) and whom an
 * "invite" clause invites (an event's attendee). Not anyone the words refuse or a scoped ban leaves out.
 */
function reachedBy(bound: WordsBound, analysis: Analysis, prohibitions: readonly Prohibition[]): Map<string, Clause> {
  const out = new Map<string, Clause>();
  const scoped = prohibitions.filter((p) => p.exceptRecipients.length > 0);
  const add = (value: string, clause: Clause) => {
    if (scoped.some((p) => !p.exceptRecipients.includes(value)) || out.has(value)) return;
    out.set(value, clause);
  };
  for (const c of bound.requests.get('EXTERNAL_WRITE') ?? []) {
    for (const t of c.objects) {
      add(t.value, c);
      if (t.kind === 'handle') add(`@${t.value}`, c);
    }
  }
  for (const c of analysis.clauses) if (!c.negated && c.request === 'PERMISSION_CHANGE' && c.verb?.w === 'invite') for (const t of c.objects) add(t.value, c);
  return out;
}

/**
 * Site keys as the hosts the words name them (outside negations and refusals): a task naming
 * `news.example.test` lists that host — a sibling (`uploads.example.test`) is a site it does not name —
 * while one that names the site itself (`example.test`, `www.example.test`, or that host as well) lists the
 * site, subdomains included. A key no word names as a host (a private endpoint, an IP) stays as it is.
 * (Per site, not per clause: every host the words name on a site is listed wherever that site is.)
 */
function namedHosts(analysis: Analysis): (keys: readonly string[]) => string[] {
  const hosts = new Map<string, Set<string> | 'site'>();
  for (const clause of analysis.clauses) {
    if (clause.negated) continue;
    for (const t of clause.targets) {
      if (t.kind !== 'domain' || clause.refused.includes(t) || hosts.get(t.value) === 'site') continue;
      if (t.host === undefined) hosts.set(t.value, 'site');
      else hosts.set(t.value, new Set([...(hosts.get(t.value) ?? []), t.host]));
    }
  }
  return (keys) => [...new Set(keys.flatMap((k) => { const h = hosts.get(k); return h === undefined || h === 'site' ? [k] : [...h].sort(); }))];
}

function productsOf(analysis: Analysis): { products?: string[] } {
  const named = productsNamed(analysis.text);
  return named.length === 0 ? {} : { products: named };
}

function mentionedOf(analysis: Analysis): { mentioned?: string[] } {
  const named = analysis.clauses.filter((c) => !c.negated).flatMap((c) => c.targets.filter((t) => t.kind === 'email' && !c.refused.includes(t)).map((t) => t.value));
  return named.length === 0 ? {} : { mentioned: [...new Set(named)] };
}

function dedupe(removed: Removal[]): Removal[] {
  const seen = new Set<string>();
  return removed.filter((r) => {
    const key = `${r.ref}\n${r.why}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
