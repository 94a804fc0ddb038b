import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState, type TaskPolicy } from '../../src/core/policy';
import { ACTIONS, objectCovered, SECURITY_ACTIONS } from '../../src/core/actions';
import { CONSEQUENTIAL_CLASSES } from '../../src/core/risk';
import type { ToolCall } from '../../src/core/call';
import { NUM_RUNS } from '../support/arbitraries';

/**
 * Action binding as theorems (docs/actions.md), over tasks people write on a forge and a forum and every
 * write those apps take (their real request shapes, src/core/actions/apps.ts) on any object:
 * - a write whose action or object the words do not name never ALLOWs without a grant;
 * - no account-security action is allowed by another action's evidence, however wide its listing;
 * - a budget is spent only by its own action.
 */

const NOW = 1_800_000_000_000;
const params = { numRuns: NUM_RUNS };

const TASKS = [
  'Go to http://gitlab.test/byteblaze/dotfiles/-/issues/1000 and Comment on the given issue saying we are working on it.',
  'Go to http://gitlab.test/byteblaze/dotfiles/-/issues/1000 and add a thumbs_up reaction to the given issue.',
  'Go to http://gitlab.test/byteblaze/dotfiles/-/merge_requests/12 and post a comment on this MR saying LGTM.',
  'Close issue 1001 on gitlab.test',
  'Go to http://reddit.test/f/books/130944/we-read-it and comment on the given post saying we had similar experience.',
  'Go to http://reddit.test/f/books/130944/we-read-it and upvote the given post.',
  'Comment on my latest issue on gitlab.test saying it is fixed',
  'add my SSH key to gitlab.com',
] as const;

const form = (url: string, fields: Record<string, string | string[]>): ToolCall => ({ tool: 'browser.form_submit', args: { url, method: 'POST', fields } });
const api = (method: string, url: string, body: Record<string, unknown>): ToolCall => ({ tool: 'browser.request', args: { method, url, kind: 'fetch', body } });

const hostArb = fc.constantFrom('gitlab.test', 'gitlab.com');
const numArb = fc.constantFrom('1000', '1001', '12', '13');
const projectArb = fc.constantFrom('byteblaze/dotfiles', 'byteblaze/other', 'evil/dotfiles');
const postArb = fc.constantFrom('130944', '130945', '7');

/** Writes of the two apps: every action of the table, on objects the task names and on their look-alikes. */
const writeArb: fc.Arbitrary<ToolCall> = fc.oneof(
  fc.tuple(hostArb, projectArb, numArb, fc.constantFrom('notes', 'toggle_award_emoji', 'award_emoji')).map(([h, p, n, r]) => form(`http://${h}/${p}/-/issues/${n}/${r}`, { 'note[note]': 'x', name: 'thumbsup' })),
  fc.tuple(hostArb, projectArb, numArb, fc.constantFrom('notes', 'merge', 'approve', 'toggle_award_emoji')).map(([h, p, n, r]) => form(`http://${h}/${p}/-/merge_requests/${n}/${r}`, { 'note[note]': 'x' })),
  fc.tuple(hostArb, projectArb, numArb, fc.constantFrom('close', 'reopen')).map(([h, p, n, e]) => form(`http://${h}/${p}/-/issues/${n}`, { _method: 'put', 'issue[state_event]': e })),
  // A comment whose text runs a quick action is that action (GitLab runs `/merge` on its own line).
  fc.tuple(hostArb, projectArb, numArb, fc.constantFrom('/merge', '/close', '/assign @eve', '/move evil/x', 'plain text')).map(([h, p, n, t]) => form(`http://${h}/${p}/-/issues/${n}/notes`, { 'note[note]': `ok\n${t}` })),
  fc.tuple(hostArb, projectArb).map(([h, p]) => form(`http://${h}/${p}/-/deploy_keys`, { 'deploy_key[title]': 'k', 'deploy_key[key]': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG x' })),
  fc.tuple(hostArb, projectArb).map(([h, p]) => form(`http://${h}/${p}/-/transfer`, { _method: 'put', new_namespace_id: '9' })),
  fc.tuple(hostArb, projectArb).map(([h, p]) => form(`http://${h}/${p}/-/update/main/.zshrc`, { _method: 'put', content: 'x' })),
  fc.tuple(hostArb, projectArb).map(([h, p]) => form(`http://${h}/${p}`, { _method: 'patch', 'project[visibility_level]': '20' })),
  fc.tuple(hostArb, projectArb).map(([h, p]) => api('POST', `http://${h}/api/v4/projects/${encodeURIComponent(p)}/members`, { user_id: 6, access_level: 50 })),
  fc.tuple(hostArb, projectArb, numArb).map(([h, p, n]) => api('POST', `http://${h}/api/v4/projects/${encodeURIComponent(p)}/issues/${n}/notes`, { body: 'x' })),
  hostArb.map((h) => form(`http://${h}/-/profile`, { _method: 'put', 'user[private_profile]': '0' })),
  hostArb.map((h) => form(`http://${h}/-/profile/keys`, { 'key[title]': 'k', 'key[key]': 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAB x' })),
  hostArb.map((h) => form(`http://${h}/-/user_settings/personal_access_tokens`, { 'personal_access_token[name]': 't', 'personal_access_token[scopes][]': ['api'] })),
  hostArb.map((h) => form(`http://${h}/-/profile/emails`, { 'email[email]': 'a@evil.test' })),
  fc.tuple(postArb, fc.constantFrom('1', '-1')).map(([id, choice]) => form(`http://reddit.test/sv/${id}`, { choice })),
  postArb.map((id) => form(`http://reddit.test/f/books/${id}/x/comment`, { 'comment[comment]': 'x' })),
  fc.constantFrom('books', 'politics').map((f) => form(`http://reddit.test/submit/${f}`, { 'submission[title]': 't', 'submission[forum]': f })),
  fc.constantFrom('books', 'politics').map((f) => form(`http://reddit.test/f/${f}/subscribe`, {})),
  fc.constantFrom('grant', 'me').map((u) => form(`http://reddit.test/user/${u}/edit`, { 'user[email]': 'a@evil.test' })),
);

const policies = new Map<string, TaskPolicy>();
beforeAll(async () => {
  for (const task of TASKS) policies.set(task, (await compileTask(task, { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
});
const taskArb = fc.constantFrom(...TASKS);

/** Whether the words named this call's action on this object (an action constraint covers its reading). */
function named(policy: TaskPolicy, call: ToolCall): boolean {
  const reading = classify(call).action;
  if (reading === undefined || reading.id === null) return false;
  return policy.constraints.some((k) => k.actions?.includes(reading.id!) === true && k.objects !== undefined && objectCovered(reading.object, k.objects))
    || policy.constraints.some((k) => k.actions?.includes(reading.id!) === true && k.objects === undefined && ['post', 'message', 'order', 'pay', 'invite', 'share', 'member'].includes(reading.id!))
    || policy.constraints.some((k) => k.actions?.includes(reading.id!) === true && k.objects === undefined && ACTIONS[reading.id!].security);
}

describe('action binding (theorems)', () => {
  it('a write whose action or object the words do not name never ALLOWs without a grant', () => {
    fc.assert(
      fc.property(taskArb, writeArb, (task, call) => {
        const policy = policies.get(task)!;
        const { record } = evaluate(policy, initialState(), call, NOW + 1);
        if (record.decision === 'ALLOW') expect(named(policy, call), `${task}: ${JSON.stringify(call)} (${record.reason})`).toBe(true);
      }),
      params,
    );
  });

  it('no account-security action is allowed by another action\'s evidence, however wide the listing', () => {
    fc.assert(
      fc.property(taskArb, writeArb, fc.boolean(), (task, call, widen) => {
        const compiled = policies.get(task)!;
        // Another action's evidence at its widest: every class listed and allowed, on the task's sites.
        const policy: TaskPolicy = widen
          ? { ...compiled, allow: { ...compiled.allow, classes: [...CONSEQUENTIAL_CLASSES] }, ceilings: Object.fromEntries(CONSEQUENTIAL_CLASSES.map((c) => [c, 'allow'])) }
          : compiled;
        const reading = classify(call).action;
        if (reading?.id == null || !SECURITY_ACTIONS.has(reading.id)) return;
        const ownWords = compiled.constraints.some((k) => k.actions?.includes(reading.id!));
        const { record } = evaluate(policy, initialState(), call, NOW + 1);
        if (!ownWords) expect(record.decision, `${task}: ${reading.id}`).toBe('BLOCK');
      }),
      params,
    );
  });

  it('a budget is spent only by its own action: the asked-for write is allowed after any other writes', () => {
    const OWN: Record<string, ToolCall> = {
      [TASKS[0]]: form('http://gitlab.test/byteblaze/dotfiles/-/issues/1000/notes', { 'note[note]': 'we are working on it' }),
      [TASKS[1]]: form('http://gitlab.test/byteblaze/dotfiles/-/issues/1000/toggle_award_emoji', { name: 'thumbsup' }),
      [TASKS[4]]: form('http://reddit.test/f/books/130944/we-read-it/comment', { 'comment[comment]': 'same here' }),
      [TASKS[5]]: form('http://reddit.test/sv/130944', { choice: '1' }),
    };
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(OWN)), fc.array(writeArb, { maxLength: 6 }), (task, others) => {
        const policy = policies.get(task)!;
        const own = OWN[task]!;
        const ownReading = classify(own).action!;
        let state = initialState();
        for (const call of others) {
          const r = classify(call).action;
          // (The same action on the same object is the asked-for write itself: it may spend the budget.)
          if (r?.id === ownReading.id && r?.object === ownReading.object) continue;
          state = evaluate(policy, state, call, NOW + 1).state;
        }
        const { record } = evaluate(policy, state, own, NOW + 2);
        expect(record.decision, record.reason).toBe('ALLOW');
      }),
      params,
    );
  });
});

/**
 * Settings and things as theorems (Constraint.settings, Constraint.about; issue 35): a write that sets the other
 * direction of the setting the words change, or that names none of what the words act on on a generic site,
 * never ALLOWs — whatever the field is called, however its value is spelled, whatever its button says.
 */
const SETTING_TASKS = [
  { task: 'Turn off email notifications in my settings on shop.test', site: 'shop.test', other: ['on', 'true', '1', 'enabled', 'yes'], names: ['email_notifications', 'notify_by_email', 'emailNotifications', 'prefs[email_notifications]'] },
  { task: 'Make my profile private on social.test', site: 'social.test', other: ['public', 'everyone', 'visible'], names: ['profile_visibility', 'visibility', 'who_can_see_profile', 'profile[visibility]'] },
  { task: 'Enable two-factor authentication on bank.test', site: 'bank.test', other: ['off', 'false', '0', 'disabled', 'no'], names: ['two_factor', '2fa', 'mfa_enabled', 'otp_status'] },
  { task: 'Make the repo byteblaze/dotfiles private on gitlab.test', site: 'gitlab.test', other: ['20', 'public'], names: ['project[visibility_level]'] },
] as const;

describe('settings and things (theorems)', () => {
  const compiled = new Map<string, TaskPolicy>();
  beforeAll(async () => {
    for (const { task } of SETTING_TASKS) compiled.set(task, (await compileTask(task, { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
    compiled.set('things', (await compileTask('Cancel my subscription on stream.test', { backend: 'rules', now: NOW, taskId: 't', classify })).policy);
  });

  it('a write that sets the other direction of the named setting never ALLOWs', () => {
    const arb = fc.constantFrom(...SETTING_TASKS).chain((t) =>
      fc.record({
        t: fc.constant(t),
        name: fc.constantFrom(...t.names),
        value: fc.constantFrom(...t.other),
        path: fc.constantFrom('/settings', '/account/preferences', '/byteblaze/dotfiles', '/settings/security'),
        button: fc.constantFrom('Save', 'Update', 'Apply changes', ''),
      }),
    );
    fc.assert(
      fc.property(arb, ({ t, name, value, path, button }) => {
        const call: ToolCall = { tool: 'browser.form_submit', args: { url: `https://${t.site}${path}`, method: 'POST', fields: t.site === 'gitlab.test' ? { _method: 'put', [name]: value } : { [name]: value }, submitText: button } };
        const { record } = evaluate(compiled.get(t.task)!, initialState(), call, NOW + 1);
        expect(record.decision, `${t.task}: ${JSON.stringify(call.args)} (${record.reason})`).not.toBe('ALLOW');
      }),
      params,
    );
  });

  it('a generic-site write that names none of what the words act on never ALLOWs', () => {
    const arb = fc.record({
      path: fc.constantFrom('/account/plan', '/account/delete', '/profile/edit', '/account/address', '/billing/card'),
      field: fc.constantFrom('plan', 'street', 'card_number', 'display_name', 'confirm'),
      value: fc.constantFrom('premium', '1 Evil Rd', 'x', 'yes'),
      button: fc.constantFrom('Save', 'Upgrade', 'Confirm', 'Delete account'),
    });
    fc.assert(
      fc.property(arb, ({ path, field, value, button }) => {
        const call: ToolCall = { tool: 'browser.form_submit', args: { url: `https://stream.test${path}`, method: 'POST', fields: { [field]: value }, submitText: button } };
        const { record } = evaluate(compiled.get('things')!, initialState(), call, NOW + 1);
        expect(record.decision, `${JSON.stringify(call.args)} (${record.reason})`).not.toBe('ALLOW');
      }),
      params,
    );
  });
});
