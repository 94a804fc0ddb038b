import { ACTIONS, ACTION_IDS, GENERAL_VERBS, OWNED_THINGS, OWNERSHIP_VERBS, appOfHost, objectOfPage, type ActionId } from '../core/actions';
import type { Analysis, Clause } from './clauses';

/**
 * The web actions the user's words ask for, and their objects (docs/actions.md), read with the same
 * vocabulary the classifier reads requests with (src/core/actions). An account-security action is asked
 * for only by its own nouns ("add my SSH key", "set up 2FA"), never implied by another verb.
 */

export interface ActionAsk {
  clause: Clause;
  actions: ActionId[];
  /** Canonical objects the words name; undefined when they leave it open ("my latest order"). */
  objects: string[] | undefined;
  /** How many calls: the words' count, one by default, none when they say several ("reply to each"). */
  maxCalls: number | undefined;
}

/** Nouns in the order they are tried: longer phrases first ("deploy key" before "key"). */
const NOUNS: readonly [string, ActionId][] = ACTION_IDS.flatMap((id) => ACTIONS[id].nouns.map((n): [string, ActionId] => [n, id])).sort((a, b) => b[0].length - a[0].length);

/**
 * Nouns after which an action noun only says what kind of message something is: "email notifications", "comment
 * alerts", "post reminders" are notifications (a setting), not the e-mail address, a comment or a post.
 */
const KIND_OF_MESSAGE = '(?:notifications?|alerts?|updates|digests?|reminders?|newsletters?|receipts?)\\b';

/**
 * The action nouns in a phrase by position: the first (the object of the verb comes first), and, for a
 * general verb's direct object, the last — the noun phrase's head ("leave a 5 star review" asks for a
 * review, not a star; "add a thumbs_up reaction" for a reaction either way).
 */
function firstNoun(phrase: string, head = false): { security: ActionId[]; plain: ActionId[] } {
  let best: { at: number; start: number; ids: ActionId[] } | null = null;
  // (A noun the phrase does not hold as text cannot match: its pattern is neither built nor run, which in a
  // fresh process — the CLI's `compile` — is most of this function's cost.)
  const lowered = phrase.toLowerCase();
  for (const [noun, id] of NOUNS) {
    if (!lowered.includes(noun.toLowerCase())) continue;
    const m = new RegExp(`(?:^|[^a-z0-9_-])${noun.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}(?![a-z0-9_-])(?!\\s+${KIND_OF_MESSAGE})`, 'i').exec(phrase);
    if (m === null) continue;
    // (The head is the noun that ends the phrase: of "the default branch", "default branch", not "branch".)
    const at = head ? m.index + m[0].length : m.index;
    const start = m.index;
    if (best === null || (head ? at > best.at : at < best.at)) best = { at, start, ids: [id] };
    else if (at === best.at && start === best.start && !best.ids.includes(id)) best.ids.push(id);
  }
  const ids = best?.ids ?? [];
  return { security: ids.filter((id) => ACTIONS[id].security), plain: ids.filter((id) => !ACTIONS[id].security) };
}

const PARTICLES = new Set(['up', 'on', 'off', 'out']);
const PREPOSITIONS = new Set(['of', 'on', 'to', 'in', 'for', 'with', 'at', 'from', 'by', 'into', 'onto', 'under', 'about']);
function directObject(phrase: string): string {
  const words = phrase.split(' ');
  let k = 0;
  while (k < words.length && PARTICLES.has(words[k]!)) k++;
  const end = words.findIndex((w, i) => i >= k && i > 0 && PREPOSITIONS.has(w));
  return words.slice(k, end === -1 ? undefined : end).join(' ');
}

/**
 * The clause's own words after its verb, with the text it dictates blanked (same length: offsets hold):
 * "post 'lgtm' for merge request 12" still says where the post goes after the quote.
 */
function clauseWords(clause: Clause, text: string): string {
  const from = clause.verb?.end ?? clause.start;
  const words = text.slice(from, clause.end);
  const d = clause.dictated;
  if (d === null || d[1] <= from || d[0] >= clause.end) return words;
  const s = Math.max(d[0], from) - from;
  const e = Math.min(d[1], clause.end) - from;
  return words.slice(0, s) + ' '.repeat(e - s) + words.slice(e);
}

/** A preposition before a thing that already exists (not a place to post in, like a forum or a channel). */
const ON_EXISTING = /\b(?:for|on|under|below|in reply to)\s+(?:the\s+|this\s+|that\s+|my\s+|given\s+)*(?:given\s+)?(?:issue|ticket|merge request|mr|pull request|pr|post|submission|comment|review)\b/;

/** The actions a request clause asks for; empty when its verb names none the vocabulary knows. */
export function actionsOfClause(clause: Clause, text: string): ActionId[] {
  if (clause.verb === null) return [];
  const verb = clause.verb.w;
  const end = clause.end;
  // (Sites and addresses are no nouns: "app.test" names no app.)
  let raw = clauseWords(clause, text);
  for (const t of clause.targets) if (t.start >= clause.verb.end && t.end <= end) raw = raw.slice(0, t.start - clause.verb.end) + ' '.repeat(t.end - t.start) + raw.slice(t.end - clause.verb.end);
  const phrase = raw.split(/\b(?:saying|that says|with the text|to say)\b/i)[0]!.toLowerCase().split(/\s+/).filter((w) => w !== '').slice(0, 8).join(' ');
  const owned = OWNERSHIP_VERBS[verb];
  if (owned !== undefined) {
    const thing = phrase.split(' ').slice(0, 4).map((w) => OWNED_THINGS[w.replace(/[^a-z]/g, '')]).find((t) => t !== undefined);
    const id = thing === undefined ? undefined : owned[thing];
    if (id !== undefined) return [id];
  }
  const general = GENERAL_VERBS.has(verb);
  // After a general verb the noun that says what is done is its direct object, before any preposition
  // ("change the delivery address of order 991" edits an address; "add a reaction to the issue" reacts).
  const noun = firstNoun(general ? directObject(phrase) : phrase);
  // ("create a new public project": the adjective describes what is made, no visibility of an existing thing changes.)
  // (On a site no table describes, the creation may travel as its visibility field: the words name that too.)
  if (general && /^(?:(?:a|an)\s+(?:new\s+)?|(?:the\s+)?new\s+)(?:public|private|internal)\s+\S/.test(directObject(phrase)) && noun.security.every((id) => id === 'visibility')) return ['post', 'visibility'];
  // Account security: only its own nouns, right where the verb's object is.
  // ("log me out of all other sessions", "sign out of every session": ending sessions is the session action's own words.)
  if (noun.security.length > 0 && (general || ['delete', 'remove', 'revoke', 'authorize', 'authorise'].includes(verb) || (['log', 'sign', 'end', 'terminate'].includes(verb) && noun.security.includes('session')))) return noun.security;
  const byVerb = ACTION_IDS.filter((id) => !ACTIONS[id].security && ACTIONS[id].verbs.includes(verb));
  // ("post 'lgtm' for merge request 12", "post a reply on the issue": a post on an existing thing is a comment on it.)
  // (Only when the words name no thing posted: "post a message to the thread" stays a message.)
  const posted = PREPOSITIONS.has(phrase.split(' ')[0] ?? '') ? '' : directObject(phrase);
  if (byVerb.includes('post') && ON_EXISTING.test(phrase) && firstNoun(posted).plain.length === 0) return ['comment'];
  // ("invite yuwen as a maintainer": an app may invite by e-mail or add the member with that role; both are the words'.)
  if (byVerb.length === 1 && byVerb[0] === 'invite' && noun.plain.includes('member')) return ['invite', 'member'];
  if (general) {
    const head = firstNoun(directObject(phrase), true).plain;
    const plain = head.length > 0 ? head : noun.plain;
    return plain.length > 0 ? plain : byVerb.includes('edit') || byVerb.length === 0 ? ['edit'] : byVerb;
  }
  const narrowed = byVerb.filter((id) => noun.plain.includes(id));
  if (byVerb.length > 1 && narrowed.length > 0) return narrowed;
  // (A payment verb reads as the payment; a message verb as the message: the clause's class tells.)
  const ofClass = byVerb.filter((id) => ACTIONS[id].riskClass === clause.request);
  return ofClass.length > 0 ? ofClass : byVerb;
}

/** Kind words in the user's words → the object kinds of the action vocabulary. */
const KINDS: Readonly<Record<string, string>> = {
  issue: 'issue', ticket: 'issue', post: 'post', thread: 'post', submission: 'post', mr: 'merge_request', 'merge request': 'merge_request',
  'pull request': 'merge_request', pr: 'merge_request', comment: 'comment', project: 'project', repo: 'project', repository: 'project', forum: 'forum', order: 'order', file: 'file',
};
const KIND_WORDS = Object.keys(KINDS).sort((a, b) => b.length - a.length).join('|');
const ANAPHORA = new RegExp(`\\b(?:the given|the same|the above|this|that|the|said)\\s+(${KIND_WORDS})\\b`, 'i');
const IT = /\b(?:it|there)\b/i;
const ALL_OF_THEM = /\b(?:both|them|(?:each|all) of them)\b/i;
const NUMBERED: readonly [RegExp, (n: string) => string][] = [
  [/\b(?:issue|ticket)\s*#?(\d+)\b|(?:^|\s)#(\d+)\b/i, (n) => `issue:*#${n}`],
  [/\b(?:merge request|mr|pull request|pr)\s*[!#]?(\d+)\b|(?:^|\s)!(\d+)\b/i, (n) => `merge_request:*!${n}`],
  [/\b(?:post|submission)\s*#?(\d+)\b/i, (n) => `post:${n}`],
  [/\border\s*#?(\d+)\b/i, (n) => `order:${n}`],
];

interface UrlObject {
  start: number;
  object: string;
}

/** Objects named by the URLs of the instruction (a known app's page), in order. */
function urlObjects(analysis: Analysis): UrlObject[] {
  return analysis.targets.flatMap((t) => {
    if (t.kind !== 'domain') return [];
    const object = objectOfPage(analysis.text.slice(t.start, t.end));
    return object === null ? [] : [{ start: t.start, object }];
  });
}

const kindOf = (object: string) => object.slice(0, object.indexOf(':'));

/**
 * A project named by its path, as a forge writes it ("maintainer of byteblaze/dotfiles", "issue 5 in
 * group/sub/proj"): after a preposition or "project"/"repo" (right after the verb it may be "read/write"), never inside a URL, both parts starting with a
 * letter or digit and at least one letter in each (so "read/write" needs its preposition, and "1/2" is none).
 */
const PROJECT_PATH = /\b(?:of|in|to|on|for|from|project|repo|repository)\s+(?:the\s+)?([a-z0-9][\w.-]*(?:\/[a-z0-9][\w.-]*)+)(?![\w/:.-]*\w)/gi;
function projectPaths(words: string): string[] {
  // (A last segment with an extension is a file — "to src/app.ts" — and a host is a site, neither a project.)
  return [...words.matchAll(PROJECT_PATH)]
    .map((m) => m[1]!.replace(/\.+$/, '').toLowerCase())
    .filter((p) => p.split('/').every((part) => /[a-z]/.test(part)) && !/\.(?:test|com|org|net|io)\b/.test(p) && !/\.[a-z0-9]{1,5}$/.test(p));
}
/** Kind words of things inside a project: a clause that names one acts on it, not on the project. */
const INSIDE_A_PROJECT = /\b(?:issues?|tickets?|merge requests?|mrs?|pull requests?|prs?|posts?|comments?|notes?|files?|commits?)\b/i;

/** The objects a clause names: its own URLs, numbers, or "the given issue" / "it" after a named URL. */
function objectsOfClause(clause: Clause, text: string, named: readonly UrlObject[], forge: boolean): string[] | undefined {
  const own = named.filter((u) => u.start >= clause.start && u.start < clause.end).map((u) => u.object);
  // ("comment on issue 42 in gitlab.test/finch/api": the number names a thing inside the project the URL names.)
  const ownProjects = own.filter((o) => o.startsWith('project:')).map((o) => o.slice('project:'.length));
  if (own.length > 0 && ownProjects.length === own.length && ownProjects.length === 1) {
    const inside = NUMBERED.flatMap(([re, make]) => {
      const m = re.exec(clauseWords(clause, text));
      return m === null ? [] : [make((m[1] ?? m[2])!).replace(':*', `:${ownProjects[0]!}`)];
    });
    if (inside.length > 0) return inside;
  }
  if (own.length > 0) return own;
  // ("post it in #releases": the channel is where the post goes.)
  // (Not "#412": a number after a hash is an order's or an issue's, read below.)
  const channels = clause.targets.filter((t) => t.kind === 'channel' && !/^#?\d+$/.test(t.value)).map((t) => `channel:${t.value.replace(/^#/, '').toLowerCase()}`);
  if (channels.length > 0) return channels;
  const words = clauseWords(clause, text);
  const before = [...named.filter((u) => u.start < clause.start)].reverse();
  // (Only a forge names projects by their path; elsewhere "a/b" is a folder, a menu, a pair of words.)
  const paths = forge ? projectPaths(words) : [];
  const numbered: string[] = [];
  for (const [re, make] of NUMBERED) {
    const m = re.exec(words);
    if (m === null) continue;
    const made = make((m[1] ?? m[2])!);
    // ("issue 1000 of byteblaze/dotfiles", or "issue 1000" after the project's URL: that project's issue.)
    const project = paths[0] ?? before.map((u) => /^(?:project|issue|merge_request):([^#!]+)/.exec(u.object)?.[1]).find((p) => p !== undefined);
    numbered.push(project !== undefined ? made.replace(':*', `:${project}`) : made);
  }
  if (numbered.length > 0) return numbered;
  if (paths.length > 0 && !INSIDE_A_PROJECT.test(words)) return paths.map((p) => `project:${p}`);
  const pool = before.length > 0 ? before : [...named];
  const anaphor = ANAPHORA.exec(words);
  if (anaphor !== null) {
    const kind = KINDS[anaphor[1]!.toLowerCase()];
    const hit = pool.find((u) => kindOf(u.object) === kind);
    if (hit !== undefined) return [hit.object];
  }
  // ("… and comment on both", "upvote them": every object the URLs before named.)
  if (ALL_OF_THEM.test(words) && pool.length > 0) return [...new Set(pool.map((u) => u.object))];
  if (IT.test(words) && pool.length > 0) return [pool[0]!.object];
  return undefined;
}

const WITH_A_TEXT = /\b(?:with|and|plus) an? (?:(?:short|quick|brief) )?(?:comment|note|reply)\b/i;
const SEVERAL = /\b(?:each|every|all)\b/i;

/** Every web action the request clauses ask for, with its objects and budget. */
export function actionsAskedFor(analysis: Analysis): ActionAsk[] {
  const named = urlObjects(analysis);
  // (A forge's pages name projects by their path: an app whose page table has a project. A forum's "r/books" is none.)
  const forge = analysis.targets.some((t) => t.kind === 'domain' && (appOfHost(t.value.replace(/:\d+$/, ''))?.pages.some((p) => p.object.startsWith('project:')) ?? false));
  const out: ActionAsk[] = [];
  for (const clause of analysis.clauses) {
    if (clause.negated || clause.request === null || clause.request === 'READ' || clause.verb === null) continue;
    const actions = actionsOfClause(clause, analysis.text);
    if (actions.length === 0) continue;
    const own = clauseWords(clause, analysis.text);
    const several = SEVERAL.test(own);
    const objects = objectsOfClause(clause, analysis.text, named, forge);
    // (One call per object named: "upvote both" is two votes.)
    out.push({ clause, actions, objects, maxCalls: several ? undefined : Math.max(clause.count ?? 1, objects?.length ?? 1) });
    // ("close issue #88 with a comment that …": the comment is asked for too, with a budget of its own.)
    if (WITH_A_TEXT.test(own) && !actions.includes('comment')) out.push({ clause, actions: ['comment'], objects, maxCalls: 1 });
  }
  return out;
}

/** Whether a site is one of the known apps of the action table. */
export function isKnownAppSite(site: string): boolean {
  return appOfHost(site.replace(/:\d+$/, '')) !== null;
}
