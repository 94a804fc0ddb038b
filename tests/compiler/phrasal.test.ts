import { describe, expect, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler/clauses';
import { allowedClasses, recipientsOf, rules } from './helpers';

/** Requests whose class is not their first word's (tuned on the quality set's dev half only). */
describe('phrasal requests', () => {
  it.each([
    ['Check out the cart on shop.test', ['FINANCIAL']],
    ['Check me in for my flight on airline.test', ['EXTERNAL_WRITE']],
    ['Check my inbox on mail.test', []],
    ['Tell the team on chat.test that standup is cancelled', ['COMMUNICATION']],
    ['Tell me what the page says on news.test', []],
    ['Let Sam know on chat.test that I am late', ['COMMUNICATION']],
    ['Let me know what it costs on shop.test', []],
    ['Give kai@corp.test edit access to the forecast on docs.test', ['PERMISSION_CHANGE']],
    ["Remove paul@corp.test's access to the finance folder on docs.test", ['PERMISSION_CHANGE']],
    ['Open a pull request on git.test for fix-login', ['EXTERNAL_WRITE']],
    ['Open the pull request list on git.test', []],
    ['Use my saved card to buy the book Dune on books.test', ['FINANCIAL']],
    ['Write a short summary to /home/me/notes/meeting.md', ['LOCAL_WRITE']],
    ['Upload /home/me/cv.pdf to jobs.test', ['EXTERNAL_WRITE']],
    ['Write an email to carol@example.com saying the report is ready', ['COMMUNICATION']],
    ['Put a dentist appointment in my calendar for Tuesday', ['EXTERNAL_WRITE']],
  ])('%s → %j', (request, classes) => {
    expect(allowedClasses(rules(request))).toEqual(classes);
  });

  it('a negated "check out" bans purchases', () => {
    const policy = rules("Add the blue running shoes to my cart on shop.test, don't check out");
    expect(allowedClasses(policy)).toEqual(['EXTERNAL_WRITE']);
    expect(policy.prohibitions.flatMap((p) => p.classes)).toContain('FINANCIAL');
  });

  it('the addressee of "write" and "give access" is bound, nobody else', () => {
    expect(recipientsOf(rules('Write an email to carol@example.com saying the report is ready'))).toEqual(['carol@example.com']);
    expect(recipientsOf(rules('Give kai@corp.test edit access to the forecast on docs.test'))).toEqual(['kai@corp.test']);
  });
});

/** "I need 3 bags of …", "get me 4 tickets": wanting a counted thing asks for it bought, exactly as "buy" would. */
describe('want-phrases with a count are purchases', () => {
  const financial = (text: string) => analyzeInstruction(text).clauses.find((c) => c.request === 'FINANCIAL') ?? null;

  it.each([
    ['I need 3 bags of the house blend on shop.test', 3],
    ['get me 4 general admission tickets on tickets.test', 4],
    ['we want two large pizzas from slices.test', 2],
    ["i'd like 1 copy of 'Dune' from books.test", 1],
  ])('%s → a purchase of %i', (request, quantity) => {
    expect(financial(request)?.quantity).toBe(quantity);
  });

  it.each([
    'I need a summary of the reviews on shop.test',
    'get me the tracking number for order 1234 on shop.test',
    'I want to know how much 3 bags cost on shop.test',
    "don't get me 3 bags, just look on shop.test",
  ])('%s → no purchase', (request) => {
    expect(financial(request)).toBeNull();
  });

  it('binds the count it names, as "buy" does', () => {
    const want = rules('I need 3 bags of coffee from shop.test').constraints.find((k) => k.riskClass === 'FINANCIAL');
    const buy = rules('buy 3 bags of coffee from shop.test').constraints.find((k) => k.riskClass === 'FINANCIAL');
    expect(want?.quantity).toBe(3);
    expect(want).toEqual(buy);
  });
});

describe('bookings and ranges', () => {
  it('"rent" books, as "book" and "reserve" do', () => {
    expect(allowedClasses(rules('rent the cheapest SUV on cars.test for may 2'))).toEqual(['EXTERNAL_WRITE']);
  });

  it('a dash between two numbers is a range, not a break between clauses; elsewhere it still sets a clause apart', () => {
    const texts = (t: string) => analyzeInstruction(t).clauses.map((c) => c.text);
    expect(texts('rent the cheapest SUV at denver airport may 2 - may 6 on cars.test')).toEqual(['rent the cheapest SUV at denver airport may 2 - may 6 on cars.test']);
    expect(texts('book a desk on desks.test for 9 – 5 tomorrow')).toHaveLength(1);
    expect(texts("reply to bob@x.test - don't cc carol@x.test")).toHaveLength(2);
    expect(texts('buy 2 - then email bob@x.test')).toHaveLength(2);
  });
});
