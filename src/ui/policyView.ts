import type { TaskPolicy, Listing } from '../core/policy';
import type { CompileReport } from '../messages/protocol';
import { amountTarget, amountWords, formatMoney } from '../core/amounts';
import { CLASS_WORDS, byteWords, listWords } from './words';

/** One line of the policy in plain words, with the user's words behind it when the policy has them. */
export interface PolicyLine {
  text: string;
  /** Evidence quote from the user's request; absent when the policy entry has none. */
  quote?: string;
  /** The policy entry this line shows, e.g. `allow.classes:COMMUNICATION` (for the expandable detail). */
  ref: string;
}

export interface PolicyView {
  source: string;
  permissions: PolicyLine[];
  /** Things the agent may only do after you confirm each one. */
  askFirst: PolicyLine[];
  limits: PolicyLine[];
  prohibitions: PolicyLine[];
  grants: PolicyLine[];
  removed: { what: string; why: string }[];
  /** Evidence quotes no line above refers to (shown so no authority is hidden). */
  otherEvidence: PolicyLine[];
  fallbackReason?: string;
}

const TARGET_WORDS = { recipients: 'Recipient', domains: 'Site', paths: 'File', items: 'Item' } as const;

function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

/** A policy reference for a person: `recipients:bob@x.test` → "Recipient bob@x.test". */
function refWords(ref: string): string {
  const [kind = '', ...rest] = ref.split(':');
  const value = rest.join(':');
  return kind in TARGET_WORDS && value !== '' ? `${TARGET_WORDS[kind as keyof typeof TARGET_WORDS]} ${value}` : ref;
}

function listingEntries(listing: Listing, prefix: string): { ref: string; text: string }[] {
  return [
    ...listing.classes.map((c) => ({ ref: `${prefix}.classes:${c}`, text: CLASS_WORDS[c] })),
    ...listing.capabilities.map((c) => ({ ref: `${prefix}.capabilities:${c}`, text: `use ${c}` })),
    ...listing.tools.map((t) => ({ ref: `${prefix}.tools:${t}`, text: `use the tool ${t}` })),
  ];
}

/** The compiled policy in plain words: what the agent may do, within which limits, and what it may never do. */
export function describePolicy(policy: TaskPolicy, report: CompileReport): PolicyView {
  const quotes = new Map(policy.evidence.map((e) => [e.ref, e.quote]));
  const used = new Set<string>();
  const line = (ref: string, text: string, quote?: string): PolicyLine => {
    const q = quote ?? quotes.get(ref);
    if (quotes.has(ref)) used.add(ref);
    return q === undefined ? { ref, text } : { ref, text, quote: q };
  };

  const permissions = listingEntries(policy.allow, 'allow').map((e) => line(e.ref, `May ${e.text}.`));
  for (const [cls, ceiling] of Object.entries(policy.ceilings)) {
    if (ceiling === 'block') permissions.push(line(`ceilings:${cls}`, `May never ${CLASS_WORDS[cls as keyof typeof CLASS_WORDS]}.`));
  }
  const askFirst = [
    ...listingEntries(policy.requireApproval, 'requireApproval').map((e) => line(e.ref, `Asks you before it may ${e.text}.`)),
    ...Object.entries(policy.ceilings)
      .filter(([, ceiling]) => ceiling === 'ask')
      .map(([cls]) => line(`ceilings:${cls}`, `Asks you before it may ${CLASS_WORDS[cls as keyof typeof CLASS_WORDS]}.`)),
    // The evaluator's default for a consequential action the policy does not list.
    { ref: 'default', text: 'Anything else that changes, sends, pays or deletes asks you first.' },
  ];

  const limits: PolicyLine[] = [];
  // One line per named target, each with the words that named it; an empty list says so.
  const targetLines = (kind: keyof typeof TARGET_WORDS, items: readonly string[], none: string) => {
    if (items.length === 0) limits.push(line(kind, `${TARGET_WORDS[kind]}: ${none}.`));
    for (const item of items) limits.push(line(`${kind}:${item}`, `${TARGET_WORDS[kind]}: ${item}.`));
  };
  const fromConstraints = (pick: (c: TaskPolicy['constraints'][number]) => string[] | undefined) => policy.constraints.flatMap((c) => pick(c) ?? []);
  targetLines('recipients', unique([...policy.recipients, ...fromConstraints((c) => c.recipients)]), 'nobody');
  if (policy.domains === null) limits.push(line('domains', 'Sites: may read any site; writes only where allowed.'));
  else targetLines('domains', unique([...policy.domains, ...fromConstraints((c) => c.domains)]), 'none');
  targetLines('paths', unique([...policy.paths, ...fromConstraints((c) => c.paths)]), 'none');
  const namedItems = unique(fromConstraints((c) => c.items));
  if (namedItems.length > 0) targetLines('items', namedItems, 'none');
  // How much, with the words that named it.
  for (const c of policy.constraints) {
    // (A write bound to an amount — "book the flight under £300" — is held by the amounts it carries.)
    const per = c.riskClass === undefined || c.riskClass === 'FINANCIAL' ? 'per payment' : 'per change on a website that carries an amount';
    if (c.amount !== undefined) limits.push(line(`amount:${amountTarget(c.amount)}`, `Amount: at most ${formatMoney(c.amount)} ${per}.`));
    // Whom each amount was named for ("pay bob 45 EUR, alice 4,500 EUR"), and the bound of anyone else.
    for (const p of c.payeeAmounts?.payees ?? []) limits.push(line(`amount:${p.recipient}:${amountTarget(p.amount)}`, `Amount to ${p.recipient}: at most ${formatMoney(p.amount)} ${per}.`));
    if (c.payeeAmounts !== undefined) limits.push(line('amount:others', `Amount to anyone else, or to a payee the page does not name: at most ${formatMoney(c.payeeAmounts.others)} ${per}.`));
    if (c.quantity !== undefined) limits.push(line(`quantity:${c.quantity}`, `Quantity: at most ${c.quantity} per order.`));
  }
  const budget = policy.outboundBudget;
  limits.push(
    line(
      'outboundBudget',
      `Outbound budget: ${budget.maxCalls === null ? 'no call limit' : `at most ${budget.maxCalls} outbound ${budget.maxCalls === 1 ? 'action' : 'actions'}`}, ${
        budget.maxBytes === null ? 'no size limit' : `at most ${byteWords(budget.maxBytes)} sent`
      }.`,
    ),
  );
  for (const c of policy.constraints) {
    const what = c.tool ?? c.capability ?? (c.riskClass === undefined ? c.id : CLASS_WORDS[c.riskClass]);
    const parts = [
      c.recipients === undefined ? null : `only to ${listWords(c.recipients, 'nobody')}`,
      c.domains === undefined ? null : `only on ${listWords(c.domains, 'no site')}`,
      c.paths === undefined ? null : `only with ${listWords(c.paths, 'no file')}`,
      c.items === undefined ? null : `only for ${listWords(c.items, 'no item')}`,
      c.maxCalls === undefined ? null : `at most ${c.maxCalls} ${c.maxCalls === 1 ? 'time' : 'times'}`,
      c.amount === undefined ? null : `at most ${formatMoney(c.amount)} each time`,
      c.payeeAmounts === undefined ? null : `${c.payeeAmounts.payees.map((p) => `at most ${formatMoney(p.amount)} to ${p.recipient}`).join(', ')}, at most ${formatMoney(c.payeeAmounts.others)} to anyone else`,
      c.quantity === undefined ? null : `at most ${c.quantity} ${c.quantity === 1 ? 'item' : 'items'} per order`,
      c.publicPost === true ? 'a public post there (no recipient) included' : null,
      c.reaches === undefined ? null : `may name ${listWords(c.reaches, 'nobody')} (not as a message)`,
    ].filter((p): p is string => p !== null);
    limits.push(line(`constraints:${c.id}`, `${what}: ${parts.length === 0 ? 'no further limit' : parts.join(', ')}.`));
  }
  if (policy.expiresAt !== null) limits.push(line('expiresAt', `Expires at ${new Date(policy.expiresAt).toLocaleString()}.`));

  const prohibitions = policy.prohibitions.map((p) => {
    const what = [...p.classes.map((c) => CLASS_WORDS[c]), ...p.capabilities, ...p.tools];
    const except = p.exceptRecipients.length > 0 ? ` (except to ${listWords(p.exceptRecipients)})` : '';
    return line(`prohibition:${p.id}`, `Must not ${listWords(what, 'act')}${except}.`, p.quote);
  });

  const denied = listingEntries(policy.deny, 'deny').map((e) => line(e.ref, `Must not ${e.text}.`));

  const grants = policy.grants.map((g) => {
    const targets = [...g.recipients, ...g.domains, ...g.paths, ...g.items, ...(g.amounts ?? []).map(amountWords), ...(g.quantities ?? []).map((q) => `quantity ${q}`)];
    const times = g.maxCalls === null ? 'for this task' : `${g.maxCalls === 1 ? 'once' : `${g.maxCalls} times`}`;
    return line(`grant:${g.id}`, `You allowed ${g.capability} (${g.tool}) ${targets.length > 0 ? `for ${listWords(targets)} ` : ''}${times}.`);
  });

  const otherEvidence = policy.evidence.filter((e) => !used.has(e.ref)).map((e) => ({ ref: e.ref, text: refWords(e.ref), quote: e.quote }));

  const view: PolicyView = {
    source: report.backend,
    permissions,
    askFirst,
    limits,
    prohibitions: [...prohibitions, ...denied],
    grants,
    removed: report.removed.map((r) => ({ what: r.ref, why: r.why })),
    otherEvidence,
  };
  if (report.fallbackReason !== null) view.fallbackReason = report.fallbackReason;
  return view;
}
