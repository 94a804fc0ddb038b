import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BODY_VIEW_LIMIT, FieldCollector, formEncodedView, textBodyView } from './body';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 1000);

function viewSize(view: unknown): number {
  if (typeof view === 'string') return view.length;
  return Object.entries(view as Record<string, string | string[]>).reduce(
    (sum, [name, value]) => sum + name.length * (Array.isArray(value) ? value.length : 1) + (Array.isArray(value) ? value.join('').length : value.length),
    0,
  );
}

describe('textBodyView', () => {
  it('parses a JSON body into an object, so recipients in it are visible', () => {
    expect(textBodyView('{"to":"eve@x.test","amount":5}', 'application/json')).toEqual({ to: 'eve@x.test', amount: 5 });
  });

  it('parses JSON even when the content type hides it', () => {
    expect(textBodyView(' [1,{"to":"a@b.test"}]', 'text/plain;charset=UTF-8')).toEqual([1, { to: 'a@b.test' }]);
  });

  it('reads a body labelled as a form as the server does, even when it looks like JSON', () => {
    // Cascade finding: the JSON reading named bob, the server's form reading names the archive.
    const view = textBodyView('{"to":"bob@corp.test","x":"&to=archive@attacker.test"}', 'application/x-www-form-urlencoded');
    expect(view).toEqual({ '{"to":"bob@corp.test","x":"': '', to: 'archive@attacker.test"}' });
  });

  it('keeps text that only looks like JSON as text', () => {
    expect(textBodyView('{not json', 'application/json')).toBe('{not json');
  });

  it('turns a form-encoded body into fields, repeated names into arrays', () => {
    expect(textBodyView('to=a%40b.test&to=c%40d.test&note=hi+there', 'application/x-www-form-urlencoded')).toEqual({
      to: ['a@b.test', 'c@d.test'],
      note: 'hi there',
    });
  });

  it('never parses the prefix of an over-long JSON body: a cut document is not the document', () => {
    const big = JSON.stringify({ pad: 'x'.repeat(BODY_VIEW_LIMIT), to: 'eve@x.test' });
    const view = textBodyView(big, 'application/json');
    expect(typeof view).toBe('string');
    expect((view as string).length).toBe(BODY_VIEW_LIMIT);
  });

  it('returns plain text cut to the limit', () => {
    expect(textBodyView('hello', null)).toBe('hello');
  });

  it('is bounded by the limit for any text and content type', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: BODY_VIEW_LIMIT * 2 }), fc.constantFrom(null, 'text/plain', 'application/x-www-form-urlencoded'), (text, type) => {
        const view = textBodyView(text, type);
        if (typeof view === 'string' || type === 'application/x-www-form-urlencoded') expect(viewSize(view)).toBeLessThanOrEqual(BODY_VIEW_LIMIT);
      }),
      { numRuns: Math.min(numRuns, 200) },
    );
  });
});

describe('FieldCollector', () => {
  it('stops at the limit and says it truncated', () => {
    const collector = new FieldCollector();
    collector.add('a', 'x'.repeat(BODY_VIEW_LIMIT));
    collector.add('b', 'y');
    expect(collector.truncated).toBe(true);
    expect(collector.fields.b).toBeUndefined();
    expect(viewSize(collector.fields)).toBeLessThanOrEqual(BODY_VIEW_LIMIT);
  });

  it('has no prototype, so a field named like an Object method is just a field', () => {
    const fields = formEncodedView('__proto__=x&constructor=y&toString=z');
    expect(Object.getPrototypeOf(fields)).toBeNull();
    expect(Object.entries(fields)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['toString', 'z'],
    ]);
  });

  it('keeps every pair while under the limit', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 16 })), { maxLength: 40 }), (pairs) => {
        const collector = new FieldCollector();
        for (const [name, value] of pairs) collector.add(name, value);
        const kept = Object.values(collector.fields).reduce((n, v) => n + (Array.isArray(v) ? v.length : 1), 0);
        expect(kept).toBe(pairs.length);
        expect(collector.truncated).toBe(false);
      }),
      { numRuns },
    );
  });
});
