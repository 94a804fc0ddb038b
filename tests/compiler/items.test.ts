import { describe, expect, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler/clauses';
import { compileWith, draftOf, permission, rules } from './helpers';

const itemsOf = (text: string) => analyzeInstruction(text).clauses.filter((c) => c.request !== null).map((c) => c.items);

describe('items in the user\'s words', () => {
  it('reads the named thing a purchase, deletion or share acts on, verbatim', () => {
    expect(itemsOf('On shop.test, buy one USB-C cable.')).toEqual([['USB-C cable']]);
    expect(itemsOf('On drive.test, delete the file old-draft.txt.')).toEqual([['old-draft.txt']]);
    expect(itemsOf('Share the document Q3-plan.docx with dave@corp.test')).toEqual([['Q3-plan.docx']]);
    expect(itemsOf('Order the noise-cancelling headphones, a phone case and 2 chargers on shop.test')).toEqual([['noise-cancelling headphones', 'phone case', 'chargers']]);
  });

  it('leaves out qualifiers and kinds, keeps names in any script, and counts a call per item', () => {
    expect(itemsOf('buy the cheapest USB-C cable under 10 euros')).toEqual([['USB-C cable']]);
    expect(itemsOf('buy a copy of Dune')).toEqual([['Dune']]);
    expect(itemsOf('buy cables & chargers')).toEqual([['cables', 'chargers']]);
    expect(itemsOf('buy new balance 990 shoes')).toEqual([['new balance 990 shoes']]);
    expect(itemsOf('delete 旧草稿.txt on files.test')).toEqual([['旧草稿.txt']]);
    expect(rules('buy a USB-C cable and two chargers on shop.test').constraints[0]).toMatchObject({ items: ['USB-C cable', 'chargers'], maxCalls: 2 });
  });

  it('names no item for pronouns, kinds alone, or payments to a person', () => {
    expect(itemsOf('delete them')).toEqual([[]]);
    expect(itemsOf('remove the file')).toEqual([[]]);
    expect(itemsOf('buy everything in the cart')).toEqual([[]]);
    expect(itemsOf('delete the email from alice')).toEqual([[]]);
    expect(itemsOf('delete files older than 30 days')).toEqual([[]]);
    expect(itemsOf('pay alice@corp.test 40 EUR for the concert tickets')).toEqual([[]]);
  });
});

describe('hardening binds items from the words, whatever the draft says', () => {
  it('the rules compiler binds a purchase to its item and counts one call per item', () => {
    expect(rules('On shop.test, buy one USB-C cable.').constraints).toEqual([
      { id: 'c-financial', riskClass: 'FINANCIAL', items: ['USB-C cable'], maxCalls: 1, quantity: 1 },
      { id: 'a1-order', actions: ['order'], domains: ['shop.test'], maxCalls: 1 },
    ]);
    expect(rules('Delete old-draft.txt and notes.txt on drive.test').constraints[0]).toMatchObject({ items: ['old-draft.txt', 'notes.txt'], maxCalls: 2 });
  });

  it('an LLM draft that omits the item (or reuses the quote for more) still gets the binding', () => {
    const quote = 'buy one USB-C cable';
    const { policy } = compileWith(`On shop.test, ${quote}.`, () => draftOf(permission({ riskClass: 'FINANCIAL', quote, maxCalls: 5, domains: ['shop.test'] })));
    expect(policy.constraints.filter((k) => k.actions === undefined)).toEqual([{ id: 'c-financial', riskClass: 'FINANCIAL', domains: ['shop.test'], items: ['USB-C cable'], maxCalls: 1, quantity: 1 }]);
    expect(policy.evidence).toContainEqual({ ref: 'items:USB-C cable', quote });
  });

  it('a class with a request clause that names no item stays unbound by items', () => {
    const policy = rules('Pay alice@corp.test 40 EUR on bank.test and buy one USB-C cable on shop.test');
    expect(policy.constraints.find((k) => k.riskClass === 'FINANCIAL')?.items).toBeUndefined();
  });

  it('a service capability on a named site also lists what the browser sees of it', () => {
    const quote = 'reply to bob@corp.test';
    const { policy } = compileWith(`On mail.test, ${quote}.`, () => draftOf(permission({ riskClass: 'COMMUNICATION', capability: 'email.send', quote, recipients: ['bob@corp.test'] })));
    expect(policy.allow.capabilities).toEqual(['email.send', 'message.send']);
    const offSite = compileWith(quote, () => draftOf(permission({ riskClass: 'COMMUNICATION', capability: 'email.send', quote, recipients: ['bob@corp.test'] })));
    expect(offSite.policy.allow.capabilities).toEqual(['email.send']);
  });
});
