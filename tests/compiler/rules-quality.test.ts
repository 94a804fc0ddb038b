import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareDecimal } from '../../src/core/amounts';
import type { TaskPolicy } from '../../src/core/policy';
import { allowedClasses, recipientsOf, rules } from './helpers';

interface Row {
  request: string;
  classes: string[];
  recipients: string[];
  /** null = open-web reading. */
  domains: string[] | null;
  /**
   * When given: what binds a payment. `"2000 EUR"` (the bound), `"none"` (payments allowed, no amount
   * named), `"ask"` (payments ask: none requested, or money written that the compiler cannot read exactly).
   */
  amount?: string;
}

/** What binds a payment in a policy, in the row's terms. */
function amountOf(policy: TaskPolicy): string {
  if (policy.ceilings.FINANCIAL !== 'allow') return 'ask';
  const bound = policy.constraints.find((k) => k.riskClass === 'FINANCIAL')?.amount;
  return bound === undefined ? 'none' : `${bound.value} ${bound.currency}`;
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
      const got = { classes: allowedClasses(policy), recipients: recipientsOf(policy), domains: sorted(policy.domains), ...(row.amount === undefined ? {} : { amount: amountOf(policy) }) };
      const want = { classes: [...row.classes].sort(), recipients: [...row.recipients].sort(), domains: sorted(row.domains), ...(row.amount === undefined ? {} : { amount: row.amount }) };
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
      // A payment is never bound wider than the row says: not unbound where it names money, not above it,
      // not in another currency.
      const got = amountOf(policy);
      if (row.amount === undefined || got === 'ask' || got === row.amount) continue;
      expect(row.amount, `${row.request}: bound ${got}`).not.toBe('ask');
      expect(got, `${row.request}: unbound where the row names ${row.amount}`).not.toBe('none');
      const [value = '', currency] = got.split(' ');
      const [wantValue = '', wantCurrency] = row.amount.split(' ');
      expect(currency, row.request).toBe(wantCurrency);
      expect(compareDecimal(value, wantValue), `${row.request}: bound ${got} above ${row.amount}`).toBeLessThanOrEqual(0);
    }
  });
});
