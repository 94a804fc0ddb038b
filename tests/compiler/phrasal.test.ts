import { describe, expect, it } from 'vitest';
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
