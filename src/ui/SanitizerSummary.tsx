import { useState } from 'preact/hooks';
import { removalsBySite } from '../sanitizer/report';
import { request, type Transport } from './client';
import { usePoll } from './usePoll';

const POLL_MS = 1_000;

/** "3 hidden instructions removed on mail.test": the Sanitizer's removals for the running task, per site. */
export function SanitizerSummary({ transport, taskId }: { transport: Transport; taskId: string }) {
  const [rows, setRows] = useState<ReturnType<typeof removalsBySite>>([]);
  usePoll(
    async () => {
      const r = await request(transport, { type: 'audit.list', check: 'sanitizer', limit: 1_000 });
      if (!r.ok) return;
      const mine = r.entries.filter((e) => e.taskId === taskId);
      setRows(removalsBySite(mine.map((e) => ({ ruleRef: e.record.ruleRef, reason: e.record.reason, site: e.record.targets.domains[0] ?? e.destination ?? 'this page' }))));
    },
    POLL_MS,
    true,
  );
  if (rows.length === 0) return null;
  return (
    <section aria-label="Sanitizer">
      <h2>Sanitizer</h2>
      <ul>
        {rows.map((row) => (
          <li key={row.site}>
            {row.instructions > 0 && `${row.instructions} instruction${row.instructions === 1 ? '' : 's'} aimed at the agent removed on ${row.site}`}
            {row.instructions > 0 && row.invisible > 0 && '; '}
            {row.invisible > 0 && `${row.invisible} run${row.invisible === 1 ? '' : 's'} of invisible characters removed${row.instructions > 0 ? '' : ` on ${row.site}`}`}
          </li>
        ))}
      </ul>
    </section>
  );
}
