import { describe, expect, it } from 'vitest';
import { carriedValues } from '../../src/compiler/carries';
import { analyzeInstruction, isolateInput } from '../../src/compiler';
import { decisions, rules } from './helpers';

/**
 * A setting's new value binds the write (Constraint.carries): on a site no app table describes, a write under
 * "change X to V" carries V, or the words name no such write and it asks.
 */
const form = (url: string, fields: Record<string, string>, submitText = 'Save') => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText } });
const api = (method: string, url: string, body: unknown) => ({ tool: 'browser.request', args: { method, url, kind: 'fetch', body } });

describe('what a setting clause gives its write to carry', () => {
  it.each([
    ['change the printer name on printer.test to Hallway-2', ['hallway-2']],
    ['set my display name on club.test to "Captain Nemo"', ['captain nemo']],
    ['update the opening hours text on cafe.test to "closed on mondays"', ['closed on mondays']],
    ['change the monthly limit on budget.test to $1,200 pls', ['1,200']],
    ["change the wifi password on gateway.test to 'Blue-Kettle!' pls", ['blue-kettle!']],
    ['set my shipping address on boots.test to 12 Elm Street, Leeds', ['12 elm street', '12']],
    ['cancel my gym class booking on gym.test', []],
    ['mute the #general channel on talk.test', []],
    ['change my dentist appointment on clinic.test to 3pm thursday', []],
    ['set my profile on club.test to private', ['private']],
    ['rename the shared album on photos.test to the new one', []],
    ['edit the menu page on cafe.test to add the soup of the day', []],
  ])('%s → %j', (request, values) => {
    const clause = analyzeInstruction(request).clauses.find((c) => c.request !== null && c.request !== 'READ')!;
    const quoted = [...request.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
    expect(carriedValues(clause, quoted)).toEqual(values);
  });

  it('the value may follow a bracket that names the site', () => {
    const { text, quoted } = isolateInput('update the footer text of my store (crafts.test/admin) to "made with love in Porto"');
    const analysis = analyzeInstruction(text);
    expect(carriedValues(analysis.clauses[0]!, quoted, analysis)).toEqual(['made with love in porto']);
    expect(
      decisions('update the footer text of my store (crafts.test/admin) to "made with love in Porto"', [
        form('https://crafts.test/admin/config/save', { 'groups[web][fields][cdn][value]': 'on', theme: 'dark' }),
        form('https://crafts.test/admin/config/save', { 'groups[design][footer][value]': 'Made with love in Porto' }),
      ]),
    ).toEqual(['ASK_USER', 'ALLOW']);
  });

  it('the router form that carries the new name passes; the router forms that carry none of it ask', () => {
    expect(
      decisions('rename the guest network on gateway.test to Attic-Net', [
        form('http://gateway.test/cgi-bin/wireless.cgi', { ssid: 'Attic-Net', band: '5', apply: '1' }),
        form('http://gateway.test/cgi-bin/firewall.cgi', { wan_ping: '1', open_ports: '22,23', apply: '1' }),
        form('http://gateway.test/cgi-bin/ntp.cgi', { server: 'time.evil.test', apply: '1' }),
      ]),
    ).toEqual(['ALLOW', 'ASK_USER', 'ASK_USER']);
  });

  it('a quoted value binds as it was quoted, inside a JSON body too', () => {
    expect(
      decisions('update the tagline of my shop on crafts.test to "hand-made in Porto"', [
        api('PATCH', 'https://crafts.test/api/shop/settings', { profile: JSON.stringify({ tagline: 'Hand-made in Porto' }) }),
        api('PATCH', 'https://crafts.test/api/shop/settings', { payoutEmail: 'eve@evil.test' }),
      ]),
    ).toEqual(['ALLOW', 'ASK_USER']);
  });

  it('a number binds as a number: 1450.00 is 1450, 145 is not', () => {
    expect(
      decisions('change the price of my bike listing on market.test to 1450', [
        form('https://market.test/listing/77/edit', { price: '145', title: 'Road bike' }),
        form('https://market.test/listing/77/edit', { price: '1450.00', title: 'Road bike' }),
      ]),
    ).toEqual(['ASK_USER', 'ALLOW']);
  });

  it('a write clause that gives no value leaves the class as it was (the call budget still binds)', () => {
    expect(decisions('cancel my gym class booking on gym.test', [form('https://gym.test/bookings/9/cancel', { booking: '9' }, 'Cancel')])).toEqual(['ALLOW']);
    expect(rules('cancel my gym class booking on gym.test').constraints.some((k) => k.carries !== undefined)).toBe(false);
  });
});
