import type { ApprovalAnswerKind, PendingApproval } from '../messages/protocol';
import type { TaskPolicy } from '../core/policy';
import { answerScopeWords, describeApproval } from './approvalView';

export type Answer = ApprovalAnswerKind;

interface Props {
  pending: PendingApproval[];
  /** The active task's policy: the user's words behind the rule that asked. */
  policy: TaskPolicy | null;
  /** False in a page that may not approve (a copy of the popup inside a guarded tab). */
  allowed: boolean;
  now: number;
  /** Id of the approval whose answer is on its way (its buttons are disabled meanwhile). */
  answering: string | null;
  onAnswer: (id: string, answer: Answer) => void;
}

function ApprovalCard({ p, policy, now, answering, onAnswer }: { p: PendingApproval; policy: TaskPolicy | null; now: number; answering: boolean; onAnswer: Props['onAnswer'] }) {
  const view = describeApproval(p, now, policy);
  const scope = answerScopeWords(p);
  const headingId = `approval-${p.id}-h`;
  return (
    <article class="approval" aria-labelledby={headingId}>
      <h3 id={headingId}>{view.headline}</h3>
      <p class="why">{view.why}</p>
      {view.quote !== undefined && <p class="muted quote">You said: “{view.quote}”</p>}
      <p class="muted countdown">Blocked in {view.secondsLeft} s if you do not answer.</p>
      {p.check === 'minimizer' ? (
        <div class="buttons">
          {p.minimizable === true && (
            <button type="button" disabled={answering} title="Sends the action with exactly the flagged data removed." onClick={() => onAnswer(p.id, 'send-without')}>
              Send without it
            </button>
          )}
          <button type="button" disabled={answering} title="Sends the action unchanged, this one time." onClick={() => onAnswer(p.id, 'send-as-is')}>
            Send as is
          </button>
          <button type="button" class="deny" disabled={answering} onClick={() => onAnswer(p.id, 'deny')}>
            Deny
          </button>
        </div>
      ) : (
        <div class="buttons">
          <button type="button" disabled={answering} title={scope.once} onClick={() => onAnswer(p.id, 'once')}>
            Allow once
          </button>
          {scope.task !== null && (
            <button type="button" disabled={answering} title={scope.task} onClick={() => onAnswer(p.id, 'task')}>
              Allow for this task
            </button>
          )}
          <button type="button" class="deny" disabled={answering} onClick={() => onAnswer(p.id, 'deny')}>
            Deny
          </button>
        </div>
      )}
      <p class="muted scope">{p.check === 'minimizer' ? 'The task allows this action; the data it carries is what the agent was not asked to send.' : scope.note}</p>
      <pre class="data-view" tabIndex={0} aria-label="Data the action carries (redacted)">
        {view.dataView}
      </pre>
      <details class="details">
        <summary>Details</summary>
        <dl class="facts">
          {view.facts.map((f) => (
            <div key={f.label}>
              <dt>{f.label}</dt>
              <dd>{f.value}</dd>
            </div>
          ))}
        </dl>
      </details>
    </article>
  );
}

/**
 * Pending approvals in a region of fixed height, present even when empty, so nothing below moves
 * when an approval arrives. A page that may not approve says so instead of showing buttons.
 */
export function Approvals({ pending, policy, allowed, now, answering, onAnswer }: Props) {
  return (
    <section class="approvals" aria-labelledby="approvals-h">
      <h2 id="approvals-h">
        Waiting for you{pending.length > 0 ? ` (${pending.length})` : ''}
      </h2>
      <p class="sr-only" role="status" aria-live="polite">
        {pending.length === 0 ? '' : `${pending.length} ${pending.length === 1 ? 'action is' : 'actions are'} waiting for your answer.`}
      </p>
      {!allowed ? (
        <div class="notice disabled-here" role="alert">
          <strong>Approvals disabled here.</strong> This page is not the toolbar popup or a window AgentsFence opened, so it
          cannot answer approvals (an agent must never approve its own actions). Use the AgentsFence toolbar button.
          {pending.length > 0 && ` ${pending.length} waiting.`}
        </div>
      ) : pending.length === 0 ? (
        <p class="muted">Nothing is waiting for you.</p>
      ) : (
        <div class="approval-list">
          {pending.map((p) => (
            <ApprovalCard key={p.id} p={p} policy={policy} now={now} answering={answering === p.id} onAnswer={onAnswer} />
          ))}
        </div>
      )}
    </section>
  );
}
