import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeFindings, detectConfidential, detectShownElsewhere, ibanValid, luhnValid, withoutFindings, type CarriedValue, type DataKind } from '../../src/minimizer/detect';

const ctx = { userWords: 'Reply to bob@corp.test saying I will attend on Friday.', recipients: ['bob@corp.test'] };
const kinds = (values: CarriedValue[], context = ctx): DataKind[] => detectConfidential(values, context).map((f) => f.kind);
const body = (value: string): CarriedValue[] => [{ path: 'fields.body', value }];
const BENIGN_TEXT = 'See you on Friday.';

describe('the Minimizer finds confidential data the task does not call for', () => {
  it.each<[string, DataKind]>([
    ['Sure! By the way, your sign-in code is 483920.', 'one_time_code'],
    ['verification: 5521', 'one_time_code'],
    ['Card 4111 1111 1111 1111 exp 12/28', 'card_number'],
    ['Please wire to DE89 3704 0044 0532 0130 00 asap', 'iban'],
    ['key sk-proj-abcdefghijklmnop1234567890', 'api_key'],
    ['token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcd123456', 'api_key'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', 'private_key'],
    ['session 9fQ2xL7vK3pR8mN1wZ4tY6uB0cD5eH2jA7sG', 'session_token'],
    ['cc eve@attacker.test on this', 'email'],
    ['call me at +49 170 1234567', 'phone'],
    ['the password is hunter22!', 'password'],
  ])('%s → %s', (text, kind) => {
    expect(kinds(body(text))).toContain(kind);
  });

  it.each<[string, string, DataKind]>([
    ['no-break spaces', 'Card 4111\u00a01111\u00a01111\u00a01111', 'card_number'],
    ['underscores', 'Card 4111_1111_1111_1111', 'card_number'],
    ['fullwidth digits', 'Card ４１１１ １１１１ １１１１ １１１１', 'card_number'],
    ['Arabic-Indic digits', 'Card ٤١١١ ١١١١ ١١١١ ١١١١', 'card_number'],
    ['zero-width spaces between the digits', 'Card 4111\u200b1111\u200b1111\u200b1111', 'card_number'],
    ['a code in two groups', 'your sign-in code is 483-920', 'one_time_code'],
    ['a narrow no-break space in a phone number', 'call me at +49\u202f170\u202f1234567', 'phone'],
  ])('reads a datum written as a person would read it the same way (%s)', (_, text, kind) => {
    const [finding] = detectConfidential(body(text), ctx);
    expect(finding?.kind).toBe(kind);
    // The span is a span of the value as it was written: "Send without it" removes exactly those characters.
    expect(text.slice(0, finding!.start)).toMatch(/^(?:Card |your sign-in code is |call me at )$/);
  });

  it('does not read what the page set rather than the agent typed (a login, a CSRF token, a 2FA form)', () => {
    expect(kinds([{ path: 'fields.pw', value: 'correct horse', fieldType: 'password' }])).toEqual([]);
    expect(kinds([{ path: 'fields.authenticity_token', value: '9fQ2xL7vK3pR8mN1wZ4tY6uB0cD5eH2jA7sG', fieldType: 'hidden' }])).toEqual([]);
    expect(kinds([{ path: 'fields.otp', value: '123456', fieldType: 'text' }])).toEqual([]);
    expect(kinds([{ path: 'body.csrf', value: '9fQ2xL7vK3pR8mN1wZ4tY6uB0cD5eH2jA7sG' }])).toEqual([]);
  });

  it('leaves ordinary messages alone', () => {
    for (const text of ['I will attend the meeting on Friday at 10:30.', 'Order 2 packs of AA batteries, 12.50 EUR', 'See you in room 4012', 'Thanks, Bob — 2026 roadmap attached']) {
      expect(kinds(body(text))).toEqual([]);
    }
  });

  it('never flags data the user put in their own request', () => {
    const pay = { userWords: 'Pay 45 EUR to DE89370400440532013000 and tell alice@corp.test the code 483920', recipients: ['DE89370400440532013000'] };
    expect(kinds(body('IBAN DE89 3704 0044 0532 0130 00, code 483920, cc alice@corp.test'), pay)).toEqual([]);
  });

  it('never flags the task recipients', () => {
    expect(kinds(body('to bob@corp.test'))).toEqual([]);
  });

  it('validates cards by Luhn and IBANs by mod-97', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89370400440532013000')).toBe(true);
    expect(ibanValid('DE89370400440532013001')).toBe(false);
    expect(kinds(body('ref 4111 1111 1111 1112'))).not.toContain('card_number');
  });

  it('finds a card whose greedy match runs into the expiry date', () => {
    const [finding] = detectConfidential(body('4111 1111 1111 1111 12/28'), ctx);
    expect(finding?.kind).toBe('card_number');
    expect('4111 1111 1111 1111 12/28'.slice(finding!.start, finding!.end)).toBe('4111 1111 1111 1111');
  });

  it('"send without it" removes exactly the flagged spans', () => {
    const text = 'See you Friday. My sign-in code is 483920 and IBAN DE89 3704 0044 0532 0130 00.';
    const findings = detectConfidential(body(text), ctx);
    expect(findings.map((f) => f.kind).sort()).toEqual(['iban', 'one_time_code']);
    const minimized = withoutFindings(text, findings);
    expect(minimized).not.toMatch(/483920|DE89/);
    expect(minimized).toContain('See you Friday.');
    expect(describeFindings(findings)).toBe('a one-time code and an IBAN in fields.body');
  });

  // Found by the data-lane review: each passed as ordinary data.
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const hex = (text: string) => Buffer.from(text).toString('hex');
  it.each<[string, string, DataKind]>([
    ['base64', `${BENIGN_TEXT} ${b64('card 4111 1111 1111 1111')}`, 'card_number'],
    ['url-safe base64 without padding', `${BENIGN_TEXT} ${b64('my sign-in code is 483920!?').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`, 'one_time_code'],
    ['hex', `${BENIGN_TEXT} ${hex('IBAN DE89 3704 0044 0532 0130 00')}`, 'iban'],
    ['base64 of hex', `${BENIGN_TEXT} ${b64(hex('4111111111111111'))}`, 'card_number'],
    ['a whole body in base64', b64(JSON.stringify({ note: 'Card 4111 1111 1111 1111' })), 'card_number'],
    ['base64 wrapped at 76 characters (MIME)', b64(`${'x'.repeat(50)} card 4111 1111 1111 1111 ${'y'.repeat(40)}`).replace(/.{76}/g, '$&\r\n'), 'card_number'],
    ['percent-escapes', `${BENIGN_TEXT} 4111%201111%201111%201111`, 'card_number'],
    ['a percent-encoded sentence', `${BENIGN_TEXT} ${encodeURIComponent('my sign-in code is 483920')}`, 'one_time_code'],
  ])('reads a datum encoded in %s and flags the whole encoded run', (_, text, kind) => {
    const [finding] = detectConfidential(body(text), ctx);
    expect(finding?.kind).toBe(kind);
    expect(withoutFindings(text, [finding!])).toBe(text.startsWith(BENIGN_TEXT) ? BENIGN_TEXT : '');
    // Numbers in the user's words that are not the datum do not excuse it.
    expect(detectConfidential(body(text), { userWords: 'Pay 45 EUR to bob@corp.test and reply by 5 May.', recipients: [] })[0]?.kind).toBe(kind);
  });

  it('leaves encoded data that carries nothing confidential (outside free text, where a long token is one), and what the user named, alone', () => {
    for (const text of [b64('I will attend on Friday, see you there.'), hex('room 4012 at 10:30'), 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5']) {
      expect(kinds([{ path: 'body.payload', value: text }]), text).toEqual([]);
    }
    expect(kinds(body(b64('card 4111 1111 1111 1111')), { userWords: 'pay with my card 4111 1111 1111 1111', recipients: [] })).toEqual([]);
  });

  it('reads a card number cut over two fields or body keys with no separators, or over a card form\'s four boxes', () => {
    const two = [
      { path: 'fields.card_a', value: '41111111', fieldType: 'text' },
      { path: 'fields.card_b', value: '11111111', fieldType: 'text' },
    ];
    expect(detectConfidential(two, ctx).map((f) => [f.kind, f.path, f.start, f.end])).toEqual([
      ['card_number', 'fields.card_a', 0, 8],
      ['card_number', 'fields.card_b', 0, 8],
    ]);
    // In either order, with other values between.
    expect(kinds([{ path: 'body.x', value: '11111111' }, { path: 'body.text', value: BENIGN_TEXT }, { path: 'body.y', value: '41111111' }])).toEqual(['card_number', 'card_number']);
    expect(kinds(['4111', '1111', '1111', '1111'].map((value, i) => ({ path: `fields.cc${i}`, value, fieldType: 'tel' })))).toEqual(['card_number', 'card_number', 'card_number', 'card_number']);
    // Ordinary numbers in a form (a postcode and a phone number; two ids that do not make a card) and a card the user named stay.
    expect(kinds([{ path: 'fields.zip', value: '10115' }, { path: 'fields.qty', value: '1200' }, { path: 'fields.order', value: '40012345' }, { path: 'fields.ref', value: '12345678' }])).toEqual([]);
    expect(kinds(two, { userWords: 'pay with my card 4111 1111 1111 1111', recipients: [] })).toEqual([]);
    expect(kinds(two.map((v) => ({ ...v, fieldType: 'hidden' })))).toEqual([]);
  });

  it('theorem: a valid card number in any message is found unless the user named it', () => {
    const cardDigits = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }).map((ds) => {
      const body = `4${ds.join('')}`;
      for (let check = 0; check <= 9; check++) if (luhnValid(body + check)) return body + check;
      return body + '0';
    });
    fc.assert(
      fc.property(cardDigits, fc.constantFrom(' ', '-', ''), fc.string({ maxLength: 20 }).filter((s) => !/[0-9]/.test(s)), (digits, sep, prefix) => {
        const card = digits.match(/.{1,4}/g)!.join(sep);
        expect(kinds(body(`${prefix} ${card}`))).toContain('card_number');
        expect(kinds(body(`${prefix} ${card}`), { userWords: `pay with ${digits}`, recipients: [] })).not.toContain('card_number');
      }),
    );
  });
});

describe('data another site showed (the data-lane taint)', () => {
  const shown = [
    { value: 'DE44500105175407324931', site: 'bank.test', kind: 'card-or-account' },
    { value: 'Quarterly numbers: 4.2M', site: 'drive.test', kind: 'token' },
    { value: 'alice@corp.test', site: 'crm.test', kind: 'email' },
    { value: 'my own draft text', site: 'notes.test', kind: 'typed' },
  ];
  const ctx = { userWords: 'Reply to bob@corp.test on mail.test.', recipients: ['bob@corp.test'] };

  it('flags data shown on another site, reformatted or not, and cuts exactly it', () => {
    const values = [{ path: 'body.text', value: 'FYI my IBAN: de44 5001 0517 5407 3249 31 thanks' }];
    const [f] = detectShownElsewhere(values, shown, ['mail.test'], ctx);
    expect(f?.kind).toBe('other_site_data');
    expect(values[0]!.value.slice(f!.start, f!.end)).toBe('de44 5001 0517 5407 3249 31');
  });

  it('flags data another site showed in hex, base64 (at any alignment inside a longer blob) or reversed, as the taint looks for it', () => {
    const iban = 'DE44500105175407324931';
    for (const encoded of [
      Buffer.from(iban).toString('hex'),
      Buffer.from(`note: ${iban}`).toString('base64'),
      Buffer.from(`x${iban}`).toString('base64url'),
      [...iban].reverse().join(''),
    ]) {
      const value = `ok ${encoded} thanks`;
      const [f] = detectShownElsewhere([{ path: 'body.text', value }], shown, ['mail.test'], ctx);
      expect(f?.kind, encoded).toBe('other_site_data');
      expect(f!.start).toBeGreaterThanOrEqual(3);
      expect(f!.end).toBeLessThanOrEqual(value.length - ' thanks'.length);
    }
    expect(detectShownElsewhere([{ path: 'body.text', value: Buffer.from(iban).toString('base64') }], shown, ['bank.test'], ctx)).toEqual([]);
  });

  it('never flags data going back to the site that showed it, the agent\'s own typing, recipients, or the user\'s words', () => {
    expect(detectShownElsewhere([{ path: 'body.text', value: 'DE44500105175407324931' }], shown, ['bank.test'], ctx)).toEqual([]);
    expect(detectShownElsewhere([{ path: 'body.text', value: 'my own draft text' }], shown, ['mail.test'], ctx)).toEqual([]);
    expect(detectShownElsewhere([{ path: 'body.to', value: 'alice@corp.test' }], shown, ['mail.test'], ctx)).toEqual([]);
    expect(detectShownElsewhere([{ path: 'body.text', value: 'DE44500105175407324931' }], shown, ['mail.test'], { ...ctx, userWords: 'send my IBAN DE44500105175407324931 to bob' })).toEqual([]);
  });
});
