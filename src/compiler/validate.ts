import { PolicyDraftSchema, type PolicyDraft } from './draft';

export type DraftValidation = { ok: true; draft: PolicyDraft } | { ok: false; error: string };

/** A model's answer may come wrapped in a ```json fence; nothing else is tolerated. */
function jsonText(raw: string): string {
  const trimmed = raw.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*)\n```$/i.exec(trimmed);
  return fenced ? fenced[1]! : trimmed;
}

/** Step 3b: parse and validate a draft (a JSON string or a value) against the strict zod schema. */
export function validateDraft(raw: unknown): DraftValidation {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { ok: false, error: 'empty output' };
    try {
      value = JSON.parse(jsonText(raw));
    } catch {
      return { ok: false, error: 'output is not JSON' };
    }
  }
  const parsed = PolicyDraftSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return { ok: false, error: `draft invalid at ${where}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, draft: parsed.data };
}
