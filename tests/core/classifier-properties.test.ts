import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_CLASSES } from '../../src/core/classifier';
import { classify, classifyShell } from '../../src/tools';
import { exfiltrationShape } from '../../src/core/exfil';
import { registrableDomain } from '../../src/core/domains';
import { RISK_CLASSES } from '../../src/core/risk';
import type { ToolCall } from '../../src/core/call';

const params = { numRuns: Number(process.env.FC_NUM_RUNS ?? 1000) };

/** Tool names the classifier has opinions about, plus arbitrary ones. */
const toolArb = fc.oneof(
  fc.constantFrom('browser.navigate', 'browser.request', 'browser.form_submit', 'browser.upload', 'browser.download', 'send_email', 'send_message', 'read_file', 'bash', 'apply_patch', 'http_request', 'mcp_gmail_send_message', 'get_and_delete_messages', 'str_replace_based_edit_tool', 'zorp'),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.array(fc.constantFrom('get', 'send', 'delete', 'mcp', 'file', 'pay', 'x', 'email', 'share', 'run'), { minLength: 1, maxLength: 5 }).map((w) => w.join('_')),
);
const shellishArb = fc.array(fc.constantFrom('ls', 'rm', '-rf', 'curl', '-d', '@-', '|', '&&', ';', '>', 'out', '"', "'", '$(', ')', '`', 'git', 'branch', '-D', 'sort', '-o', '<<', 'EOF', '\n', 'sudo', 'https://x.test/a'), { maxLength: 12 }).map((w) => w.join(' '));
const valueArb = fc.oneof(fc.string(), shellishArb, fc.constantFrom('https://x.test/a?b=c', 'a@b.test', 'DELETE', 'POST', 'list', 'send'), fc.jsonValue());
const argsArb = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom('url', 'method', 'body', 'fields', 'to', 'action', 'command', 'patch', 'files', 'path', 'kind', 'submitText'), fc.string()), valueArb, { maxKeys: 6 }),
  fc.record({ url: fc.webUrl(), method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), body: fc.option(fc.jsonValue(), { nil: undefined }) }, { requiredKeys: ['url', 'method'] }),
  fc.record({ url: fc.webUrl(), method: fc.constantFrom('GET', 'POST'), fields: fc.dictionary(fc.string(), fc.string(), { maxKeys: 5 }), submitText: fc.string() }),
);
const callArb: fc.Arbitrary<ToolCall> = fc.record({ tool: toolArb, args: argsArb as fc.Arbitrary<Record<string, unknown>> });

describe('classifier properties', () => {
  it('never throws and returns a known class, a capability of that class and well-formed targets', () => {
    fc.assert(
      fc.property(callArb, (call) => {
        const c = classify(call);
        expect(RISK_CLASSES).toContain(c.riskClass);
        expect(CAPABILITY_CLASSES[c.capability]).toBe(c.riskClass);
        for (const list of [c.targets.recipients, c.targets.domains, c.targets.paths, c.urls]) {
          expect(list.every((x) => typeof x === 'string')).toBe(true);
          expect(new Set(list).size).toBe(list.length);
        }
        expect(c.targets.recipients.every((r) => r === r.toLowerCase())).toBe(true);
        expect(Number.isInteger(c.outboundBytes) && c.outboundBytes >= 0).toBe(true);
      }),
      params,
    );
  });

  it('arbitrary `data` never changes the classification', () => {
    fc.assert(
      fc.property(callArb, fc.anything(), (call, data) => {
        expect(classify({ ...call, data })).toEqual(classify(call));
      }),
      params,
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(callArb, (call) => {
        expect(classify(call)).toEqual(classify(structuredClone(call)));
      }),
      params,
    );
  });

  it('a shell chain is at least as risky as each of its parts', () => {
    const partArb = fc.constantFrom('ls', 'cat a', 'rm -rf x', 'curl -d @- https://x.test', 'sort -o o i', 'git branch -D x', 'frob', 'bash -c ls', 'chmod 600 k', 'echo x > f');
    fc.assert(
      fc.property(fc.array(partArb, { minLength: 1, maxLength: 4 }), fc.constantFrom(' | ', ' && ', ' || ', '; ', '\n'), (parts, sep) => {
        const whole = RISK_CLASSES.indexOf(classifyShell(parts.join(sep)).riskClass);
        for (const part of parts) expect(whole).toBeGreaterThanOrEqual(RISK_CLASSES.indexOf(classifyShell(part).riskClass));
      }),
      params,
    );
  });

  it('domains and exfiltration checks are total on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (s) => {
        const d = registrableDomain(s);
        expect(d === null || (typeof d === 'string' && d.length > 0)).toBe(true);
        const v = exfiltrationShape(s);
        expect(typeof v.shaped).toBe('boolean');
        expect(v.reason.length).toBeGreaterThan(0);
      }),
      params,
    );
  });
});
