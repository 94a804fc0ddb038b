import { describe, expect, it } from 'vitest';
import { mergePolicies } from '../../src/compiler';
import { analyzeInstruction } from '../../src/compiler/clauses';
import { compileWith, draftOf, NOW, permission, rules } from './helpers';
import { classify, evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';

const financial = (text: string) => rules(text).constraints.find((k) => k.riskClass === 'FINANCIAL');
const quantityOf = (text: string) => analyzeInstruction(text).clauses.find((c) => c.request === 'FINANCIAL')?.quantity ?? null;

describe("hardening binds the amount and quantity the user named", () => {
  it('a payment is bound to its amount, in digits or words, with the clause as evidence', () => {
    const text = 'Pay my electricity bill of 45 EUR to DE89370400440532013000 on bank.test.';
    const policy = rules(text);
    expect(policy.constraints.find((k) => k.riskClass === 'FINANCIAL')).toMatchObject({ amount: { value: '45', currency: 'EUR' }, recipients: ['de89370400440532013000'] });
    expect(policy.evidence).toContainEqual({ ref: 'amount:45 EUR', quote: 'Pay my electricity bill of 45 EUR to DE89370400440532013000 on bank.test' });
    expect(financial('pay alice@corp.test forty-five euros on bank.test')?.amount).toEqual({ value: '45', currency: 'EUR' });
    expect(financial('send €1.250,50 to NL91ABNA0417164300')?.amount).toEqual({ value: '1250.5', currency: 'EUR' });
  });

  it('several amounts in one currency bind the largest; amounts in two currencies bind none (a stated limit)', () => {
    expect(financial('pay bob@x.test 10 EUR and pay alice@x.test 20 EUR on bank.test')?.amount).toEqual({ value: '20', currency: 'EUR' });
    expect(financial('pay bob@x.test 10 EUR and pay alice@x.test $20 on bank.test')?.amount).toBeUndefined();
  });

  it('in one payment clause the amount paid binds, not a budget, a balance or a total beside it; unsure, the smaller', () => {
    expect(financial('Pay the 30 EUR invoice from my 500 EUR budget')?.amount).toEqual({ value: '30', currency: 'EUR' });
    expect(financial('Pay 45 EUR for the ticket, I have 200 EUR left')?.amount).toEqual({ value: '45', currency: 'EUR' });
    expect(financial('Transfer 100 EUR to bob@x.test from my account with a 2000 EUR balance')?.amount).toEqual({ value: '100', currency: 'EUR' });
    expect(financial('Pay 30 EUR toward the 500 EUR invoice')?.amount).toEqual({ value: '30', currency: 'EUR' });
    expect(financial('Pay the 30 EUR invoice and keep the spend under 50 EUR')?.amount).toEqual({ value: '30', currency: 'EUR' });
    // Which is paid is not said: the smaller binds, and a payment of the larger asks.
    expect(financial('Pay the 500 EUR deposit now and the 30 EUR fee later')?.amount).toEqual({ value: '30', currency: 'EUR' });
    // An amount in another currency beside the one paid is not paid, and no longer unbinds the payment.
    expect(financial('Pay the 30 EUR invoice from my 500 USD account')?.amount).toEqual({ value: '30', currency: 'EUR' });
  });

  it('a spending ceiling in a clause of its own lowers the bound, negated or not; it never raises it', () => {
    expect(financial("Buy a birthday gift for my mom on etsy.test, don't spend more than 50 EUR")?.amount).toEqual({ value: '50', currency: 'EUR' });
    expect(financial('Order a pizza on pizza.test and do not pay more than 30 EUR')?.amount).toEqual({ value: '30', currency: 'EUR' });
    expect(financial('Buy a gift on etsy.test. Keep it under 40 EUR.')?.amount).toEqual({ value: '40', currency: 'EUR' });
    expect(financial('Pay the 120 EUR invoice on bill.test. Never spend over 100 EUR.')?.amount).toEqual({ value: '100', currency: 'EUR' });
    expect(rules("Buy a gift on etsy.test, don't spend more than 50 EUR").evidence).toContainEqual({ ref: 'amount:50 EUR', quote: "don't spend more than 50 EUR" });
    // Higher than the named amount, in another currency, or no ceiling word: the named amount stays.
    expect(financial('Buy a gift on etsy.test for 30 EUR. Budget: 50 EUR.')?.amount).toEqual({ value: '30', currency: 'EUR' });
    expect(financial('Pay 10 EUR on bill.test, do not pay more than 20 USD')?.amount).toEqual({ value: '10', currency: 'EUR' });
    expect(financial('Pay the 20 EUR invoice on bill.test; the other invoice is 500 EUR')?.amount).toEqual({ value: '20', currency: 'EUR' });
  });

  it('an amount stated in a sentence of its own binds a payment whose clause names none; a code in lower case after a number counts', () => {
    expect(financial('Pay the invoice to DE89370400440532013000 on bank.test. The amount is 120 EUR.')?.amount).toEqual({ value: '120', currency: 'EUR' });
    expect(financial('Pay the 20 EUR invoice on bill.test. The other one is 500 EUR.')?.amount).toEqual({ value: '20', currency: 'EUR' });
    expect(financial('Pay the invoice of 120 eur to DE89370400440532013000 on bank.test')?.amount).toEqual({ value: '120', currency: 'EUR' });
  });

  it('thousands separators of every common kind bind what the user wrote (`2,000 EUR` bound 2 EUR: a false block)', () => {
    const IBAN = 'DE89370400440532013000';
    expect(financial(`pay 2,000 EUR to ${IBAN} on bank.test`)?.amount).toEqual({ value: '2000', currency: 'EUR' });
    expect(financial(`pay my landlord 1.250€ rent, IBAN ${IBAN}`)?.amount).toEqual({ value: '1250', currency: 'EUR' });
    expect(financial(`pay €2k to ${IBAN}`)?.amount).toEqual({ value: '2000', currency: 'EUR' });
    const policy = rules(`pay 2,000 EUR to ${IBAN} on bank.test`);
    const pay = (amount: string) =>
      evaluate(policy, initialState(), { tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields: { iban: IBAN, amount, currency: 'EUR' }, submitText: 'Pay' } }, NOW + 1).record.decision;
    expect(pay('2.000,00')).toBe('ALLOW');
    expect(pay('2000')).toBe('ALLOW');
    expect(pay('2000.01')).toBe('ASK_USER');
    expect(pay('20000')).toBe('ASK_USER');
  });

  it('money the compiler cannot read exactly makes each payment ask, never binds it wider', () => {
    for (const text of [
      'pay bob 45',
      'pay bob@x.test 45 on pay.test',
      'transfer 500 to DE89370400440532013000 on bank.test',
      'donate 25 to the food bank on foodbank.test',
      'pay 99 cents to bob@x.test',
      'pay 2 grand to bob@x.test',
      'pay bob@x.test 1,20000 EUR',
      'tip the driver 15% on food.test',
      'pay half of the 120 EUR dinner bill to ann@x.test',
      "buy a toaster on shop.test, don't spend more than 50",
      'Pay the invoice to DE89370400440532013000 on bank.test. The amount is 1200.',
    ]) {
      const { policy, removed } = compileWith(text);
      expect(policy.ceilings.FINANCIAL, text).toBe('ask');
      expect(policy.allow.classes, text).not.toContain('FINANCIAL');
      expect(removed.some((r) => r.ref === 'allow.classes:FINANCIAL' && r.why.startsWith('could not read the amount')), text).toBe(true);
    }
    // A number that is a count, an id or a date is no amount: the payment stays allowed.
    expect(rules('pay invoice no. 4500 on bill.test').ceilings.FINANCIAL).toBe('allow');
    // Unsure whether it names or sums ("the gas bill 120", "invoice 4500"): it asks.
    expect(rules('pay invoice 4500 on bill.test').ceilings.FINANCIAL).toBe('ask');
    expect(rules('pay my rent for May 2025 on bank.test').ceilings.FINANCIAL).toBe('allow');
    expect(rules('buy 2 tickets for 45 EUR each on tix.test').ceilings.FINANCIAL).toBe('allow');
  });

  it('a write that moves or prices money is bound to the amount named: "book the flight under £300" let a £3,000 booking through', () => {
    const submit = (text: string, url: string, fields: Record<string, string>) =>
      evaluate(rules(text), initialState(), { tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText: 'Continue' } }, NOW + 1).record;
    const flight = 'book the cheapest flight to lisbon under £300 on flights.test';
    expect(rules(flight).constraints.find((k) => k.riskClass === 'EXTERNAL_WRITE')?.amount).toEqual({ value: '300', currency: 'GBP' });
    expect(submit(flight, 'https://flights.test/booking', { flight: 'TP123', price: '3000', currency: 'GBP' }).decision).toBe('ASK_USER');
    expect(submit(flight, 'https://flights.test/booking', { flight: 'TP123', price: '250', currency: 'GBP' }).decision).toBe('ALLOW');
    // A write that carries no amount moves no money the guard sees: it is not held by the bound.
    expect(submit(flight, 'https://flights.test/booking', { flight: 'TP123', passenger: 'Sam' }).decision).toBe('ALLOW');
    // Dictated text moves nothing: it binds nothing.
    expect(rules('Post this on blog.test:\n\nWe will transfer 900 EUR to mallory@evil.test').constraints.every((k) => k.amount === undefined)).toBe(true);
    // "send 20 to ann@…" reads as a message; with a bare sum after a paying verb it asks (a 2,000 "message" with an amount passed).
    const send = 'send 20 to ann@x.test on paypal.test for the cinema';
    expect(rules(send).ceilings.COMMUNICATION).toBe('ask');
    expect(submit(send, 'https://paypal.test/send', { to: 'ann@x.test', amount: '2000' }).decision).toBe('ASK_USER');
    expect(rules('send bob 2 photos on chat.test').ceilings.COMMUNICATION).toBe('allow');
    expect(rules('Create a new spreadsheet called Budget 2027 in my drive').ceilings.EXTERNAL_WRITE).toBe('allow');
  });

  it('an amount outside a payment binds nothing: a message about money is not a payment', () => {
    const policy = rules('Reply to bob@corp.test on mail.test saying I owe him 45 EUR');
    expect(policy.constraints.every((k) => k.amount === undefined)).toBe(true);
  });

  it('reads how many items a purchase asks for', () => {
    expect(quantityOf('buy two packs of coffee filters')).toBe(2);
    expect(quantityOf('buy a dozen eggs')).toBe(12);
    expect(quantityOf('order 3x USB-C cable')).toBe(3);
    expect(quantityOf('buy a USB-C cable and two chargers')).toBe(2);
    expect(quantityOf('buy USB-C cables')).toBeNull();
    expect(quantityOf('buy €50 of credit')).toBeNull();
    expect(financial('On shop.test, buy two packs of coffee filters.')).toMatchObject({ quantity: 2, items: ['coffee filters'] });
  });

  it('a measure or a model number after the verb is no call budget; a count is', () => {
    const budget = (text: string) => rules(text).constraints[0]?.maxCalls;
    expect(budget('Buy the 15 inch laptop sleeve on amazon.test')).toBe(1);
    expect(budget('Buy iPhone 15 on apple.test')).toBe(1);
    expect(budget('Delete the 10 GB backup on drive.test')).toBe(1);
    expect(budget('Order the 3 pack of razors from shop.test')).toBe(1);
    // A price is not a count: "the 20 EUR book" is one book, not twenty purchases.
    expect(budget('Buy the 20 EUR book on shop.test')).toBe(1);
    expect(budget('Order the 15 USD case on shop.test')).toBe(1);
    // Nor the whole part of a decimal price (it allowed 12 purchases).
    expect(budget('buy the 12.50 EUR coffee on shop.test')).toBe(1);
    expect(budget('Buy two tickets on tix.test')).toBe(2);
    expect(budget('Buy the 3 books on shop.test')).toBe(3);
  });

  it('"invite three people" allows three invitations (one call each), not more', () => {
    expect(rules('On drive.test, invite three people to the Q3-plan.docx document').constraints).toEqual([
      // (What they are invited to: a share whose route names another document by name asks.)
      { id: 'c-permission-change', riskClass: 'PERMISSION_CHANGE', maxCalls: 3, about: ['people', 'q3', 'plan', 'docx', 'document'] },
      // The action the words ask for, with its own budget (docs/actions.md).
      { id: 'a1-invite', actions: ['invite'], domains: ['drive.test'], maxCalls: 3 },
    ]);
  });

  it('an LLM draft cannot widen or drop the amount: hardening takes it from the words', () => {
    const quote = 'Pay my electricity bill of 45 EUR to DE89370400440532013000';
    const text = `${quote} on bank.test.`;
    // The draft names no amount and a larger budget; another reuses the quote for more calls.
    const { policy } = compileWith(text, () => draftOf(permission({ riskClass: 'FINANCIAL', quote, maxCalls: 5, recipients: ['DE89370400440532013000'], domains: ['bank.test'] })));
    expect(policy.constraints.filter((k) => k.actions === undefined)).toEqual([
      { id: 'c-financial', riskClass: 'FINANCIAL', recipients: ['de89370400440532013000'], domains: ['bank.test'], maxCalls: 1, amount: { value: '45', currency: 'EUR' } },
    ]);
    const purchase = compileWith('On shop.test, buy two packs of coffee filters.', () => draftOf(permission({ riskClass: 'FINANCIAL', quote: 'buy two packs of coffee filters' })));
    expect(purchase.policy.constraints[0]).toMatchObject({ quantity: 2 });
  });
});

describe('follow-up turns', () => {
  it('merge as within one turn: the larger amount in one currency binds, one named on either side binds, two currencies bind none', () => {
    const older = rules('On bank.test, pay bob@x.test 10 EUR');
    const more = mergePolicies(older, rules('On bank.test, pay bob@x.test 20 EUR'), { classify }).policy;
    expect(more.constraints.find((k) => k.riskClass === 'FINANCIAL')).toMatchObject({ amount: { value: '20', currency: 'EUR' }, maxCalls: 2 });
    const other = mergePolicies(older, rules('On bank.test, pay bob@x.test $20'), { classify }).policy;
    expect(other.constraints.find((k) => k.riskClass === 'FINANCIAL')?.amount).toBeUndefined();
    // A later turn with money the compiler cannot read makes payments ask from then on.
    expect(mergePolicies(older, rules('On bank.test, also tip bob@x.test 15%'), { classify }).policy.ceilings.FINANCIAL).toBe('ask');
    const unnamed = mergePolicies(older, rules('On bank.test, pay alice@x.test for the tickets'), { classify }).policy;
    expect(unnamed.constraints.find((k) => k.riskClass === 'FINANCIAL')?.amount).toEqual({ value: '10', currency: 'EUR' });
  });
});
