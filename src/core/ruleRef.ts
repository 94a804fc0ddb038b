import { z } from './zod';
import { RiskClassSchema, type RiskClass } from './risk';

/**
 * Which rule decided (Cedar's "diagnostics"): every decision names either an entry of the task's policy
 * or one of the product's built-in rules. A ruleRef is a short string so that it reads well in the
 * audit and stays the key the policy's evidence uses (`allow.classes:COMMUNICATION`); `parseRuleRef`
 * turns it into a typed value, and the conformance corpus and property tests check it.
 */

/**
 * The rules the product enforces whatever the policy says. What each one holds is in words in
 * `BUILTIN_RULES` (./explain.ts): a decision needs only the names.
 */
export const BUILTIN_RULE_NAMES = ['tool-call-schema', 'fail-closed', 'scheme-allowlist', 'private-network', 'unclassified-asks', 'readable-recipient', 'site-binding', 'action-binding', 'exfiltration-url', 'taint', 'minimizer', 'network-floor', 'message-schema', 'control-sender', 'not-guarding'] as const;
export type BuiltinRule = (typeof BUILTIN_RULE_NAMES)[number];
const BUILTINS: ReadonlySet<string> = new Set(BUILTIN_RULE_NAMES);

export type ListingName = 'allow' | 'deny' | 'requireApproval';
/** The organisation's floor (core/org.ts): rules that come from enterprise policy, not from the task. */
export type OrgRule = 'blockedSites' | 'askSites' | 'neverAllow' | 'unreadable';
export type ListingKind = 'tools' | 'capabilities' | 'classes';
/** The task-wide allowlists of the policy. */
export type AllowlistName = 'recipients' | 'domains' | 'paths';

export type RuleRef =
  | 'expiresAt'
  | `prohibition:${string}`
  | `${ListingName}.${ListingKind}:${string}`
  | `grant:${string}`
  | `constraints:${string}`
  | `ceilings.${RiskClass}`
  | AllowlistName
  | `outboundBudget.${'maxCalls' | 'maxBytes'}`
  | `builtin:${BuiltinRule}`
  | `org.${Exclude<OrgRule, 'unreadable'>}:${string}`
  | 'org.unreadable'
  /** Not an action: a Sanitizer rule that removed text (src/sanitizer). */
  | `sanitizer:${string}`
  /** `builtin:taint` as audit entries stored before the built-in rules had a prefix spell it. */
  | 'taint';

/** A ruleRef read back: what kind of rule, and its id, index key or name. */
export type ParsedRuleRef =
  | { kind: 'expiry' }
  | { kind: 'prohibition'; id: string }
  | { kind: 'listing'; list: ListingName; by: ListingKind; value: string }
  | { kind: 'grant'; id: string }
  | { kind: 'constraint'; id: string }
  | { kind: 'ceiling'; riskClass: RiskClass }
  | { kind: 'allowlist'; list: AllowlistName }
  | { kind: 'outbound_budget'; limit: 'maxCalls' | 'maxBytes' }
  | { kind: 'builtin'; rule: BuiltinRule }
  | { kind: 'org'; rule: OrgRule; value: string | null }
  | { kind: 'sanitizer'; rule: string };

const LISTING = /^(allow|deny|requireApproval)\.(tools|capabilities|classes):([\s\S]+)$/;
const PREFIXED = /^(prohibition|grant|constraints|builtin|sanitizer):([\s\S]+)$/;
const ORG = /^org\.(blockedSites|askSites|neverAllow):([\s\S]+)$/;

/** The typed reading of a ruleRef, or null when the string names no rule. */
export function parseRuleRef(ref: string): ParsedRuleRef | null {
  if (ref === 'expiresAt') return { kind: 'expiry' };
  if (ref === 'taint') return { kind: 'builtin', rule: 'taint' };
  if (ref === 'org.unreadable') return { kind: 'org', rule: 'unreadable', value: null };
  const org = ORG.exec(ref);
  if (org) {
    const [, rule, value] = org as unknown as [string, Exclude<OrgRule, 'unreadable'>, string];
    if (rule === 'neverAllow' && !RiskClassSchema.safeParse(value).success) return null;
    return { kind: 'org', rule, value };
  }
  if (ref === 'recipients' || ref === 'domains' || ref === 'paths') return { kind: 'allowlist', list: ref };
  if (ref === 'outboundBudget.maxCalls' || ref === 'outboundBudget.maxBytes') return { kind: 'outbound_budget', limit: ref === 'outboundBudget.maxCalls' ? 'maxCalls' : 'maxBytes' };
  if (ref.startsWith('ceilings.')) {
    const cls = RiskClassSchema.safeParse(ref.slice('ceilings.'.length));
    return cls.success ? { kind: 'ceiling', riskClass: cls.data } : null;
  }
  const listing = LISTING.exec(ref);
  if (listing) {
    const [, list, by, value] = listing as unknown as [string, ListingName, ListingKind, string];
    if (by === 'classes' && !RiskClassSchema.safeParse(value).success) return null;
    return { kind: 'listing', list, by, value };
  }
  const prefixed = PREFIXED.exec(ref);
  if (!prefixed) return null;
  const [, prefix, rest] = prefixed as unknown as [string, string, string];
  switch (prefix) {
    case 'prohibition':
      return { kind: 'prohibition', id: rest };
    case 'grant':
      return { kind: 'grant', id: rest };
    case 'constraints':
      return { kind: 'constraint', id: rest };
    case 'sanitizer':
      return { kind: 'sanitizer', rule: rest };
    default:
      return BUILTINS.has(rest) ? { kind: 'builtin', rule: rest as BuiltinRule } : null;
  }
}

export function isRuleRef(ref: string): ref is RuleRef {
  return parseRuleRef(ref) !== null;
}

/** A ruleRef in a record that crosses a boundary or is read back from storage: it must name a rule. */
export const RuleRefSchema = z.custom<RuleRef>((v) => typeof v === 'string' && isRuleRef(v), { message: 'a ruleRef names a policy entry or a built-in rule' });
