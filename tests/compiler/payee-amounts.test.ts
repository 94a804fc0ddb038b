import { describe, expect, it } from 'vitest';
import { mergePolicies } from '../../src/compiler';
import { evaluateBrowserAction } from '../../src/core/evaluator';
import { initialState, parsePolicy, type TaskPolicy } from '../../src/core/policy';
import { classifyWeb } from '../../src/core/classifier';
import { compileWith, draftOf, NOW, permission, rules } from './helpers';

/**
 * Amounts bound per payee (CHANGELOG.md, "amounts review": "Pay bob 45 EUR. Pay alice 4,500 EUR." let bob be
 * paid 4,500, because the policy kept one bound per class). A payee the words tie an amount to is bound
 * by it; anyone else, or a payment whose payee cannot be read, by the least amount the task names.
 */

const BOB = 'bob@x.test';
const ALICE = 'alice@x.test';
const financial = (policy: TaskPolicy) => policy.constraints.find((k) => k.riskClass === 'FINANCIAL');
const tiesOf = (text: string) => {
  const k = financial(rules(text));
  return { amount: k?.amount?.value, payees: Object.fromEntries((k?.payeeAmounts?.payees ?? []).map((p) => [p.recipient, `${p.amount.value} ${p.amount.currency}`])), others: k?.payeeAmounts?.others.value };
};
const pay = (fields: Record<string, string>) => ({ tool: 'browser.form_submit', args: { url: 'https://bank.test/transfer', method: 'POST', fields: { currency: 'EUR', ...fields }, submitText: 'Pay' } });
const decide = (policy: TaskPolicy, fields: Record<string, string>) => evaluateBrowserAction(policy, initialState(), pay(fields), NOW + 1).record;

describe('amounts tied to payees in the user words', () => {
  it('ties each amount to the payee it is written with: before or after, a list, addresses, IBANs and names', () => {
    const want = { amount: '4500', payees: { [BOB]: '45 EUR', [ALICE]: '4500 EUR' }, others: '45' };
    expect(tiesOf(`Pay ${BOB} 45 EUR. Pay ${ALICE} 4,500 EUR.`)).toEqual(want);
    expect(tiesOf(`Send 45 EUR to ${BOB}. Send 4,500 EUR to ${ALICE}.`)).toEqual(want);
    expect(tiesOf(`pay ${BOB} 45 EUR and ${ALICE} 4,500 EUR`)).toEqual(want);
    expect(tiesOf(`send 45 EUR to ${BOB} and 4,500 EUR to ${ALICE}`)).toEqual(want);
    expect(tiesOf(`pay ${ALICE} 4.500,00 € and ${BOB} €45`)).toEqual(want);
    expect(tiesOf('Pay bob 45 EUR. Pay alice 4,500 EUR.')).toEqual({ amount: '4500', payees: { bob: '45 EUR', alice: '4500 EUR' }, others: '45' });
    expect(tiesOf('pay bob 45 EUR, €4,500 to alice')).toEqual({ amount: '4500', payees: { bob: '45 EUR', alice: '4500 EUR' }, others: '45' });
    expect(tiesOf('send 45 EUR to bob, 4,500 EUR to alice')).toEqual({ amount: '4500', payees: { bob: '45 EUR', alice: '4500 EUR' }, others: '45' });
    expect(tiesOf('pay Bob Smith 45 EUR and Alice Jones 4,500 EUR')).toEqual({ amount: '4500', payees: { 'bob smith': '45 EUR', 'alice jones': '4500 EUR' }, others: '45' });
    expect(tiesOf('Transfer 45 EUR to DE89370400440532013000. Transfer 4,500 EUR to NL91ABNA0417164300.')).toEqual({
      amount: '4500',
      payees: { de89370400440532013000: '45 EUR', nl91abna0417164300: '4500 EUR' },
      others: '45',
    });
  });

  it('one payment per payee a list ties an amount to (the list bound one call: the second was blocked)', () => {
    expect(financial(rules(`pay ${BOB} 45 EUR and ${ALICE} 4,500 EUR`))?.maxCalls).toBe(2);
    // One payee named twice (a name and its address) is one payment.
    expect(financial(rules('send 20 dollars to my sister on paypal, her email is amy@family.test'))?.maxCalls).toBe(1);
  });

  it('the same payee named twice keeps the most it is paid in one clause; another payee never borrows it', () => {
    expect(tiesOf(`Pay ${BOB} 45 EUR. Pay ${ALICE} 4,500 EUR. Pay ${BOB} 20 EUR.`)).toEqual({ amount: '4500', payees: { [BOB]: '45 EUR', [ALICE]: '4500 EUR' }, others: '20' });
  });

  it('where the words do not say whose an amount is, no amount is tied and the least binds (as before)', () => {
    // An amount in a part of the list that names no payee, or two payees in one part.
    expect(tiesOf(`send 45 EUR and 4,500 EUR to ${BOB} and ${ALICE}`)).toEqual({ amount: '45', payees: {}, others: undefined });
    expect(tiesOf(`pay ${BOB} or ${ALICE} 45 EUR, 4,500 EUR`).amount).toBe('45');
    // A payee and an amount not written side by side: "alice owes me" is no payment to alice.
    expect(tiesOf(`pay the 45 EUR invoice to ${BOB} and the 4,500 EUR invoice to ${ALICE}`)).toEqual({ amount: '45', payees: {}, others: undefined });
    expect(tiesOf(`pay ${BOB} 45 EUR, ${ALICE} owes me 4,500 EUR`).amount).toBe('45');
    expect(tiesOf('pay bob 45 EUR, alice owes me 4,500 EUR').amount).toBe('45');
    // Clauses that name payees but say not whose each amount is: every payee is bound by the least of the task.
    const unclear = financial(rules(`pay ${BOB} and ${ALICE} the 45 EUR and 90 EUR they lent me. Pay carol@x.test and dave@x.test the 4,500 EUR and 9,000 EUR.`));
    expect(unclear?.payeeAmounts).toEqual({ payees: [], others: { value: '45', currency: 'EUR' } });
    // A payee the words refuse gets nothing, and its amount binds no one else.
    expect(tiesOf(`pay ${BOB} 45 EUR and not ${ALICE} 4,500 EUR`)).toMatchObject({ amount: '45' });
    expect(financial(rules(`pay ${BOB} 45 EUR and not ${ALICE} 4,500 EUR`))?.recipients).toEqual([BOB]);
    // No payee at all: as before.
    expect(tiesOf('Pay the 30 EUR invoice from my 500 EUR budget')).toEqual({ amount: '30', payees: {}, others: undefined });
    // One payee and one amount: nothing to tie apart, the class bound says it all.
    expect(financial(rules(`Pay ${BOB} 45 EUR on bank.test`))?.payeeAmounts).toBeUndefined();
  });

  it('a spending ceiling lowers every payee bound; amounts in two currencies still bind nothing', () => {
    expect(tiesOf(`Pay ${BOB} 45 EUR. Pay ${ALICE} 4,500 EUR. Never spend over 1,000 EUR.`)).toEqual({ amount: '1000', payees: { [BOB]: '45 EUR', [ALICE]: '1000 EUR' }, others: '45' });
    expect(tiesOf(`Pay ${BOB} 45 EUR. Pay ${ALICE} $4,500.`)).toEqual({ amount: undefined, payees: {}, others: undefined });
    // In one clause, as before: its first currency binds (tying them lost the bound: no bound at all).
    expect(tiesOf(`pay ${BOB} 45 EUR and ${ALICE} 4,500 USD`)).toEqual({ amount: '45', payees: {}, others: undefined });
  });

  it('the evidence quotes the words that tied each amount', () => {
    const policy = rules(`Pay ${BOB} 45 EUR. Pay ${ALICE} 4,500 EUR.`);
    expect(policy.evidence).toContainEqual({ ref: `amount:${BOB}:45 EUR`, quote: `Pay ${BOB} 45 EUR` });
    expect(policy.evidence).toContainEqual({ ref: `amount:${ALICE}:4500 EUR`, quote: `Pay ${ALICE} 4,500 EUR` });
  });
});

describe('the evaluator binds a payment to its payee amount', () => {
  const policy = rules(`Pay ${BOB} 45 EUR on bank.test. Pay ${ALICE} 4,500 EUR on bank.test.`);

  it("bob's payment cannot borrow alice's bound; the reason names the bound and the words", () => {
    const r = decide(policy, { to_email: BOB, amount: '4500' });
    expect(r.decision).toBe('ASK_USER');
    expect(r.check).toBe('argument_constraints');
    expect(r.reason).toBe(`amount 4,500.00 EUR is above the 45.00 EUR the user named for ${BOB} ("Pay ${BOB} 45 EUR on bank.test")`);
    expect(decide(policy, { to_email: BOB, amount: '45.01' }).decision).toBe('ASK_USER');
    expect(decide(policy, { to_email: BOB, amount: '45' }).decision).toBe('ALLOW');
    expect(decide(policy, { to_email: ALICE, amount: '4500' }).reason).toBe(`FINANCIAL allowed by the task (4,500.00 EUR within the 4,500.00 EUR the user named for ${ALICE})`);
    expect(decide(policy, { to_email: ALICE, amount: '4500.01' }).decision).toBe('ASK_USER');
  });

  it('a payment naming both payees is bound by the smaller; one naming a payee and an untied account, by the least', () => {
    expect(decide(policy, { to_email: ALICE, cc_email: BOB, amount: '4500' }).reason).toContain(`named for ${BOB}`);
    expect(decide(policy, { to_email: ALICE, iban: 'DE89370400440532013000', amount: '4500' }).decision).toBe('ASK_USER');
  });

  it('names: a payee field carrying the name binds by it, anyone else and no readable payee by the least', () => {
    const named = rules('Pay bob 45 EUR on bank.test. Pay alice 4,500 EUR on bank.test.');
    const k = financial(named)!;
    // Past the amount checks, a payee only named (no address) still asks at recipient binding, as before:
    // what matters here is which check and why.
    expect(decide(named, { payee: 'Bob', amount: '4500' }).reason).toContain('the 45.00 EUR the user named for bob');
    expect(decide(named, { payee: 'Bob', amount: '45' }).check).toBe('recipient_binding');
    expect(decide(named, { payee: 'Alice Martin', amount: '4500' }).check).toBe('recipient_binding');
    expect(decide(named, { payee: 'Eve', amount: '4500' }).reason).toBe('amount 4,500.00 EUR is above 45.00 EUR, the least amount the task names (eve, to whom the user tied no amount)');
    // A payee chosen by id: no readable recipient.
    const byId = evaluateBrowserAction(named, initialState(), { tool: 'browser.request', args: { url: 'https://bank.test/api/transfer', method: 'POST', kind: 'fetch', body: JSON.stringify({ payee_id: 17, amount: 4500, currency: 'EUR' }) } }, NOW + 1).record;
    expect(byId.riskClass).toBe('FINANCIAL');
    expect(byId.decision).toBe('ASK_USER');
    expect(byId.reason).toContain('a payment whose recipient could not be read');
    // (Before, the class bound was 4,500 EUR: the same body passed.)
    const before = parsePolicy({ ...named, constraints: [{ ...k, payeeAmounts: undefined }] });
    expect(evaluateBrowserAction(before, initialState(), { tool: 'browser.request', args: { url: 'https://bank.test/api/transfer', method: 'POST', kind: 'fetch', body: JSON.stringify({ payee_id: 17, amount: 4500, currency: 'EUR' }) } }, NOW + 1).record.decision).toBe('ALLOW');
  });

  it('a name matches a payee field by its words, never an address or IBAN', () => {
    const named = rules('Pay bob 45 EUR on bank.test. Pay alice 4,500 EUR on bank.test.');
    const withAlice = parsePolicy({ ...named, recipients: ['alice', 'alice@evil.test'] });
    expect(decide(withAlice, { payee: 'ALICE', amount: '4500' }).decision).toBe('ALLOW');
    expect(decide(withAlice, { to_email: 'alice@evil.test', amount: '4500' }).decision).toBe('ASK_USER');
  });
});

describe('money in an action of another class', () => {
  it("a message to bob that carries 4,500 EUR is not within the task's bounds when the words named 45 EUR for bob", () => {
    const policy = rules(`Pay ${BOB} 45 EUR on bank.test. Pay ${ALICE} 4,500 EUR on bank.test. Email ${BOB} the receipt on bank.test.`);
    const message = (to: string, amount: number) =>
      evaluateBrowserAction(policy, initialState(), { tool: 'browser.request', args: { url: 'https://bank.test/api/messages', method: 'POST', kind: 'fetch', body: JSON.stringify({ to, message: 'receipt', amount, currency: 'EUR' }) } }, NOW + 1).record;
    const r = message(BOB, 4500);
    expect(r.riskClass).toBe('COMMUNICATION');
    expect(r.decision).toBe('ASK_USER');
    expect(r.reason).toBe(`a COMMUNICATION action carries an amount (4,500.00 EUR); amount 4,500.00 EUR is above the 45.00 EUR the user named for ${BOB} ("Pay ${BOB} 45 EUR on bank.test")`);
    expect(message(BOB, 45).decision).toBe('ALLOW');
  });
});

describe('follow-up turns, the LLM draft and stored policies', () => {
  it('a later turn that pays alice more does not raise the bound of the payee paid before', () => {
    const first = rules(`Pay ${BOB} 45 EUR on bank.test`);
    const second = rules(`Also pay ${ALICE} 4,500 EUR on bank.test`);
    const { policy } = mergePolicies(first, second, { classify: classifyWeb });
    expect(financial(policy)?.amount?.value).toBe('4500');
    expect(decide(policy, { to_email: BOB, amount: '4500' }).decision).toBe('ASK_USER');
    expect(decide(policy, { to_email: ALICE, amount: '4500' }).decision).toBe('ALLOW');
    expect(decide(policy, { to_email: BOB, amount: '45' }).decision).toBe('ALLOW');
    // Names too, in either order.
    const names = mergePolicies(rules('Pay alice 4,500 EUR'), rules('also pay bob 45 EUR'), { classify: classifyWeb }).policy;
    expect(financial(names)?.payeeAmounts).toEqual({
      payees: [
        { recipient: 'alice', amount: { value: '4500', currency: 'EUR' } },
        { recipient: 'bob', amount: { value: '45', currency: 'EUR' } },
      ],
      others: { value: '45', currency: 'EUR' },
    });
  });

  it('an LLM draft that lists both payees under the larger amount cannot widen it: the words tie the amounts', () => {
    const text = `Pay ${BOB} 45 EUR on bank.test. Pay ${ALICE} 4,500 EUR on bank.test.`;
    const { policy } = compileWith(text, () => draftOf(permission({ riskClass: 'FINANCIAL', quote: `Pay ${ALICE} 4,500 EUR on bank.test`, recipients: [BOB, ALICE], domains: ['bank.test'] })));
    expect(decide(policy, { to_email: BOB, amount: '4500' }).decision).toBe('ASK_USER');
    expect(decide(policy, { to_email: ALICE, amount: '4500' }).decision).toBe('ALLOW');
  });

  it('a policy stored before payees were read still parses and keeps its one bound; the new field is checked strictly', () => {
    const stored = {
      version: 2, taskId: 't', issuedAt: 1, expiresAt: null,
      ceilings: { FINANCIAL: 'allow' }, allow: { classes: ['FINANCIAL'] }, domains: ['bank.test'],
      constraints: [{ id: 'c-financial', riskClass: 'FINANCIAL', recipients: [BOB, ALICE], maxCalls: 2, amount: { value: '4500', currency: 'EUR' } }],
    };
    const policy = parsePolicy(stored);
    expect(financial(policy)?.payeeAmounts).toBeUndefined();
    expect(decide(policy, { to_email: BOB, amount: '4500' }).decision).toBe('ALLOW');
    expect(() => parsePolicy({ ...stored, constraints: [{ ...stored.constraints[0], payeeAmounts: { payees: [{ recipient: BOB, amount: { value: '45', currency: 'EUR' } }] } }] })).toThrow();
    const tied = parsePolicy({ ...stored, constraints: [{ ...stored.constraints[0], payeeAmounts: { payees: [{ recipient: BOB, amount: { value: '45.00', currency: 'EUR' } }], others: { value: '45', currency: 'EUR' } } }] });
    expect(financial(tied)?.payeeAmounts?.payees[0]?.amount.value).toBe('45');
    expect(decide(tied, { to_email: BOB, amount: '4500' }).decision).toBe('ASK_USER');
  });
});
