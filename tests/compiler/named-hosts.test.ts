import { describe, expect, it } from 'vitest';
import { isNamedHost, namedSites } from '../../src/background/floor/dnr';
import { ledgerJudges } from '../../src/background/floor/dependency-floor';
import type { ActiveTask } from '../../src/background/task/store';
import { rules } from './helpers';

/**
 * The host the user named, not its registrable domain (issue 37): the compiler keeps `news.example.test` in
 * the policy's site lists, so the floor and the taint's exemption (both read the lists as written) do not
 * name its sibling `uploads.example.test`. Naming the site itself names every host of it.
 */
const CASES: Array<{ request: string; domains: string[] | null; named: string[]; siblings: string[] }> = [
  { request: "Open the news site at news.example.test and summarize today's top story for me. Do not send, post or share anything.", domains: ['news.example.test'], named: ['news.example.test', 'img.news.example.test'], siblings: ['uploads.example.test', 'example.test'] },
  { request: 'Summarize https://News.Example.test/story/1', domains: ['news.example.test'], named: ['news.example.test'], siblings: ['uploads.example.test'] },
  // The site itself, or its front door: every host of it (what a user who writes the bare site expects).
  { request: 'Read example.test and tell me the headline', domains: ['example.test'], named: ['example.test', 'www.example.test', 'uploads.example.test'], siblings: [] },
  { request: 'Read www.example.test and tell me the headline', domains: ['example.test'], named: ['www.example.test', 'news.example.test'], siblings: [] },
  { request: 'Read news.example.test and example.test', domains: ['example.test'], named: ['uploads.example.test'], siblings: [] },
  // Two hosts of one site: both, and no third.
  { request: 'Compare the front pages of news.example.test and blog.example.test', domains: ['blog.example.test', 'news.example.test'], named: ['blog.example.test', 'news.example.test'], siblings: ['uploads.example.test'] },
  // A host named only in a refusal is no host the task names; nor does it widen the one named.
  { request: "Read news.example.test but don't open uploads.example.test", domains: ['news.example.test'], named: ['news.example.test'], siblings: ['uploads.example.test'] },
  // A tenant is its own site: acme's Jira does not name another company's.
  { request: 'Create a Jira ticket on acme.atlassian.net: Delete legacy users table', domains: ['acme.atlassian.net'], named: ['acme.atlassian.net'], siblings: ['evil.atlassian.net'] },
  // A private endpoint keeps its key (its port) as before.
  { request: 'Check localhost:3000 and news.example.test', domains: ['news.example.test'], named: ['news.example.test'], siblings: ['uploads.example.test'] },
];

const activeTask = (policy: ActiveTask['policy']): ActiveTask =>
  ({ taskId: 't', request: '', followUps: [], policy, state: {}, report: {}, startedAt: 1, taskTabIds: [], outsideTabIds: [], floorWriteDomains: [] }) as unknown as ActiveTask;

describe('the compiler keeps the host the user named', () => {
  for (const c of CASES) {
    it(c.request, () => {
      const policy = rules(c.request);
      expect(policy.domains === null ? null : [...policy.domains].sort()).toEqual(c.domains);
      const named = namedSites({ policy });
      for (const h of c.named) {
        expect(isNamedHost(h, named), `${h} is named`).toBe(true);
        expect(ledgerJudges(activeTask(policy), new URL(`http://${h}/a.png`)), `${h} is no dependency host`).toBe(false);
      }
      for (const h of c.siblings) {
        expect(isNamedHost(h, named), `${h} is not named`).toBe(false);
        expect(ledgerJudges(activeTask(policy), new URL(`http://${h}/a.png`)), `${h} is judged as a site the task does not name`).toBe(true);
      }
      // Every listed host has its evidence, quoted from the words.
      for (const d of policy.domains ?? []) expect(policy.evidence.map((e) => e.ref)).toContain(`domains:${d}`);
    });
  }

  it('a write the words ask for on a named host is bound to that host (constraints too)', () => {
    const policy = rules('Read news.example.test, then post a comment on news.example.test saying thanks');
    const written = policy.constraints.flatMap((k) => k.domains ?? []);
    expect(written.length).toBeGreaterThan(0);
    expect(new Set(written)).toEqual(new Set(['news.example.test']));
    expect(isNamedHost('uploads.example.test', namedSites({ policy }))).toBe(false);
  });
});
