import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { NUM_RUNS } from '../support/arbitraries';
import { makePolicy } from '../support/policy';

/**
 * Theorems of the private-network rule over generated address spellings: whatever form of a private
 * IPv4 address a page or an injected instruction writes, the evaluator sees the address the browser
 * connects to.
 */

const params = { numRuns: NUM_RUNS };

/** Private IPv4 ranges as [first octets, prefix length]. */
const RANGES: [number[], number][] = [
  [[127], 8],
  [[10], 8],
  [[172, 16], 12],
  [[192, 168], 16],
  [[169, 254], 16],
  [[100, 64], 10],
  [[0], 8],
];

const privateV4 = fc.tuple(fc.constantFrom(...RANGES), fc.integer({ min: 0, max: 2 ** 32 - 1 })).map(([[octets, prefix], noise]) => {
  const base = octets.reduce((n, o, i) => n + o * 2 ** (24 - 8 * i), 0);
  const hostBits = 2 ** (32 - prefix);
  return base + (noise % hostBits);
});

type Radix = 'dec' | 'hex' | 'oct';
const radixArb = fc.constantFrom<Radix>('dec', 'hex', 'oct');
function inRadix(n: number, radix: Radix, upper: boolean): string {
  if (radix === 'hex') return `${upper ? '0X' : '0x'}${n.toString(16)}`;
  if (radix === 'oct') return `0${n.toString(8)}`;
  return String(n);
}

/** A spelling the WHATWG parser reads as the IPv4 address `n`: 1 to 4 parts, each in any radix. */
const spelling = (n: number) =>
  fc.record({ parts: fc.integer({ min: 1, max: 4 }), radixes: fc.array(radixArb, { minLength: 4, maxLength: 4 }), upper: fc.boolean(), dots: fc.constantFrom('.', '\u3002', '\uff0e', '%2e'), percent: fc.boolean() }).map(({ parts, radixes, upper, dots, percent }) => {
    const o = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
    // The last part holds the remaining bytes (`127.1`, `10.0x10203`).
    const head = o.slice(0, parts - 1);
    const tail = o.slice(parts - 1).reduce((acc, b) => acc * 256 + b, 0);
    const encode = (part: string) => (percent ? [...part].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('') : part);
    return [...head, tail].map((v, i) => encode(inRadix(v, radixes[i]!, upper))).join(dots);
  });

const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const spelledAddress = privateV4.chain((n) => fc.tuple(fc.constant(n), spelling(n), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined })));
const urlOf = (host: string, port: number | undefined, path = '/admin') => `http://${host}${port === undefined ? '' : `:${port}`}${path}`;

const OPEN_WEB = makePolicy({ domains: null });
const WRITES_ALLOWED = makePolicy({ domains: null, ceilings: { EXTERNAL_WRITE: 'allow', COMMUNICATION: 'allow' }, allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE', 'COMMUNICATION'] } });
const decide = (p: TaskPolicy, call: unknown) => evaluate(p, initialState(), call, 1_000).record;
const navigate = (url: string) => ({ tool: 'browser.navigate', args: { url } });
const dataBearing = fc.constantFrom(
  (url: string) => ({ tool: 'browser.request', args: { url, method: 'POST', kind: 'fetch', body: { note: 'x' } } }),
  (url: string) => ({ tool: 'browser.request', args: { url, method: 'GET', kind: 'beacon' } }),
  (url: string) => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields: { to: 'bob@corp.test', body: 'hi' } } }),
  (url: string) => ({ tool: 'browser.request', args: { url, method: 'GET', kind: 'websocket' } }),
);

describe('theorems of the private-network rule', () => {
  it('every spelling of a private IPv4 address is that address (the WHATWG parser canonicalises it)', () => {
    fc.assert(
      fc.property(spelledAddress, ([n, host]) => {
        expect(new URL(`http://${host}/`).hostname).toBe(dotted(n));
      }),
      params,
    );
  });

  it('a read of a private address the task does not name asks, whatever its spelling', () => {
    fc.assert(
      fc.property(spelledAddress, ([, host, port]) => {
        expect(decide(OPEN_WEB, navigate(urlOf(host, port)))).toMatchObject({ decision: 'ASK_USER', check: 'private_network' });
      }),
      params,
    );
  });

  it('a data-bearing action to a private address the task does not name is never allowed, even where the class is', () => {
    fc.assert(
      fc.property(spelledAddress, dataBearing, fc.constantFrom(OPEN_WEB, WRITES_ALLOWED), ([, host, port], make, policy) => {
        expect(decide(policy, make(urlOf(host, port, '/api')))).toMatchObject({ decision: 'BLOCK', check: 'private_network' });
      }),
      params,
    );
  });

  it('naming the canonical address and port lets reads of every spelling of it through, at that port only', () => {
    fc.assert(
      fc.property(spelledAddress, fc.integer({ min: 1, max: 65535 }), ([n, host, port], other) => {
        const at = port ?? 80;
        const named = makePolicy({ domains: [`${dotted(n)}:${at}`] });
        expect(decide(named, navigate(urlOf(host, port)))).toMatchObject({ decision: 'ALLOW', check: 'allowed' });
        fc.pre(other !== at);
        expect(decide(named, navigate(urlOf(host, other)))).toMatchObject({ decision: 'ASK_USER', check: 'private_network' });
      }),
      params,
    );
  });

  it('naming the address without a port names its default ports only', () => {
    fc.assert(
      fc.property(spelledAddress, ([n, host, port]) => {
        const named = makePolicy({ domains: [dotted(n)] });
        const expected = port === undefined || port === 80 ? 'ALLOW' : 'ASK_USER';
        expect(decide(named, navigate(urlOf(host, port))).decision).toBe(expected);
        expect(decide(named, navigate(`https://${host}/`)).decision).toBe('ALLOW');
      }),
      params,
    );
  });

  it('naming one private address never names another', () => {
    fc.assert(
      fc.property(spelledAddress, privateV4, ([n, host, port], other) => {
        fc.pre(other !== n);
        const named = makePolicy({ domains: [dotted(other)] });
        expect(decide(named, navigate(urlOf(host, port))).decision).not.toBe('ALLOW');
      }),
      params,
    );
  });
});
