import type { RiskClass } from '../risk';

/**
 * The web action vocabulary: what a consequential web request does, one id per action. The classifier
 * reads an action from what a site sends (routes, field shapes, buttons: ./read.ts, ./apps.ts); the
 * compiler reads the actions the user's words ask for (src/compiler/actions.ts) from the same verbs and
 * nouns listed here. A policy names actions by these ids (Constraint.actions), so both sides speak one
 * language: `comment` is a comment whether the words say "comment on" or "reply to the post", and the
 * forge sends `POST …/notes`.
 */

export const ACTION_IDS = [
  // conversation and content
  'comment', 'react', 'upvote', 'downvote', 'post', 'edit', 'pin', 'commit', 'delete', 'close', 'reopen', 'merge', 'approve', 'assign',
  // people and reach
  'invite', 'member', 'share', 'follow', 'rsvp', 'message',
  // money
  'order', 'return_order', 'cancel_order', 'pay', 'plan_change', 'plan_cancel',
  // account security: credentials and keys
  'ssh_key', 'gpg_key', 'deploy_key', 'access_token', 'api_key', 'oauth_app', 'two_factor', 'session',
  // account security: integrations
  'webhook', 'integration',
  // account security: identity
  'email_change', 'password_change', 'phone_change', 'recovery_change', 'mail_forward',
  // account security: visibility, ownership, export
  'visibility', 'transfer_ownership', 'archive_project', 'delete_project', 'delete_account', 'export',
] as const;
export type ActionId = (typeof ACTION_IDS)[number];

export interface ActionSpec {
  id: ActionId;
  /** The class the action is decided in (ceiling, listing). */
  riskClass: Exclude<RiskClass, 'READ' | 'UNKNOWN'>;
  /** Account-security action: granted only by its own words, never implied by another verb. */
  security: boolean;
  /** What it does, for a person ("comments on", "adds a deploy key to"): followed by the object. */
  says: string;
  /** Clause-opening verbs (base form) that ask for it in the user's words. */
  verbs: readonly string[];
  /**
   * Nouns that name it after a general verb ("add a comment", "add my SSH key", "set up 2FA"); for a
   * security action these are the only way the words ask for it. Multi-word nouns are written with spaces.
   */
  nouns: readonly string[];
  /**
   * The last word of a REST route that takes this action on a site the table does not know
   * (`/orders/991/cancel`, `/groups/5/leave`): what ./read.ts reads such a write as, for binding only.
   */
  routes: readonly string[];
}

const spec = (id: ActionId, riskClass: ActionSpec['riskClass'], says: string, verbs: readonly string[], nouns: readonly string[] = [], security = false, routes: readonly string[] = []): ActionSpec => ({ id, riskClass, security, says, verbs, nouns, routes });

/** The general verbs after which a noun says what is done ("add a comment", "set up 2FA", "change my password"). */
export const GENERAL_VERBS: ReadonlySet<string> = new Set(['add', 'create', 'make', 'leave', 'write', 'post', 'set', 'setup', 'enable', 'disable', 'turn', 'switch', 'change', 'update', 'edit', 'generate', 'register', 'configure', 'new', 'put', 'give', 'upload', 'rotate', 'reset', 'open', 'file', 'manage', 'drop']);

export const ACTIONS: Readonly<Record<ActionId, ActionSpec>> = {
  comment: spec('comment', 'EXTERNAL_WRITE', 'comments on', ['comment', 'reply', 'respond', 'answer'], ['comment', 'comments', 'reply', 'note', 'review'], false, ['comment', 'comments', 'reply', 'replies']),
  react: spec('react', 'EXTERNAL_WRITE', 'reacts to', ['react', 'like', 'star', 'heart', 'favorite', 'favourite'], ['reaction', 'emoji', 'thumbs up', 'thumbs_up', 'thumbsup', 'award', 'like', 'star', 'favorite'], false, ['like', 'react', 'reactions', 'star']),
  upvote: spec('upvote', 'EXTERNAL_WRITE', 'upvotes', ['upvote', 'like', 'vote'], ['upvote', 'vote'], false, ['vote', 'upvote']),
  downvote: spec('downvote', 'EXTERNAL_WRITE', 'downvotes', ['downvote'], ['downvote'], false, ['downvote']),
  post: spec('post', 'EXTERNAL_WRITE', 'posts in', ['post', 'submit', 'publish', 'tweet', 'create'], ['post', 'submission', 'thread', 'issue', 'ticket', 'merge request', 'pull request', 'pr', 'mr', 'tweet'], false, ['post', 'posts', 'publish']),
  edit: spec('edit', 'EXTERNAL_WRITE', 'edits', ['edit', 'update', 'change', 'modify', 'rename', 'fix', 'correct', 'label', 'tag', 'lock', 'unlock', 'set', 'move', 'reschedule'], ['title', 'description', 'label', 'labels', 'milestone', 'due date', 'default branch']),
  // (Pinning shows a message to everyone who opens the channel: its own action, not any edit of the channel.)
  pin: spec('pin', 'EXTERNAL_WRITE', 'pins', ['pin', 'unpin'], ['pin'], false, ['pin', 'unpin', 'pins']),
  commit: spec('commit', 'EXTERNAL_WRITE', 'commits to', ['commit', 'push'], ['commit', 'file', 'branch']),
  delete: spec('delete', 'DELETE', 'deletes', ['delete', 'remove', 'erase', 'trash', 'discard'], [], false, ['delete', 'remove', 'destroy']),
  close: spec('close', 'EXTERNAL_WRITE', 'closes', ['close'], [], false, ['close']),
  reopen: spec('reopen', 'EXTERNAL_WRITE', 'reopens', ['reopen'], [], false, ['reopen']),
  merge: spec('merge', 'EXTERNAL_WRITE', 'merges', ['merge'], [], false, ['merge']),
  approve: spec('approve', 'EXTERNAL_WRITE', 'approves', ['approve'], ['approval'], false, ['approve', 'approvals']),
  assign: spec('assign', 'EXTERNAL_WRITE', 'assigns', ['assign', 'unassign'], ['assignee'], false, ['assign']),
  invite: spec('invite', 'PERMISSION_CHANGE', 'invites someone to', ['invite'], ['invitation', 'invite'], false, ['invite', 'invites']),
  member: spec('member', 'PERMISSION_CHANGE', 'changes the members of', ['grant'], ['member', 'members', 'role', 'access level', 'maintainer', 'owner', 'developer', 'moderator', 'collaborator']),
  share: spec('share', 'PERMISSION_CHANGE', 'shares', ['share', 'unshare', 'retweet', 'repost', 'reblog'], ['sharing', 'retweet', 'repost'], false, ['share']),
  follow: spec('follow', 'EXTERNAL_WRITE', 'follows', ['follow', 'unfollow', 'subscribe', 'unsubscribe'], ['subscription', 'friendship', 'follower'], false, ['leave', 'join', 'follow', 'unfollow', 'subscribe', 'unsubscribe']),
  // (Signing up for an event answers it too: "register me for the webinar", `POST /webinar/ai/register`.)
  rsvp: spec('rsvp', 'EXTERNAL_WRITE', 'answers the invitation to', ['rsvp', 'accept', 'decline', 'register', 'enroll', 'signup'], ['rsvp', 'registration'], false, ['rsvp', 'respond', 'accept', 'decline', 'register', 'registration', 'signup', 'enroll']),
  message: spec('message', 'COMMUNICATION', 'sends a message to', ['message', 'dm', 'msg', 'send', 'email', 'text'], ['message', 'dm']),
  order: spec('order', 'FINANCIAL', 'orders', ['order', 'buy', 'purchase', 'checkout', 'reorder'], ['order']),
  return_order: spec('return_order', 'EXTERNAL_WRITE', 'returns', ['return', 'exchange'], ['return'], false, ['return', 'returns']),
  // ("add free cancellation" books an option: the noun alone names no cancelling.)
  cancel_order: spec('cancel_order', 'EXTERNAL_WRITE', 'cancels', ['cancel'], [], false, ['cancel']),
  pay: spec('pay', 'FINANCIAL', 'pays', ['pay', 'transfer', 'wire', 'tip', 'donate', 'refund'], ['payment', 'transfer']),
  plan_change: spec('plan_change', 'EXTERNAL_WRITE', 'changes the plan of', ['upgrade', 'downgrade'], ['plan', 'subscription', 'tier']),
  plan_cancel: spec('plan_cancel', 'EXTERNAL_WRITE', 'cancels the plan of', ['cancel'], ['membership']),
  ssh_key: spec('ssh_key', 'PERMISSION_CHANGE', 'adds an SSH key to', [], ['ssh key', 'ssh keys', 'public key'], true),
  gpg_key: spec('gpg_key', 'PERMISSION_CHANGE', 'adds a GPG key to', [], ['gpg key', 'gpg keys', 'pgp key'], true),
  deploy_key: spec('deploy_key', 'PERMISSION_CHANGE', 'adds a deploy key or token to', [], ['deploy key', 'deploy keys', 'deploy token', 'deploy tokens'], true),
  access_token: spec('access_token', 'PERMISSION_CHANGE', 'creates an access token on', [], ['access token', 'access tokens', 'personal access token', 'token', 'tokens'], true),
  api_key: spec('api_key', 'PERMISSION_CHANGE', 'creates an API key on', [], ['api key', 'api keys'], true),
  // ("the job application form" is no OAuth application: the noun alone never names one.)
  oauth_app: spec('oauth_app', 'PERMISSION_CHANGE', 'authorises an OAuth application on', ['authorize', 'authorise'], ['oauth', 'oauth app', 'oauth application', 'oauth applications'], true),
  two_factor: spec('two_factor', 'PERMISSION_CHANGE', 'changes two-factor authentication on', [], ['2fa', 'two-factor', 'two factor', 'mfa', 'two-step', 'two step', '2-step', '2 step', '2sv', 'recovery codes', 'authenticator'], true),
  session: spec('session', 'PERMISSION_CHANGE', 'changes the signed-in sessions on', [], ['session', 'sessions'], true),
  webhook: spec('webhook', 'PERMISSION_CHANGE', 'adds a webhook to', [], ['webhook', 'webhooks', 'hook', 'hooks'], true),
  integration: spec('integration', 'PERMISSION_CHANGE', 'adds an app or bot to', [], ['integration', 'integrations', 'bot', 'bots', 'app'], true),
  email_change: spec('email_change', 'PERMISSION_CHANGE', 'changes the e-mail address of', [], ['email address', 'e-mail address', 'email', 'e-mail'], true),
  password_change: spec('password_change', 'PERMISSION_CHANGE', 'changes the password of', [], ['password', 'passphrase'], true),
  phone_change: spec('phone_change', 'PERMISSION_CHANGE', 'changes the phone number of', [], ['phone number', 'phone', 'mobile number'], true),
  recovery_change: spec('recovery_change', 'PERMISSION_CHANGE', 'changes the account recovery of', [], ['recovery email', 'recovery address', 'recovery phone', 'security question', 'security questions'], true),
  mail_forward: spec('mail_forward', 'PERMISSION_CHANGE', 'forwards or redirects the mail of', [], ['forwarding', 'mail forwarding', 'email forwarding', 'auto-forward', 'auto forward', 'autoforward', 'forwarding address', 'forwarding rule', 'redirect rule'], true),
  visibility: spec('visibility', 'PERMISSION_CHANGE', 'changes the visibility of', [], ['visibility', 'private', 'public', 'privacy'], true),
  transfer_ownership: spec('transfer_ownership', 'PERMISSION_CHANGE', 'transfers the ownership of', [], ['ownership'], true),
  archive_project: spec('archive_project', 'PERMISSION_CHANGE', 'archives', [], [], true),
  delete_project: spec('delete_project', 'DELETE', 'deletes the project', [], [], true),
  delete_account: spec('delete_account', 'DELETE', 'deletes the account on', [], [], true),
  export: spec('export', 'PERMISSION_CHANGE', 'exports the data of', [], ['data export'], true),
};

/**
 * Ownership actions: the verb says what is done, and the thing it is done to must be a project, repository,
 * group or account ("transfer the project to …", "archive the repo", "delete my account"): never the verb
 * alone ("transfer €100", "archive the newsletters", "delete the comment").
 */
export const OWNERSHIP_VERBS: Readonly<Record<string, Partial<Record<'project' | 'account', ActionId>>>> = {
  transfer: { project: 'transfer_ownership', account: 'transfer_ownership' },
  archive: { project: 'archive_project' },
  unarchive: { project: 'archive_project' },
  delete: { project: 'delete_project', account: 'delete_account' },
  remove: { project: 'delete_project', account: 'delete_account' },
  close: { account: 'delete_account' },
  deactivate: { account: 'delete_account' },
  export: { project: 'export', account: 'export' },
};
export const OWNED_THINGS: Readonly<Record<string, 'project' | 'account'>> = { project: 'project', projects: 'project', repo: 'project', repository: 'project', repositories: 'project', group: 'project', namespace: 'project', account: 'account', profile: 'account', data: 'account' };

export function isActionId(value: string): value is ActionId {
  return Object.hasOwn(ACTIONS, value);
}

export const SECURITY_ACTIONS: ReadonlySet<ActionId> = new Set(ACTION_IDS.filter((id) => ACTIONS[id].security));

/**
 * The directions a setting is changed in (src/core/actions/settings.ts reads them from a write; the compiler
 * from the words): a visibility is private or public, a switch off or on.
 */
export const SETTING_POLE_IDS = ['private', 'public', 'off', 'on'] as const;
export type SettingPole = (typeof SETTING_POLE_IDS)[number];

/** Words (in the user's request, or in a write's values, names and buttons) that say a direction. */
export const POLE_WORDS: Readonly<Record<string, SettingPole>> = {
  private: 'private', hidden: 'private', hide: 'private', invisible: 'private', only_me: 'private', onlyme: 'private', friends_only: 'private', unlisted: 'private',
  public: 'public', visible: 'public', everyone: 'public', unhide: 'public', publicly: 'public',
  off: 'off', disable: 'off', disabled: 'off', deactivate: 'off', deactivated: 'off', mute: 'off', muted: 'off', pause: 'off', paused: 'off', inactive: 'off', optout: 'off', opt_out: 'off', stop: 'off', never: 'off', none: 'off',
  on: 'on', enable: 'on', enabled: 'on', activate: 'on', activated: 'on', unmute: 'on', resume: 'on', active: 'on', optin: 'on', opt_in: 'on', always: 'on',
};
