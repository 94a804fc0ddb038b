import { describe, expect, it } from 'vitest';
import { evaluate, classify } from '../../src/tools';
import { initialState } from '../../src/core/policy';
import { allowedClasses, NOW, rules } from './helpers';

/**
 * Request-quality classes (tests/quality): each widening reads one more way people write a request,
 * bound to what the words name; each narrowing keeps an action the words did not ask for from passing.
 */
const form = (url: string, fields: Record<string, string>, submitText: string) => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields, submitText } });

function decisions(request: string, calls: unknown[]): string[] {
  const policy = rules(request);
  let state = initialState();
  return calls.map((call) => {
    const r = evaluate(policy, state, call, NOW + 1);
    state = r.state;
    return r.record.decision;
  });
}

describe('one thing made or ended is one write', () => {
  it.each([
    ['cancel my hotel booking at hotels.test for next weekend', 1],
    ['open a PR on git.test from my feature branch', 1],
    ['add a comment on git.test saying it works', 1],
    ['Cancel my subscriptions on news.test', undefined],
    ['Add lunch with mom on Sunday at noon to my calendar', undefined],
  ])('%s → maxCalls %s', (request, calls) => {
    expect(rules(request).constraints.find((k) => k.riskClass === 'EXTERNAL_WRITE')?.maxCalls).toBe(calls);
  });

  it('cancelling a booking does not make a new one; opening a PR does not merge it', () => {
    expect(
      decisions('cancel my hotel booking at hotels.test for next weekend', [
        form('https://hotels.test/bookings/55/cancel', { booking: '55' }, 'Cancel booking'),
        form('https://hotels.test/book', { hotel: 'grand-plaza', nights: '2' }, 'Book now'),
      ]),
    ).toEqual(['ALLOW', 'BLOCK']);
    expect(
      decisions('open a PR on git.test from feature/login into main', [
        form('https://git.test/me/app/pulls', { base: 'main', head: 'feature/login', title: 'Login' }, 'Create pull request'),
        form('https://git.test/me/app/pulls/3/merge', { method: 'merge' }, 'Merge pull request'),
      ]),
    ).toEqual(['ALLOW', 'BLOCK']);
    expect(allowedClasses(rules('open a PR on git.test'))).toEqual(['EXTERNAL_WRITE']);
    expect(classify(form('https://git.test/me/app/pulls/3/merge', {}, 'Merge')).riskClass).toBe('EXTERNAL_WRITE');
  });
});
