import type { ActionId } from './vocabulary';

/**
 * Per-app knowledge as data: which requests of a known web app are which action, on which object.
 * Teaching the guard a new app is one entry here plus its corpus cases (tests/corpus/web-actions.json).
 *
 * - `hosts`: host names the app is served on (a host or any subdomain of it).
 * - `pages`: URLs that name an object (what "the given issue" after that URL refers to), for the compiler.
 * - `routes`: the app's state-changing requests, first match wins. `path` is a URLPattern pathname
 *   pattern; `methods` are the HTTP methods after a Rails `_method` override; `fields` (any of) and
 *   `values` (each) narrow by what the form or body carries (`user[private_profile]`, `choice=-1`).
 * - `object`: templates of the canonical object, filled from the path's groups and the body's fields
 *   (`{project}`, `{input.projectPath}`); the first whose names are all present is used.
 *
 * Read from the apps' public routes: GitLab's config/routes/{project,issues,merge_requests,repository,
 * profile,user_settings,group}.rb and lib/api/{notes,award_emoji,deploy_keys,members,projects,users}.rb;
 * Postmill's config/routes/*.yaml (submission, comment, vote, forum, user) and its form types
 * (SubmissionType `submission[...]`, CommentType `comment[...]`, UserType `user[...]`).
 */

export interface PageSpec {
  path: string;
  object: string;
}

export interface RouteSpec {
  action: ActionId;
  methods: readonly string[];
  path: string;
  /** Field names (flattened: `user[email]`, `input.name`) of which at least one must be present. */
  fields?: readonly string[];
  /** Field values that must match (`choice` one of `['1']`). */
  values?: Readonly<Record<string, readonly string[]>>;
  /** Object templates, first complete one wins; absent: the request names no object the guard can read. */
  object?: readonly string[];
}

export interface AppSpec {
  app: string;
  /** What the app is, for a person. */
  title: string;
  hosts: readonly string[];
  /**
   * A path shape only this app uses (GitLab's `/-/` scope, its `/api/v4/`): a self-hosted copy on another
   * host (`localhost:8023`) is still read as the app. Absent: the app is known by its hosts only.
   */
  signature?: RegExp;
  pages: readonly PageSpec[];
  routes: readonly RouteSpec[];
  /**
   * Commands a text field runs (GitLab's quick actions: a comment whose line is `/merge` merges): the
   * fields that carry such text, and per command the action it takes (null: one the guard does not name,
   * which asks). A comment that carries one is read as that command on the same object.
   */
  commands?: { fields: readonly string[]; actions: Readonly<Record<string, ActionId | null>> };
  /** GraphQL endpoint and operation names → action (the operation's `input` fills the object template). */
  graphql?: { path: string; operations: Readonly<Record<string, { action: ActionId; object?: readonly string[] }>> };
}

const W = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const POST = ['POST'] as const;
const UPDATE = ['PUT', 'PATCH', 'POST'] as const;
const DELETE = ['DELETE'] as const;
const PUT_PATCH = ['PUT', 'PATCH'] as const;

const ISSUE = ['issue:{project}#{iid}'];
const MR = ['merge_request:{project}!{iid}'];
const PROJECT = ['project:{project}'];
const API_ISSUE = ['issue:{id}#{iid}'];
const API_MR = ['merge_request:{id}!{iid}'];
const API_PROJECT = ['project:{id}'];
const FILE = ['file:{project}/{file}'];
const ME = ['user:me'];

const GITLAB: AppSpec = {
  app: 'gitlab',
  title: 'GitLab',
  hosts: ['gitlab.com', 'gitlab.test', 'gitlab.localhost'],
  signature: /^\/(?:[^/]+\/)+-\/(?:issues|merge_requests|deploy_keys|hooks|project_members|settings|blob|tree|create|update|transfer|archive|export)\b|^\/-\/(?:profile|user_settings)\b|^\/api\/v4\/(?:projects|groups|user)\b/,
  pages: [
    { path: '/:project+/-/issues/:iid(\\d+){/*}?', object: ISSUE[0]! },
    { path: '/:project+/-/merge_requests/:iid(\\d+){/*}?', object: MR[0]! },
    { path: '/:project+/-/blob/:ref/:file+', object: FILE[0]! },
    { path: '/:project+/-/:rest*', object: PROJECT[0]! },
    { path: '/:project+', object: PROJECT[0]! },
  ],
  routes: [
    // Account security first: their routes are the app's own, never a project's.
    { action: 'ssh_key', methods: W, path: '{/-}?/profile/keys{/*}?' },
    { action: 'ssh_key', methods: W, path: '/-/user_settings/ssh_keys{/*}?' },
    { action: 'ssh_key', methods: W, path: '/api/v4/user{s/:uid}?/keys{/*}?' },
    { action: 'gpg_key', methods: W, path: '{/-}?/profile/gpg_keys{/*}?' },
    { action: 'gpg_key', methods: W, path: '/-/user_settings/gpg_keys{/*}?' },
    { action: 'gpg_key', methods: W, path: '/api/v4/user{s/:uid}?/gpg_keys{/*}?' },
    { action: 'access_token', methods: W, path: '{/-}?/profile/personal_access_tokens{/*}?' },
    { action: 'access_token', methods: W, path: '/-/user_settings/personal_access_tokens{/*}?' },
    { action: 'access_token', methods: W, path: '/api/v4/user{s/:uid}?/personal_access_tokens{/*}?' },
    { action: 'oauth_app', methods: W, path: '{/-}?/profile/applications{/*}?' },
    { action: 'oauth_app', methods: W, path: '/-/user_settings/applications{/*}?' },
    { action: 'oauth_app', methods: W, path: '/oauth/*' },
    { action: 'two_factor', methods: W, path: '{/-}?/profile/two_factor_auth{/*}?' },
    { action: 'two_factor', methods: W, path: '/-/user_settings/two_factor_auth{/*}?' },
    { action: 'session', methods: W, path: '{/-}?/profile/active_sessions{/*}?' },
    { action: 'session', methods: W, path: '/-/user_settings/active_sessions{/*}?' },
    { action: 'email_change', methods: W, path: '{/-}?/profile/emails{/*}?' },
    { action: 'email_change', methods: W, path: '/api/v4/user{s/:uid}?/emails{/*}?' },
    { action: 'password_change', methods: W, path: '{/-}?/profile/password{/*}?' },
    { action: 'password_change', methods: W, path: '/-/user_settings/password{/*}?' },
    { action: 'delete_account', methods: DELETE, path: '/users' },
    { action: 'delete_account', methods: DELETE, path: '{/-}?/profile' },
    { action: 'email_change', methods: UPDATE, path: '{/-}?/profile', fields: ['user[email]', 'user[unconfirmed_email]', 'user[commit_email]', 'user[notification_email]'] },
    { action: 'visibility', methods: UPDATE, path: '{/-}?/profile', fields: ['user[private_profile]', 'user[public_email]', 'user[include_private_contributions]'] },
    { action: 'edit', methods: UPDATE, path: '{/-}?/profile', object: ME },
    { action: 'follow', methods: POST, path: '/users/:username/{un}?follow', object: ['user:{username}'] },
    // REST API on projects.
    { action: 'comment', methods: POST, path: '/api/v4/projects/:id/issues/:iid/notes', object: API_ISSUE },
    { action: 'comment', methods: POST, path: '/api/v4/projects/:id/merge_requests/:iid/notes', object: API_MR },
    { action: 'comment', methods: POST, path: '/api/v4/projects/:id/merge_requests/:iid/discussions', object: API_MR },
    // A reply in an existing thread (GitLab's REST API, doc/api/discussions.md: `POST …/discussions/:discussion_id/notes`).
    { action: 'comment', methods: POST, path: '/api/v4/projects/:id/merge_requests/:iid/discussions/:discussion/notes', object: API_MR },
    { action: 'comment', methods: POST, path: '/api/v4/projects/:id/issues/:iid/discussions{/:discussion/notes}?', object: API_ISSUE },
    { action: 'react', methods: POST, path: '/api/v4/projects/:id/issues/:iid/award_emoji', object: API_ISSUE },
    { action: 'react', methods: POST, path: '/api/v4/projects/:id/merge_requests/:iid/award_emoji', object: API_MR },
    { action: 'merge', methods: ['PUT', 'POST'], path: '/api/v4/projects/:id/merge_requests/:iid/merge', object: API_MR },
    { action: 'approve', methods: POST, path: '/api/v4/projects/:id/merge_requests/:iid/approve', object: API_MR },
    { action: 'close', methods: ['PUT'], path: '/api/v4/projects/:id/issues/:iid', values: { state_event: ['close'] }, object: API_ISSUE },
    { action: 'reopen', methods: ['PUT'], path: '/api/v4/projects/:id/issues/:iid', values: { state_event: ['reopen'] }, object: API_ISSUE },
    { action: 'assign', methods: ['PUT'], path: '/api/v4/projects/:id/issues/:iid', fields: ['assignee_ids', 'assignee_id', 'assignee_ids[]'], object: API_ISSUE },
    { action: 'edit', methods: ['PUT'], path: '/api/v4/projects/:id/issues/:iid', object: API_ISSUE },
    { action: 'delete', methods: DELETE, path: '/api/v4/projects/:id/issues/:iid', object: API_ISSUE },
    // A new project (projects#create; doc/api/projects.md "Create a project"): its visibility is set as it is
    // made, which changes no existing thing's visibility. No object: it does not exist yet.
    { action: 'post', methods: POST, path: '/api/v4/projects' },
    { action: 'post', methods: POST, path: '/api/v4/projects/:id/issues', object: API_PROJECT },
    { action: 'post', methods: POST, path: '/api/v4/projects/:id/merge_requests', object: API_PROJECT },
    { action: 'deploy_key', methods: W, path: '/api/v4/projects/:id/deploy_(keys|tokens){/*}?', object: API_PROJECT },
    { action: 'access_token', methods: W, path: '/api/v4/(projects|groups)/:id/access_tokens{/*}?', object: API_PROJECT },
    { action: 'member', methods: W, path: '/api/v4/(projects|groups)/:id/members{/*}?', object: API_PROJECT },
    { action: 'invite', methods: W, path: '/api/v4/(projects|groups)/:id/invitations{/*}?', object: API_PROJECT },
    { action: 'webhook', methods: W, path: '/api/v4/(projects|groups)/:id/hooks{/*}?', object: API_PROJECT },
    { action: 'transfer_ownership', methods: W, path: '/api/v4/projects/:id/transfer', object: API_PROJECT },
    { action: 'archive_project', methods: W, path: '/api/v4/projects/:id/{un}?archive', object: API_PROJECT },
    { action: 'export', methods: W, path: '/api/v4/projects/:id/export{/*}?', object: API_PROJECT },
    { action: 'commit', methods: W, path: '/api/v4/projects/:id/repository/files/:file', object: ['file:{id}/{file}'] },
    { action: 'commit', methods: W, path: '/api/v4/projects/:id/repository/(commits|branches|tags){/*}?', object: API_PROJECT },
    { action: 'visibility', methods: ['PUT'], path: '/api/v4/projects/:id', fields: ['visibility'], object: API_PROJECT },
    { action: 'edit', methods: ['PUT'], path: '/api/v4/projects/:id', object: API_PROJECT },
    { action: 'delete_project', methods: DELETE, path: '/api/v4/projects/:id', object: API_PROJECT },
    { action: 'delete_project', methods: DELETE, path: '/api/v4/groups/:id' },
    // The web UI's Rails routes (`/-/` scopes a project's pages).
    { action: 'comment', methods: POST, path: '/:project+/-/issues/:iid/notes', object: ISSUE },
    { action: 'comment', methods: POST, path: '/:project+/-/merge_requests/:iid/notes', object: MR },
    { action: 'comment', methods: POST, path: '/:project+/-/merge_requests/:iid/discussions', object: MR },
    { action: 'comment', methods: POST, path: '/:project+/-/merge_requests/:iid/discussions/:discussion/notes', object: MR },
    { action: 'comment', methods: POST, path: '/:project+/-/issues/:iid/discussions/:discussion/notes', object: ISSUE },
    // The project's notes resource (config/routes/project.rb `resources :notes`): the note goes to Rails'
    // `target_type` with `target_id` (a database id, which no words name: it asks) or else `target_iid`
    // (app/finders/notes_finder.rb `find_target_by_type_and_ids`), from the query or the body (the reader
    // merges them: a name given twice reads as no object); `note[noteable_*]` is overwritten from that
    // target (app/controllers/concerns/notes_actions.rb `create_note_params`), so it is never read. Each
    // project route comes with GitLab's `-` scope and without; the scoped one first, so `:project+` (greedy,
    // as URLPattern's) never takes the `-` (`/byteblaze/dotfiles/-/notes` is the project byteblaze/dotfiles).
    { action: 'comment', methods: POST, path: '/:project+/-/notes', fields: ['target_id'] },
    { action: 'comment', methods: POST, path: '/:project+/notes', fields: ['target_id'] },
    { action: 'comment', methods: POST, path: '/:project+/-/notes', values: { target_type: ['issue'] }, object: ['issue:{project}#{target_iid}'] },
    { action: 'comment', methods: POST, path: '/:project+/notes', values: { target_type: ['issue'] }, object: ['issue:{project}#{target_iid}'] },
    { action: 'comment', methods: POST, path: '/:project+/-/notes', values: { target_type: ['merge_request'] }, object: ['merge_request:{project}!{target_iid}'] },
    { action: 'comment', methods: POST, path: '/:project+/notes', values: { target_type: ['merge_request'] }, object: ['merge_request:{project}!{target_iid}'] },
    { action: 'comment', methods: POST, path: '/:project+/-/notes' },
    { action: 'comment', methods: POST, path: '/:project+/notes' },
    { action: 'react', methods: POST, path: '/:project+/-/issues/:iid/{toggle_}?award_emoji', object: ISSUE },
    { action: 'react', methods: POST, path: '/:project+/-/merge_requests/:iid/{toggle_}?award_emoji', object: MR },
    { action: 'react', methods: POST, path: '/:project+/-/notes/:nid/toggle_award_emoji', object: ['note:{project}/{nid}'] },
    { action: 'react', methods: POST, path: '/:project+/-/toggle_star{.json}?', object: PROJECT },
    { action: 'edit', methods: UPDATE, path: '/:project+/-/notes/:nid', object: ['note:{project}/{nid}'] },
    { action: 'delete', methods: DELETE, path: '/:project+/-/notes/:nid', object: ['note:{project}/{nid}'] },
    { action: 'merge', methods: ['POST', 'PUT'], path: '/:project+/-/merge_requests/:iid/merge', object: MR },
    { action: 'approve', methods: POST, path: '/:project+/-/merge_requests/:iid/(approve|approvals)', object: MR },
    { action: 'close', methods: UPDATE, path: '/:project+/-/issues/:iid', values: { 'issue[state_event]': ['close'] }, object: ISSUE },
    { action: 'close', methods: UPDATE, path: '/:project+/-/merge_requests/:iid', values: { 'merge_request[state_event]': ['close'] }, object: MR },
    { action: 'reopen', methods: UPDATE, path: '/:project+/-/issues/:iid', values: { 'issue[state_event]': ['reopen'] }, object: ISSUE },
    { action: 'reopen', methods: UPDATE, path: '/:project+/-/merge_requests/:iid', values: { 'merge_request[state_event]': ['reopen'] }, object: MR },
    { action: 'assign', methods: UPDATE, path: '/:project+/-/issues/:iid', fields: ['issue[assignee_ids]', 'issue[assignee_ids][]', 'issue[assignee_id]'], object: ISSUE },
    { action: 'assign', methods: UPDATE, path: '/:project+/-/merge_requests/:iid', fields: ['merge_request[assignee_ids]', 'merge_request[assignee_ids][]', 'merge_request[reviewer_ids][]'], object: MR },
    { action: 'delete', methods: DELETE, path: '/:project+/-/issues/:iid', object: ISSUE },
    { action: 'edit', methods: UPDATE, path: '/:project+/-/issues/:iid', object: ISSUE },
    { action: 'edit', methods: UPDATE, path: '/:project+/-/merge_requests/:iid', object: MR },
    { action: 'post', methods: POST, path: '/projects', fields: ['project[name]', 'project[path]'] },
    { action: 'post', methods: POST, path: '/:project+/-/issues', object: PROJECT },
    { action: 'post', methods: POST, path: '/:project+/-/merge_requests', object: PROJECT },
    { action: 'commit', methods: ['POST', 'PUT'], path: '/:project+/-/(create|update|blob)/:ref/:file+', object: FILE },
    { action: 'commit', methods: ['POST'], path: '/:project+/-/create/:ref', object: PROJECT },
    { action: 'delete', methods: DELETE, path: '/:project+/-/blob/:ref/:file+', object: FILE },
    { action: 'commit', methods: W, path: '/:project+/-/(branches|tags){/*}?', object: PROJECT },
    { action: 'deploy_key', methods: W, path: '/:project+/-/deploy_keys{/*}?', object: PROJECT },
    { action: 'deploy_key', methods: W, path: '/:project+/-/settings/repository/deploy_token{s}?{/*}?', object: PROJECT },
    { action: 'access_token', methods: W, path: '/:project+/-/settings/access_tokens{/*}?', object: PROJECT },
    { action: 'webhook', methods: W, path: '/:project+/-/hooks{/*}?', object: PROJECT },
    { action: 'integration', methods: W, path: '/:project+/-/(settings/integrations|services){/*}?', object: PROJECT },
    { action: 'member', methods: W, path: '/:project+/-/(project_members|group_members|group_links){/*}?', object: PROJECT },
    { action: 'invite', methods: W, path: '/:project+/-/invites{/*}?', object: PROJECT },
    { action: 'transfer_ownership', methods: W, path: '/:project+/-/transfer', object: PROJECT },
    { action: 'transfer_ownership', methods: W, path: '/:project+/transfer', object: PROJECT },
    { action: 'archive_project', methods: W, path: '/:project+/-/{un}?archive', object: PROJECT },
    { action: 'archive_project', methods: W, path: '/:project+/{un}?archive', object: PROJECT },
    { action: 'export', methods: W, path: '/:project+/-/{download_}?export', object: PROJECT },
    { action: 'export', methods: W, path: '/:project+/{download_}?export', object: PROJECT },
    // (Rails sends a project's settings as PUT/PATCH through `_method`: a bare POST to a path is no project edit.)
    { action: 'visibility', methods: PUT_PATCH, path: '/:project+', fields: ['project[visibility_level]', 'project[visibility]', 'project[project_feature_attributes][repository_access_level]', 'group[visibility_level]'], object: PROJECT },
    { action: 'delete_project', methods: DELETE, path: '/:project+', object: PROJECT },
    { action: 'edit', methods: PUT_PATCH, path: '/:project+', object: PROJECT },
  ],
  // doc/user/project/quick_actions.md: a line of a note, issue or MR description that starts with `/`.
  commands: {
    fields: ['note[note]', 'note', 'body', 'input.body', 'issue[description]', 'merge_request[description]', 'description'],
    actions: {
      close: 'close', reopen: 'reopen', merge: 'merge', approve: 'approve', unapprove: 'approve', assign: 'assign', unassign: 'assign',
      reassign: 'assign', assign_reviewer: 'assign', reviewer: 'assign', request_review: 'assign', unassign_reviewer: 'assign', award: 'react',
      label: 'edit', unlabel: 'edit', relabel: 'edit', milestone: 'edit', remove_milestone: 'edit', title: 'edit', due: 'edit', remove_due_date: 'edit',
      estimate: 'edit', spend: 'edit', lock: 'edit', unlock: 'edit', todo: 'edit', done: 'edit', subscribe: 'follow', unsubscribe: 'follow',
      shrug: null, tableflip: null, move: null, clone: null, confidential: null, copy_metadata: null, promote: null, promote_to: null,
      target_branch: null, rebase: null, draft: null, ready: null, submit_review: null, create_merge_request: null, relate: null, unrelate: null,
      duplicate: null, blocks: null, blocked_by: null, epic: null, remove_epic: null, iteration: null, weight: null, severity: null, tag: null,
      zoom: null, remove_zoom: null, invite_email: null, add_contacts: null, remove_contacts: null, timeline: null, page: null, set_parent: null,
      add_child: null, remove_parent: null, remove_child: null, type: null, convert_to_ticket: null, health_status: null, q: null, react: 'react',
    },
  },
  graphql: {
    path: '/api/graphql',
    operations: {
      createNote: { action: 'comment' },
      awardEmojiAdd: { action: 'react' },
      awardEmojiToggle: { action: 'react' },
      mergeRequestAccept: { action: 'merge', object: ['merge_request:{input.projectPath}!{input.iid}'] },
      mergeRequestSetAssignees: { action: 'assign', object: ['merge_request:{input.projectPath}!{input.iid}'] },
      issueSetAssignees: { action: 'assign', object: ['issue:{input.projectPath}#{input.iid}'] },
      updateIssue: { action: 'edit', object: ['issue:{input.projectPath}#{input.iid}'] },
      createIssue: { action: 'post', object: ['project:{input.projectPath}'] },
      personalAccessTokenCreate: { action: 'access_token' },
      projectSetVisibility: { action: 'visibility' },
    },
  },
};

const POSTMILL: AppSpec = {
  app: 'postmill',
  title: 'Postmill',
  hosts: ['postmill.test', 'reddit.test', 'forum.test', 'postmill.localhost'],
  pages: [
    { path: '/f/:forum/:id(\\d+){/:slug}?/comment/:cid(\\d+){/*}?', object: 'comment:{cid}' },
    { path: '/f/:forum/:id(\\d+){/*}?', object: 'post:{id}' },
    { path: '/f/:forum{/*}?', object: 'forum:{forum}' },
    { path: '/user/:username{/*}?', object: 'user:{username}' },
  ],
  routes: [
    { action: 'upvote', methods: POST, path: '/sv/:id{.json}?', values: { choice: ['1'] }, object: ['post:{id}'] },
    { action: 'downvote', methods: POST, path: '/sv/:id{.json}?', values: { choice: ['-1'] }, object: ['post:{id}'] },
    { action: 'upvote', methods: POST, path: '/cv/:id{.json}?', values: { choice: ['1'] }, object: ['comment:{id}'] },
    { action: 'downvote', methods: POST, path: '/cv/:id{.json}?', values: { choice: ['-1'] }, object: ['comment:{id}'] },
    { action: 'comment', methods: POST, path: '/f/:forum/:id(\\d+){/:slug}?/comment{/:cid}?', object: ['post:{id}'] },
    { action: 'comment', methods: POST, path: '/f/:forum/:id(\\d+)/-/comment{/:cid}?', object: ['post:{id}'] },
    { action: 'comment', methods: POST, path: '/comment/:forum/:id(\\d+){/:cid}?', object: ['post:{id}'] },
    { action: 'edit', methods: POST, path: '/f/:forum/:id(\\d+){/:slug}?/comment/:cid/edit', object: ['comment:{cid}'] },
    { action: 'delete', methods: POST, path: '/f/:forum/:id(\\d+){/:slug}?/comment/:cid/(delete|delete_own)', object: ['comment:{cid}'] },
    { action: 'edit', methods: POST, path: '/f/:forum/:id(\\d+){/:slug}?/edit', object: ['post:{id}'] },
    { action: 'delete', methods: POST, path: '/f/:forum/:id(\\d+){/:slug}?/(delete|delete_own)', object: ['post:{id}'] },
    { action: 'edit', methods: POST, path: '/f/:forum/:id(\\d+)/-/(edit|lock|unlock|pin|unpin)', object: ['post:{id}'] },
    { action: 'delete', methods: POST, path: '/f/:forum/:id(\\d+)/-/(delete|delete_own)', object: ['post:{id}'] },
    { action: 'follow', methods: POST, path: '/f/:forum/{un}?subscribe{.json}?', object: ['forum:{forum}'] },
    { action: 'member', methods: POST, path: '/f/:forum/moderators{/*}?', object: ['forum:{forum}'] },
    { action: 'edit', methods: POST, path: '/f/:forum/edit', object: ['forum:{forum}'] },
    { action: 'delete', methods: POST, path: '/f/:forum/delete', object: ['forum:{forum}'] },
    // (The form's own forum field decides where the post goes, the path only preselects it: src/Form/SubmissionType.php
    // adds `forum` to a new submission's form. `/submit/books` with `submission[forum]=politics` posts to politics.)
    { action: 'post', methods: POST, path: '/submit{/:forum}?', object: ['forum:{submission[forum]}', 'forum:{forum}'] },
    { action: 'post', methods: POST, path: '/create_forum', object: ['forum:new'] },
    { action: 'message', methods: POST, path: '/user/:username/compose_message', object: ['user:{username}'] },
    { action: 'message', methods: POST, path: '/messages/thread/:id{/*}?', object: ['thread:{id}'] },
    { action: 'follow', methods: POST, path: '/user/:username/{un}?block_user', object: ['user:{username}'] },
    { action: 'email_change', methods: POST, path: '/user/:username/edit', fields: ['user[email]'] },
    { action: 'password_change', methods: POST, path: '/user/:username/edit', fields: ['user[plainPassword][first]', 'user[plainPassword]', 'user[password]'] },
    { action: 'edit', methods: POST, path: '/user/:username/(edit|edit_biography|preferences)', object: ['user:{username}'] },
    { action: 'delete_account', methods: POST, path: '/user/:username/delete_account' },
    { action: 'two_factor', methods: POST, path: '/user/:username/two_factor{/*}?' },
  ],
};

export const APPS: readonly AppSpec[] = [GITLAB, POSTMILL];
