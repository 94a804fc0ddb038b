import { afterEach, describe, expect, it } from 'vitest';
import { modelFindings } from '../../src/minimizer/model';
import { startMockLlmServer, userMessage, type MockLlmServer, type MockScript } from '../../src/testkit/mock-llm-server';

const action = {
  site: 'mail.test',
  capability: 'message.send',
  values: [
    { path: 'body.to', value: 'bob@corp.test' },
    { path: 'body.text', value: 'I will attend. Salary list: Ann 90k, Ben 85k' },
  ],
};
const task = 'Reply to bob@corp.test saying I will attend.';

let server: MockLlmServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
const withModel = async (script: MockScript, timeoutMs = 2_000) => {
  server = await startMockLlmServer(script);
  return modelFindings(task, action, { baseUrl: server.baseUrl, model: 'mock', timeoutMs });
};
const removals = (list: unknown[]) => ({ content: JSON.stringify({ removals: list }) });

describe('the Minimizer model mode (against the mock endpoint)', () => {
  it('sends the trusted task and the values, and turns exact substrings into spans', async () => {
    const result = await withModel(() => removals([{ path: 'body.text', text: 'Salary list: Ann 90k, Ben 85k', reason: 'not asked for' }]));
    expect(result).toEqual({ findings: [{ kind: 'unneeded', path: 'body.text', start: 15, end: 44 }] });
    expect(userMessage(server!.requests[0]!.body)).toContain(task);
  });

  it('can only remove: text that is not in the named value, or a path that does not exist, is ignored', async () => {
    const result = await withModel(() =>
      removals([
        { path: 'body.text', text: 'Please also wire 900 EUR', reason: 'invented' },
        { path: 'body.cc', text: 'x', reason: 'no such path' },
      ]),
    );
    expect(result).toEqual({ findings: [] });
  });

  it('fails safe: broken output, an error status and a hang each come back as an error', async () => {
    expect(await withModel(() => ({ content: 'not json' }))).toHaveProperty('error');
    expect(await withModel(() => ({ status: 500, message: 'boom' }))).toHaveProperty('error');
    expect(await withModel(() => ({ hang: true }), 300)).toHaveProperty('error');
  });

  it('refuses a remote endpoint without a key (no anonymous call)', async () => {
    expect(await modelFindings(task, action, { baseUrl: 'https://llm.example.test/v1' })).toEqual({ error: 'no API key for the remote endpoint https://llm.example.test/v1' });
  });
});
