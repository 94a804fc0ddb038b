import { CHECKS } from '../core/decision';
import type { AuditEntry } from '../messages/protocol';
import { auditDiagnostics, auditFacts, auditSummary, exportAudit, filterAudit, type AuditFilter, type ExportFormat } from './auditView';
import { downloadText } from './download';

interface Props {
  entries: AuditEntry[];
  filter: AuditFilter;
  onFilter: (f: AuditFilter) => void;
}

const DECISIONS = ['ALLOW', 'BLOCK', 'ASK_USER'] as const;

/** The audit log: newest first, filterable, each row expandable to its full decision record. */
export function AuditLog({ entries, filter, onFilter }: Props) {
  const shown = filterAudit(entries, filter);
  const save = (format: ExportFormat) => {
    const file = exportAudit(shown, format);
    downloadText(file.filename, file.mime, file.text);
  };
  return (
    <div class="audit">
      <div class="audit-controls">
        <div class="field">
          <label for="audit-decision">Decision</label>
          <select id="audit-decision" value={filter.decision} onChange={(e) => onFilter({ ...filter, decision: e.currentTarget.value as AuditFilter['decision'] })}>
            <option value="any">Any</option>
            {DECISIONS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="audit-check">Check</label>
          <select id="audit-check" value={filter.check} onChange={(e) => onFilter({ ...filter, check: e.currentTarget.value })}>
            <option value="any">Any</option>
            {CHECKS.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="audit-controls">
        <span class="muted" role="status">
          {shown.length} {shown.length === 1 ? 'entry' : 'entries'}
        </span>
        <button type="button" onClick={() => save('json')}>
          Export JSON
        </button>
        <button type="button" onClick={() => save('jsonl')}>
          Export JSONL
        </button>
      </div>
      {shown.length === 0 ? (
        <p class="muted">No entries{filter.decision !== 'any' || filter.check !== 'any' ? ' match this filter' : ' yet'}.</p>
      ) : (
        <ol class="audit-list" aria-label="Audit entries, newest first">
          {shown.map((e) => {
            const diagnostics = auditDiagnostics(e);
            return (
              <li key={e.id} class={`audit-row decision-${e.record.decision}`}>
                <details>
                  <summary>
                    <time dateTime={new Date(e.at).toISOString()}>{new Date(e.at).toLocaleTimeString()}</time> {auditSummary(e)}{' '}
                    <span class="muted">[{diagnostics.rule}]</span>
                    {diagnostics.basis !== undefined && <span class="muted basis"> {diagnostics.basis}</span>}
                  </summary>
                  <dl class="facts audit-facts" aria-label="Decision record">
                    {auditFacts(e).map((f) => (
                      <div key={f.label}>
                        <dt>{f.label}</dt>
                        <dd>{f.value}</dd>
                      </div>
                    ))}
                  </dl>
                </details>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
