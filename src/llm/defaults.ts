/**
 * The default OpenAI-compatible endpoint: one definition for the options' defaults, the options form
 * and the LLM client. A leaf module, so pages can read the defaults without loading the SDK.
 */
export const DEFAULT_BASE_URL = 'https://openrouter.ai/api/v1';
export const DEFAULT_MODEL = 'openai/gpt-4o-mini';
