import { describe, expect, it } from 'vitest';
import { emptyDraft, policyDraftJsonSchema } from '../../src/compiler/draft';
import { validateDraft } from '../../src/compiler/validate';

describe('validateDraft', () => {
  it('accepts a strict draft, as JSON text (fenced or not) or as a value', () => {
    expect(validateDraft(JSON.stringify(emptyDraft()))).toEqual({ ok: true, draft: emptyDraft() });
    expect(validateDraft('```json\n' + JSON.stringify(emptyDraft()) + '\n```').ok).toBe(true);
    expect(validateDraft(emptyDraft()).ok).toBe(true);
  });

  it('rejects empty output, non-JSON, unknown keys, wrong types, unknown classes', () => {
    expect(validateDraft('')).toEqual({ ok: false, error: 'empty output' });
    expect(validateDraft('{"permissions": [')).toEqual({ ok: false, error: 'output is not JSON' });
    expect(validateDraft({ ...emptyDraft(), grantEverything: true }).ok).toBe(false);
    expect(validateDraft({ ...emptyDraft(), openWeb: 'yes' }).ok).toBe(false);
    const bad = validateDraft({ ...emptyDraft(), permissions: [{ riskClass: 'GOD_MODE', capability: null, tool: null, recipients: [], domains: [], paths: [], maxCalls: null, quote: 'x' }] });
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('permissions.0.riskClass') });
  });

  it('derives a strict JSON schema (every property required, no extra keys)', () => {
    const schema = policyDraftJsonSchema() as { additionalProperties: boolean; required: string[] };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(['openWeb', 'permissions', 'prohibitions', 'readDomains']);
    // Size limits stay in zod; strict endpoints often refuse them in the schema.
    expect(JSON.stringify(schema)).not.toMatch(/maxItems|maxLength|\$schema/);
  });
});
