import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { URLPattern } from 'urlpattern-polyfill/urlpattern';
import { APPS } from '../../src/core/actions';
import { patternRegex } from '../../src/core/actions/pattern';
import { NUM_RUNS } from '../support/arbitraries';

/**
 * The app table's patterns are URLPattern pathname syntax, read by the guard's own translation
 * (src/core/actions/pattern.ts: one reading for the reader and the network floor, no polyfill in the
 * extension). It matches as the web platform's URLPattern does (the polyfill, here only), with the same
 * groups, on paths made of the words real forge and forum paths use.
 */

const SEGMENTS = ['-', 'issues', 'merge_requests', 'notes', '1000', '12', 'byteblaze', 'dotfiles', 'group', 'sub', 'api', 'v4', 'projects', 'byteblaze%2Fdotfiles',
  'profile', 'keys', 'user_settings', 'toggle_award_emoji', 'award_emoji', 'f', 'books', '130944', 'slug', 'comment', 'sv', 'cv', 'submit', 'user', 'edit',
  'transfer', 'archive', 'unarchive', 'export', 'deploy_keys', 'hooks', 'blob', 'update', 'create', 'main', '.zshrc', 'approve', 'merge', 'users', 'follow', 'x.json', 'subscribe', 'delete'];
const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 8 }).map((s) => `/${s.join('/')}`);
const patterns = [...new Set(APPS.flatMap((a) => [...a.routes.map((r) => r.path), ...a.pages.map((p) => p.path)]))];

describe('route patterns match as URLPattern does', () => {
  it.each(patterns)('%s', (pattern) => {
    const platform = new URLPattern({ pathname: pattern });
    const ours = new RegExp(patternRegex(pattern, new Map(), { groups: true }));
    fc.assert(
      fc.property(pathArb, (path) => {
        const want = platform.exec({ pathname: path });
        const got = ours.exec(path);
        expect(got !== null, path).toBe(want !== null);
        if (want === null || got === null) return;
        const named = Object.fromEntries(Object.entries(want.pathname.groups).filter(([k, v]) => !/^\d+$/.test(k) && v !== undefined));
        expect(Object.fromEntries(Object.entries(got.groups ?? {}).filter(([, v]) => v !== undefined)), path).toEqual(named);
      }),
      { numRuns: Math.min(NUM_RUNS, 300) },
    );
  });
});

describe('route patterns on the paths the apps send', () => {
  const PATHS = [
    '/byteblaze/dotfiles/-/issues/1000/notes', '/group/sub/proj/-/issues/7/toggle_award_emoji', '/byteblaze/dotfiles/-/merge_requests/12/merge',
    '/byteblaze/dotfiles/-/update/main/.zshrc', '/byteblaze/dotfiles/-/transfer', '/byteblaze/dotfiles/transfer', '/-/profile/keys', '/profile/keys/12',
    '/api/v4/projects/byteblaze%2Fdotfiles/issues/1000/notes', '/api/v4/user/keys', '/api/v4/users/5/personal_access_tokens', '/f/books/130944/slug/comment',
    '/f/books/130944/-/comment/55', '/sv/130944', '/sv/130944.json', '/submit/politics', '/submit', '/f/books/subscribe', '/user/grant/edit', '/byteblaze/dotfiles',
  ];
  it('match, and name the same groups, as URLPattern does', () => {
    let matched = 0;
    for (const pattern of patterns) {
      const platform = new URLPattern({ pathname: pattern });
      const ours = new RegExp(patternRegex(pattern, new Map(), { groups: true }));
      for (const path of PATHS) {
        const want = platform.exec({ pathname: path });
        const got = ours.exec(path);
        expect(got !== null, `${pattern} on ${path}`).toBe(want !== null);
        if (want === null || got === null) continue;
        matched++;
        const named = Object.fromEntries(Object.entries(want.pathname.groups).filter(([k, v]) => !/^\d+$/.test(k) && v !== undefined));
        expect(Object.fromEntries(Object.entries(got.groups ?? {}).filter(([, v]) => v !== undefined)), `${pattern} on ${path}`).toEqual(named);
      }
    }
    expect(matched).toBeGreaterThan(30);
  });
});
