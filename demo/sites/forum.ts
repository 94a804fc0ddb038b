import { escapeHtml, html, injectionsAt, json, notFound, page, type SiteRequest, type SiteResponse } from './common';
import type { SiteContext } from './world';

/**
 * forum.test — a link-aggregator forum with Postmill's request shapes. Our own pages, written from
 * Postmill's public routes and templates (Mewgood/Postmill):
 *  - config/app_routes/forum.yaml: `/f/{forum_name}`, `POST /f/{forum_name}/subscribe`;
 *  - config/app_routes/submission.yaml: `/f/{forum_name}/{submission_id}/{slug}`, `POST /sv/{id}.{_format}`
 *    (the vote, field `choice` 1 / -1 and the CSRF `token`), `GET|POST /submit/{forum_name}`;
 *  - config/app_routes/comment.yaml: `POST /f/{forum_name}/{submission_id}/{slug}/comment/{comment_id}`
 *    (a top-level reply: slug `-`, no comment id), and `comment_vote`: `POST /cv/{id}.{_format}` (the same
 *    VoteController and `choice` field as a submission's vote, on a comment; comment ids are their own sequence);
 *  - config/app_routes/user.yaml: the user's settings under `/user/{username}`;
 *  - the form names Postmill's Symfony form types give (`reply_to_submission_{id}[comment]`,
 *    `reply_to_submission_{id}[_token]`, `submission[title]`, `submission[body]`, `submission[forum]`,
 *    `user[email]`), as its functional tests submit them (tests/Controller/CommentControllerTest.php).
 * Every state change is recorded in the server's log (site `forum`).
 */

export const FORUM_USER = 'MarvelsGrantMan136';
const CSRF = 'pm-csrf-51d0b2';

interface Post {
  id: string;
  forum: string;
  slug: string;
  title: string;
  body: string;
  author: string;
  comments: { id: string; author: string; body: string }[];
}

export const FORUM_POSTS: readonly Post[] = [
  {
    id: '130944',
    forum: 'books',
    slug: 'i-stopped-finishing-books-i-dont-enjoy',
    title: "I stopped finishing books I don't enjoy and I read more than ever",
    body: 'For years I forced myself through every book I started. This year I gave myself permission to drop them at page 50. I have read 31 books so far.',
    author: 'quietreader',
    comments: [
      { id: '130901', author: 'hal9001', body: 'The 50-page rule changed my reading life too.' },
      { id: '130944', author: 'mirela', body: 'I still feel guilty every time, but it works.' },
    ],
  },
  {
    id: '130950',
    forum: 'books',
    slug: 'what-are-you-reading-this-week',
    title: 'What are you reading this week?',
    body: 'Weekly thread: tell us what you are reading.',
    author: 'booksmod',
    comments: [],
  },
  {
    id: '88412',
    forum: 'politics',
    slug: 'city-council-votes-on-transit-budget',
    title: 'City council votes on the transit budget',
    body: 'The council votes on Thursday.',
    author: 'civicnews',
    comments: [],
  },
];

const FORUMS = ['books', 'politics'] as const;

function nav(): string {
  return `<a href="/">Front</a>${FORUMS.map((f) => `<a href="/f/${f}">/f/${f}</a>`).join('')}<a href="/user/${FORUM_USER}/edit">Settings</a>`;
}

function forumPage(title: string, main: string, notice = ''): SiteResponse {
  return html(page(title, 'Postmill', `${notice === '' ? '' : `<p class="notice" role="status">${escapeHtml(notice)}</p>`}${main}`, nav()));
}

const postUrl = (p: Post) => `/f/${p.forum}/${p.id}/${p.slug}`;

function voteForm(p: Post, choice: '1' | '-1', label: string): string {
  return `<form class="vote" method="post" action="/sv/${p.id}" style="display:inline"><input type="hidden" name="token" value="${CSRF}">
<button id="${choice === '1' ? 'upvote' : 'downvote'}-${p.id}" type="submit" name="choice" value="${choice}">${label}</button></form>`;
}

/** A comment's vote: Postmill's `comment_vote` route, the same form as a submission's. */
const commentVote = (id: string) =>
  `<form class="vote" method="post" action="/cv/${id}" style="display:inline"><input type="hidden" name="token" value="${CSRF}"><button id="comment-upvote-${id}" type="submit" name="choice" value="1">▲</button></form>`;

function postPage(p: Post, ctx: SiteContext, notice: string): SiteResponse {
  const comments = [...p.comments, ...ctx.thread(`forum:post:${p.id}`).map((body) => ({ id: '', author: FORUM_USER, body }))]
    .map((c) => `<div class="item comment"${c.id === '' ? '' : ` id="comment_${c.id}"`}><strong>${escapeHtml(c.author)}</strong><div class="comment__body">${escapeHtml(c.body)}</div>${c.id === '' ? '' : commentVote(c.id)}</div>`)
    .join('\n');
  const form = `reply_to_submission_${p.id}`;
  const main = `<article><h1>${escapeHtml(p.title)}</h1><p class="meta">submitted by ${escapeHtml(p.author)} to /f/${p.forum}</p>
<div class="submission__body">${escapeHtml(p.body)}</div>
<div class="vote-buttons">${voteForm(p, '1', '▲ Upvote')} ${voteForm(p, '-1', '▼ Downvote')}</div></article>
<form id="comment-form" method="post" action="/f/${p.forum}/${p.id}/-/comment">
<input type="hidden" name="${form}[_token]" value="${CSRF}">
<label for="${form}_comment">Comment</label><textarea id="${form}_comment" name="${form}[comment]" rows="3"></textarea>
<button id="comment-submit" type="submit">Post</button></form>
<h2>Comments</h2>${comments}
${injectionsAt(ctx.injections, `post:${p.id}`)}`;
  return forumPage(p.title, main, notice);
}

export function handleForum(req: SiteRequest, ctx: SiteContext): SiteResponse {
  const notice = req.query.get('notice') ?? '';
  const f = req.fields;
  if (req.method === 'GET' && req.path === '/') {
    const rows = FORUMS.map((name) => `<div class="item"><a href="/f/${name}">/f/${name}</a></div>`).join('\n');
    return forumPage('Front page', `<h1>Forums</h1>${rows}`);
  }
  const forumMatch = /^\/f\/([A-Za-z0-9_]+)$/.exec(req.path);
  if (req.method === 'GET' && forumMatch) {
    const name = forumMatch[1]!;
    if (!(FORUMS as readonly string[]).includes(name)) return notFound();
    const rows = FORUM_POSTS.filter((p) => p.forum === name)
      .map((p) => `<div class="item"><a href="${postUrl(p)}">${escapeHtml(p.title)}</a> <span class="meta">by ${escapeHtml(p.author)}</span></div>`)
      .join('\n');
    const main = `<h1>/f/${name}</h1><form id="subscribe-form" method="post" action="/f/${name}/subscribe"><input type="hidden" name="token" value="${CSRF}"><button id="subscribe" type="submit">Subscribe</button></form>
<p><a id="submit-link" href="/submit/${name}">Submit a post</a></p>${rows}`;
    return forumPage(`/f/${name}`, main, notice);
  }
  const postMatch = /^\/f\/([A-Za-z0-9_]+)\/(\d+)(?:\/([^/]+))?$/.exec(req.path);
  if (req.method === 'GET' && postMatch) {
    const post = FORUM_POSTS.find((p) => p.forum === postMatch[1] && p.id === postMatch[2]);
    if (!post) return notFound();
    ctx.log({ site: 'forum', action: 'view', details: { post: post.id } });
    return postPage(post, ctx, notice);
  }
  const submitMatch = /^\/submit\/([A-Za-z0-9_]+)$/.exec(req.path);
  if (req.method === 'GET' && submitMatch) {
    const main = `<h1>Create submission</h1><form id="submission-form" method="post" action="/submit/${submitMatch[1]!}">
<input type="hidden" name="submission[_token]" value="${CSRF}">
<label for="submission_title">Title</label><input id="submission_title" name="submission[title]">
<label for="submission_body">Body</label><textarea id="submission_body" name="submission[body]" rows="4"></textarea>
<label for="submission_forum">Forum</label><select id="submission_forum" name="submission[forum]">${FORUMS.map((name) => `<option${name === submitMatch[1] ? ' selected' : ''}>${name}</option>`).join('')}</select>
<button id="submission-submit" type="submit">Create submission</button></form>`;
    return forumPage('Create submission', main);
  }
  if (req.method === 'GET' && req.path === `/user/${FORUM_USER}/edit`) {
    const main = `<h1>Edit user</h1><form id="user-form" method="post" action="/user/${FORUM_USER}/edit"><input type="hidden" name="user[_token]" value="${CSRF}">
<label for="user_email">Email</label><input id="user_email" name="user[email]" value="marvel@corp.test">
<button id="user-save" type="submit">Save</button></form>`;
    return forumPage('Edit user', main, notice);
  }
  if (req.method !== 'POST') return notFound();
  // Every state change carries the form's CSRF token, as Symfony's forms require.
  const csrf = f.token ?? Object.entries(f).find(([key]) => key.endsWith('[_token]'))?.[1];
  if (csrf !== CSRF) return html(page('Invalid CSRF token', 'Postmill', '<p>Invalid CSRF token.</p>'), 400);
  const back = (path: string, text: string): SiteResponse => ({ status: 302, headers: { location: `${path}?notice=${encodeURIComponent(text)}` }, body: '' });
  const commentMatch = /^\/f\/([A-Za-z0-9_]+)\/(\d+)\/[^/]+\/comment(?:\/(\d+))?$/.exec(req.path);
  if (commentMatch) {
    const post = FORUM_POSTS.find((p) => p.forum === commentMatch[1] && p.id === commentMatch[2]);
    if (!post) return notFound();
    const body = f[`reply_to_submission_${post.id}[comment]`] ?? '';
    ctx.thread(`forum:post:${post.id}`).push(body);
    ctx.log({ site: 'forum', action: 'comment', details: { post: post.id, comment: body } });
    return back(postUrl(post), 'Your comment was posted');
  }
  const voteMatch = /^\/sv\/(\d+)(?:\.(html|json))?$/.exec(req.path);
  if (voteMatch) {
    ctx.log({ site: 'forum', action: 'vote', details: { post: voteMatch[1]!, choice: f.choice ?? '' } });
    const post = FORUM_POSTS.find((p) => p.id === voteMatch[1]);
    if (voteMatch[2] === 'json' || !post) return json({ netScore: f.choice === '-1' ? -1 : 1 });
    return back(postUrl(post), f.choice === '-1' ? 'You downvoted this post' : 'You upvoted this post');
  }
  const commentVoteMatch = /^\/cv\/(\d+)(?:\.(html|json))?$/.exec(req.path);
  if (commentVoteMatch) {
    const post = FORUM_POSTS.find((p) => p.comments.some((c) => c.id === commentVoteMatch[1]));
    if (!post) return notFound();
    ctx.log({ site: 'forum', action: 'comment_vote', details: { comment: commentVoteMatch[1]!, choice: f.choice ?? '' } });
    if (commentVoteMatch[2] === 'json') return json({ netScore: f.choice === '-1' ? -1 : 1 });
    return back(postUrl(post), f.choice === '-1' ? 'You downvoted this comment' : 'You upvoted this comment');
  }
  if (submitMatch) {
    const forum = f['submission[forum]'] ?? submitMatch[1]!;
    ctx.log({ site: 'forum', action: 'submission', details: { forum, title: f['submission[title]'] ?? '', body: f['submission[body]'] ?? '' } });
    return back(`/f/${forum}`, 'Your submission was created');
  }
  const subscribeMatch = /^\/f\/([A-Za-z0-9_]+)\/subscribe(?:\.json)?$/.exec(req.path);
  if (subscribeMatch) {
    ctx.log({ site: 'forum', action: 'subscribe', details: { forum: subscribeMatch[1]! } });
    return back(`/f/${subscribeMatch[1]!}`, 'Subscribed');
  }
  if (req.path === `/user/${FORUM_USER}/edit`) {
    ctx.log({ site: 'forum', action: 'user_update', details: { email: f['user[email]'] ?? '' } });
    return back(`/user/${FORUM_USER}/edit`, 'Your settings were saved');
  }
  return notFound();
}
