import type { PendingApproval } from '../messages/protocol';
import type { TaskPolicy } from '../core/policy';
import { plainReason } from './plainReason';
import { amountWords } from '../core/amounts';
import { revealed } from '../background/decide/redact';
import { approvalIsOnceOnly } from '../core/grants';
import { basisWords, CLASS_WORDS, secondsLeft, targetWords } from './words';

export interface ApprovalView {
  id: string;
  /** One sentence: "The agent wants to send messages to bob@x.com on mail.test." */
  headline: string;
  /** What the task allows against what this action does, in one sentence (plainReason). */
  why: string;
  /** The user's words behind the rule that asked, when the policy has them. */
  quote?: string;
  /** The internals (class, capability, tool, check, rule …), shown folded under "Details". */
  facts: { label: string; value: string }[];
  dataView: string;
  secondsLeft: number;
}

/**
 * What the agent wants to do, in words, for the person who decides. `policy` is the task's: the user's
 * words behind the rule that asked come from its evidence.
 */
export function describeApproval(p: PendingApproval, now: number, policy: TaskPolicy | null = null): ApprovalView {
  const targets = targetWords(p.targets);
  const evidence = p.ruleRef === undefined ? undefined : policy?.evidence.find((e) => e.ref === p.ruleRef)?.quote;
  const plain = plainReason({ ...p, ...(evidence !== undefined ? { evidence } : {}), decision: 'ASK_USER' });
  const view: ApprovalView = {
    id: p.id,
    headline: `The agent wants to ${CLASS_WORDS[p.riskClass]}${targets === '' ? '' : ` ${targets}`}.`,
    why: plain.sentence,
    ...(plain.quote !== undefined ? { quote: plain.quote } : {}),
    facts: [
      { label: 'Class', value: p.riskClass },
      { label: 'Capability', value: p.capability },
      { label: 'Tool', value: p.tool },
      { label: 'Recipients', value: p.targets.recipients.join(', ') || 'none' },
      { label: 'Domains', value: p.targets.domains.join(', ') || 'none' },
      { label: 'Files', value: p.targets.paths.join(', ') || 'none' },
      { label: 'Items', value: p.targets.items.join(', ') || 'none' },
      // The amount proposed; "Why asked" names the bound the user gave when the amount is what asked.
      ...(p.targets.amounts?.length ? [{ label: 'Amount', value: p.targets.amounts.map(amountWords).join(', ') }] : []),
      ...(p.targets.quantities?.length ? [{ label: 'Quantity', value: p.targets.quantities.join(', ') }] : []),
      { label: 'Destination', value: p.destination || 'none' },
      { label: 'Why asked', value: `${p.check}: ${p.reason}` },
      ...(p.ruleRef !== undefined ? [{ label: 'Rule', value: p.ruleRef }] : []),
      ...optional('Read as', basisWords(p.basis, p.classifierLayer)),
    ],
    dataView: p.dataView === '' ? '(no data)' : p.dataView,
    secondsLeft: secondsLeft(p.expiresAt, now),
  };
  // Every word here can come from a page (recipients, items, reasons): shown with its hidden characters written out.
  return {
    ...view,
    headline: revealed(view.headline),
    why: revealed(view.why),
    ...(view.quote !== undefined ? { quote: revealed(view.quote) } : {}),
    facts: view.facts.map((f) => ({ label: f.label, value: revealed(f.value) })),
    dataView: view.dataView.split('\n').map(revealed).join('\n'),
  };
}

function optional(label: string, value: string | undefined): { label: string; value: string }[] {
  return value === undefined ? [] : [{ label, value }];
}

/**
 * What each answer grants, shown next to the buttons so "for this task" never reads as a blanket
 * permission; `task` is null where an approval covers one action only (a payment, an organisation ask).
 */
export function answerScopeWords(p: PendingApproval): { once: string; task: string | null; note: string } {
  const targets = targetWords(p.targets);
  // In words ("send messages to bob@x.test on mail.test"); the capability's name is under Details.
  const exact = `${CLASS_WORDS[p.riskClass]}${targets === '' ? ' with no recipients, sites, files or items' : ` ${targets}`}`;
  const once = revealed(`Lets the agent do exactly this one time: ${exact}.`);
  if (approvalIsOnceOnly(p)) {
    const why = p.riskClass === 'FINANCIAL' ? 'Money moves one approval at a time' : 'Your organisation asks about every action on this site';
    return { once, task: null, note: `${why}: this allows it once; the next one asks again.` };
  }
  const task = revealed(`Lets the agent ${exact} again until the task ends; anything else still asks.`);
  return { once, task, note: task };
}
