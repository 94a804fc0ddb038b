import { describe, expect, it } from 'vitest';
import { classifyWeb } from '../../src/core/classifier';
import { classify } from '../../src/tools';

/**
 * Classification.knownApp: the classifier reads once whether a consequential action is a known app's, so
 * the evaluator's action binding parses no URL per decision. What the binding read before from the URLs
 * (actions/apps.ts: by host, else by a path shape only that app uses) must hold here.
 */
const post = (url: string, body: unknown = { note: 'x' }) => classifyWeb({ tool: 'browser.request', args: { url, method: 'POST', body } });

describe('Classification.knownApp', () => {
  it("is a known app's write by its host", () => {
    expect(post('https://gitlab.test/byteblaze/dotfiles/-/issues/1000/notes').knownApp).toBe(true);
    expect(post('https://forum.test/f/books/130944/-/comment').knownApp).toBe(true);
  });

  it("is a known app's write by a path shape only that app uses, on any host", () => {
    expect(post('https://code.corp.test/group/project/-/deploy_keys').knownApp).toBe(true);
  });

  it('is not an unknown site’s write, nor an unparseable URL', () => {
    expect(post('https://app.test/api/items').knownApp).toBe(false);
    expect(post('https://app.test:99999/x').knownApp).toBe(false);
  });

  it('is false for a read, which the binding never looks at, even on a known app', () => {
    const read = classifyWeb({ tool: 'browser.navigate', args: { url: 'https://gitlab.test/byteblaze/dotfiles/-/issues/1000' } });
    expect(read.riskClass).toBe('READ');
    expect(read.knownApp).toBe(false);
  });

  it('is read the same way by the tools classifier the CLI uses', () => {
    expect(classify({ tool: 'browser.request', args: { url: 'https://gitlab.test/byteblaze/dotfiles/-/issues/1000/notes', method: 'POST', body: { note: 'x' } } }).knownApp).toBe(true);
    expect(classify({ tool: 'send_email', args: { to: 'bob@corp.test', body: 'x' } }).knownApp).toBe(false);
  });
});
