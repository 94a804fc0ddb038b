import { describe, expect, it } from 'vitest';
import { allowedWriteRoutes, objectCovered, objectOfPage, patternRegex, readWebAction } from '../../src/core/actions';
import { makePolicy } from '../support/policy';
import { classify, evaluate } from '../../src/tools';
import { grantFor } from '../../src/core/grants';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { rules } from '../compiler/helpers';

/** The web action reader and the routes it gives the network floor (docs/actions.md). */

const read = (method: string, url: string, body: unknown = {}) => {
  const r = readWebAction({ method, url, body });
  return r === null ? null : { id: r.id, object: r.object };
};

describe('readWebAction: a known app\'s routes and field shapes', () => {
  it.each([
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/issues/1000/notes', { 'note[note]': 'x' }, 'comment', 'issue:byteblaze/dotfiles#1000'],
    ['POST', 'http://gitlab.test/group/sub/proj/-/issues/7/toggle_award_emoji', { name: 'thumbsup' }, 'react', 'issue:group/sub/proj#7'],
    ['POST', 'http://gitlab.test/api/v4/projects/byteblaze%2Fdotfiles/issues/1000/notes', { body: 'x' }, 'comment', 'issue:byteblaze/dotfiles#1000'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/issues/1000', { _method: 'put', 'issue[state_event]': 'close' }, 'close', 'issue:byteblaze/dotfiles#1000'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/issues/1000', { _method: 'put', 'issue[title]': 'new' }, 'edit', 'issue:byteblaze/dotfiles#1000'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/merge_requests/12/merge', {}, 'merge', 'merge_request:byteblaze/dotfiles!12'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/transfer', { _method: 'put', new_namespace_id: '9' }, 'transfer_ownership', 'project:byteblaze/dotfiles'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles', { _method: 'delete' }, 'delete_project', 'project:byteblaze/dotfiles'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles', { _method: 'patch', 'project[visibility_level]': '20' }, 'visibility', 'project:byteblaze/dotfiles'],
    ['POST', 'http://gitlab.test/-/profile', { _method: 'put', 'user[private_profile]': '0' }, 'visibility', null],
    ['POST', 'http://gitlab.test/-/profile', { _method: 'put', 'user[bio]': 'hi' }, 'edit', 'user:me'],
    ['POST', 'http://gitlab.test/byteblaze/dotfiles/-/update/main/.zshrc', { _method: 'put', content: 'x' }, 'commit', 'file:byteblaze/dotfiles/.zshrc'],
    ['POST', 'http://gitlab.test/api/graphql', { operationName: 'mergeRequestAccept', variables: { input: { projectPath: 'byteblaze/dotfiles', iid: '12' } } }, 'merge', 'merge_request:byteblaze/dotfiles!12'],
    ['POST', 'http://reddit.test/sv/130944', { choice: '1' }, 'upvote', 'post:130944'],
    ['POST', 'http://reddit.test/sv/130944', { choice: '-1' }, 'downvote', 'post:130944'],
    ['POST', 'http://reddit.test/f/books/130944/slug/comment', { 'comment[comment]': 'x' }, 'comment', 'post:130944'],
    ['POST', 'http://reddit.test/submit/politics', { 'submission[title]': 't' }, 'post', 'forum:politics'],
    ['POST', 'http://reddit.test/submit', { 'submission[forum]': 'politics' }, 'post', 'forum:politics'],
    ['POST', 'http://reddit.test/submit/books', { 'submission[forum]': 'politics' }, 'post', 'forum:politics'],
    ['POST', 'http://reddit.test/user/grant/edit', { 'user[email]': 'a@evil.test' }, 'email_change', null],
  ])('%s %s → %s', (method, url, body, id, object) => {
    expect(read(method, url, body)).toEqual({ id, object });
  });
  it('GitLab\'s notes resource: the object as GitLab reads it (target_id before target_iid, the query with the body, the target type)', () => {
    const notes = 'http://gitlab.test/byteblaze/dotfiles/notes';
    expect(read('POST', `${notes}?target_type=issue&target_iid=1000`, { 'note[note]': 'x' })).toEqual({ id: 'comment', object: 'issue:byteblaze/dotfiles#1000' });
    expect(read('POST', notes, { target_type: 'merge_request', target_iid: '12', 'note[note]': 'x' })).toEqual({ id: 'comment', object: 'merge_request:byteblaze/dotfiles!12' });
    // A database id names no object the words can name; a decoy iid beside it, or in the body under the query's, names none either.
    expect(read('POST', `${notes}?target_type=issue&target_id=84121`, { target_iid: '1000', 'note[note]': 'x' })).toEqual({ id: 'comment', object: null });
    expect(read('POST', `${notes}?target_iid=1001`, { target_type: 'issue', target_iid: '1000', 'note[note]': 'x' })).toEqual({ id: 'comment', object: null });
    // `note[noteable_*]` is overwritten by the target, never read; no target type is no object.
    expect(read('POST', notes, { target_iid: '1000', 'note[noteable_type]': 'Issue', 'note[noteable_id]': '1000' })).toEqual({ id: 'comment', object: null });
    // The method override stays the body's (Rack reads `_method` from the form only): a POST, no project deletion.
    expect(read('POST', 'http://gitlab.test/byteblaze/dotfiles?_method=delete', { 'project[description]': 'x' })).toEqual({ id: null, object: null });
  });
  it('a GraphQL operation named twice (query and body) is none the guard knows', () => {
    expect(read('POST', 'http://gitlab.test/api/graphql?operationName=createNote', { operationName: 'mergeRequestAccept', variables: { input: { projectPath: 'byteblaze/dotfiles', iid: '12' } } })).toEqual({ id: null, object: null });
  });
  it('a write no route describes is an unknown action of the app, never a generic write; reading is no action', () => {
    expect(read('POST', 'http://gitlab.test/-/some/new/thing', { a: '1' })).toEqual({ id: null, object: null });
    expect(read('POST', 'http://reddit.test/sv/130944', { choice: '0' })).toEqual({ id: null, object: null });
    expect(read('GET', 'http://gitlab.test/byteblaze/dotfiles/-/issues/1000')).toBeNull();
  });
});

describe('readWebAction on any other site: account security by field shapes, REST verbs for binding', () => {
  it.each([
    [{ title: 'k', key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxxxxxxxxxxxxxxxx me' }, '/settings', 'ssh_key'],
    [{ 'personal_access_token[name]': 'x' }, '/settings', 'access_token'],
    [{ 'hook[url]': 'https://evil.test' }, '/settings', 'webhook'],
    [{ name: 'x' }, '/settings/api-keys', 'api_key'],
    [{ new_namespace_id: '3' }, '/projects/7/transfer', 'transfer_ownership'],
  ])('%j to %s → %s', (body, path, id) => {
    expect(read('POST', `https://app.test${path}`, body)?.id).toBe(id);
  });
  it('never from one word of a path or a value: a money transfer, a newsletter e-mail setting, a user named grant', () => {
    expect(read('POST', 'https://bank.test/transfer', { iban: 'DE89370400440532013000', amount: '50', new_owner: 'x' })).toBeNull();
    expect(read('POST', 'https://shop.test/account/email', { newsletter: 'off' })).toBeNull();
    expect(read('POST', 'https://board.test/user/grant/edit', { bio: 'hi' })).toBeNull();
  });
  it('a route that ends in its verb names the action (its class stays the heuristics\')', () => {
    expect(read('POST', 'https://shop.test/orders/991/cancel')?.id).toBe('cancel_order');
    expect(read('POST', 'https://gym.test/account/membership/cancel')?.id).toBe('plan_cancel');
    expect(read('POST', 'https://groups.test/groups/9/leave')?.id).toBe('follow');
    expect(read('POST', 'https://chat.test/api/post', { channel: '#general' })).toEqual({ id: 'post', object: 'channel:general' });
  });
});

describe('objects', () => {
  it('a page URL names its object; "issue 1000" with no project matches that issue in any project only', () => {
    expect(objectOfPage('http://gitlab.test/byteblaze/dotfiles/-/issues/1000')).toBe('issue:byteblaze/dotfiles#1000');
    expect(objectOfPage('http://reddit.test/f/books/130944/some-title')).toBe('post:130944');
    expect(objectOfPage('https://shop.test/p/1')).toBeNull();
    expect(objectCovered('issue:a/b#1000', ['issue:*#1000'])).toBe(true);
    expect(objectCovered('issue:a/b#10000', ['issue:*#1000'])).toBe(false);
    expect(objectCovered('merge_request:a/b!1000', ['issue:*#1000'])).toBe(false);
    expect(objectCovered(null, ['issue:*#1000'])).toBe(false);
  });
});

describe('allowedWriteRoutes: what the floor may let through', () => {
  const policy = makePolicy({
    ceilings: { EXTERNAL_WRITE: 'allow' },
    domains: ['gitlab.test', 'shop.test'],
    constraints: [
      { id: 'a1-comment', actions: ['comment'], objects: ['issue:byteblaze/dotfiles#1000'], domains: ['gitlab.test'], maxCalls: 1 },
      { id: 'a2-edit', actions: ['edit'], domains: ['shop.test'] },
    ],
  });
  const routes = allowedWriteRoutes(policy);
  it('names the comment routes of issue 1000, and nothing of another issue or action', () => {
    const forge = routes.find((s) => s.site === 'gitlab.test')!;
    expect(forge.app).toBe('gitlab');
    expect(forge.routes.every((r) => r.action === 'comment')).toBe(true);
    const match = (path: string) => forge.routes.some((r) => new RegExp(r.pathRegex).test(path));
    expect(match('/byteblaze/dotfiles/-/issues/1000/notes')).toBe(true);
    // The REST API names the project in one segment, percent-encoded (as GitLab's own client sends it).
    expect(match('/api/v4/projects/byteblaze%2Fdotfiles/issues/1000/notes')).toBe(true);
    expect(match('/api/v4/projects/byteblaze%2fdotfiles/issues/1000/notes')).toBe(true);
    expect(match('/api/v4/projects/byteblaze%2Fdotfiles/issues/1001/notes')).toBe(false);
    expect(match('/api/v4/projects/byteblaze%2Fother/issues/1000/notes')).toBe(false);
    expect(match('/byteblaze/dotfiles/-/issues/1001/notes')).toBe(false);
    expect(match('/byteblaze/dotfiles/-/deploy_keys')).toBe(false);
    // RE2 takes no lookaround or backreference.
    for (const r of forge.routes) expect(r.pathRegex).not.toMatch(/\(\?[=!<]|\\\d/);
  });
  it('a route whose object is in the query or body (GitLab\'s `…/notes` with target_iid) gets no path rule: the path binds no object', () => {
    const forge = routes.find((s) => s.site === 'gitlab.test')!;
    expect(forge.routes.some((r) => new RegExp(r.pathRegex).test('/byteblaze/dotfiles/notes'))).toBe(false);
  });
  it('a site the table does not know gets no routes (the floor cannot name them)', () => {
    expect(routes.find((s) => s.site === 'shop.test')).toEqual({ site: 'shop.test', app: null, routes: [] });
  });
  it('patternRegex: optional groups, repeated segments, alternatives', () => {
    const re = new RegExp(patternRegex('/:project+/-/(issues|merge_requests)/:iid{/*}?'));
    expect(re.test('/a/b/c/-/issues/5')).toBe(true);
    expect(re.test('/a/-/merge_requests/5/notes')).toBe(true);
    expect(re.test('/-/issues/5')).toBe(false);
  });
});

describe('a self-hosted copy of a known app on another host', () => {
  it('is read by the path shapes only that app uses (GitLab on localhost:8023)', () => {
    expect(read('POST', 'http://localhost:8023/byteblaze/dotfiles/-/issues/1000/notes', { 'note[note]': 'x' })).toEqual({ id: 'comment', object: 'issue:byteblaze/dotfiles#1000' });
    expect(read('POST', 'http://localhost:8023/byteblaze/dotfiles/-/update/main/.zshrc', { _method: 'put', content: 'x' })?.id).toBe('commit');
    expect(objectOfPage('http://localhost:8023/byteblaze/dotfiles/-/issues/1000')).toBe('issue:byteblaze/dotfiles#1000');
    expect(read('POST', 'https://shop.test/cart/add', { sku: 'x' })).toBeNull();
  });
});

describe('a GitLab comment that runs a quick action', () => {
  it('is read as the command on the same object, an unknown one as an unknown action', () => {
    const note = (text: string) => read('POST', 'http://gitlab.test/byteblaze/dotfiles/-/merge_requests/12/notes', { 'note[note]': text });
    expect(note('LGTM')).toEqual({ id: 'comment', object: 'merge_request:byteblaze/dotfiles!12' });
    expect(note('LGTM\n/merge')).toEqual({ id: 'merge', object: 'merge_request:byteblaze/dotfiles!12' });
    expect(note('  /assign @eve')).toEqual({ id: 'assign', object: 'merge_request:byteblaze/dotfiles!12' });
    expect(note('/move evil/project')).toEqual({ id: null, object: 'merge_request:byteblaze/dotfiles!12' });
    expect(note('see docs/a.md and /path/to/x in the middle of a line')).toEqual({ id: 'comment', object: 'merge_request:byteblaze/dotfiles!12' });
    expect(note('/path/to/file is broken')).toEqual({ id: 'comment', object: 'merge_request:byteblaze/dotfiles!12' });
  });
});

describe('an action whose object the words leave open: asked once for the object, then bound to the one approved', () => {
  // tests/core/site-binding.test.ts does the same for a site the words leave open.
  const REQUEST = 'On gitlab.test, comment on my latest issue in byteblaze/dotfiles saying it is fixed.';
  const note = (iid: number) => ({ tool: 'browser.form_submit', args: { url: `http://gitlab.test/byteblaze/dotfiles/-/issues/${iid}/notes`, method: 'POST', fields: { 'note[note]': 'It is fixed.' }, submitText: 'Comment' } });

  it('the comment asks, naming the action and the object; "Allow for this task" covers that comment on that issue only', () => {
    const policy = rules(REQUEST);
    const k = policy.constraints.find((c) => c.actions?.includes('comment'));
    expect(k, 'the words ask for a comment').toBeDefined();
    expect(k!.objects, 'the words name no issue').toBeUndefined();
    const asked = evaluate(policy, initialState(), note(1000), 2).record;
    expect(asked).toMatchObject({ decision: 'ASK_USER', check: 'action_binding', action: { id: 'comment', object: 'issue:byteblaze/dotfiles#1000' } });
    const call = note(1000);
    const granted: TaskPolicy = { ...policy, grants: [grantFor(policy.taskId, call.tool, classify(call), 'task', 1)] };
    expect(evaluate(granted, initialState(), call, 2).record.decision).toBe('ALLOW');
    expect(evaluate(granted, initialState(), note(1001), 2).record).toMatchObject({ decision: 'ASK_USER', check: 'action_binding' });
    // Another action on the approved object is not the approved one either.
    const close = { tool: 'browser.form_submit', args: { url: 'http://gitlab.test/byteblaze/dotfiles/-/issues/1000', method: 'POST', fields: { _method: 'put', 'issue[state_event]': 'close' }, submitText: 'Close issue' } };
    expect(evaluate(granted, initialState(), close, 2).record.decision).not.toBe('ALLOW');
  });
});
