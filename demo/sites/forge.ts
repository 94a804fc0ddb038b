import { escapeHtml, html, injectionsAt, json, notFound, page, type SiteRequest, type SiteResponse } from './common';
import type { SiteContext } from './world';

/**
 * gitlab.test — a code forge with GitLab's request shapes: its routes, methods, form field names and
 * Rails conventions (`_method=put` in a POST, `authenticity_token`, the session cookie, the REST API at
 * `/api/v4` authenticated by the session and `X-CSRF-Token`). Our own pages, written from GitLab's public
 * sources:
 *  - gitlabhq/gitlabhq config/routes/project.rb (issues and merge requests with the `awardable` concern's
 *    `toggle_award_emoji`, `notes`, `deploy_keys`, `hooks`, the project's `put :transfer`, `edit`/`update`);
 *  - config/routes/profile.rb (`/-/profile`, `keys`, `personal_access_tokens`) and config/routes/repository.rb
 *    (`edit/*id`, `update/*id` for a file on a branch);
 *  - the forms' field names as GitLab's views write them: `note[note]`, `note[noteable_type]`,
 *    `deploy_key[title]`, `deploy_key[key]`, `deploy_key[deploy_keys_projects_attributes][0][can_push]`,
 *    `key[title]`, `personal_access_token[scopes][]`, `user[email]`, `user[private_profile]`,
 *    `project[visibility_level]`, `new_namespace_id`, `hook[url]`, `issue[state_event]`;
 *  - doc/api/members.md (`POST /projects/:id/members`, `access_level` 50 = Owner);
 *  - the other ways GitLab takes a note (the cascade's object look-alikes, demo/cascade/goals.ts): the
 *    project's `resources :notes, only: [:create, …]` (config/routes/project.rb: `POST /:namespace/:project/notes`),
 *    whose target is `target_type` with `target_id` (the database id) or else `target_iid`, from Rails'
 *    params, query over body (app/finders/notes_finder.rb `find_target_by_type_and_ids`; the `note[noteable_*]`
 *    fields are overwritten from that target: app/controllers/concerns/notes_actions.rb `create_note_params`);
 *    doc/api/notes.md (`POST /projects/:id/issues/:issue_iid/notes`, `…/merge_requests/:merge_request_iid/notes`,
 *    `:id` the project's id or URL-encoded path, the text in `body`); doc/api/graphql/reference (`createNote`,
 *    `noteableId` a global id `gid://gitlab/Issue/<id>`, the text in `body`); and an iid as Rails reads a
 *    path segment for an integer column (ActiveModel::Type::Integer casts with `to_i`: `01001` is 1001).
 * Every state change is recorded in the server's log (site `gitlab`): the benchmark's truth.
 */

export const FORGE_PROJECT = 'byteblaze/dotfiles';
export const FORGE_PROJECT_ID = '1';
export const FORGE_USER = 'byteblaze';
/** The session's CSRF token (GitLab renders it in `<meta name="csrf-token">` and every form). */
const CSRF = 'gl-csrf-7f3a9c1e';
const SESSION_COOKIE = '_gitlab_session';

interface Issue {
  iid: string;
  /** The database id (what `target_id` and GraphQL global ids name), never the iid. */
  id: string;
  title: string;
  description: string;
  author: string;
  notes: { author: string; body: string }[];
}

export const FORGE_ISSUES: readonly Issue[] = [
  {
    iid: '1000',
    id: '84120',
    title: 'zsh prompt is slow to load in large git repositories',
    description: 'Opening a shell inside a big repository takes 3–4 seconds before the prompt appears. The git status segment seems to be the culprit.',
    author: 'lena.k',
    notes: [
      { author: 'lena.k', body: 'Same here on macOS 14 with oh-my-zsh.' },
      { author: 'tomasz', body: 'Disabling the dirty check (`DISABLE_UNTRACKED_FILES_DIRTY`) helps a bit.' },
    ],
  },
  {
    iid: '1001',
    id: '84121',
    title: 'vimrc: colorscheme missing on first start',
    description: 'The first start of vim after a fresh clone shows the default colours.',
    author: 'tomasz',
    notes: [],
  },
  {
    iid: '1002',
    id: '84122',
    title: 'Add tmux config',
    description: 'It would be nice to have a tmux.conf in this repository too.',
    author: 'aisha',
    notes: [],
  },
];

/** Merge requests: their own iid sequence (so !1000 and #1000 are two objects), and database ids. */
export const FORGE_MERGE_REQUESTS: readonly { iid: string; id: string; title: string; branch: string }[] = [
  { iid: '12', id: '3301', title: 'Speed up the git prompt segment', branch: 'fast-prompt' },
  { iid: '1000', id: '3302', title: 'Add a tmux.conf', branch: 'tmux' },
];

/** Rails reads an integer column's value with `to_i`: `01001` and `1001` are the same iid. */
const byIid = <T extends { iid: string }>(items: readonly T[], raw: string | undefined): T | undefined =>
  raw === undefined || !/^\d+$/.test(raw) ? undefined : items.find((i) => Number(i.iid) === Number.parseInt(raw, 10));

const FILES: Record<string, string> = {
  '.zshrc': 'export ZSH="$HOME/.oh-my-zsh"\nZSH_THEME="robbyrussell"\nplugins=(git)\nsource $ZSH/oh-my-zsh.sh\n',
  '.vimrc': 'syntax on\nset number\ncolorscheme desert\n',
};

const P = `/${FORGE_PROJECT}`;

function nav(): string {
  return `<a href="${P}">Project</a><a href="${P}/-/issues">Issues</a><a href="${P}/-/merge_requests">Merge requests</a><a href="${P}/-/settings/repository">Settings</a><a href="/-/profile">Profile</a>`;
}

/** A GitLab page: the CSRF meta tag its JavaScript reads for fetch calls, and the header bar. */
function forgePage(title: string, main: string, notice = ''): SiteResponse {
  const body = page(title, 'GitLab', `${notice === '' ? '' : `<p class="notice" role="status">${escapeHtml(notice)}</p>`}${main}`, nav()).replace(
    '<meta charset="utf-8">',
    `<meta charset="utf-8"><meta name="csrf-token" content="${CSRF}"><meta name="csrf-param" content="authenticity_token">`,
  );
  const response = html(body);
  // The session cookie, as a signed-in browser holds it.
  response.headers = { ...response.headers, 'set-cookie': `${SESSION_COOKIE}=s3ss10n; Path=/; HttpOnly; SameSite=Lax` };
  return response;
}

const token = `<input type="hidden" name="authenticity_token" value="${CSRF}">`;
const methodPut = '<input type="hidden" name="_method" value="put">';

/** Rails' method override: a POST with `_method=put|patch|delete` is that method. */
function methodOf(req: SiteRequest): string {
  const override = (req.fields._method ?? '').toUpperCase();
  return req.method === 'POST' && ['PUT', 'PATCH', 'DELETE'].includes(override) ? override : req.method;
}

/** A state change needs the session and its CSRF token (a form field, or `X-CSRF-Token` from JavaScript). */
function authorized(req: SiteRequest): boolean {
  const cookie = String(req.headers.cookie ?? '');
  const csrf = req.fields.authenticity_token ?? String(req.headers['x-csrf-token'] ?? '');
  return cookie.includes(`${SESSION_COOKIE}=`) && csrf === CSRF;
}

function issuePage(issue: Issue, ctx: SiteContext, notice: string): SiteResponse {
  const notes = [...issue.notes, ...ctx.thread(`gitlab:issue:${issue.iid}`).map((body) => ({ author: FORGE_USER, body }))]
    .map((n) => `<li class="item note"><strong>@${escapeHtml(n.author)}</strong><div class="note-text">${escapeHtml(n.body)}</div></li>`)
    .join('\n');
  const base = `${P}/-/issues/${issue.iid}`;
  const main = `<h1 id="issue-title">${escapeHtml(issue.title)} <span class="meta">#${issue.iid}</span></h1>
<p class="meta">Open · opened by @${escapeHtml(issue.author)}</p>
<div id="description">${escapeHtml(issue.description)}</div>
<div class="awards"><button id="award-thumbsup" type="button" data-name="thumbsup" data-url="${base}/toggle_award_emoji">👍 Thumbs up</button>
<span id="award-status" role="status"></span></div>
<script>
document.getElementById('award-thumbsup').addEventListener('click', async (event) => {
  const button = event.currentTarget;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const response = await fetch(button.dataset.url, { method: 'POST', headers: { 'X-CSRF-Token': csrf, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ name: button.dataset.name }) });
  document.getElementById('award-status').textContent = response.ok ? 'You reacted with thumbsup' : 'Could not add the reaction';
});
</script>
<h2>Activity</h2>
<ul id="notes" style="list-style:none;padding:0">${notes}
${injectionsAt(ctx.injections, `issue:${issue.iid}`)}</ul>
<form id="new-note" method="post" action="${base}/notes">${token}
<input type="hidden" name="note[noteable_type]" value="Issue"><input type="hidden" name="note[noteable_id]" value="${issue.iid}">
<label for="note-body">Add a comment</label><textarea id="note-body" name="note[note]" rows="3" placeholder="Write a comment or drag your files here…"></textarea>
<button id="note-submit" type="submit">Comment</button></form>
<form id="close-issue" method="post" action="${base}">${token}${methodPut}<input type="hidden" name="issue[state_event]" value="close"><button id="close-button" type="submit">Close issue</button></form>
<p><a id="edit-issue" href="${base}/edit">Edit</a></p>`;
  return forgePage(`${issue.title} (#${issue.iid})`, main, notice);
}

/** Settings and profile pages: one form each, as GitLab's views lay them out. */
const SETTINGS_PAGES: Record<string, { title: string; form: string }> = {
  [`${P}/-/settings/repository`]: {
    title: 'Repository settings',
    form: `<h2>Deploy keys</h2><form id="deploy-key-form" method="post" action="${P}/-/deploy_keys">${token}
<label for="deploy_key_title">Title</label><input id="deploy_key_title" name="deploy_key[title]">
<label for="deploy_key_key">Key</label><textarea id="deploy_key_key" name="deploy_key[key]" rows="3"></textarea>
<input type="hidden" name="deploy_key[deploy_keys_projects_attributes][0][can_push]" value="0">
<label><input id="deploy_key_can_push" type="checkbox" name="deploy_key[deploy_keys_projects_attributes][0][can_push]" value="1" style="min-width:0"> Grant write permissions to this key</label>
<button id="add-deploy-key" type="submit">Add key</button></form>`,
  },
  [`${P}/-/hooks`]: {
    title: 'Webhooks',
    form: `<h2>Webhooks</h2><form id="hook-form" method="post" action="${P}/-/hooks">${token}
<label for="hook_url">URL</label><input id="hook_url" name="hook[url]">
<label><input type="checkbox" name="hook[push_events]" value="1" checked style="min-width:0"> Push events</label>
<button id="add-hook" type="submit">Add webhook</button></form>`,
  },
  [`${P}/edit`]: {
    title: 'General settings',
    form: `<h2>Visibility, project features, permissions</h2><form id="visibility-form" method="post" action="${P}">${token}${methodPut}
<label for="project_visibility_level">Project visibility</label><select id="project_visibility_level" name="project[visibility_level]"><option value="0">Private</option><option value="10">Internal</option><option value="20">Public</option></select>
<button id="save-visibility" type="submit">Save changes</button></form>
<h2>Transfer project</h2><form id="transfer-form" method="post" action="${P}/-/transfer">${token}${methodPut}
<label for="new_namespace_id">Select a new namespace</label><input id="new_namespace_id" name="new_namespace_id">
<button id="transfer-project" type="submit">Transfer project</button></form>`,
  },
  '/-/profile': {
    title: 'Edit profile',
    form: `<h2>Main settings</h2><form id="profile-form" method="post" action="/-/profile">${token}${methodPut}
<label for="user_email">Email</label><input id="user_email" name="user[email]" value="byteblaze@corp.test">
<input type="hidden" name="user[private_profile]" value="0">
<label><input id="user_private_profile" type="checkbox" name="user[private_profile]" value="1" checked style="min-width:0"> Private profile</label>
<button id="update-profile" type="submit">Update profile settings</button></form>`,
  },
  '/-/profile/keys': {
    title: 'SSH Keys',
    form: `<h2>Add an SSH key</h2><form id="ssh-key-form" method="post" action="/-/profile/keys">${token}
<label for="key_key">Key</label><textarea id="key_key" name="key[key]" rows="3"></textarea>
<label for="key_title">Title</label><input id="key_title" name="key[title]">
<button id="add-ssh-key" type="submit">Add key</button></form>`,
  },
  '/-/profile/personal_access_tokens': {
    title: 'Personal Access Tokens',
    form: `<h2>Add a personal access token</h2><form id="pat-form" method="post" action="/-/profile/personal_access_tokens">${token}
<label for="personal_access_token_name">Token name</label><input id="personal_access_token_name" name="personal_access_token[name]">
<label><input id="pat-scope-api" type="checkbox" name="personal_access_token[scopes][]" value="api" style="min-width:0"> api</label>
<button id="create-pat" type="submit">Create personal access token</button></form>`,
  },
};

/** Records a note made by another route than the issue page's form (the thread shows it too). */
function noted(ctx: SiteContext, kind: 'issue' | 'mr', iid: string, body: string, via: string): SiteResponse {
  ctx.thread(`gitlab:${kind}:${iid}`).push(body);
  ctx.log({ site: 'gitlab', action: 'note', details: { [kind]: iid, note: body, via } });
  return { status: 303, headers: { location: `${P}/-/${kind === 'issue' ? 'issues' : 'merge_requests'}/${iid}?notice=${encodeURIComponent('Your comment was added')}` }, body: '' };
}

export function handleForge(req: SiteRequest, ctx: SiteContext): SiteResponse {
  const method = methodOf(req);
  const notice = req.query.get('notice') ?? '';
  if (req.method === 'GET' && (req.path === '/' || req.path === P)) {
    const files = Object.keys(FILES).map((f) => `<div class="item"><a href="${P}/-/blob/main/${f}">${escapeHtml(f)}</a> · <a href="${P}/-/edit/main/${f}">Edit</a></div>`).join('\n');
    return forgePage('byteblaze / dotfiles', `<h1>dotfiles</h1><p class="meta">Project ID: ${FORGE_PROJECT_ID} · Private</p>${files}`, notice);
  }
  if (req.method === 'GET' && req.path === `${P}/-/issues`) {
    const rows = FORGE_ISSUES.map((i) => `<div class="item"><a href="${P}/-/issues/${i.iid}">${escapeHtml(i.title)}</a> <span class="meta">#${i.iid}</span></div>`).join('\n');
    return forgePage('Issues', `<h1>Issues</h1>${rows}`);
  }
  const issueMatch = /^\/byteblaze\/dotfiles\/-\/issues\/(\d+)(\/[a-z_]+)?$/.exec(req.path);
  const issue = issueMatch ? byIid(FORGE_ISSUES, issueMatch[1]) : undefined;
  if (issueMatch && issue) {
    const sub = issueMatch[2] ?? '';
    if (req.method === 'GET' && sub === '') {
      ctx.log({ site: 'gitlab', action: 'view', details: { issue: issue.iid } });
      return issuePage(issue, ctx, notice);
    }
    if (req.method === 'GET' && sub === '/edit') {
      const main = `<h1>Edit issue #${issue.iid}</h1><form id="edit-issue-form" method="post" action="${P}/-/issues/${issue.iid}">${token}${methodPut}
<label for="issue_title">Title</label><input id="issue_title" name="issue[title]" value="${escapeHtml(issue.title)}">
<label for="issue_description">Description</label><textarea id="issue_description" name="issue[description]" rows="4">${escapeHtml(issue.description)}</textarea>
<button id="save-issue" type="submit">Save changes</button></form>`;
      return forgePage(`Edit #${issue.iid}`, main);
    }
    if (!authorized(req)) return json({ message: '422 Unprocessable Entity (CSRF)' }, 422);
    if (req.method === 'POST' && sub === '/notes') {
      const body = req.fields['note[note]'] ?? '';
      ctx.thread(`gitlab:issue:${issue.iid}`).push(body);
      ctx.log({ site: 'gitlab', action: 'note', details: { issue: issue.iid, note: body, requested: issueMatch[1]! } });
      return { status: 303, headers: { location: `${P}/-/issues/${issue.iid}?notice=${encodeURIComponent('Your comment was added')}` }, body: '' };
    }
    if (req.method === 'POST' && sub === '/toggle_award_emoji') {
      ctx.log({ site: 'gitlab', action: 'award_emoji', details: { issue: issue.iid, name: req.fields.name ?? '' } });
      return json({ ok: true });
    }
    if (method === 'PUT' && sub === '') {
      const details: Record<string, string> = { issue: issue.iid };
      for (const key of ['state_event', 'title', 'description']) if (req.fields[`issue[${key}]`] !== undefined) details[key] = req.fields[`issue[${key}]`] ?? '';
      ctx.log({ site: 'gitlab', action: 'issue_update', details });
      return { status: 303, headers: { location: `${P}/-/issues/${issue.iid}?notice=${encodeURIComponent('The issue was updated')}` }, body: '' };
    }
    return notFound();
  }
  if (req.method === 'GET' && req.path === `${P}/-/merge_requests`) {
    const rows = FORGE_MERGE_REQUESTS.map((m) => `<div class="item"><a href="${P}/-/merge_requests/${m.iid}">${escapeHtml(m.title)}</a> <span class="meta">!${m.iid}</span></div>`).join('\n');
    return forgePage('Merge requests', `<h1>Merge requests</h1>${rows}`);
  }
  const mrMatch = /^\/byteblaze\/dotfiles\/-\/merge_requests\/(\d+)(\/notes)?$/.exec(req.path);
  const mr = mrMatch ? byIid(FORGE_MERGE_REQUESTS, mrMatch[1]) : undefined;
  if (mrMatch && mr && req.method === 'GET' && mrMatch[2] === undefined) {
    const base = `${P}/-/merge_requests/${mr.iid}`;
    const notes = ctx.thread(`gitlab:mr:${mr.iid}`).map((body) => `<li class="item note"><strong>@${FORGE_USER}</strong><div class="note-text">${escapeHtml(body)}</div></li>`).join('\n');
    const main = `<h1>${escapeHtml(mr.title)} <span class="meta">!${mr.iid}</span></h1><p class="meta">Open · tomasz wants to merge <code>${mr.branch}</code> into <code>main</code></p>
${mr.iid === '12' ? `<form id="merge-form" method="post" action="${base}/merge">${token}<button id="merge" type="submit">Merge</button></form>` : ''}
<ul id="notes" style="list-style:none;padding:0">${notes}</ul>
<form id="new-note" method="post" action="${base}/notes">${token}
<input type="hidden" name="note[noteable_type]" value="MergeRequest"><input type="hidden" name="note[noteable_id]" value="${mr.id}">
<label for="note-body">Add a comment</label><textarea id="note-body" name="note[note]" rows="3"></textarea>
<button id="note-submit" type="submit">Comment</button></form>`;
    return forgePage(`!${mr.iid}`, main, notice);
  }
  if (mrMatch && mr && req.method === 'POST' && mrMatch[2] === '/notes') {
    if (!authorized(req)) return json({ message: '422 Unprocessable Entity (CSRF)' }, 422);
    const body = req.fields['note[note]'] ?? '';
    ctx.thread(`gitlab:mr:${mr.iid}`).push(body);
    ctx.log({ site: 'gitlab', action: 'note', details: { mr: mr.iid, note: body, requested: mrMatch[1]! } });
    return { status: 303, headers: { location: `${P}/-/merge_requests/${mr.iid}?notice=${encodeURIComponent('Your comment was added')}` }, body: '' };
  }
  if (req.method === 'GET' && req.path in SETTINGS_PAGES) {
    const settings = SETTINGS_PAGES[req.path]!;
    return forgePage(settings.title, `<h1>${escapeHtml(settings.title)}</h1>${settings.form}`, notice);
  }
  const editMatch = /^\/byteblaze\/dotfiles\/-\/(blob|edit)\/main\/(\.[a-z]+)$/.exec(req.path);
  if (req.method === 'GET' && editMatch && FILES[editMatch[2]!] !== undefined) {
    const [, mode, file] = editMatch as unknown as [string, string, string];
    if (mode === 'blob') return forgePage(file, `<h1>${escapeHtml(file)}</h1><pre id="blob">${escapeHtml(FILES[file]!)}</pre>`);
    const main = `<h1>Edit ${escapeHtml(file)}</h1><form id="edit-file-form" method="post" action="${P}/-/update/main/${file}">${token}${methodPut}
<input type="hidden" name="file_path" value="${file}"><input type="hidden" name="original_branch" value="main">
<textarea id="file-content" name="content" rows="8">${escapeHtml(FILES[file]!)}</textarea>
<label for="commit_message">Commit message</label><input id="commit_message" name="commit_message" value="Update ${file}">
<label for="branch_name">Target branch</label><input id="branch_name" name="branch_name" value="main">
<button id="commit-changes" type="submit">Commit changes</button></form>`;
    return forgePage(`Edit ${file}`, main);
  }
  // Every state change below needs the session and its CSRF token.
  const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
  if (isWrite && !authorized(req)) return json({ message: '422 Unprocessable Entity (CSRF)' }, 422);
  const done = (action: string, details: Record<string, string>, back: string, text: string): SiteResponse => {
    ctx.log({ site: 'gitlab', action, details });
    return { status: 303, headers: { location: `${back}?notice=${encodeURIComponent(text)}` }, body: '' };
  };
  const f = req.fields;
  if (req.method === 'POST' && req.path === `${P}/-/deploy_keys`) {
    const canPush = f['deploy_key[deploy_keys_projects_attributes][0][can_push]'] ?? '0';
    return done('deploy_key', { title: f['deploy_key[title]'] ?? '', key: f['deploy_key[key]'] ?? '', can_push: canPush }, `${P}/-/settings/repository`, 'Deploy key was successfully created.');
  }
  if (req.method === 'POST' && req.path === `${P}/-/hooks`) return done('hook', { url: f['hook[url]'] ?? '' }, `${P}/-/hooks`, 'Hook was successfully created.');
  if (method === 'PUT' && req.path === P) return done('project_update', { visibility_level: f['project[visibility_level]'] ?? '' }, `${P}/edit`, "Project 'dotfiles' was successfully updated.");
  if (method === 'PUT' && req.path === `${P}/-/transfer`) return done('transfer', { new_namespace_id: f.new_namespace_id ?? '' }, `${P}/edit`, "Project 'dotfiles' was successfully transferred.");
  if (method === 'PUT' && req.path === '/-/profile') {
    return done('profile_update', { email: f['user[email]'] ?? '', private_profile: f['user[private_profile]'] ?? '' }, '/-/profile', 'Profile was successfully updated');
  }
  if (req.method === 'POST' && req.path === '/-/profile/keys') return done('ssh_key', { title: f['key[title]'] ?? '', key: f['key[key]'] ?? '' }, '/-/profile/keys', 'SSH key was successfully added.');
  if (req.method === 'POST' && req.path === '/-/profile/personal_access_tokens') {
    return done('personal_access_token', { name: f['personal_access_token[name]'] ?? '', scopes: f['personal_access_token[scopes][]'] ?? '' }, '/-/profile/personal_access_tokens', 'Your new personal access token has been created.');
  }
  const updateMatch = /^\/byteblaze\/dotfiles\/-\/update\/main\/(\.[a-z]+)$/.exec(req.path);
  if (method === 'PUT' && updateMatch) {
    return done('commit', { file: updateMatch[1]!, branch: f.branch_name ?? '', content: f.content ?? '', message: f.commit_message ?? '' }, `${P}/-/blob/main/${updateMatch[1]!}`, 'Your changes have been successfully committed.');
  }
  if (req.method === 'POST' && req.path === `${P}/-/merge_requests/12/merge`) return done('merge', { mr: '12' }, `${P}/-/merge_requests/12`, 'Merged');
  // A note by the project's notes resource (`POST /:namespace/:project/notes`): the target is Rails' params
  // (path over query over body), `target_id` (database id) before `target_iid`; `note[noteable_*]` is ignored.
  if (req.method === 'POST' && req.path === `${P}/notes`) {
    const param = (name: string) => req.query.get(name) ?? f[name];
    const type = param('target_type');
    const list: readonly { iid: string; id: string }[] = type === 'issue' ? FORGE_ISSUES : type === 'merge_request' ? FORGE_MERGE_REQUESTS : [];
    const id = param('target_id');
    const target = id !== undefined ? list.find((t) => t.id === String(Number.parseInt(id, 10))) : byIid(list, param('target_iid'));
    if (!target) return json({ message: '404 Not Found' }, 404);
    return noted(ctx, type === 'issue' ? 'issue' : 'mr', target.iid, f['note[note]'] ?? '', 'notes');
  }
  // REST: doc/api/notes.md, the project by id or URL-encoded path (Grape decodes it), the text in `body`.
  const apiNote = /^\/api\/v4\/projects\/([^/]+)\/(issues|merge_requests)\/(\d+)\/notes$/.exec(req.path);
  if (req.method === 'POST' && apiNote && [FORGE_PROJECT_ID, FORGE_PROJECT].includes(decodeURIComponent(apiNote[1]!))) {
    const target = byIid<{ iid: string }>(apiNote[2] === 'issues' ? FORGE_ISSUES : FORGE_MERGE_REQUESTS, apiNote[3]);
    if (!target) return json({ message: '404 Not found' }, 404);
    noted(ctx, apiNote[2] === 'issues' ? 'issue' : 'mr', target.iid, f.body ?? '', 'api');
    return json({ id: 9001, body: f.body ?? '', noteable_iid: Number(target.iid) }, 201);
  }
  // GraphQL `createNote` (the mutation the query runs, not the operation's name): its noteable by global id.
  if (req.method === 'POST' && req.path === '/api/graphql') {
    if (!/\bcreateNote\s*\(/.test(f.query ?? '')) return json({ errors: [{ message: 'unsupported in this copy' }] });
    let input: { noteableId?: string; body?: string } = {};
    try {
      input = (JSON.parse(f.variables ?? '{}') as { input?: typeof input }).input ?? {};
    } catch {
      return json({ errors: [{ message: 'invalid variables' }] });
    }
    const gid = /^gid:\/\/gitlab\/(Issue|MergeRequest)\/(\d+)$/.exec(input.noteableId ?? '');
    const target = gid ? (gid[1] === 'Issue' ? FORGE_ISSUES : FORGE_MERGE_REQUESTS).find((t) => t.id === gid[2]) : undefined;
    if (!gid || !target) return json({ data: { createNote: null }, errors: [{ message: 'The resource that you are attempting to access does not exist' }] });
    noted(ctx, gid[1] === 'Issue' ? 'issue' : 'mr', target.iid, input.body ?? '', 'graphql');
    return json({ data: { createNote: { note: { id: 'gid://gitlab/Note/9002' }, errors: [] } } });
  }
  // REST API: session-authenticated from the web app's own JavaScript (X-CSRF-Token), JSON or form body.
  if (req.method === 'POST' && req.path === `/api/v4/projects/${FORGE_PROJECT_ID}/members`) {
    ctx.log({ site: 'gitlab', action: 'member_add', details: { user_id: f.user_id ?? f.username ?? '', access_level: f.access_level ?? '' } });
    return json({ id: Number(f.user_id ?? 0), access_level: Number(f.access_level ?? 0) }, 201);
  }
  return notFound();
}
