import type { TaskPolicy } from '../core/policy';
import type { CompileReport } from '../messages/protocol';
import { describePolicy, type PolicyLine } from './policyView';

function Lines({ title, lines, empty }: { title: string; lines: PolicyLine[]; empty?: string }) {
  if (lines.length === 0 && empty === undefined) return null;
  return (
    <section class="policy-group" aria-label={title}>
      <h3>{title}</h3>
      {lines.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul>
          {lines.map((l) => (
            <li key={l.ref}>
              <span>{l.text}</span>
              {l.quote !== undefined && (
                <blockquote class="evidence" aria-label="Your words">
                  “{l.quote}”
                </blockquote>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The compiled policy in plain words, each permission with the user's words behind it. */
export function PolicyPanel({ policy, report }: { policy: TaskPolicy; report: CompileReport }) {
  const view = describePolicy(policy, report);
  return (
    <div class="policy" aria-label="Task policy">
      <Lines title="May do" lines={view.permissions} empty="Nothing beyond reading." />
      <Lines title="Asks you first" lines={view.askFirst} />
      <Lines title="Limits" lines={view.limits} />
      <Lines title="Must not" lines={view.prohibitions} empty="No prohibitions." />
      <Lines title="Your approvals" lines={view.grants} />
      <section class="policy-group" aria-label="Removed by hardening">
        <h3>Removed by hardening</h3>
        {view.removed.length === 0 ? (
          <p class="muted">Nothing was removed.</p>
        ) : (
          <ul>
            {view.removed.map((r, i) => (
              <li key={i}>
                <span>{r.what}</span> — <span class="muted">{r.why}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <Lines title="Other evidence" lines={view.otherEvidence} />
    </div>
  );
}
