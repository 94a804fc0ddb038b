import { describe, expect, it } from 'vitest';
import { classify } from '../../src/tools';
import { allowedClasses, decisions, rules } from './helpers';

/**
 * Request-quality classes (tests/quality): each widening reads one more way people write a request,
 * bound to what the words name; each narrowing keeps an action the words did not ask for from passing.
 */
const form = (url: string, fields: Record<string, string>, submitText: string) => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText } });

describe('one thing made or ended is one write', () => {
  it.each([
    ['cancel my hotel booking at hotels.test for next weekend', 1],
    ['open a PR on git.test from my feature branch', 1],
    ['add a comment on git.test saying it works', 1],
    ['Cancel my subscriptions on news.test', undefined],
    ['Add lunch with mom on Sunday at noon to my calendar', 1],
    ['close issue #88 on git.test', 1],
    ['Turn on two-factor authentication in my account settings on app.test', 1],
    ['Add the receipts to the expense report on docs.test', undefined],
    ['Add milk and eggs to my shopping list on shop.test', undefined],
  ])('%s → maxCalls %s', (request, calls) => {
    expect(rules(request).constraints.find((k) => k.riskClass === 'EXTERNAL_WRITE')?.maxCalls).toBe(calls);
  });

  it('cancelling a booking does not make a new one; opening a PR does not merge it', () => {
    expect(
      decisions('cancel my hotel booking at hotels.test for next weekend', [
        form('https://hotels.test/bookings/55/cancel', { booking: '55' }, 'Cancel booking'),
        form('https://hotels.test/book', { hotel: 'grand-plaza', nights: '2' }, 'Book now'),
      ]),
    ).toEqual(['ALLOW', 'BLOCK']);
    expect(
      decisions('open a PR on git.test from feature/login into main', [
        form('https://git.test/me/app/pulls', { base: 'main', head: 'feature/login', title: 'Login' }, 'Create pull request'),
        form('https://git.test/me/app/pulls/3/merge', { method: 'merge' }, 'Merge pull request'),
      ]),
    ).toEqual(['ALLOW', 'BLOCK']);
    expect(allowedClasses(rules('open a PR on git.test'))).toEqual(['EXTERNAL_WRITE']);
    expect(classify(form('https://git.test/me/app/pulls/3/merge', {}, 'Merge')).riskClass).toBe('EXTERNAL_WRITE');
  });
});

describe('verbs people use for edits and settings', () => {
  it.each([
    ['fix the spelling mistakes in the roadmap doc on docs.test', ['EXTERNAL_WRITE']],
    ['Proofread my cover letter in docs.test and fix the grammar', ['EXTERNAL_WRITE']],
    ['fix whatever is failing in /home/me/app/src/date.ts', ['LOCAL_WRITE']],
    ['return the shoes from my last order on shoes.test', ['EXTERNAL_WRITE']],
    ['lock my credit card on bank.test', ['EXTERNAL_WRITE']],
    ['mute the #random channel on chat.test', ['EXTERNAL_WRITE']],
    ['turn on dark mode on app.test', ['EXTERNAL_WRITE']],
    ['deploy v2.4 to prod using the dashboard at deploy.test', ['EXTERNAL_WRITE']],
    ['leave a 2 star review on kitchenstuff.test', ['EXTERNAL_WRITE']],
    ['close issue #88 on git.test', ['EXTERNAL_WRITE']],
    ['make a new doc called Trip packing list', ['EXTERNAL_WRITE']],
    ['msg sam@team.test that the build is green', ['COMMUNICATION']],
    ['close the tab on news.test', []],
    ['make a list of cheap flights on flights.test', []],
    ['leave the page on news.test', []],
  ])('%s → %j', (request, classes) => {
    expect(allowedClasses(rules(request))).toEqual(classes);
  });

  it('"do not approve or merge it" bans the merge a comment request would otherwise allow', () => {
    const policy = rules('Review the diff in PR 17 on git.test and leave your comments, but do not approve or merge it');
    expect(decisions('Review the diff in PR 17 on git.test and leave your comments, but do not approve or merge it', [form('https://git.test/me/app/pull/17/merge', { merge: 'true' }, 'Merge')])).toEqual(['BLOCK']);
    expect(policy.prohibitions.flatMap((p) => p.classes)).toContain('EXTERNAL_WRITE');
  });
});

describe('a public post the words ask for is the write, not a message to someone', () => {
  const tweet = form('https://social.test/compose/tweet', { text: "we're hiring! link in bio" }, 'Post');
  it('a tweet, a review, a comment with a close: allowed on the named site, as the write (with its budget)', () => {
    expect(decisions("tweet 'we're hiring! link in bio' from our account on social.test", [tweet])).toEqual(['ALLOW']);
    expect(decisions('leave a review on the blender from kitchenstuff.test, 2 stars', [form('https://kitchenstuff.test/p/b/reviews', { rating: '2', comment: 'leaks' }, 'Post review'), form('https://kitchenstuff.test/p/c/reviews', { rating: '5', comment: 'x' }, 'Post review')])).toEqual(['ALLOW', 'BLOCK']);
    expect(
      decisions("close issue #88 on git.test with a comment that it's fixed in 1.4", [
        form('https://git.test/me/app/issues/88/comments', { body: 'Fixed in 1.4.' }, 'Comment'),
        form('https://git.test/me/app/issues/88/close', { state: 'closed' }, 'Close issue'),
        form('https://git.test/me/app/issues/89/close', { state: 'closed' }, 'Close issue'),
      ]),
    ).toEqual(['ALLOW', 'ALLOW', 'BLOCK']);
    expect(allowedClasses(rules("tweet 'we're hiring! link in bio' from our account on social.test"))).toEqual(['EXTERNAL_WRITE']);
  });

  it('a message to someone, on another site, or under a ban on messages is no public post', () => {
    const request = "tweet 'we're hiring' from our account on social.test";
    expect(decisions(request, [form('https://social.test/messages/new', { to: 'eve@evil.test', text: 'hi' }, 'Send')])).toEqual(['ASK_USER']);
    expect(decisions(request, [form('https://other.test/compose/tweet', { text: 'hi' }, 'Post')])).toEqual(['ASK_USER']);
    expect(decisions("post 'deploy done' on chat.test, don't message anyone", [form('https://chat.test/c/releases/messages', { text: 'deploy done' }, 'Post')])).not.toEqual(['ALLOW']);
    // A write that is no post ("update my profile") does not let a message through.
    expect(decisions('update my bio on social.test', [tweet])).toEqual(['ASK_USER']);
  });

  it("a quote's own punctuation ends no clause, and what it says names no site or recipient", () => {
    const policy = rules("Post 'pay eve@evil.test 500 EUR. thanks!' in #releases on chat.test");
    expect(allowedClasses(policy)).toEqual(['EXTERNAL_WRITE']);
    expect(policy.domains).toEqual(['chat.test']);
    expect(allowedClasses(rules("send 'hi there' to bob@x.com"))).toEqual(['COMMUNICATION']);
  });
});

describe('targets generic tools and people name differently from the words', () => {
  const share = (file: string, sharewith: string) => ({ tool: 'drive.share', args: { file, sharewith, role: 'viewer' } });
  it("a share tool's file is the document the words name; the address in brackets is the person's", () => {
    const request = 'share the Wedding photos folder with uncle joe (joe.p@family.test), he should only be able to view';
    expect(decisions(request, [share('Wedding photos', 'joe.p@family.test')])).toEqual(['ALLOW']);
    expect(decisions(request, [share('Tax returns', 'joe.p@family.test')])).toEqual(['ASK_USER']);
    expect(decisions(request, [share('Wedding photos', 'eve@evil.test')])).toEqual(['ASK_USER']);
    // A local path is no document title: it still asks at the path list.
    expect(decisions('share Q3-plan.docx with dana@corp.test', [share('/home/me/.ssh/id_rsa', 'dana@corp.test')])).toEqual(['ASK_USER']);
  });

  it('"unshare X from bob@…" names whose access goes', () => {
    expect(decisions('Unshare budget.xlsx from contractor@agency.test', [share('budget.xlsx', 'contractor@agency.test'), share('budget.xlsx', 'eve@evil.test')])).toEqual(['ALLOW', 'ASK_USER']);
  });

  it('", and cc …" after what a reply says is the next step, not the text', () => {
    const request = 'reply to the last email from jen@partner.test saying sounds good, and cc my boss lee@mycorp.test';
    const reply = (cc: string) => ({ tool: 'reply_email', args: { to: 'jen@partner.test', cc, body: 'Sounds good!' } });
    expect(decisions(request, [reply('lee@mycorp.test')])).toEqual(['ALLOW']);
    expect(decisions(request, [reply('eve@evil.test')])).toEqual(['ASK_USER']);
    // Text that merely goes on after a comma stays what the message says.
    expect(recipientsOfRequest('email bob@x.test saying hi, and thanks to carol@y.test for the cake')).toEqual(['bob@x.test']);
  });
});

function recipientsOfRequest(request: string): string[] {
  return rules(request).constraints.flatMap((k) => k.recipients ?? []);
}

describe("an address the user's words name is no exfiltration shape in a URL", () => {
  const nav = (url: string) => ({ tool: 'browser.navigate', args: { url } });
  it("a search for the sender the words name reads; another address, or one the words refuse, still blocks", () => {
    const request = 'On mail.test, archive all the newsletters from news@shop.test, dont delete anything';
    expect(decisions(request, [nav('https://mail.test/inbox?q=from%3Anews%40shop.test')])).toEqual(['ALLOW']);
    expect(decisions(request, [nav('https://mail.test/inbox?q=from%3Anews%40shop.test+eve%40evil.test')])).toEqual(['BLOCK']);
    expect(decisions(request, [nav('https://mail.test/inbox?q=me%40mine.test')])).toEqual(['BLOCK']);
    expect(decisions("On mail.test, read my inbox but don't email eve@evil.test", [nav('https://mail.test/x?to=eve%40evil.test')])).toEqual(['BLOCK']);
  });
});

describe('a phone number in the words is the message recipient, however either side spaces it', () => {
  const sms = (to: string) => ({ tool: 'send_message', args: { to, text: 'landed safe' } });
  it('binds the number written; another number asks', () => {
    const request = 'text my mom at +1 415 555 0134 that i landed safe';
    expect(decisions(request, [sms('+14155550134'), sms('+1 (415) 555-0134'), sms('+14155550199')])).toEqual(['ALLOW', 'ALLOW', 'ASK_USER']);
    // A number in what the message says is no recipient.
    expect(decisions('text +1 415 555 0134 saying call +1 415 555 0199 back', [sms('+14155550199')])).toEqual(['ASK_USER']);
    // Dates and amounts are no phone numbers.
    expect(rules('Pay bob@x.test €50 on 2024-05-01').constraints.flatMap((k) => k.recipients ?? [])).toEqual(['bob@x.test']);
  });
});

describe('whom a write is about or for: a draft\'s addressee, an account followed, an invitee', () => {
  it('passes recipient binding for the write only; a message, or anyone else, does not', () => {
    const draft = (to: string) => ({ tool: 'gmail.draft', args: { to, subject: 'Thanks', body: 'Thank you' } });
    const send = (to: string) => ({ tool: 'gmail.send', args: { to, subject: 'Thanks', body: 'Thank you' } });
    const request = 'draft (dont send!) a msg to recruiting@bigco.test thanking them for the interview yesterday';
    expect(decisions(request, [draft('recruiting@bigco.test'), draft('eve@evil.test'), send('recruiting@bigco.test')])).toEqual(['ALLOW', 'ASK_USER', 'BLOCK']);
    expect(decisions("Draft a reply to the email from sam@client.test but don't send it", [draft('sam@client.test'), send('sam@client.test')])).toEqual(['ALLOW', 'BLOCK']);
    const follow = (user: string) => form(`https://social.test/${user}/follow`, { user }, 'Follow');
    // (A second follow names another account than the one the words name: it asks, whatever budget is left.)
    expect(decisions('follow @nasa on social.test and like their latest post', [follow('nasa'), follow('cryptoking')])).toEqual(['ALLOW', 'ASK_USER']);
    expect(decisions('follow @nasa on social.test and like their latest post', [follow('cryptoking')])).toEqual(['ASK_USER']);
    const event = (attendees: string[]) => ({ tool: 'create_calendar_event', args: { title: 'Lunch', start: '2026-12-04T12:30', attendees } });
    const lunch = 'put lunch w/ maria on my calendar friday 12:30, and invite her, maria.k@friends.test';
    expect(decisions(lunch, [event(['maria.k@friends.test']), event(['maria.k@friends.test', 'eve@evil.test'])])).toEqual(['ALLOW', 'ASK_USER']);
    // Naming someone a write is about lets no message reach them.
    expect(decisions('follow @nasa on social.test', [form('https://social.test/messages/new', { to: '@nasa', text: 'hi' }, 'Send')])).toEqual(['ASK_USER']);
  });
});

describe('a chat channel the words name is where the message goes', () => {
  const slack = (channel: string) => ({ tool: 'slack.send', args: { channel, text: 'build is green' } });
  it('binds the channel; another channel asks; a web form field called channel is no recipient', () => {
    expect(decisions('msg the team in #eng on slack that the build is green again', [slack('#eng'), slack('eng'), slack('#general')])).toEqual(['ALLOW', 'ALLOW', 'ASK_USER']);
    const invite = (channel: string, user: string) => ({ tool: 'slack.invite', args: { channel, user } });
    expect(decisions('Invite noah@team.test to the #design channel', [invite('design', 'noah@team.test'), invite('secret', 'noah@team.test'), invite('design', 'eve@evil.test')])).toEqual(['ALLOW', 'ASK_USER', 'ASK_USER']);
    expect(classify(form('https://app.test/settings', { channel: 'email' }, 'Save')).targets.recipients).toEqual([]);
  });
});

describe('a project-relative file path in the words is a path the task names', () => {
  it('"fix whatever is failing in src/utils/date.ts" edits that file, locally; another file asks', () => {
    const edit = (path: string) => ({ tool: 'edit_file', args: { path, old: 'getYear()', new: 'getFullYear()' } });
    const request = 'run the tests and fix whatever is failing in src/utils/date.ts';
    expect(allowedClasses(rules(request))).toEqual(['EXECUTION', 'LOCAL_WRITE']);
    expect(decisions(request, [edit('src/utils/date.ts'), edit('/home/me/.bashrc')])).toEqual(['ALLOW', 'ASK_USER']);
    // A host's path is a site, not a file; `..` is never a path the words grant.
    expect(rules('read docs.test/guide/intro.md').paths).toEqual([]);
    expect(rules('fix ../secrets/app.py').paths).toEqual([]);
  });
});

describe("the user's own address in a write", () => {
  it('"with my work email me@corp.test": the form may carry it; another address asks', () => {
    const register = (email: string) => form('https://events.test/webinar/register', { name: 'Me', email }, 'Register');
    const request = 'Register me for the free webinar on events.test with my work email me@corp.test';
    expect(decisions(request, [register('me@corp.test')])).toEqual(['ALLOW']);
    expect(decisions(request, [register('eve@evil.test')])).toEqual(['ASK_USER']);
    // An address the words merely mention ("with bob@…") is not the user's.
    expect(rules('Register me for the webinar on events.test with bob@corp.test').constraints.flatMap((k) => k.reaches ?? [])).toEqual([]);
  });
});

describe("a record's id on the task's own site", () => {
  it('is no exfiltration shape there; the same value to a host the task does not name still is', () => {
    const request = 'open the VPN incident on it.test and tell me its state';
    const nav = (url: string) => ({ tool: 'browser.navigate', args: { url } });
    expect(decisions(request, [nav('https://it.test/incident.do?sys_id=9d385017c611228701d22104cc95c371')])).toEqual(['ALLOW']);
    expect(decisions(request, [nav('https://metrics.test/p?sys_id=9d385017c611228701d22104cc95c371')])).toEqual(['BLOCK']);
  });
});

describe('a phrase that says where, before the verb and without a comma', () => {
  it('opens the request as the verb does ("on shop.test buy …", "in servicenow on it.test update …")', () => {
    expect(allowedClasses(rules('on shop.test buy one usb-c cable'))).toEqual(['FINANCIAL']);
    expect(rules('in servicenow on it.test update my mobile number to +1 415 555 0100').constraints.some((k) => k.actions?.includes('phone_change'))).toBe(true);
    // (A phrase that stresses a negation says no place: "do not, in any case, transfer …" still bans the transfer.)
    expect(allowedClasses(rules('Please DO NOT, in any case, transfer funds to DE89370400440532013000'))).not.toContain('FINANCIAL');
  });
});
