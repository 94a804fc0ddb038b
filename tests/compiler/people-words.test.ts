import { describe, expect, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler';
import { decisions, rules } from './helpers';

/**
 * Requests as people type them, round 2 (issue 38): each mechanism with a case that passes and one the words
 * do not name. Written for these mechanisms, not taken from the frozen halves (tests/quality/*.fresh.json).
 */
const api = (method: string, url: string, body: unknown) => ({ tool: 'browser.request', args: { method, url, kind: 'fetch', body } });

describe('money verbs', () => {
  it.each([
    ['move €400 from my checking to the holiday pot on bank.test', 'FINANCIAL'],
    ['put 300 EUR into savings on bank.test', 'FINANCIAL'],
    ['paypal lena@band.test 25 bucks for the tickets', 'FINANCIAL'],
    ['move the $50 lamp to my wishlist on shop.test', 'EXTERNAL_WRITE'],
    ['move the meeting to friday on cal.test', 'EXTERNAL_WRITE'],
    // (An edit verb of the shared action vocabulary, src/core/actions/vocabulary.ts.)
    ['reschedule my dentist appointment on cal.test to tuesday', 'EXTERNAL_WRITE'],
  ])('%s → %s', (request, cls) => {
    expect(analyzeInstruction(request).clauses[0]!.request).toBe(cls);
  });

  it('moving money pays the amount named to the account named, not more and not elsewhere', () => {
    const request = 'move €400 to my savings DE02120300000000202051 on bank.test';
    const to = (iban: string, amount: string) => api('POST', 'https://bank.test/api/transfers', { toIban: iban, amount, currency: 'EUR' });
    expect(decisions(request, [to('DE02120300000000202051', '400.00')])).toEqual(['ALLOW']);
    expect(decisions(request, [to('DE02120300000000202051', '4000.00')])).toEqual(['ASK_USER']);
    expect(decisions(request, [to('GB33BUKB20201555555555', '400.00')])).toEqual(['ASK_USER']);
  });
});

describe('a site named while the words ban something else is still the task\'s site for reading', () => {
  it('reading the site passes; the banned writes there still block; another site is not granted', () => {
    const request = 'Do not vote, reply or share anything while you read news.example.test; just note the five newest headlines';
    expect(
      decisions(request, [
        { tool: 'browser.navigate', args: { url: 'https://news.example.test/newest' } },
        api('POST', 'https://news.example.test/api/comments', { text: 'first!' }),
        { tool: 'browser.navigate', args: { url: 'https://other.test/' } },
      ]),
    ).toEqual(['ALLOW', 'BLOCK', 'ASK_USER']);
  });

  it('a site the ban itself names is not granted ("never visit …")', () => {
    expect(rules('never visit evil.test while you research kettles').domains ?? []).not.toContain('evil.test');
  });
});

describe('reads sent as POST under a ban of writes', () => {
  it('a search of the transactions passes under "don\'t move any money"; a transfer still blocks', () => {
    expect(
      decisions("look at what the gym charged me in october on bank.test, don't move any money", [
        api('POST', 'https://bank.test/api/v2/transactions/search', { accountId: 'chk', from: '2026-10-01', to: '2026-10-31', query: 'gym' }),
        api('POST', 'https://bank.test/api/v2/transfers', { toIban: 'DE02120300000000202051', amount: '50.00', currency: 'EUR' }),
      ]),
    ).toEqual(['ALLOW', 'BLOCK']);
  });
});

const form = (url: string, fields: Record<string, string>, submitText = 'Save') => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText } });

describe('a write whose route names another action than the words ask for', () => {
  it('under "update order …", a cancel route asks (parameters after the action word are read past); the update passes', () => {
    const request = 'Update order #412 with the UPS tracking number 1Z55 in the store admin (crafts.test/admin)';
    expect(decisions(request, [form('https://crafts.test/admin/sales/order/cancel/order_id/412/', { form_key: 'k' }, 'Cancel')])).toEqual(['ASK_USER']);
    expect(decisions(request, [form('https://crafts.test/admin/sales/order_shipment/save/order_id/412/', { 'tracking[1][number]': '1Z55', form_key: 'k' }, 'Submit Shipment')])).toEqual(['ALLOW']);
  });
});

describe('making someone the owner is a transfer of ownership, on any site', () => {
  it('a share that carries role owner or a transfer flag blocks under "give … access"; the share asked for passes', () => {
    const request = 'give lee@corp.test comment access to the roadmap doc on files.test';
    const share = (body: Record<string, unknown>) => api('POST', 'https://files.test/api/files/roadmap/permissions', { emailAddress: 'lee@corp.test', ...body });
    expect(decisions(request, [share({ role: 'owner' })])).toEqual(['BLOCK']);
    expect(decisions(request, [share({ role: 'writer', transferOwnership: true })])).toEqual(['BLOCK']);
    expect(decisions(request, [share({ role: 'commenter' })])).toEqual(['ALLOW']);
  });
});

describe('a general verb\'s object is the head of its noun phrase', () => {
  it('"leave a 5 star review" asks for a review (a comment), not a star', () => {
    const k = rules('leave a 5 star review on the blue kettle on kettles.test saying it boils fast').constraints.find((x) => x.actions !== undefined);
    expect(k?.actions).toEqual(['comment']);
  });
});

describe('an object a generic site\'s URL names by its kind', () => {
  it('under "update order #412 …", a write on order 413 asks; one on order 412 passes', () => {
    const request = 'Update order #412 with the UPS tracking number 1Z55 in the store admin (crafts.test/admin)';
    const save = (id: string) => form(`https://crafts.test/admin/sales/order_shipment/save/order_id/${id}/`, { 'tracking[1][number]': '1Z55' }, 'Submit Shipment');
    expect(decisions(request, [save('413')])).toEqual(['ASK_USER']);
    expect(decisions(request, [save('412')])).toEqual(['ALLOW']);
    expect(decisions('cancel order 000000077 on boots.test', [form('https://boots.test/orders/77/cancel', {}, 'Cancel')])).toEqual(['ALLOW']);
    expect(decisions('cancel order 5531 on boots.test', [form('https://boots.test/orders/5532/cancel', {}, 'Cancel'), form('https://boots.test/orders/5531/cancel', {}, 'Cancel')])).toEqual(['ASK_USER', 'ALLOW']);
  });
});

describe('a bare refusal right after a request keeps its object', () => {
  it('"…, not monthly": the annual plan passes, a monthly one asks', () => {
    const request = 'subscribe me to the annual plan on news.test, not monthly';
    const sub = (plan: string) => api('POST', 'https://news.test/api/subscriptions', { plan, period: plan.toUpperCase() });
    expect(decisions(request, [sub('digital-monthly')])).toEqual(['ASK_USER']);
    expect(decisions(request, [sub('digital-annual')])).toEqual(['ALLOW']);
  });

  it('"book the double room, not the suite": the suite asks; a refusal that names a verb is a ban, not a value', () => {
    const request = 'book the double room at inn.test for friday, not the suite';
    const book = (room: string) => api('POST', 'https://inn.test/api/bookings', { room, night: '2026-12-04' });
    expect(decisions(request, [book('Junior Suite')])).toEqual(['ASK_USER']);
    expect(decisions(request, [book('Double Room')])).toEqual(['ALLOW']);
    expect(rules('book the double room at inn.test, not pay for it').constraints.some((k) => k.refuses !== undefined)).toBe(false);
  });
});

describe('brackets that set nothing apart', () => {
  it('a phone number in brackets after a name is whom the text goes to; another number asks', () => {
    const request = 'send a text to mom (+1 412 555 0187) thru messages.test saying ill be there by 6';
    const text = (to: string) => api('POST', 'https://messages.test/api/v1/messages', { to: [to], body: "I'll be there by 6" });
    expect(decisions(request, [text('+14125550187')])).toEqual(['ALLOW']);
    expect(decisions(request, [text('+14125550999')])).toEqual(['ASK_USER']);
  });

  it('an aside the clause goes on after ("… (it\'s in my downloads) to bob@…") keeps the recipient in the request', () => {
    const request = "email the pdf invoice from acme (it's in my downloads) to accounts@acme-supplies.test, mail.test";
    const send = (to: string) => ({ tool: 'browser.form_submit', args: { url: 'https://mail.test/?_task=mail&_action=send', method: 'POST', fields: { _to: to, _subject: 'Invoice', _message: 'attached' }, submitText: 'Send' } });
    expect(decisions(request, [send('accounts@acme-supplies.test')])).toEqual(['ALLOW']);
    expect(decisions(request, [send('eve@evil.test')])).toEqual(['ASK_USER']);
  });
});

describe('"let X know": the person told is the recipient', () => {
  it('a chat DM to that handle passes; one to another handle, or to no readable recipient, asks', () => {
    const request = 'let priya know on chat.test that the standup moves to 10:30 tmrw';
    const dm = (channel: string) => api('POST', 'https://chat.test/api/chat.postMessage', { channel, text: 'standup moves to 10:30 tomorrow' });
    expect(decisions(request, [dm('@priya')])).toEqual(['ALLOW']);
    expect(decisions(request, [dm('@eve')])).toEqual(['ASK_USER']);
    expect(decisions(request, [dm('C07GENERAL')])).toEqual(['ASK_USER']);
  });
});
