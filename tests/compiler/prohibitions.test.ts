import { describe, expect, it } from 'vitest';
import { extractProhibitions } from '../../src/compiler/prohibitions';
import { evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';
import { allowedClasses, recipientsOf, rules } from './helpers';

const bans = (text: string) => extractProhibitions(text).map((p) => ({ classes: p.classes, except: p.exceptRecipients }));

describe('extractProhibitions', () => {
  it('"do not send" bans sending and the other outbound channels (form posts, requests)', () => {
    expect(bans('Read my inbox. Do not send anything.')).toEqual([{ classes: ['EXTERNAL_WRITE', 'COMMUNICATION'], except: [] }]);
  });

  it('"only read" bans every consequential class', () => {
    const [p] = extractProhibitions('Only read the news on news.test');
    expect(p?.classes).toEqual(expect.arrayContaining(['COMMUNICATION', 'FINANCIAL', 'DELETE', 'EXTERNAL_WRITE', 'PERMISSION_CHANGE', 'UNKNOWN']));
    expect(p?.classes).not.toContain('READ');
    expect(p?.quote).toBe('Only read the news on news.test');
  });

  it("\"don't purchase\", \"never delete\", \"without paying\", \"no purchases\", passive bans", () => {
    expect(bans("Compare laptops on shop.test but don't purchase anything")).toEqual([{ classes: ['FINANCIAL'], except: [] }]);
    expect(bans('Tidy the folder and never delete anything')).toEqual([{ classes: ['DELETE'], except: [] }]);
    expect(bans('Read the news without paying for it')).toEqual([{ classes: ['FINANCIAL'], except: [] }]);
    expect(bans('Browse shop.test. No purchases.')).toEqual([{ classes: ['FINANCIAL'], except: [] }]);
    expect(bans('The drafts should not be deleted')).toEqual([{ classes: ['DELETE'], except: [] }]);
    expect(bans("Don't share the folder")).toEqual([{ classes: ['PERMISSION_CHANGE'], except: [] }]);
  });

  it('a negation scopes over a list of verbs: "do not send, post or share anything", "without posting or sharing"', () => {
    expect(bans("Open news.example.test and summarize today's top story. Do not send, post or share anything.")).toEqual([
      { classes: ['EXTERNAL_WRITE', 'COMMUNICATION', 'PERMISSION_CHANGE'], except: [] },
    ]);
    expect(bans('Summarize the page without posting, sharing or emailing it')).toEqual([{ classes: ['EXTERNAL_WRITE', 'COMMUNICATION', 'PERMISSION_CHANGE'], except: [] }]);
    expect(bans('Never delete, archive or move my files')).toEqual([{ classes: ['EXTERNAL_WRITE', 'DELETE'], except: [] }]);
    // An object before the comma ends the list: what follows is a request of its own.
    expect(bans('Do not delete anything, archive the old ones')).toEqual([{ classes: ['DELETE'], except: [] }]);
  });

  it('"only read X, then reply to Y" keeps the reply to Y (and only to Y); "only read X" alone bans every write', () => {
    const policy = rules('Only look at the newest message from the school on mail.test, and then answer jane@school.test that Tom is ill.');
    expect(allowedClasses(policy)).toEqual(['COMMUNICATION']);
    expect(recipientsOf(policy)).toEqual(['jane@school.test']);
    const send = (to: string) => ({ tool: 'browser.form_submit', args: { url: 'https://mail.test/send', method: 'POST', fields: { to, body: 'Tom is ill' }, submitText: 'Send' } });
    expect(evaluate(policy, initialState(), send('jane@school.test'), 2).record.decision).toBe('ALLOW');
    expect(evaluate(policy, initialState(), send('eve@evil.test'), 2).record.decision).toBe('BLOCK');
    expect(allowedClasses(rules('Only read the newest message from the school on mail.test'))).toEqual([]);
  });

  it('false positive: "don\'t forget to email" is a request, not a ban', () => {
    expect(bans("Don't forget to email bob@x.com the report")).toEqual([]);
  });

  it('false positive: "no problem, send it" bans nothing', () => {
    expect(bans('No problem, send it to bob@x.com')).toEqual([]);
  });

  it('false positive: "don\'t send it to anyone except john@x.com" spares John', () => {
    expect(bans("Draft the reply but don't send it to anyone except john@x.com")).toEqual([{ classes: ['COMMUNICATION'], except: ['john@x.com'] }]);
  });

  it('"anyone except John" binds the name only to an address the user wrote; otherwise no blanket ban', () => {
    expect(bans("Reply to john.doe@x.com. Don't send it to anyone except John")).toEqual([{ classes: ['COMMUNICATION'], except: ['john.doe@x.com'] }]);
    expect(bans("Don't send it to anyone except John")).toEqual([]);
  });

  it('a ban naming a recipient keeps the requested recipients and bans the rest', () => {
    expect(bans("Don't email carol@x.com, just reply to bob@x.com")).toEqual([{ classes: ['COMMUNICATION'], except: ['bob@x.com'] }]);
  });

  it('"don\'t buy anything else" spares the purchase the user asked for', () => {
    expect(bans('Buy one charger on shop.test, and don\'t buy anything else')).toEqual([]);
    expect(bans('Email bob@x.com the summary but don\'t email anyone else')).toEqual([{ classes: ['COMMUNICATION'], except: ['bob@x.com'] }]);
  });

  it('reads bans from the whole instruction, past what a model would be shown', () => {
    const long = `${'Read the next page and summarise it. '.repeat(300)}Never delete anything.`;
    expect(long.length).toBeGreaterThan(8_000);
    expect(bans(long)).toEqual([{ classes: ['DELETE'], except: [] }]);
  });
});

describe('bans beside the task\'s own request of the same kind', () => {
  it('a ban of reaching anyone, under a request naming whom to reach, spares them and bans the rest', () => {
    expect(bans('email the recruiter back at hr@bigco.test from mail.test - thanks, tuesday 2pm works. dont cc anyone')).toEqual([{ classes: ['COMMUNICATION'], except: ['hr@bigco.test'] }]);
    expect(bans('email the minutes to team@northwind.test from mail.test. dont email anyone outside northwind')).toEqual([{ classes: ['COMMUNICATION'], except: ['team@northwind.test'] }]);
    // (Nobody named: whom the ban spares is unknown, and it stands whole.)
    expect(bans("reply to carla's email on webmail.test saying the contract looks fine. dont cc anyone")).toEqual([{ classes: ['EXTERNAL_WRITE', 'COMMUNICATION'], except: [] }]);
    const call = (cc: string) => ({ tool: 'browser.form_submit', args: { url: 'https://mail.test/?_task=mail&_action=send', method: 'POST', fields: { _to: 'hr@bigco.test', _cc: cc, _subject: 'Re: interview', _message: 'Thanks! Tuesday 2pm works.' }, submitText: 'Send' } });
    const policy = rules('email the recruiter back at hr@bigco.test from mail.test - thanks, tuesday 2pm works. dont cc anyone');
    expect(evaluate(policy, initialState(), call(''), 1).record.decision).toBe('ALLOW');
    expect(evaluate(policy, initialState(), call('boss@acme.test'), 1).record.decision).toBe('BLOCK');
  });

  it('a ban of named actions is scoped when the task asks for another action of their class by a verb of another class', () => {
    // ("reply to forum.test/f/books/130944": a reply on a forum is a comment, an external write as the votes are.)
    const [p] = extractProhibitions("reply to forum.test/f/books/130944 w/ my rec 'Piranesi' but dont upvote or downvote anything");
    expect(p?.classes).toEqual(['EXTERNAL_WRITE']);
    expect(p?.actions).toEqual(['upvote', 'downvote']);
  });
});
