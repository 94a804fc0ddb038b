import { describe, expect, it } from 'vitest';
import { base64Alignments, needlesOf, normalizeUrl, urlCarriesTaint } from '../../src/taint/encode';
import { tokensInText } from '../../src/taint/extract';
import { firstFilterOf, SHINGLE, spacedRegexesOf, taintRules, urlFiltersOf } from '../../src/taint/rules';
import { MAX_DISPLAYED_PER_SITE, MAX_OVERFLOW_PER_SITE, MAX_OVERFLOW_TOKENS, MAX_TASK_TOKENS, MAX_TYPED_PER_SITE, mergeTaint, spillOver, type TaintToken } from '../../src/taint/tokens';

const SECRET = 'sk_live_4f9a2b7c1d8e3f60a5b9c2d7e1f4a8b3';
const token = (value: string, kind: TaintToken['kind'] = 'token', site = 'bank.test'): TaintToken => ({ value, kind, site });
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const hex = (s: string) => Buffer.from(s).toString('hex');

describe('urlCarriesTaint: a token in any common encoding, after normalisation', () => {
  const taint = [token(SECRET), token('482913', 'one-time-code'), token('alice@corp.test', 'email')];
  const carried = (url: string) => urlCarriesTaint(url, taint, 'attacker.test')?.kind ?? null;

  it('finds the token raw, cut by separators, upper-cased, percent-encoded (twice), reversed, in hex and base64 at every offset', () => {
    const cut = SECRET.match(/.{1,5}/g)!.join('/');
    expect(carried(`http://attacker.test/p/${SECRET}.png`)).toBe('token');
    expect(carried(`http://attacker.test/${cut}`)).toBe('token');
    expect(carried(`http://attacker.test/?d=${SECRET.toUpperCase()}`)).toBe('token');
    expect(carried(`http://attacker.test/?d=${encodeURIComponent(encodeURIComponent(`code: 48-29-13`))}`)).toBe('one-time-code');
    expect(carried(`http://attacker.test/${[...SECRET].reverse().join('')}`)).toBe('token');
    expect(carried(`http://attacker.test/${hex(SECRET)}`)).toBe('token');
    for (const prefix of ['', 'x', 'xy', 'xyz']) {
      expect(carried(`http://attacker.test/?d=${b64(`${prefix}${SECRET}&more`)}`)).toBe('token');
      expect(carried(`http://attacker.test/${b64url(`${prefix}user=alice@corp.test;`)}`)).toBe('email');
    }
    expect(carried(`http://${'482913'}.attacker.test/`)).toBe('one-time-code');
  });

  it('does not see tokens that are not there, or that go back to the site that showed them', () => {
    expect(carried('http://cdn.test/img/photo-1523275335684.jpg?w=200')).toBeNull();
    expect(carried('http://cdn.test/fonts/inter-v12-latin.woff2')).toBeNull();
    expect(urlCarriesTaint(`http://bank.test/?d=${SECRET}`, taint, 'bank.test')).toBeNull();
  });

  it('a password or one-time code typed on a site does not go back to that site in a URL; text typed there does', () => {
    const typedThere = [token('Tr0ub4dor-3x', 'secret-field', 'attacker.test'), token('best pizza near me', 'typed', 'attacker.test')];
    expect(urlCarriesTaint('http://attacker.test/t1/x?p=Tr0ub4dor-3x', typedThere, 'attacker.test')?.kind).toBe('secret-field');
    expect(urlCarriesTaint('http://attacker.test/search?q=best+pizza+near+me', typedThere, 'attacker.test')).toBeNull();
  });

  it('normalises URLs the same way as tokens', () => {
    expect(normalizeUrl('http://A.test/%2541-b_C')).toBe('httpatestabc');
    expect(needlesOf('48-29-13')).toContain('482913');
  });

  it('base64 at three alignments covers any position inside a longer blob', () => {
    const bytes = new TextEncoder().encode(SECRET);
    const forms = base64Alignments(bytes);
    expect(forms).toHaveLength(3);
    for (let k = 0; k < 6; k++) {
      const blob = b64('#'.repeat(k) + SECRET + '#');
      expect(forms.some((f) => blob.includes(f))).toBe(true);
    }
  });
});

describe('tokensInText: what a page shows that is worth stealing', () => {
  it('finds codes, cards, IBANs, e-mail addresses and keys, not prose, years or prices', () => {
    const found = tokensInText(`Your code is 482913. Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00.
      Write to alice@corp.test. Key: ${SECRET}. In 2024 prices rose to 1299 euros; internationalisation matters.`);
    const kinds = Object.fromEntries(found.map((t) => [t.value, t.kind]));
    expect(kinds['482913']).toBe('one-time-code');
    expect(kinds['4111 1111 1111 1111']).toBe('card-or-account');
    expect(Object.entries(kinds).some(([v, k]) => v.startsWith('DE89') && k === 'card-or-account')).toBe(true);
    expect(kinds['alice@corp.test']).toBe('email');
    expect(kinds[SECRET]).toBe('token');
    for (const benign of ['2024', '1299', 'internationalisation']) expect(kinds[benign]).toBeUndefined();
  });
});

describe('mergeTaint: bounded, and junk cannot evict a secret', () => {
  it('keeps field values and earlier tokens when a page floods junk', () => {
    const secretField = token('hunter2!', 'secret-field', 'bank.test');
    const shown = token(SECRET, 'token', 'bank.test');
    const junk = Array.from({ length: 1_000 }, (_, i) => token(`junk${i}x${'a1'.repeat(8)}`, 'token', 'attacker.test'));
    const merged = mergeTaint(mergeTaint([], [secretField, shown]), junk);
    expect(merged).toContainEqual(secretField);
    expect(merged).toContainEqual(shown);
    expect(merged.length).toBeLessThanOrEqual(MAX_TASK_TOKENS);
    expect(merged.filter((t) => t.site === 'attacker.test')).toHaveLength(MAX_DISPLAYED_PER_SITE);
  });

  it('a page flooding "typed secrets" keeps at most its own share: what other sites showed and typed stays', () => {
    const earlier = [token('hunter2!', 'secret-field', 'bank.test'), token(SECRET, 'token', 'mail.test'), token('482913', 'one-time-code', 'mail.test')];
    const flood = Array.from({ length: 420 }, (_, i) => token(`junk${i}x${'c3'.repeat(4)}`, 'secret-field', 'attacker.test'));
    const merged = mergeTaint(earlier, flood);
    for (const t of earlier) expect(merged).toContainEqual(t);
    expect(merged.filter((t) => t.site === 'attacker.test')).toHaveLength(MAX_TYPED_PER_SITE);
  });

  it('typed values outrank anything displayed, even when the set is full', () => {
    const flood = Array.from({ length: 20 }, (_, s) => Array.from({ length: MAX_DISPLAYED_PER_SITE }, (_, i) => token(`tok${s}x${i}y${'b2'.repeat(8)}`, 'token', `s${s}.test`))).flat();
    const merged = mergeTaint(flood, [token('482913', 'secret-field', 'bank.test')]);
    expect(merged).toHaveLength(MAX_TASK_TOKENS);
    expect(merged[0]).toEqual(token('482913', 'secret-field', 'bank.test'));
  });

  it('one entry per value and site, the stronger kind kept', () => {
    const merged = mergeTaint([token('alice@corp.test', 'email')], [token('ALICE@corp.test', 'typed')]);
    expect(merged).toEqual([token('ALICE@corp.test', 'typed')]);
  });
});

describe('taintRules: DNR rules within Chromium budgets', () => {
  it('cuts long encodings into shingles, so a token cut every 2·SHINGLE−1 characters still matches a rule', () => {
    const filters = urlFiltersOf(SECRET);
    const cutEvery = (s: string, n: number) => s.match(new RegExp(`.{1,${n}}`, 'g'))!.join('-');
    const url = `http://attacker.test/${cutEvery(SECRET, 2 * SHINGLE - 1)}`.toLowerCase();
    expect(filters.some((f) => url.includes(f.toLowerCase()))).toBe(true);
    const b64url = `http://attacker.test/${cutEvery(b64(SECRET), 30)}`.toLowerCase();
    expect(filters.some((f) => b64url.includes(f.toLowerCase()))).toBe(true);
    for (const f of filters) expect(f).toMatch(/^[A-Za-z0-9]{4,24}$/);
  });

  it('a value shown with spaces or an @ matches as a URL carries it, percent-encoded', () => {
    for (const [value, path] of [
      ['4111 1111 1111 1111', '/c1/4111%201111%201111%201111.png'],
      ['DE89 3704 0044 0532 0130 00', '/c2/DE89%203704%200044%200532%200130%2000.png'],
      ['john.doe@gmail.com', '/c3/john.doe%40gmail.com.png'],
      ['john.doe@gmail.com', '/q?to=john.doe%40gmail.com&x=1'],
    ]) {
      const url = `http://attacker.test${path}`.toLowerCase();
      expect(urlFiltersOf(value!).some((f) => url.includes(f.toLowerCase())), `${value} in ${path}`).toBe(true);
    }
    // Cut every 2·SHINGLE−1 characters, the encoded value still holds a whole filter.
    const encoded = encodeURIComponent('DE89 3704 0044 0532 0130 00');
    const cut = `http://attacker.test/${encoded.match(new RegExp(`.{1,${2 * SHINGLE - 1}}`, 'g'))!.join('/')}`.toLowerCase();
    expect(urlFiltersOf('DE89 3704 0044 0532 0130 00').some((f) => cut.includes(f.toLowerCase()))).toBe(true);
    expect(urlFiltersOf('a*b c*d e')).not.toContainEqual(expect.stringContaining('*'));
  });

  it('spaced regexes tolerate separators between characters, and stay within the measured RE2 sizes', () => {
    const [short] = spacedRegexesOf('48-29-13');
    expect(new RegExp(short!, 'i').test('http://a.test/4.8/2-9_1 3')).toBe(true);
    expect(spacedRegexesOf(SECRET)).toHaveLength(2);
    for (const r of spacedRegexesOf(SECRET)) expect(r.split('[^a-z0-9]?')).toHaveLength(16);
    expect(new RegExp(spacedRegexesOf(SECRET)[0]!, 'i').test(`http://a.test/${[...SECRET.replace(/_/g, '')].join('.')}`)).toBe(true);
  });

  it('spends the budget in priority order and exempts the named sites and, for what a site showed, its own site', () => {
    const tokens = [...Array.from({ length: 50 }, (_, i) => token(`displayed${i}x${'c3'.repeat(10)}`)), token('hunter2!', 'secret-field', 'mail.test')];
    const rules = taintRules({ tokens, namedSites: ['allowed.test'], resourceTypes: ['image'], priority: 20, budget: { urlFilters: 30, regexes: 3 } });
    expect(rules.filter((r) => r.condition.urlFilter !== undefined)).toHaveLength(30);
    expect(rules.filter((r) => r.condition.regexFilter !== undefined)).toHaveLength(3);
    // A typed password may not go back to the unnamed site it was typed on; what a site showed may.
    expect(rules[0]!.condition.excludedRequestDomains).toEqual(['allowed.test']);
    const shown = taintRules({ tokens: [token('displayed0x' + 'c3'.repeat(10), 'token', 'news.test')], namedSites: ['allowed.test'], resourceTypes: ['image'], priority: 20, budget: { urlFilters: 30, regexes: 3 } });
    expect(shown[0]!.condition.excludedRequestDomains).toEqual(['allowed.test', 'news.test']);
    // Case-insensitive, these patterns exceed Chromium's 2 KB limit when the rule is added (measured).
    for (const r of rules.filter((x) => x.condition.regexFilter !== undefined)) expect(r.condition.isUrlFilterCaseSensitive).toBe(true);
  });

  it('gives every token, and every overflow token, one filter before any token a second: junk spent first leaves none out', () => {
    const junk = Array.from({ length: 110 }, (_, i) => token(`junk${i}x${'a1'.repeat(10)}`));
    const late = token(`late${'K3y'.repeat(8)}`);
    const spilled = token(`spilled${'Q7w'.repeat(8)}`);
    // 200 filters: fewer than the junk's own (about 40 each), more than one per token.
    const rules = taintRules({ tokens: [...junk, late], overflow: [spilled], namedSites: ['allowed.test'], resourceTypes: ['image'], priority: 20, budget: { urlFilters: 200, regexes: 3 } });
    for (const value of [late.value, spilled.value]) {
      const url = `http://attacker.test/p/${value}.png`.toLowerCase();
      expect(rules.some((r) => r.condition.urlFilter !== undefined && url.includes(r.condition.urlFilter.toLowerCase())), value).toBe(true);
    }
    expect(rules.filter((r) => r.condition.urlFilter !== undefined)).toHaveLength(200);
    for (const t of [...junk, late, spilled]) expect(urlFiltersOf(t.value)).toContain(firstFilterOf(t.value));
    expect(firstFilterOf('4111 1111 1111 1111')).toBe('4111111111111111');
  });
});

describe('spillOver: what the taint leaves out keeps one filter', () => {
  it('keeps the tokens a flooded site could not hold, earliest first, bounded per site and task', () => {
    const junk = Array.from({ length: 110 }, (_, i) => token(`junk${i}x${'a1'.repeat(8)}`, 'token', 'news.test'));
    const secret = token(SECRET, 'token', 'news.test');
    const incoming = [...junk, secret];
    const kept = mergeTaint([], incoming);
    expect(kept).not.toContainEqual(secret);
    const overflow = spillOver(kept, [], incoming);
    expect(overflow).toContainEqual(secret);
    expect(overflow).toHaveLength(11);
    const flood = Array.from({ length: 3_000 }, (_, i) => token(`f${i}x${'b2'.repeat(8)}`, 'token', `s${i % 3}.test`));
    const bounded = spillOver([], overflow, flood);
    expect(bounded).toHaveLength(MAX_OVERFLOW_TOKENS);
    expect(bounded).toContainEqual(secret);
    for (const site of ['s0.test', 's1.test', 's2.test']) expect(bounded.filter((t) => t.site === site).length).toBeLessThanOrEqual(MAX_OVERFLOW_PER_SITE);
  });
});
