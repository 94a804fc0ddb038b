import { useState } from 'preact/hooks';
import type { AuditEntry } from '../messages/protocol';
import { AuditLog } from './AuditLog';
import { NO_FILTER, type AuditFilter } from './auditView';
import { request, type Transport } from './client';
import { usePoll } from './usePoll';

const AUDIT_POLL_MS = 2_000;

/**
 * The audit log on a page of its own (audit.html), opened from the popup's "Open full log" in a window the
 * extension owns. Read only: it lists and exports, and has no approval or task controls. Opened anywhere
 * else (a tab the user typed it into) the background refuses the log, and the page says where to open it;
 * a guarded tab never shows it at all (src/background/floor/guards.ts).
 */
export function AuditPage({ transport }: { transport: Transport }) {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState(false);
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);

  usePoll(
    async () => {
      const r = await request(transport, { type: 'audit.list' });
      if (r.ok) {
        setEntries(r.entries);
        setError(null);
      } else {
        setRefused(r.code === 'approvals-disabled');
        setError(r.error);
      }
    },
    AUDIT_POLL_MS,
    !refused,
  );

  return (
    <main class="audit-page">
      <header class="bar">
        <h1>AgentsFence audit log</h1>
        <span class="muted">Every decision, newest first</span>
      </header>
      {refused ? (
        <p class="notice" role="alert">
          The audit log opens only from the AgentsFence toolbar button: Audit log, then <strong>Open full log</strong>.
        </p>
      ) : (
        <>
          <div class="error-slot" role="alert">
            {error}
          </div>
          {entries === null ? <p role="status">Loading the audit log…</p> : <AuditLog entries={entries} filter={filter} onFilter={setFilter} wide />}
        </>
      )}
    </main>
  );
}
