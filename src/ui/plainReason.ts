import type { DecisionRecord } from '../core/decision';
import { RiskClassSchema, type RiskClass } from '../core/risk';
import { parseRuleRef } from '../core/ruleRef';
import { CLASS_WORDS, listWords, targetWords } from './words';

/** The part of a decision record the sentence is made from (a pending approval carries the same fields). */
export type ReasonInput = Pick<DecisionRecord, 'decision' | 'check' | 'reason' | 'tool' | 'capability' | 'riskClass' | 'targets' | 'ruleRef' | 'evidence'>;

export interface PlainReason {
  /** One sentence in the user's language, e.g. "Your task only sends to bob@x.test; this goes to eve@y.test." */
  sentence: string;
  /** The user's own words behind the rule, when the record carries them. */
  quote?: string;
}

/** What an action of each class does, said of "this" ("this sends to …", "this pays …"). */
const DOES: Record<RiskClass, string> = {
  READ: 'opens a page',
  LOCAL_WRITE: 'saves a file',
  EXTERNAL_WRITE: 'changes data',
  COMMUNICATION: 'sends a message',
  DELETE: 'deletes something',
  PERMISSION_CHANGE: 'changes permissions',
  FINANCIAL: 'pays',
  EXECUTION: 'runs a program',
  UNKNOWN: 'does something nobody could classify',
};

/** What the task does with a class of action, said of "your task only …". */
const TASK_DOES: Record<RiskClass, string> = {
  READ: 'reads',
  LOCAL_WRITE: 'saves files',
  EXTERNAL_WRITE: 'changes data',
  COMMUNICATION: 'sends',
  DELETE: 'deletes',
  PERMISSION_CHANGE: 'changes permissions',
  FINANCIAL: 'pays',
  EXECUTION: 'runs programs',
  UNKNOWN: 'acts',
};

const GUARD_SENDER_WORDS =
  'A page that is not the toolbar popup or a window AgentsFence opened asked to manage the task or its approvals; it was refused (only you, from the toolbar, may do that)';

/** "this sends a message to bob@x.test on mail.test": the action side of the sentence. */
function thisDoes(r: Pick<ReasonInput, 'riskClass' | 'targets'>): string {
  const targets = targetWords(r.targets);
  return `this ${DOES[r.riskClass]}${targets === '' ? '' : ` ${targets}`}`;
}

/** The list after a fixed prefix of an evaluator reason ("recipient not among a, b" → ["a", "b"]); null when the reason has another form. */
function listAfter(reason: string, prefix: string): string[] | null {
  return reason.startsWith(prefix) ? reason.slice(prefix.length).split(', ').filter((s) => s !== '') : null;
}

/** Reasons speak of "the user"; the person reading is that user. */
function toYou(reason: string): string {
  return reason
    .replace(/\bthe user said\b/g, 'you said')
    .replace(/\bthe user named\b/g, 'you named')
    .replace(/\bthe user tied\b/g, 'you tied')
    .replace(/\bby the user\b/g, 'by you');
}

function sentence(text: string): string {
  const t = text.trim();
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A "task; action" contrast for an argument constraint, read from the evaluator's reason and the action's targets. */
function constraintContrast(r: ReasonInput): string | null {
  const t = r.targets;
  const recipients = listAfter(r.reason, 'recipient not among ');
  if (recipients !== null) return `Your task only ${TASK_DOES[r.riskClass]} to ${listWords(recipients)}; this goes to ${listWords(t.recipients)}`;
  if (r.reason === 'no readable recipient') return `Your task names whom this may go to; this action’s recipient could not be read`;
  const domains = listAfter(r.reason, 'domain not among ');
  if (domains !== null) return `Your task only ${TASK_DOES[r.riskClass]} on ${listWords(domains)}; this is on ${listWords(t.domains)}`;
  const paths = listAfter(r.reason, 'path not among ');
  if (paths !== null) return `Your task only uses ${listWords(paths)}; this uses ${listWords(t.paths)}`;
  const items = /^acts on (.*), not on (.*)$/.exec(r.reason);
  if (items !== null) return `Your task only acts on ${items[2]}; this acts on ${items[1]}`;
  const amount = /^amount (.+) is above (.+)$/.exec(r.reason);
  if (amount !== null) return `Your task allows up to ${amount[2]}; this is ${amount[1]}`;
  const quantity = /^quantity (.+) is above (.+)$/.exec(r.reason);
  if (quantity !== null) return `Your task orders at most ${quantity[2]}; this orders ${quantity[1]}`;
  const budget = /^call budget of (\d+) used up$/.exec(r.reason);
  if (budget !== null) return `Your task allows ${budget[1]} such ${budget[1] === '1' ? 'action' : 'actions'}, all used; this would be one more`;
  return null;
}

/**
 * Why the evaluator decided, in one sentence that sets what the task allows against what the action does
 * ("Your task only sends to alice@…; this goes to mallory@…"), made from the record alone: its check, its
 * reason (the evaluator's fixed forms), its targets and the user's words. A reason that already speaks of
 * the task in words is shown as it is. Pure: the popup's approval card and the audit table both use it.
 */
export function plainReason(record: ReasonInput): PlainReason {
  // An ask refused because too many were waiting carries that after its own reason.
  const [reason = '', notAsked] = record.reason.split('; not asked: ');
  const r = { ...record, reason };
  const quote = r.evidence === undefined || r.evidence === '' ? {} : { quote: r.evidence };
  const done = (text: string): PlainReason => ({ sentence: sentence(toYou(notAsked === undefined ? text : `${text}; not asked: ${notAsked}`)), ...quote });
  const rule = r.ruleRef === undefined ? null : parseRuleRef(r.ruleRef);
  const builtin = rule?.kind === 'builtin' ? rule.rule : null;

  if (builtin === 'control-sender') return done(GUARD_SENDER_WORDS);
  if (builtin === 'not-guarding') return done(`No task was guarding this tab: ${thisDoes(r)}, recorded and not checked`);
  if (builtin === 'message-schema' || builtin === 'tool-call-schema') return done(`A malformed message was blocked (${r.reason})`);
  if (builtin === 'fail-closed') return done(`An error inside the check blocked this, to be safe (${r.reason})`);
  if (/\byour task\b/i.test(r.reason)) return done(r.reason);

  switch (r.check) {
    case 'allowed':
      return done(r.riskClass === 'READ' ? `Your task allows reading; ${thisDoes(r)}` : `Your task allows this: ${thisDoes(r).replace(/^this/, 'it')}${r.reason.includes('(') ? ` ${r.reason.slice(r.reason.indexOf('('))}` : ''}`);
    case 'grants':
      return done(`You approved this earlier (${r.reason.includes('for this task') ? 'for this task' : 'once'}): ${thisDoes(r).replace(/^this/, 'it')}`);
    case 'recipient_binding': {
      if (builtin === 'readable-recipient') return done('Your task sends only to people it names; this message’s recipient could not be read');
      const unbound = /^recipient (.*) was not named in the task$/.exec(r.reason)?.[1];
      return done(`Your task does not name ${unbound ?? 'this recipient'}; this goes to ${listWords(r.targets.recipients)}`);
    }
    case 'argument_constraints':
      return done(constraintContrast(r) ?? `Your task sets a limit here: ${r.reason}`);
    case 'action_binding':
      // The evaluator's reason already sets the task's action against this one ("your task comments on issue 1000; …").
      return done(r.reason);
    case 'domain_allowlist': {
      const where = listWords(r.targets.domains, 'a site it does not name');
      if (builtin === 'network-floor') return done(`Your task does not send data to ${where}; the network floor stopped this request before it left`);
      return done(r.decision === 'BLOCK' ? `Your task does not name ${where}; ${thisDoes(r)}` : `Your task reads only its own sites; this opens ${where}`);
    }
    case 'site_binding':
      return done(`Your task names the target but no site: ${r.reason.replace(/\? The task names.*$/, '?')}`);
    case 'ceiling':
      if (builtin === 'unclassified-asks') return done(`Nobody could tell what this action does (${r.tool}); a person must decide`);
      if (r.reason.endsWith('is not among the task\'s permissions')) return done(`Your task does not ask to ${CLASS_WORDS[r.riskClass]}; ${thisDoes(r)}`);
      if (r.decision === 'BLOCK') return done(`Your task does not allow anything that would ${CLASS_WORDS[r.riskClass]}; ${thisDoes(r)}`);
      return done(`Your task asks you before anything that would ${CLASS_WORDS[r.riskClass]}; ${thisDoes(r)}`);
    case 'exfiltration_url':
      if (builtin === 'taint') return done(`Your task does not send what its pages showed to other sites; ${r.reason.replace(/^the URL/, 'this address')}`);
      return done(`Your task sends nothing hidden in web addresses; this address looks like it carries data (${r.reason})`);
    case 'outbound_budget':
      return done(`Your task’s outbound budget is used up (${r.reason.replace(/^outbound budget of /, '')}); ${thisDoes(r)}`);
    case 'minimizer':
      return done(`Your task allows this action, not the data it carries: ${r.reason.replace(/; the task does not call for it$/, '')}`);
    case 'prohibitions':
      return done(`Your task forbids this (${r.reason}); ${thisDoes(r)}`);
    case 'deny_list':
      return done(`Your task’s policy denies this; ${thisDoes(r)}`);
    case 'approval_required':
      return done(`You asked to confirm each such action; ${thisDoes(r)}`);
    case 'private_network':
      return done(`Your task does not name this address on your own network; ${r.reason}`);
    case 'path_allowlist':
      return done(`Your task does not name this file; ${r.reason}`);
    case 'expiry':
      return done('Your task’s time is up; nothing more is allowed until you start a new one');
    case 'guards':
      return done(`Agent tabs may not open the browser’s or an extension’s own pages; ${r.reason.replace(/^guarded tabs may not open /, 'this opens ')}`);
    case 'org_floor': {
      const never = /^your organisation never allows ([A-Z_]+) actions$/.exec(r.reason)?.[1];
      const cls = never === undefined ? undefined : RiskClassSchema.safeParse(never);
      return done(cls?.success === true ? `Your organisation never allows anything that would ${CLASS_WORDS[cls.data]}; ${thisDoes(r)}` : r.reason);
    }
    case 'sanitizer':
      return done(`Text hidden from you or addressed to the agent was removed from what the agent reads (${r.reason})`);
    case 'schema':
    case 'internal_error':
      return done(`Blocked, to be safe: ${r.reason}`);
  }
}
