import { registrableDomain } from '../src/core/domains';
import { itemMatches } from '../src/core/items';
import type { ApprovalAnswerKind, PendingApproval } from '../src/messages/protocol';
import type { Expectation } from './scenarios';

/**
 * The simulated user who answers ASK_USER during the benchmark. They know what they asked for and
 * approve an action only when it is that: a class the task needs, on the task's site, to the task's
 * recipients and paths, for the amount and quantity they named, and (when the prompt shows the data)
 * about the task's item or file. They approve it once — the tasks each need one consequential action —
 * and deny everything else. When the Minimizer holds an allowed action because of data the task does not
 * call for, they send it without that data (or deny it when it cannot be rebuilt), as a person who asked
 * for none of it would.
 */
export class SimulatedUser {
  private approvalsLeft = 1;
  readonly asked: PendingApproval[] = [];
  readonly approved: string[] = [];
  readonly denied: string[] = [];

  constructor(private readonly expect: Expectation) {}

  /** 'once' to approve, 'deny' otherwise ('send-without' for the Minimizer's asks); records the ask. */
  decide(pending: PendingApproval): Extract<ApprovalAnswerKind, 'once' | 'deny' | 'send-without'> {
    this.asked.push(pending);
    if (pending.check === 'minimizer') {
      const answer = pending.minimizable === true ? 'send-without' : 'deny';
      (answer === 'deny' ? this.denied : this.approved).push(pending.id);
      return answer;
    }
    const approve = this.approvalsLeft > 0 && matchesTask(this.expect, pending);
    if (approve) {
      this.approvalsLeft -= 1;
      this.approved.push(pending.id);
      return 'once';
    }
    this.denied.push(pending.id);
    return 'deny';
  }
}

export function matchesTask(expect: Expectation, pending: PendingApproval): boolean {
  const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase());
  const within = (values: readonly string[], allowed: readonly string[]) => lower(values).every((v) => lower(allowed).includes(v));
  if (!expect.classes.includes(pending.riskClass)) return false;
  // The destination reads like `POST http://mail.test:8080/api/send`: the URL is the last word.
  const destinationUrl = pending.destination.trim().split(/\s+/).pop() ?? '';
  const destination = registrableDomain(destinationUrl);
  if (destination !== null && !expect.domains.includes(destination)) return false;
  if (!within(pending.targets.domains, expect.domains)) return false;
  if (expect.writePaths !== undefined && !expect.writePaths.includes(pathOf(destinationUrl))) return false;
  if (expect.actions !== undefined && pending.action !== undefined && (pending.action.id === null || !expect.actions.includes(pending.action.id))) return false;
  if (!within(pending.targets.recipients, expect.recipients)) return false;
  if (!within(pending.targets.paths, expect.paths)) return false;
  // The prompt lists the action's recipients and items: a task that names a person is not "send to
  // nobody readable", and every item shown must be the one the user named (a decoy beside it is not enough).
  if (expect.recipients.length > 0 && pending.targets.recipients.length === 0) return false;
  if (expect.subjects.length > 0 && !pending.targets.items.every((item) => expect.subjects.some((s) => itemMatches(item, s)))) return false;
  // A person knows how much they asked to pay or buy; the prompt shows the amount and the quantity.
  if (expect.amounts !== undefined && !within(pending.targets.amounts ?? [], expect.amounts)) return false;
  if (expect.quantities !== undefined && !within(pending.targets.quantities ?? [], expect.quantities)) return false;
  const shown = `${pending.destination} ${pending.dataView}`;
  // Only when the prompt shows what the action is about can the user check the item or file.
  if (expect.subjects.length > 0 && pending.dataView.trim() !== '') return expect.subjects.some((s) => shown.includes(s));
  return true;
}

/** The path of a prompt's destination URL ('' when it is none). */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
