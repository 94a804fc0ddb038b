import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from '../../src/core/zod';
import { CheckSchema, DecisionSchema } from '../../src/core/decision';
import { evaluate } from '../../src/tools';
import { OrgFloorSchema } from '../../src/core/org';
import { initialState } from '../../src/core/policy';
import { RuleRefSchema } from '../../src/core/ruleRef';
import { makePolicy } from '../support/policy';

/**
 * The conformance corpus: tests/corpus/*.json, each an array of cases
 * `{description, policy, calls, expected: [{decision, check, ruleRef?, recipients?}], now?}`. Extend it
 * without writing code. `ruleRef`, when given, is the rule that must have decided (see core/ruleRef.ts);
 * `recipients`, when given, are the recipients the decision record must name (what an ask shows).
 * `policy` may omit version/taskId/issuedAt/expiresAt; calls are evaluated in order with σ carried.
 * `org`, when given, is the organisation's floor (core/org.ts) every call is evaluated under.
 */
const CaseSchema = z
  .strictObject({
    description: z.string().check(z.minLength(1)),
    policy: z.record(z.string(), z.unknown()),
    calls: z.array(z.unknown()).check(z.minLength(1)),
    expected: z
      .array(z.strictObject({ decision: DecisionSchema, check: CheckSchema, ruleRef: z.optional(RuleRefSchema), recipients: z.optional(z.array(z.string())) }))
      .check(z.minLength(1)),
    now: z.optional(z.number()),
    org: z.optional(OrgFloorSchema),
  })
  .check(z.refine((c) => c.calls.length === c.expected.length, { message: 'one expected entry per call' }));

const dir = join(import.meta.dirname, '..', 'corpus');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const cases = files.flatMap((file) =>
  z.array(CaseSchema).parse(JSON.parse(readFileSync(join(dir, file), 'utf8'))).map((c) => ({ file, ...c })),
);

describe('conformance corpus', () => {
  it('holds at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });
  it.each(cases.map((c) => [`${c.file}: ${c.description}`, c] as const))('%s', (_name, c) => {
    const policy = makePolicy(c.policy);
    let state = initialState();
    c.calls.forEach((call, i) => {
      const { record, state: next } = evaluate(policy, state, call, c.now ?? 1_000, c.org ?? null);
      state = next;
      const wanted = c.expected[i];
      const seen = {
        call: i,
        decision: record.decision,
        check: record.check,
        ...(wanted?.ruleRef !== undefined ? { ruleRef: record.ruleRef } : {}),
        ...(wanted?.recipients ? { recipients: record.targets.recipients } : {}),
      };
      expect(seen, record.reason).toEqual({ call: i, ...wanted });
    });
  });
});
