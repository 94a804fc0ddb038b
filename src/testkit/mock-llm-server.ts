import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A chat-completions server on 127.0.0.1 (random port) for tests and the demo: speaks enough of the
 * OpenAI API (`POST /v1/chat/completions`) for the real `openai` client. Each request is answered by
 * a script, so a test can play a good, over-broad or quote-reusing compiler, broken output, errors,
 * schema refusals and hangs. Nothing here reaches the internet. Lives in src/testkit (stand-ins for the
 * outside world shared by the unit tests and the demo), never imported by the extension or the CLI.
 */

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: unknown } };
  [key: string]: unknown;
}

export type MockReply =
  /** A completion whose message content is this text. */
  | { content: string }
  /** An error status with an OpenAI-style error body. */
  | { status: number; message: string }
  /** No answer at all (until the server closes). */
  | { hang: true };

export type MockScript = (request: ChatRequest, index: number) => MockReply | Promise<MockReply>;

export interface RecordedRequest {
  path: string;
  body: ChatRequest;
  /** Whether a bearer token was sent (the token itself is not kept). */
  authorized: boolean;
}

export interface MockLlmServer {
  /** Base URL for the openai client, e.g. `http://127.0.0.1:41234/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function completion(content: string, model: string): unknown {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startMockLlmServer(script: MockScript): Promise<MockLlmServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    try {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
        return;
      }
      const body = JSON.parse(await readBody(req)) as ChatRequest;
      const index = requests.length;
      requests.push({ path: req.url, body, authorized: /^Bearer \S+/.test(req.headers.authorization ?? '') });
      const reply = await script(body, index);
      if ('hang' in reply) return;
      if ('status' in reply) send(res, reply.status, { error: { message: reply.message, type: 'invalid_request_error', code: null } });
      else send(res, 200, completion(reply.content, body.model));
    } catch (err) {
      send(res, 500, { error: { message: `mock failure: ${(err as Error).message}`, type: 'server_error' } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The user's message the compiler sent (the isolated instruction). */
export function userMessage(request: ChatRequest): string {
  return request.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** Whether a request comes from the Sanitizer's model mode (its system prompt names it). */
export function isSanitizerRequest(request: ChatRequest): boolean {
  return request.messages.some((m) => m.role === 'system' && m.content.includes('AgentsFence sanitizer'));
}

export type SanitizerModel = 'good' | 'over-removing' | 'failing' | 'hanging';

/**
 * The Sanitizer's models: `good` removes the sentences that carry an attacker address, IBAN or link;
 * `over-removing` returns the whole block and every sentence of it; `failing` answers 500; `hanging`
 * never answers.
 */
export function sanitizerReply(model: SanitizerModel, request: ChatRequest): MockReply {
  if (model === 'failing') return { status: 500, message: 'sanitizer model unavailable' };
  if (model === 'hanging') return { hang: true };
  const { block } = JSON.parse(userMessage(request)) as { task: string; block: string };
  const sentences = block.match(/[^.!?]+[.!?]*\s*/g) ?? [block];
  const removals =
    model === 'good'
      ? sentences.filter((s) => /attacker|GB33BUKB|archive@/i.test(s)).map((s) => ({ text: s.trim(), reason: 'instruction aimed at the agent' }))
      : [block, ...sentences].map((s) => ({ text: s.trim(), reason: 'everything looks suspicious' }));
  return { content: JSON.stringify({ rewritten: '', removals }) };
}
