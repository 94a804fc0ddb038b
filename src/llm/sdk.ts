/** The openai SDK, loaded on first use (Node: the CLI, the tests). The extension's build swaps in ./sdk-extension.ts. */
export type OpenAISdk = typeof import('openai');

export function loadOpenAI(): Promise<OpenAISdk> {
  return import('openai');
}
