/** The limits the organisation set by enterprise policy: they beat the task, its approvals and the options below. */
export function OrgLimits({ limits }: { limits: readonly string[] }) {
  if (limits.length === 0) return null;
  return (
    <section class="org-limits" aria-labelledby="org-limits-h">
      <h2 id="org-limits-h">Set by your organisation</h2>
      <ul>
        {limits.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </section>
  );
}
