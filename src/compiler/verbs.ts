import type { RiskClass } from '../core/risk';
import { ACTIONS, ACTION_IDS } from '../core/actions/vocabulary';

/**
 * The verbs that open a request for each class of action. A clause is a request for class C only
 * when, with framing removed, its first word is one of C's verbs in the imperative (base) form.
 * Ambiguous verbs are left out on purpose: the compiler may be narrower than the user meant, never
 * wider ("get" grants nothing consequential; "write" is a write, a message only when it names an address).
 */
export type GrantableClass = Exclude<RiskClass, 'UNKNOWN'>;

const VERBS: Record<GrantableClass, readonly string[]> = {
  READ: [
    'read', 'open', 'view', 'check', 'look', 'find', 'search', 'research', 'summarise', 'summarize', 'browse',
    'visit', 'go', 'navigate', 'compare', 'list', 'show', 'tell', 'explain', 'get', 'review', 'see', 'watch',
    'describe', 'extract', 'collect', 'gather', 'note', 'count', 'translate', 'analyse', 'analyze', 'scan',
    'skim', 'google', 'fetch', 'locate', 'identify', 'what', 'which', 'how', 'why', 'who', 'when', 'where',
  ],
  LOCAL_WRITE: ['download', 'save', 'export', 'store'],
  EXTERNAL_WRITE: [
    'post', 'submit', 'fill', 'update', 'edit', 'create', 'publish', 'comment', 'upload', 'add', 'change', 'set',
    'rename', 'move', 'archive', 'label', 'tag', 'mark', 'star', 'schedule', 'cancel', 'rate', 'like', 'follow',
    'register', 'apply', 'rsvp', 'accept', 'decline', 'draft', 'complete', 'enter', 'type', 'modify', 'upvote',
    'unsubscribe', 'sign', 'log', 'enable', 'disable', 'book', 'subscribe', 'reserve', 'rent', 'put', 'write', 'react', 'vote',
    // Edits and settings people name by what they change: "fix the typo", "proofread my letter and fix the
    // grammar", "return the headphones", "freeze my card", "mute #random", "deploy the branch to staging.test".
    'fix', 'correct', 'proofread', 'return', 'freeze', 'unfreeze', 'lock', 'unlock', 'block', 'unblock', 'mute', 'unmute',
    'deploy', 'tweet', 'merge', 'approve', 'reject', 'pin', 'unpin',
  ],
  COMMUNICATION: ['send', 'email', 'e-mail', 'mail', 'reply', 'respond', 'forward', 'message', 'text', 'answer', 'cc', 'bcc', 'contact', 'notify', 'dm', 'msg', 'ping'],
  DELETE: ['delete', 'remove', 'erase', 'trash', 'discard', 'clear', 'purge', 'empty', 'wipe'],
  PERMISSION_CHANGE: ['share', 'grant', 'invite', 'revoke', 'authorize', 'authorise', 'unshare', 'permit'],
  FINANCIAL: ['pay', 'transfer', 'buy', 'purchase', 'order', 'checkout', 'donate', 'tip', 'wire', 'reorder', 'renew', 'refund'],
  EXECUTION: ['run', 'execute', 'install'],
};

/** Base form → class. */
const BASE: Map<string, GrantableClass> = new Map();
/** Any inflected form (sends, sending, sent, paid …) → class; used to read bans, never to grant. */
const ANY_FORM: Map<string, GrantableClass> = new Map();

const IRREGULAR: Record<string, string[]> = {
  send: ['sent'], pay: ['paid'], buy: ['bought'], run: ['ran', 'running'], set: ['setting'], get: ['got', 'getting'],
  forward: ['fwd'], email: ['emailed', 'emailing', 'emails'], tip: ['tipped', 'tipping'], log: ['logged', 'logging'],
  wire: ['wired', 'wiring'], go: ['went', 'gone'], see: ['saw', 'seen'], tell: ['told'], find: ['found'],
};

function forms(verb: string): string[] {
  const out = [verb, `${verb}s`, `${verb}ed`, `${verb}ing`];
  if (verb.endsWith('e')) out.push(`${verb}d`, `${verb.slice(0, -1)}ing`);
  if (verb.endsWith('y')) out.push(`${verb.slice(0, -1)}ies`, `${verb.slice(0, -1)}ied`);
  if (/(?:sh|ch|x|s)$/.test(verb)) out.push(`${verb}es`);
  // "submitting", "cancelled": a final consonant after one vowel doubles (harmless where it does not).
  if (/[^aeiou][aeiou][b-df-hj-np-tvz]$/.test(verb)) out.push(`${verb}${verb.at(-1)}ing`, `${verb}${verb.at(-1)}ed`);
  return out.concat(IRREGULAR[verb] ?? []);
}

for (const [cls, verbs] of Object.entries(VERBS) as [GrantableClass, readonly string[]][]) {
  for (const verb of verbs) {
    BASE.set(verb, cls);
    for (const form of forms(verb)) if (!ANY_FORM.has(form)) ANY_FORM.set(form, cls);
  }
}
// The web actions' own verbs (src/core/actions/vocabulary.ts, the one table the classifier reads requests
// with too): one this table does not list opens a request of its action's class ("downvote the post",
// "reopen issue 12", "assign it to me"). A verb listed above keeps its reading ("reply" sends; a reply on
// a forum is then bound as the comment it is, docs/actions.md). `close` opens a request only as a phrase
// ("close the issue", clauses.ts), never alone ("close the tab").
for (const id of ACTION_IDS) {
  const action = ACTIONS[id];
  for (const verb of action.verbs) {
    if (BASE.has(verb) || verb === 'close') continue;
    BASE.set(verb, action.riskClass);
    for (const form of forms(verb)) if (!ANY_FORM.has(form)) ANY_FORM.set(form, action.riskClass);
  }
}
// Nouns that name an action in a ban ("no purchases", "no emails", "nothing shared").
const BAN_NOUNS: Record<string, GrantableClass> = {
  purchase: 'FINANCIAL', purchases: 'FINANCIAL', payment: 'FINANCIAL', payments: 'FINANCIAL', transfers: 'FINANCIAL',
  orders: 'FINANCIAL', money: 'FINANCIAL', spending: 'FINANCIAL', emails: 'COMMUNICATION', messages: 'COMMUNICATION',
  replies: 'COMMUNICATION', deletions: 'DELETE', downloads: 'LOCAL_WRITE', uploads: 'EXTERNAL_WRITE', posts: 'EXTERNAL_WRITE',
  changes: 'EXTERNAL_WRITE', sharing: 'PERMISSION_CHANGE',
};
for (const [noun, cls] of Object.entries(BAN_NOUNS)) if (!ANY_FORM.has(noun)) ANY_FORM.set(noun, cls);

/** The class a clause-opening verb requests, or null. */
export function requestClassOfVerb(word: string): GrantableClass | null {
  return BASE.get(word.toLowerCase()) ?? null;
}

/** The class any form of a verb (or action noun) names, for reading bans; null when it names none. */
export function classOfAnyForm(word: string): GrantableClass | null {
  return ANY_FORM.get(word.toLowerCase()) ?? null;
}

/** Every clause-opening verb (base form) and the class it requests. */
export function requestVerbs(): ReadonlyMap<string, GrantableClass> {
  return BASE;
}

export function isVerb(word: string): boolean {
  return BASE.has(word.toLowerCase());
}

/** READ verbs that ask for research across the open web rather than named sites. */
export const STRONG_OPEN_WEB_VERBS: ReadonlySet<string> = new Set(['research', 'google']);
/** READ verbs that ask for the open web only when no site is named ("on news.test, search for …" does not). */
export const WEAK_OPEN_WEB_VERBS: ReadonlySet<string> = new Set(['search', 'browse', 'look', 'find', 'compare', 'locate']);
