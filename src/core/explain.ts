import { amountWords } from './amounts';
import type { ClassifierLayer } from './classification';
import type { DecisionRecord } from './decision';
import { parseRuleRef, type BuiltinRule, type ParsedRuleRef } from './ruleRef';
import { describeReading } from './actions/read';

/** What each built-in rule (./ruleRef.ts) holds, in words. */
export const BUILTIN_RULES: Readonly<Record<BuiltinRule, string>> = {
  'tool-call-schema': 'a tool call must be well-formed',
  'fail-closed': 'an error inside the check blocks the action',
  'scheme-allowlist': 'guarded tabs open only web pages, about:blank, data: and blob: URLs',
  'private-network': 'a host on the user’s machine, LAN or intranet is reached only when the task names it',
  'unclassified-asks': 'an action nobody could classify is never allowed without a person',
  'readable-recipient': 'a message whose recipient cannot be read goes to a person',
  'site-binding': 'a named target on a site the task does not name is asked once',
  'action-binding': 'a write is one of the actions, on the objects, the user’s words name; an account-security action only by its own words',
  'exfiltration-url': 'an exfiltration-shaped URL is blocked',
  taint: 'session data from a guarded page may not leave to a site the task does not name',
  minimizer: 'confidential data the task does not call for is shown to a person before it is sent',
  'network-floor': 'the network floor stops what the task does not allow before the request leaves',
  'message-schema': 'a message from a page or a content script must be well-formed',
  'control-sender': 'the task and its approvals are managed only from the toolbar popup or a window the extension opened',
  'not-guarding': 'no task is running, or the tab is outside the guard scope: actions are recorded, not checked',
};

const VERDICT: Record<DecisionRecord['decision'], string> = {
  ALLOW: 'Allowed',
  BLOCK: 'Blocked',
  ASK_USER: 'Held for the user to decide',
};

const CHECK_WORDS: Record<DecisionRecord['check'], string> = {
  schema: 'the proposal was malformed',
  expiry: 'the task had expired',
  guards: 'a browser guard',
  org_floor: 'the organisation’s floor (enterprise policy)',
  prohibitions: 'a prohibition in the user’s words',
  deny_list: 'the policy’s deny list',
  grants: 'an approval the user gave',
  private_network: 'the private-network rule (hosts on the user’s machine, LAN or intranet)',
  argument_constraints: 'an argument constraint',
  action_binding: 'action binding (the action and object the user’s words name)',
  ceiling: 'the class ceiling and permission list',
  recipient_binding: 'recipient binding',
  domain_allowlist: 'the task’s site list',
  site_binding: 'site binding (a target the user named, on a site the task does not name)',
  exfiltration_url: 'the exfiltration-shaped URL rule',
  path_allowlist: 'the task’s path list',
  outbound_budget: 'the outbound budget',
  approval_required: 'an explicit approval requirement',
  minimizer: 'the Minimizer (confidential data the task does not call for)',
  allowed: 'the task’s permissions',
  internal_error: 'an internal error (fail closed)',
  sanitizer: 'the Sanitizer (text removed from what the agent reads)',
};

/** The classifier layers as a person would name them. */
export const CLASSIFIER_LAYER_WORDS: Record<ClassifierLayer, string> = {
  web: 'the web heuristics',
  explicit: 'the tool table',
  shell: 'the shell reader',
  glob: 'a tool-name pattern',
  verb: 'the verb in the tool name',
  unknown: 'no classifier layer',
};

const LISTING_WORDS = { allow: 'the permission list', deny: 'the deny list', requireApproval: 'the approval list' } as const;
const ALLOWLIST_WORDS = { recipients: 'the task’s recipient list', domains: 'the task’s site list', paths: 'the task’s path list' } as const;

/** What a ruleRef names, in words. */
export function ruleWords(rule: ParsedRuleRef): string {
  switch (rule.kind) {
    case 'expiry':
      return 'the task’s expiry time';
    case 'prohibition':
      return `prohibition ${rule.id}`;
    case 'listing':
      return `${LISTING_WORDS[rule.list]} entry ${rule.by} ${rule.value}`;
    case 'grant':
      return 'an approval the user gave';
    case 'constraint':
      return `constraint ${rule.id}`;
    case 'ceiling':
      return `the ceiling for ${rule.riskClass}`;
    case 'allowlist':
      return ALLOWLIST_WORDS[rule.list];
    case 'outbound_budget':
      return `the outbound budget (${rule.limit})`;
    case 'builtin':
      return `built-in rule: ${BUILTIN_RULES[rule.rule]}`;
    case 'sanitizer':
      return `the Sanitizer’s ${rule.rule} rule`;
    case 'org':
      return `the organisation’s policy (${rule.rule}${rule.value !== null ? `: ${rule.value}` : ''})`;
  }
}

/** A decision record in words, for people: verdict, action, the check that decided, and the evidence. */
export function explain(r: DecisionRecord): string {
  const t = r.targets;
  const to = [
    t.recipients.length ? `to ${t.recipients.join(', ')}` : '',
    t.domains.length ? `on ${t.domains.join(', ')}` : '',
    t.paths.length ? `with ${t.paths.join(', ')}` : '',
    t.items.length ? `acting on ${t.items.join(', ')}` : '',
    t.amounts?.length ? `of ${t.amounts.map(amountWords).join(', ')}` : '',
    t.quantities?.length ? `in quantity ${t.quantities.join(', ')}` : '',
  ].filter(Boolean);
  const lines = [
    `${VERDICT[r.decision]}: ${r.tool} (${r.capability}, ${r.riskClass})${to.length ? ' ' + to.join(' ') : ''}.`,
  ];
  if (r.basis !== undefined) lines.push(`Read by ${CLASSIFIER_LAYER_WORDS[r.classifierLayer ?? 'unknown']}: ${r.basis}.`);
  if (r.action !== undefined) lines.push(`What it does: it ${describeReading(r.action)}${r.action.app === null ? '' : ` (${r.action.app})`}.`);
  lines.push(`Decided by ${CHECK_WORDS[r.check]}: ${r.reason}.`);
  const rule = r.ruleRef === undefined ? null : parseRuleRef(r.ruleRef);
  if (r.ruleRef !== undefined) lines.push(`Rule: ${r.ruleRef}${rule === null ? '' : ` (${ruleWords(rule)})`}.`);
  if (r.evidence) lines.push(`The user's words: "${r.evidence}".`);
  return lines.join('\n');
}
