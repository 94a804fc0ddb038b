import type OpenAI from 'openai';
import { lazy } from '../lazy/load';

/**
 * One way to reach the configured OpenAI-compatible endpoint (OpenRouter by default, any base URL),
 * shared by the compiler and the Minimizer's model mode. Local servers (Ollama, vLLM, LM Studio on
 * loopback) take no key; a remote endpoint without a key is a failure, never an anonymous call. Error
 * texts never carry the key.
 */
import { DEFAULT_BASE_URL, DEFAULT_MODEL } from './defaults';

export { DEFAULT_BASE_URL, DEFAULT_MODEL };
export const DEFAULT_TIMEOUT_MS = 20_000;

export interface LlmOptions {
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** The first 300 characters of an error, with the key cut out. */
export function redactKey(message: string, apiKey: string | undefined): string {
  const short = message.slice(0, 300);
  return apiKey && apiKey.length > 0 ? short.split(apiKey).join('[redacted]') : short;
}

export interface ChatEndpoint {
  client: OpenAI;
  model: string;
  apiKey: string;
  /** The SDK's error class (the SDK is loaded on first use, see ./sdk.ts). */
  APIError: typeof OpenAI.APIError;
}

/**
 * A client for the endpoint, or an error saying why there is none (no key for a remote endpoint, the SDK
 * not loadable). The SDK is loaded here, on first use: the extension's worker does not evaluate it at start.
 */
export async function chatClient(opts: LlmOptions): Promise<ChatEndpoint | { error: string }> {
  const baseUrl = opts.baseUrl ?? DEFAULT_BASE_URL;
  const apiKey = opts.apiKey && opts.apiKey.length > 0 ? opts.apiKey : isLoopback(baseUrl) ? 'no-key' : undefined;
  if (apiKey === undefined) return { error: `no API key for the remote endpoint ${baseUrl}` };
  let sdk;
  try {
    sdk = await lazy('openai-sdk');
  } catch (err) {
    return { error: `the model client could not be loaded: ${redactKey(err instanceof Error ? err.message : String(err), apiKey)}` };
  }
  const client = new sdk.OpenAI({
    baseURL: baseUrl,
    apiKey,
    timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  return { client, model: opts.model ?? DEFAULT_MODEL, apiKey, APIError: sdk.APIError };
}

/**
 * One chat completion in JSON-object mode, parsed: the shape the Minimizer's and the Sanitizer's model
 * modes share. Never throws; every failure (no key, an error, a timeout, text that is not JSON) comes back
 * as `error`, without the key.
 */
export async function askForJson(opts: LlmOptions, system: string, user: string): Promise<{ json: unknown } | { error: string }> {
  const endpoint = await chatClient(opts);
  if ('error' in endpoint) return { error: endpoint.error };
  try {
    const completion = await endpoint.client.chat.completions.create({
      model: endpoint.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    });
    return { json: JSON.parse(completion.choices[0]?.message?.content ?? '') as unknown };
  } catch (err) {
    return { error: redactKey(err instanceof Error ? `${err.name}: ${err.message}` : String(err), endpoint.apiKey) };
  }
}
