import { expect, test } from '@playwright/test';
import { emptyDraft } from '../src/compiler/draft';
import { launchAgentBrowser } from '../src/harness';
import { startMockLlmServer } from '../src/testkit/mock-llm-server';
import { buildExtension } from './fixtures/extension';

/**
 * The openai SDK is not in background.js: the worker imports its script (openai-sdk.js) when a model is
 * first asked (src/lazy/load-extension.ts). The model compiler must work on a fresh install and after the
 * worker stopped and started again, when the SDK comes from the script the install step imported.
 */
test('the model compiler reaches the endpoint on a fresh worker and after a restart', async () => {
  test.setTimeout(240_000);
  const extensionPath = buildExtension('full');
  const llm = await startMockLlmServer(() => ({ content: JSON.stringify({ ...emptyDraft(), readDomains: ['news.test'] }) }));
  const browser = await launchAgentBrowser({ extensionPath });
  try {
    const compiler = { backend: 'openai-compatible' as const, baseUrl: llm.baseUrl, model: 'mock/compiler' };
    const first = await browser.setTask('Read the news on news.test', { compiler });
    expect(first.task?.report).toMatchObject({ backend: 'openai:mock/compiler' });
    expect(first.task?.report.fallbackReason).toBeNull();
    expect(first.task?.policy.domains).toEqual(['news.test']);
    expect(llm.requests).toHaveLength(1);

    await browser.endTask();
    await browser.restartWorker();
    const second = await browser.setTask('Read the news on news.test', { compiler });
    expect(second.task?.report).toMatchObject({ backend: 'openai:mock/compiler' });
    expect(second.task?.report.fallbackReason).toBeNull();
    expect(llm.requests).toHaveLength(2);
  } finally {
    await browser.close();
    await llm.close();
  }
});
