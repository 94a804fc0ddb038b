/**
 * Where the extension keeps the openai SDK: its own script (entrypoints/openai-sdk.ts), which leaves the
 * module on the worker's global object under this name.
 */
export const OPENAI_SDK_SCRIPT = '/openai-sdk.js';
export const OPENAI_SDK_GLOBAL = '__agentsfenceOpenAI';
