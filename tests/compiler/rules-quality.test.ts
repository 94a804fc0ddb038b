import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allowedClasses, recipientsOf, rules } from './helpers';

interface Row {
  request: string;
  classes: string[];
  recipients: string[];
  /** null = open-web reading. */
  domains: string[] | null;
}

const TABLE: Row[] = JSON.parse(readFileSync(new URL('./rules-quality.json', import.meta.url), 'utf8'));
const FLOOR = 0.85;

const sorted = (xs: string[] | null) => (xs === null ? null : [...xs].sort());

describe('rules compiler quality on realistic web-agent requests', () => {
  it(`matches the expected classes, recipients and domains on at least ${FLOOR * 100}% of ${TABLE.length} requests`, () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(50);
    const misses: string[] = [];
    for (const row of TABLE) {
      const policy = rules(row.request);
      const got = { classes: allowedClasses(policy), recipients: recipientsOf(policy), domains: sorted(policy.domains) };
      const want = { classes: [...row.classes].sort(), recipients: [...row.recipients].sort(), domains: sorted(row.domains) };
      if (JSON.stringify(got) !== JSON.stringify(want)) misses.push(`${JSON.stringify(row.request)}\n    want ${JSON.stringify(want)}\n    got  ${JSON.stringify(got)}`);
    }
    const score = (TABLE.length - misses.length) / TABLE.length;
    console.log(`rules-compiler quality: ${TABLE.length - misses.length}/${TABLE.length} = ${(score * 100).toFixed(1)}%${misses.length ? `\n  misses:\n  ${misses.join('\n  ')}` : ''}`);
    expect(score).toBeGreaterThanOrEqual(FLOOR);
  });

  it('never grants more than the table expects (misses are narrower, not wider)', () => {
    for (const row of TABLE) {
      const policy = rules(row.request);
      for (const c of allowedClasses(policy)) expect(row.classes, row.request).toContain(c);
      for (const r of recipientsOf(policy)) expect(row.recipients, row.request).toContain(r);
      if (policy.domains === null) expect(row.domains, row.request).toBeNull();
      else if (row.domains !== null) for (const d of policy.domains) expect(row.domains, row.request).toContain(d);
    }
  });
});
