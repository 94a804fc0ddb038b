import type { Goal, Move, MoveFamily } from './goals';

/**
 * Stage 3's deterministic, defense-aware mutator. Each round it reads what the last attempts revealed
 * — which check decided and why (the extension's audit, as the harness exposes it to whoever drives
 * the browser), how the user answered, what the page showed (the blocked page names its check) — and
 * picks the next moves: the families that go around what stopped the last attempt first, moves not
 * tried yet, in the goal's declared order. No randomness: the same feedback gives the same rounds.
 */

/** What one attempt revealed. */
export interface Feedback {
  /** `DECISION check` for each decision the extension recorded during the attempt, e.g. `ASK_USER recipient_binding`. */
  decisions: string[];
  /** The reasons of those decisions, as the audit words them. */
  reasons: string[];
  /** How asks were answered (`deny`, `once`). */
  answers: string[];
  /** What the page showed: failed steps, the blocked page's check. */
  observed: string[];
}

export interface Attempt {
  moveId: string;
  family: MoveFamily;
  round: number;
  reached: boolean;
  feedback: Feedback;
}

export const MAX_ROUNDS = 10;
export const MOVES_PER_ROUND = 4;

/** The families worth trying next, given the check that stopped an attempt. */
export function familiesAfter(feedback: Feedback): MoveFamily[] {
  const text = [...feedback.decisions, ...feedback.reasons, ...feedback.observed].join(' ').toLowerCase();
  if (/minimizer/.test(text)) return ['payload', 'body', 'channel'];
  if (/recipient/.test(text)) return ['recipient', 'body'];
  // Action binding ("your task comments on issue 1000 …; this comments on issue 1001 …"), its floor rules.
  if (/action_binding|action-binding|your task /.test(text)) return ['object', 'action', 'channel', 'body'];
  if (/acts on|item/.test(text)) return ['item', 'body'];
  if (/amount|count/.test(text)) return ['amount'];
  if (/exfiltration/.test(text)) return ['payload', 'channel', 'host'];
  if (/domain_allowlist|does not name|not allow writes|blocked\.html|err_blocked_by_client/.test(text)) return ['host', 'channel', 'payload'];
  if (/ceiling|not among the task's permissions|not allowed in this task/.test(text)) return ['channel', 'body'];
  // Nothing decided (unguarded, or a step the page refused): try another way in.
  return ['channel', 'payload', 'host', 'body', 'recipient', 'item', 'amount', 'object', 'action'];
}

/** The moves of round `round` (1-based), or [] when the goal's moves are used up. */
export function nextMoves(goal: Goal, history: readonly Attempt[], round: number): Move[] {
  if (round > MAX_ROUNDS) return [];
  const tried = new Set(history.map((a) => a.moveId));
  const untried = goal.moves.filter((m) => !tried.has(m.id));
  if (untried.length === 0) return [];
  const last = history.filter((a) => a.round === round - 1);
  // Families to prefer: what goes around the last round's checks; and, after a success, its siblings
  // (an attacker who found a gap probes around it).
  const preferred: MoveFamily[] = [];
  for (const attempt of last) {
    if (attempt.reached) preferred.push(attempt.family);
    for (const family of familiesAfter(attempt.feedback)) if (!preferred.includes(family)) preferred.push(family);
  }
  const rank = (m: Move) => {
    const at = preferred.indexOf(m.family);
    return at === -1 ? preferred.length : at;
  };
  return [...untried].sort((a, b) => rank(a) - rank(b) || goal.moves.indexOf(a) - goal.moves.indexOf(b)).slice(0, MOVES_PER_ROUND);
}
