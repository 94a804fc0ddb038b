import { DEFAULT_BASE_URL } from '../llm/defaults';
import { OptionsSchema, type Options } from '../messages/protocol';

/** The options form as the person typed it: every field a string, exactly as in the inputs. */
export interface OptionsFields {
  backend: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  askTimeoutSeconds: string;
  guardScope: string;
  sanitizer: string;
  sanitizerModelBudget: string;
  minimizer: string;
  /** `yes` or `no`. */
  minimizeWithoutAsking: string;
}
export type OptionsField = keyof OptionsFields;

/** The OpenRouter backend's endpoint is the default endpoint (one definition, src/llm/defaults.ts). */
export const OPENROUTER_BASE_URL = DEFAULT_BASE_URL;

/** A clear message per field; the schema decides what is valid, these words say how to fix it. */
const FIELD_MESSAGES: Record<OptionsField, string> = {
  backend: 'Choose one of: offline rules, OpenRouter, OpenAI-compatible.',
  baseUrl: 'Enter a full URL such as https://openrouter.ai/api/v1 or http://127.0.0.1:11434/v1.',
  model: 'Enter a model name (1 to 200 characters), e.g. openai/gpt-4o-mini.',
  apiKey: 'The API key is at most 500 characters.',
  askTimeoutSeconds: 'Enter a whole number of seconds from 5 to 3600.',
  guardScope: 'Choose all tabs, or the task’s tab and the tabs it opens.',
  sanitizer: 'Choose off, hidden text (deterministic) or model review.',
  sanitizerModelBudget: 'Enter a whole number of model calls from 0 to 1000.',
  minimizer: 'Choose off, detect or model.',
  minimizeWithoutAsking: 'Choose yes or no.',
};

export function fieldsFromOptions(o: Options): OptionsFields {
  return {
    ...o,
    askTimeoutSeconds: String(o.askTimeoutSeconds),
    sanitizerModelBudget: String(o.sanitizerModelBudget),
    minimizeWithoutAsking: o.minimizeWithoutAsking ? 'yes' : 'no',
  };
}

/** A whole number written in decimal digits only; anything else is NaN so the schema rejects it. */
function parseWhole(s: string): number {
  return /^\s*\d+\s*$/.test(s) ? Number(s) : Number.NaN;
}

export type ValidationResult = { ok: true; options: Options } | { ok: false; errors: Partial<Record<OptionsField, string>> };

/** Validate the form with OptionsSchema; on failure every bad field gets its own message. */
export function validateOptions(f: OptionsFields): ValidationResult {
  const candidate = {
    backend: f.backend,
    // OpenRouter has one address; only the OpenAI-compatible backend takes a base URL from the person.
    baseUrl: f.backend === 'openrouter' ? OPENROUTER_BASE_URL : f.baseUrl.trim(),
    model: f.model.trim(),
    apiKey: f.apiKey.trim(),
    askTimeoutSeconds: parseWhole(f.askTimeoutSeconds),
    guardScope: f.guardScope,
    sanitizer: f.sanitizer,
    sanitizerModelBudget: parseWhole(f.sanitizerModelBudget),
    minimizer: f.minimizer,
    minimizeWithoutAsking: f.minimizeWithoutAsking === 'yes' ? true : f.minimizeWithoutAsking === 'no' ? false : f.minimizeWithoutAsking,
  };
  const parsed = OptionsSchema.safeParse(candidate);
  const errors: Partial<Record<OptionsField, string>> = {};
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (typeof field === 'string' && field in FIELD_MESSAGES) errors[field as OptionsField] = FIELD_MESSAGES[field as OptionsField];
    }
    // A failure the form cannot attribute to a field still blocks saving.
    if (Object.keys(errors).length === 0) errors.backend = parsed.error.issues[0]?.message ?? 'Invalid options.';
  }
  if (candidate.backend === 'openrouter' && candidate.apiKey === '') errors.apiKey = 'OpenRouter needs an API key.';
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, options: parsed.data };
}
