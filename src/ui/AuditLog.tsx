import type { AuditEntry } from '../messages/protocol';
import {
  auditAction,
  auditFacts,
  auditOutcome,
  auditReason,
  auditSite,
  DECISION_WORDS,
  exportAudit,
  filterAudit,
  NO_FILTER,
  type AuditFilter,
  type ExportFormat,
} from './auditView';
import { downloadText } from './download';

interface Props {
  entries: AuditEntry[];
  filter: AuditFilter;
  onFilter: (f: AuditFilter) => void;
  /** The full-page view: the site gets a column of its own and the time shows its date. */
  wide?: boolean;
  /** In the popup: opens the full-page view. */
  onOpenFull?: () => void;
}

const DECISIONS = ['ALLOW', 'BLOCK', 'ASK_USER'] as const;

/**
 * The audit log as a table, newest first: when, the outcome, what was attempted and why in plain words;
 * each row's full decision record (check, rule, the user's words …) folds under its "Details". Read only:
 * nothing here answers an approval.
 */
export function AuditLog({ entries, filter, onFilter, wide = false, onOpenFull }: Props) {
  const shown = filterAudit(entries, filter);
  const filtered = filter.decision !== NO_FILTER.decision || filter.text.trim() !== '';
  const save = (format: ExportFormat) => {
    const file = exportAudit(shown, format);
    downloadText(file.filename, file.mime, file.text);
  };
  return (
    <div class={`audit${wide ? ' audit-wide' : ''}`}>
      <div class="audit-controls">
        <div class="field grow">
          <label for="audit-text">Filter</label>
          <input
            id="audit-text"
            type="search"
            value={filter.text}
            placeholder="a site, an address, a word…"
            aria-describedby="audit-count"
            onInput={(e) => onFilter({ ...filter, text: e.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="audit-decision">Decision</label>
          <select id="audit-decision" value={filter.decision} onChange={(e) => onFilter({ ...filter, decision: e.currentTarget.value as AuditFilter['decision'] })}>
            <option value="any">Any</option>
            {DECISIONS.map((d) => (
              <option key={d} value={d}>
                {DECISION_WORDS[d]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="audit-controls">
        <span class="muted grow" id="audit-count" role="status">
          {shown.length} {shown.length === 1 ? 'entry' : 'entries'}
          {filtered ? ` of ${entries.length}` : ''}
        </span>
        <div class="buttons">
          <button type="button" onClick={() => save('json')}>
            Export JSON
          </button>
          <button type="button" onClick={() => save('jsonl')}>
            Export JSONL
          </button>
          {onOpenFull !== undefined && (
            <button type="button" onClick={onOpenFull}>
              Open full log
            </button>
          )}
        </div>
      </div>
      {shown.length === 0 ? (
        <p class="muted">No entries{filtered ? ' match this filter' : ' yet'}.</p>
      ) : (
        <table class="audit-table">
          <caption class="sr-only">Audit log, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Outcome</th>
              {wide && <th scope="col">Site</th>}
              <th scope="col">What and why</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => {
              const at = new Date(e.at);
              return (
                <tr key={e.id} class={`audit-row decision-${e.record.decision}`}>
                  <td class="time">
                    <time dateTime={at.toISOString()}>{wide ? at.toLocaleString() : at.toLocaleTimeString()}</time>
                  </td>
                  <td class="outcome">{auditOutcome(e)}</td>
                  {wide && <td class="site">{auditSite(e)}</td>}
                  <td class="what">
                    <span class="action">{auditAction(e)}</span>
                    <span class="reason">{auditReason(e)}</span>
                    <details>
                      <summary>Details</summary>
                      <dl class="facts audit-facts" aria-label="Decision record">
                        {auditFacts(e).map((f) => (
                          <div key={f.label}>
                            <dt>{f.label}</dt>
                            <dd>{f.value}</dd>
                          </div>
                        ))}
                      </dl>
                    </details>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
