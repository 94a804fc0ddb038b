import { describe, expect, it } from 'vitest';
import { compareDecimal, findMoney, formatMoney, fromMinorUnits, numberReadings, parseAmount, parseQuantity, unreadMoney, UNREADABLE_AMOUNT, UNREADABLE_QUANTITY } from '../../src/core/amounts';
import { classify } from '../../src/tools';
import { evaluate } from '../../src/tools';
import { grantFor } from '../../src/core/grants';
import { initialState } from '../../src/core/policy';
import { makePolicy } from '../support/policy';

const IBAN = 'DE89370400440532013000';

describe('amounts in field values: locale forms, read exactly', () => {
  it.each([
    ['45', '45', null],
    ['45.00', '45', null],
    ['45,00', '45', null],
    ['45,5', '45.5', null],
    ['0,05', '0.05', null],
    ['4.500,00', '4500', null],
    ['4,500.00', '4500', null],
    ['4 500', '4500', null],
    ['4\u00a0500,50', '4500.5', null],
    ['4\u202f500,50 €', '4500.5', 'EUR'],
    ["4'500", '4500', null],
    ['CHF 4’500.20', '4500.2', 'CHF'],
    ['1,234,567.89', '1234567.89', null],
    ['1.234.567', '1234567', null],
    ['45,-', '45', null],
    ['€45', '45', 'EUR'],
    ['45 €', '45', 'EUR'],
    ['EUR 45', '45', 'EUR'],
    ['45 EUR', '45', 'EUR'],
    ['45eur', '45', 'EUR'],
    ['$1,200.50', '1200.5', 'USD'],
    ['US$1,200.50', '1200.5', 'USD'],
    ['£12', '12', 'GBP'],
    ['forty-five euros', '45', 'EUR'],
    ['one thousand two hundred and fifty dollars', '1250', 'USD'],
  ])('%s → %s %s', (text, value, currency) => {
    expect(parseAmount(text)).toEqual({ value, currency });
  });

  it('an ambiguous number is read as its larger value (fail safe for "above the bound")', () => {
    expect(numberReadings('4,500')).toEqual(['4.5', '4500']);
    expect(numberReadings('4.500')).toEqual(['4.5', '4500']);
    expect(parseAmount('4,500')).toEqual({ value: '4500', currency: null });
    // No ambiguity when the digits cannot be a thousands group.
    expect(numberReadings('0,500')).toEqual(['0.5']);
    expect(numberReadings('45,50')).toEqual(['45.5']);
    // Four digits or more after one separator group nothing, but a lenient server drops the separator.
    expect(numberReadings('1,20000')).toEqual(['1.2', '120000']);
    expect(parseAmount('12,0000')).toEqual({ value: '120000', currency: null });
  });

  it.each(['', '-45', '45 (approx)', 'abc', '4.5.6', '1,2,3', '45 EUR USD', '€45 EUR', '4,5.00', '45 XYZ', '12 Rue Lafayette', '1e5'])('%j is unreadable', (text) => {
    expect(parseAmount(text)).toBeNull();
  });

  it('compares exactly, never as floats', () => {
    expect(compareDecimal('45', '45')).toBe(0);
    expect(compareDecimal('45.01', '45')).toBe(1);
    expect(compareDecimal('9', '10')).toBe(-1);
    expect(compareDecimal('0.1', '0.09')).toBe(1);
    expect(compareDecimal('100000000000000000000.01', '100000000000000000000')).toBe(1);
    expect(fromMinorUnits('4500')).toBe('45');
    expect(fromMinorUnits('5')).toBe('0.05');
    expect(fromMinorUnits('-5')).toBeNull();
    expect(formatMoney({ value: '4500', currency: 'EUR' })).toBe('4,500.00 EUR');
    expect(formatMoney({ value: '0.125', currency: null })).toBe('0.125');
  });

  it('reads quantities: digits, words, a dozen, 3x, x3', () => {
    expect(['2', 'two', 'a dozen', 'two dozen', '3x', 'x3', '3 pcs', 'one hundred'].map(parseQuantity)).toEqual([2, 2, 12, 24, 3, 3, 3, 100]);
    expect(['lots', '2.5', '-1', ''].map(parseQuantity)).toEqual([null, null, null, null]);
  });
});

describe("amounts in the user's words", () => {
  const found = (text: string) => findMoney(text).map((m) => [m.money.value, m.money.currency, text.slice(m.start, m.end)]);
  it('reads digits and words with a currency before or after', () => {
    expect(found('Pay my electricity bill of 45 EUR to DE89370400440532013000 on bank.test.')).toEqual([['45', 'EUR', '45 EUR']]);
    expect(found('send €50 to bob and $1,200.50 to alice')).toEqual([['50', 'EUR', '€50'], ['1200.5', 'USD', '$1,200.50']]);
    expect(found('pay forty-five euros')).toEqual([['45', 'EUR', 'forty-five euros']]);
    expect(found('pay 1 000 CHF')).toEqual([['1000', 'CHF', '1 000 CHF']]);
  });

  it('a bare number, a lower-case word that spells a code, and an IBAN are no amounts', () => {
    expect(found('pay Bob 45')).toEqual([]);
    expect(found('try 3 times')).toEqual([]);
    expect(found(`to ${IBAN}`)).toEqual([]);
  });

  it('money in the words is read as written: one separator and three digits group thousands (`2,000 EUR` was read as 2 EUR)', () => {
    const one = (text: string) => found(text).map(([value, currency]) => `${value} ${currency}`);
    expect(one('pay 2,000 EUR')).toEqual(['2000 EUR']);
    expect(one('pay 4,500 EUR')).toEqual(['4500 EUR']);
    expect(one('pay €2,000 now')).toEqual(['2000 EUR']);
    expect(one('pay EUR 2,000')).toEqual(['2000 EUR']);
    expect(one('pay 2.000,00 EUR')).toEqual(['2000 EUR']);
    expect(one('pay 2 000 €')).toEqual(['2000 EUR']);
    expect(one("pay CHF 2'000")).toEqual(['2000 CHF']);
    expect(one('pay $1,234,567.89')).toEqual(['1234567.89 USD']);
    expect(one('pay my landlord 1.250€ rent')).toEqual(['1250 EUR']);
    expect(one('pay ¥1.500')).toEqual(['1500 JPY']);
    // Scales, codes touching the digits, minor units, a common misspelling.
    expect(one('pay €2k')).toEqual(['2000 EUR']);
    expect(one('pay 1,5k EUR')).toEqual(['1500 EUR']);
    expect(one('pay $1.5k')).toEqual(['1500 USD']);
    expect(one('pay 2 thousand euros')).toEqual(['2000 EUR']);
    expect(one('pay 2.5 million USD')).toEqual(['2500000 USD']);
    expect(one('pay 45EUR')).toEqual(['45 EUR']);
    expect(one('pay EUR45')).toEqual(['45 EUR']);
    expect(one('pay 35eur')).toEqual(['35 EUR']);
    expect(one('pay 45 euro cents')).toEqual(['0.45 EUR']);
    expect(one('pay 50p')).toEqual(['0.5 GBP']);
    expect(one('pay fourty five euros')).toEqual(['45 EUR']);
    // Still no amount: a measure, a bare number.
    expect(one('buy 2kg of rice')).toEqual([]);
    expect(one('pay bob 45')).toEqual([]);
  });

  it('digits that do not state one value are no amount: four digits after one separator, three decimals of a rate', () => {
    expect(found('pay 1,20000 EUR')).toEqual([]);
    expect(found('fuel at 1.659 EUR/l')).toEqual([]);
    expect(found('pay 45,– €')).toEqual([]);
  });

  it('money the words write but findMoney cannot read is reported, never dropped', () => {
    const unread = (text: string, verb: string | null = 'pay') => unreadMoney(text, findMoney(text), verb).map((u) => u.text);
    expect(unread('pay bob 45')).toEqual(['45']);
    expect(unread('transfer 500 to DE89 on bank.test', 'transfer')).toEqual(['500']);
    expect(unread('pay bob 2,000 for the car')).toEqual(['2,000']);
    expect(unread('pay 99 cents to bob')).toEqual(['99 cents']);
    expect(unread('pay 2 grand to bob')).toEqual(['2 grand']);
    expect(unread('pay 1,20000 EUR')).toEqual(['1,20000 EUR']);
    expect(unread('tip the driver 15%', 'tip')).toEqual(['15%']);
    expect(unread('pay half of the 120 EUR bill')).toEqual(['half']);
    expect(unread("don't spend more than 50", null)).toEqual(['50']);
    expect(unread('The amount is 1200.', null)).toEqual(['1200']);
    expect(unread('pay the gas bill 120')).toEqual(['120']);
    expect(unread('pay invoice 4500')).toEqual(['4500']);
    expect(unread('1250')).toEqual(['1250']);
    expect(unread('pay bob 10 000 Ft')).toEqual(['000 Ft']);
    expect(unread('pay bob .50 EUR')).toEqual(['.50 EUR']);
    expect(unread('pay bob a grand')).toEqual(['a grand']);
    expect(unread('renew my netflix for 15.49', 'renew')).toEqual([]);
    expect(unreadMoney('renew my netflix for 15.49', [], 'renew', true).map((u) => u.text)).toEqual(['15.49']);
    // Counts, ids, dates and read amounts are not unread money.
    expect(unread('pay 3 invoices')).toEqual([]);
    expect(unread('pay invoice no. 4500')).toEqual([]);
    expect(unread('pay invoice #4500')).toEqual([]);
    expect(unread('pay my rent for May 2025')).toEqual([]);
    expect(unread('pay 45 EUR to bob')).toEqual([]);
    expect(unread('buy 2 tickets', 'buy')).toEqual([]);
  });
});

describe('the classifier reports the amounts and quantities an action carries', () => {
  const pay = (fields: Record<string, string>) => classify({ tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields: { payee: IBAN, ...fields }, submitText: 'Pay' } });
  const post = (body: unknown, url = 'https://shop.test/api/orders') => classify({ tool: 'browser.request', args: { url, method: 'POST', kind: 'fetch', body: JSON.stringify(body) } });

  it('form fields, with the currency field beside them', () => {
    expect(pay({ amount: '4.500,00', currency: 'EUR' }).targets.amounts).toEqual(['4500 EUR']);
    expect(pay({ 'payment[amount]': '45', 'payment[currency]': 'usd' }).targets.amounts).toEqual(['45 USD']);
    expect(pay({ amount: '45' }).targets.amounts).toEqual(['45']);
    expect(pay({ reference: 'bill' }).targets.amounts).toBeUndefined();
  });

  it('reports what it cannot read instead of dropping it', () => {
    expect(pay({ amount: 'about 45', currency: 'EUR' }).targets.amounts).toEqual([UNREADABLE_AMOUNT]);
    expect(pay({ amount: '45', currency: 'dinosaurs' }).targets.amounts).toEqual([UNREADABLE_AMOUNT]);
    expect(post({ line_items: [{ sku: 'x', quantity: 'many' }] }).targets.quantities).toEqual([UNREADABLE_QUANTITY]);
  });

  it('JSON bodies: nested amounts, minor units, compound quantity keys, the query', () => {
    expect(post({ amount: { value: '12.50', currency: 'GBP' } }).targets.amounts).toEqual(['12.5 GBP']);
    expect(post({ currency: 'EUR', amount_cents: 4599 }).targets.amounts).toEqual(['45.99 EUR']);
    expect(post({ line_items: [{ sku: 'a', quantity: 2 }, { sku: 'b', qty: '3x' }] }).targets.quantities).toEqual(['2', '3']);
    expect(post({ sku: 'a' }, 'https://shop.test/api/orders?qty=200').targets.quantities).toEqual(['200']);
    // `value` and `count` alone are anything: only beside a currency or inside an amount is `value` money.
    expect(post({ name: 'colour', value: 'red' }).targets.amounts).toBeUndefined();
    expect(post({ discount: 5 }).targets.quantities).toBeUndefined();
  });
});

describe('the evaluator binds the amount and quantity the user named', () => {
  const policy = makePolicy({
    domains: ['bank.test'],
    ceilings: { FINANCIAL: 'allow' },
    allow: { tools: [], capabilities: [], classes: ['FINANCIAL'] },
    constraints: [{ id: 'c-financial', riskClass: 'FINANCIAL', recipients: [IBAN.toLowerCase()], maxCalls: 1, amount: { value: '45', currency: 'EUR' } }],
    evidence: [{ ref: 'constraints:c-financial', quote: 'Pay my electricity bill of 45 EUR' }],
  });
  const pay = (amount: string, currency = 'EUR') => ({ tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields: { payee: IBAN, amount, currency }, submitText: 'Pay' } });

  it('the reason shows the bound and the proposed amount, with the user’s words', () => {
    const r = evaluate(policy, initialState(), pay('4500'), 0).record;
    expect(r).toMatchObject({ decision: 'ASK_USER', check: 'argument_constraints', reason: 'amount 4,500.00 EUR is above the 45.00 EUR the user named', evidence: 'Pay my electricity bill of 45 EUR' });
    expect(r.targets.amounts).toEqual(['4500 EUR']);
    expect(evaluate(policy, initialState(), pay('45', 'USD'), 0).record.reason).toBe('amount 45.00 USD is in another currency than the 45.00 EUR the user named');
    expect(evaluate(policy, initialState(), pay('lots'), 0).record.reason).toBe('the amount could not be read; the user named 45.00 EUR');
  });

  it('an asked ASK spends no budget: the named payment still goes through after', () => {
    const asked = evaluate(policy, initialState(), pay('4500'), 0);
    expect(evaluate(policy, asked.state, pay('45'), 0).record.decision).toBe('ALLOW');
  });

  it('"Allow for this task" on 4,500 EUR covers 4,500 EUR exactly, nothing more', () => {
    const c = classify(pay('4500'));
    const grant = grantFor('task-1', 'browser.form_submit', c, 'task', 0);
    expect(grant.amounts).toEqual(['4500 EUR']);
    const granted = { ...policy, grants: [grant] };
    expect(evaluate(granted, initialState(), pay('4500'), 0).record.check).toBe('grants');
    expect(evaluate(granted, initialState(), pay('4500.01'), 0).record.decision).toBe('ASK_USER');
    // Another amount is another grant.
    expect(grantFor('task-1', 'browser.form_submit', classify(pay('4600')), 'task', 0).id).not.toBe(grant.id);
  });
});
