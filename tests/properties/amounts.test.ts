import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountTarget, compareDecimal, fromMinorUnits, parseAmount } from '../../src/core/amounts';
import { classify } from '../../src/tools';
import { evaluate } from '../../src/tools';
import { grantFor } from '../../src/core/grants';
import { initialState } from '../../src/core/policy';
import { NUM_RUNS } from '../support/arbitraries';
import { makePolicy } from '../support/policy';
import { rules } from '../compiler/helpers';
import { mergePolicies } from '../../src/compiler';
import { classifyWeb } from '../../src/core/classifier';

const params = { numRuns: NUM_RUNS };
const IBAN = 'DE89370400440532013000';
const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF'] as const;

/** An amount in minor units (up to 10 million) and its exact decimal. */
const minorArb = fc.bigInt({ min: 0n, max: 1_000_000_000n });
const decimalOf = (minor: bigint) => fromMinorUnits(minor.toString())!;

/** How people and sites write an amount: Intl in several locales, and the hand-written forms Intl never makes. */
const LOCALES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'de-CH', 'nl-NL', 'es-ES', 'it-IT', 'pl-PL'];
const styleArb = fc.oneof(
  fc.record({ kind: fc.constant('intl' as const), locale: fc.constantFrom(...LOCALES), display: fc.constantFrom('code', 'symbol', 'none'), grouping: fc.boolean() }),
  fc.record({ kind: fc.constant('hand' as const), group: fc.constantFrom('', ',', '.', ' ', "'", '\u00a0'), decimal: fc.constantFrom('.', ','), code: fc.constantFrom('before', 'after', 'none'), dashForZeroCents: fc.boolean() }),
);

type Style = typeof styleArb extends fc.Arbitrary<infer S> ? S : never;

function written(minor: bigint, currency: string, style: Style): string {
  const whole = minor / 100n;
  const cents = minor % 100n;
  if (style.kind === 'intl') {
    const symbol = style.display === 'symbol';
    const options: Intl.NumberFormatOptions =
      style.display === 'none' ? { minimumFractionDigits: 2, useGrouping: style.grouping } : { style: 'currency', currency, currencyDisplay: symbol ? 'symbol' : 'code', minimumFractionDigits: 2, useGrouping: style.grouping };
    // Intl takes a decimal string exactly (no float) when given one.
    return new Intl.NumberFormat(style.locale, options).format(`${whole}.${cents.toString().padStart(2, '0')}` as unknown as number);
  }
  if (style.group === style.decimal) return `${whole}${style.decimal}${cents.toString().padStart(2, '0')}`;
  const int = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, style.group);
  const number = cents === 0n && style.dashForZeroCents ? `${int},-` : `${int}${style.decimal}${cents.toString().padStart(2, '0')}`;
  return style.code === 'before' ? `${currency} ${number}` : style.code === 'after' ? `${number} ${currency}` : number;
}

describe('theorems of amounts', () => {
  it('locale round-trip: an amount written in any locale style reads back as exactly that amount', () => {
    fc.assert(
      fc.property(minorArb, fc.constantFrom(...CURRENCIES), styleArb, (minor, currency, style) => {
        const text = written(minor, currency, style);
        const parsed = parseAmount(text);
        expect(parsed, text).not.toBeNull();
        expect(parsed!.value, text).toBe(decimalOf(minor));
        if (parsed!.currency !== null) expect(parsed!.currency, text).toBe(currency);
      }),
      params,
    );
  });

  it('an amount above the bound never ALLOWs, however it is written, unless a grant approved exactly that amount', () => {
    fc.assert(
      fc.property(minorArb, fc.bigInt({ min: 1n, max: 1_000_000_000n }), fc.constantFrom(...CURRENCIES), styleArb, fc.boolean(), (boundMinor, over, currency, style, asJson) => {
        const proposed = boundMinor + over;
        const text = written(proposed, currency, style);
        const call = asJson
          ? { tool: 'browser.request', args: { url: 'https://bank.test/api/transfers', method: 'POST', kind: 'fetch', body: JSON.stringify({ iban: IBAN, amount: text }) } }
          : { tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields: { payee: IBAN, amount: text }, submitText: 'Pay' } };
        // A grant for any other amount (the bound itself, say) covers nothing here.
        const c = classify(call);
        const other = grantFor('task-1', call.tool, { ...c, targets: { ...c.targets, amounts: [amountTarget({ value: decimalOf(boundMinor), currency })] } }, 'task', 0);
        const policy = makePolicy({
          domains: ['bank.test'],
          ceilings: { FINANCIAL: 'allow' },
          allow: { tools: [], capabilities: [], classes: ['FINANCIAL'] },
          constraints: [{ id: 'c-financial', riskClass: 'FINANCIAL', recipients: [IBAN.toLowerCase()], maxCalls: 1, amount: { value: decimalOf(boundMinor), currency } }],
          grants: [other],
        });
        expect(compareDecimal(decimalOf(proposed), decimalOf(boundMinor))).toBe(1);
        const r = evaluate(policy, initialState(), call, 0).record;
        expect(r.decision, `${text}: ${r.reason}`).toBe('ASK_USER');
      }),
      params,
    );
  });

  it('a payment to a named payee never ALLOWs above the amount the words tie to it, nor one to anyone else above the least (one turn or two)', () => {
    const PAYEES = ['bob@x.test', 'alice@x.test', 'carol@y.test', 'DE89370400440532013000', 'NL91ABNA0417164300'];
    const FORMS = [
      (r: string, a: string) => `pay ${r} ${a} EUR`,
      (r: string, a: string) => `send ${a} EUR to ${r}`,
      (r: string, a: string) => `transfer €${a} to ${r}`,
      (r: string, a: string) => `wire ${r} EUR ${a}`,
    ];
    const written = (n: number) => n.toLocaleString('en-US');
    const payment = fc.record({ payee: fc.constantFrom(...PAYEES), amount: fc.integer({ min: 1, max: 100_000 }), form: fc.nat({ max: FORMS.length - 1 }) });
    fc.assert(
      fc.property(
        fc.array(payment, { minLength: 2, maxLength: 4 }),
        fc.constantFrom('. ', ' and ', ', '),
        fc.constantFrom(...PAYEES, 'eve@evil.test', null),
        fc.integer({ min: 1, max: 100_000 }),
        fc.nat({ max: 4 }),
        (payments, joiner, to, proposed, turn) => {
          const words = (ps: typeof payments) => `${ps.map((p, i) => FORMS[p.form]!(p.payee, written(p.amount)).replace(/^(?:pay|send|transfer|wire) /, (v) => (i === 0 || joiner === '. ' ? v : i % 2 === 0 ? v : ''))).join(joiner)} on bank.test`;
          // The payments after `turn` come in a follow-up turn ("also pay …"), merged as the extension merges it.
          const split = turn > 0 && turn < payments.length;
          const text = split ? `${words(payments.slice(0, turn))} | also ${words(payments.slice(turn))}` : words(payments);
          const policy = split ? mergePolicies(rules(words(payments.slice(0, turn))), rules(`also ${words(payments.slice(turn))}`), { classify: classifyWeb }).policy : rules(text);
          const fields: Record<string, string> = { amount: String(proposed), currency: 'EUR' };
          if (to !== null) fields[to.includes('@') ? 'to_email' : 'iban'] = to;
          const r = evaluate(policy, initialState(), { tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields, submitText: 'Pay' } }, 0).record;
          if (r.decision !== 'ALLOW') return;
          const own = payments.filter((p) => p.payee === to).map((p) => p.amount);
          // Its own payments: the most of them (each clause pays its own); anyone else: the least named.
          const bound = own.length > 0 ? Math.max(...own) : Math.min(...payments.map((p) => p.amount));
          expect(proposed, `${text} → ${to ?? '(no payee)'} ${proposed}: ${r.reason}`).toBeLessThanOrEqual(bound);
        },
      ),
      params,
    );
  });
});
