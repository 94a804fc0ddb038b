import { maxClass, type RiskClass } from '../risk';

/**
 * Words in tool names, action arguments, URL paths and form fields. One vocabulary for every layer
 * so that `send` means the same thing in `mcp_gmail_send_message`, `action: "send"` and `/api/send`.
 */

/** `mcp__gmail__sendMessage`, `gmail.send-message` → [`mcp`, `gmail`, `send`, `message`]. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** The lookup form of a tool name: words joined by `_` (`sendEmail`, `send-email` → `send_email`). */
export function normaliseName(name: string): string {
  return splitWords(name).join('_');
}

/** Verbs → the class of the action they name. Write verbs are EXTERNAL_WRITE unless the object is local. */
const VERBS: Readonly<Record<string, RiskClass>> = {
  // reading
  get: 'READ', read: 'READ', list: 'READ', search: 'READ', find: 'READ', fetch: 'READ', query: 'READ',
  view: 'READ', show: 'READ', describe: 'READ', lookup: 'READ', look: 'READ', browse: 'READ', open: 'READ',
  check: 'READ', count: 'READ', inspect: 'READ', navigate: 'READ', goto: 'READ', visit: 'READ',
  scrape: 'READ', summarize: 'READ', summarise: 'READ', retrieve: 'READ', load: 'READ', preview: 'READ',
  stat: 'READ', status: 'READ', snapshot: 'READ', screenshot: 'READ', analyze: 'READ', analyse: 'READ',
  explain: 'READ', watch: 'READ', head: 'READ', cat: 'READ', grep: 'READ', scroll: 'READ', wait: 'READ',
  // writing
  write: 'EXTERNAL_WRITE', save: 'EXTERNAL_WRITE', create: 'EXTERNAL_WRITE', update: 'EXTERNAL_WRITE',
  edit: 'EXTERNAL_WRITE', add: 'EXTERNAL_WRITE', insert: 'EXTERNAL_WRITE', set: 'EXTERNAL_WRITE',
  modify: 'EXTERNAL_WRITE', rename: 'EXTERNAL_WRITE', move: 'EXTERNAL_WRITE', copy: 'EXTERNAL_WRITE',
  append: 'EXTERNAL_WRITE', put: 'EXTERNAL_WRITE', patch: 'EXTERNAL_WRITE', upload: 'EXTERNAL_WRITE',
  store: 'EXTERNAL_WRITE', draft: 'EXTERNAL_WRITE', submit: 'EXTERNAL_WRITE', upsert: 'EXTERNAL_WRITE',
  replace: 'EXTERNAL_WRITE', mark: 'EXTERNAL_WRITE', label: 'EXTERNAL_WRITE', archive: 'EXTERNAL_WRITE',
  schedule: 'EXTERNAL_WRITE', commit: 'EXTERNAL_WRITE', push: 'EXTERNAL_WRITE', sync: 'EXTERNAL_WRITE',
  download: 'LOCAL_WRITE', export: 'LOCAL_WRITE', mkdir: 'LOCAL_WRITE', touch: 'LOCAL_WRITE',
  // communication
  send: 'COMMUNICATION', email: 'COMMUNICATION', mail: 'COMMUNICATION', reply: 'COMMUNICATION',
  forward: 'COMMUNICATION', post: 'COMMUNICATION', publish: 'COMMUNICATION', tweet: 'COMMUNICATION',
  comment: 'COMMUNICATION', notify: 'COMMUNICATION', message: 'COMMUNICATION', respond: 'COMMUNICATION',
  broadcast: 'COMMUNICATION', announce: 'COMMUNICATION', dm: 'COMMUNICATION',
  // deleting
  delete: 'DELETE', remove: 'DELETE', rm: 'DELETE', del: 'DELETE', drop: 'DELETE', wipe: 'DELETE',
  erase: 'DELETE', purge: 'DELETE', destroy: 'DELETE', trash: 'DELETE', unlink: 'DELETE', truncate: 'DELETE',
  clear: 'DELETE', discard: 'DELETE', empty: 'DELETE', shred: 'DELETE',
  // permissions
  share: 'PERMISSION_CHANGE', grant: 'PERMISSION_CHANGE', revoke: 'PERMISSION_CHANGE', invite: 'PERMISSION_CHANGE',
  chmod: 'PERMISSION_CHANGE', chown: 'PERMISSION_CHANGE', authorize: 'PERMISSION_CHANGE', authorise: 'PERMISSION_CHANGE',
  unshare: 'PERMISSION_CHANGE', delegate: 'PERMISSION_CHANGE', sudo: 'PERMISSION_CHANGE',
  // money
  pay: 'FINANCIAL', transfer: 'FINANCIAL', purchase: 'FINANCIAL', buy: 'FINANCIAL', order: 'FINANCIAL',
  checkout: 'FINANCIAL', charge: 'FINANCIAL', refund: 'FINANCIAL', withdraw: 'FINANCIAL', donate: 'FINANCIAL',
  book: 'FINANCIAL', tip: 'FINANCIAL', subscribe: 'FINANCIAL', wire: 'FINANCIAL',
  // code
  exec: 'EXECUTION', execute: 'EXECUTION', run: 'EXECUTION', eval: 'EXECUTION', evaluate: 'EXECUTION',
  spawn: 'EXECUTION', launch: 'EXECUTION', invoke: 'EXECUTION', install: 'EXECUTION', deploy: 'EXECUTION',
};

/** Verbs that raise the class wherever they appear in a name (`get_and_delete_messages` deletes). */
const STRONG_VERBS = new Set([
  'delete', 'remove', 'send', 'pay', 'transfer', 'share', 'grant', 'forward', 'purchase', 'buy', 'drop',
  'wipe', 'exec', 'execute', 'eval', 'publish', 'post', 'erase', 'destroy', 'purge', 'revoke', 'checkout',
  'withdraw',
]);

/** Words that are nouns as often as verbs (`email_search`, `order_status`): a plain verb elsewhere in the name wins. */
const NOUN_OR_VERB = new Set(['email', 'mail', 'message', 'order', 'book', 'comment', 'post', 'tip', 'label', 'draft', 'mark', 'patch', 'status', 'head', 'cat', 'snapshot', 'screenshot', 'stat', 'dm', 'wire', 'charge']);

/** Nouns that make a write local (on this machine) rather than external. */
const LOCAL_NOUNS = new Set(['file', 'files', 'dir', 'directory', 'folder', 'path', 'local', 'disk', 'fs']);

/** Nouns that make a send a payment. */
const MONEY_NOUNS = new Set(['paypal', 'venmo', 'zelle', 'cashapp', 'money', 'payment', 'payments', 'remittance']);

/** Nouns that make a write a permission change (`update_permissions`, `set_role`). */
const PERMISSION_NOUNS = new Set(['permission', 'permissions', 'role', 'roles', 'acl', 'acls', 'access', 'sharing', 'collaborator', 'collaborators', 'password', 'forwarding']);

/** Nouns → the object part of a capability (`mcp_gmail_send_message` → `email.send`). First match wins. */
const OBJECT_NOUNS: readonly [string, readonly string[]][] = [
  ['email', ['email', 'emails', 'mail', 'mails', 'gmail', 'outlook', 'inbox', 'smtp']],
  ['message', ['message', 'messages', 'msg', 'chat', 'slack', 'sms', 'dm', 'teams', 'discord', 'whatsapp', 'telegram']],
  ['doc', ['doc', 'docs', 'document', 'documents', 'drive', 'sheet', 'sheets', 'spreadsheet', 'notion', 'dropbox']],
  ['calendar', ['calendar', 'event', 'events', 'meeting', 'meetings', 'gcal']],
  ['file', ['file', 'files', 'dir', 'directory', 'folder', 'fs']],
  ['web', ['page', 'url', 'web', 'website', 'browser', 'http']],
];

export function verbClass(word: string): RiskClass | undefined {
  return Object.hasOwn(VERBS, word) ? VERBS[word] : undefined;
}

export function objectOf(words: readonly string[]): string | undefined {
  for (const word of words) {
    const hit = OBJECT_NOUNS.find(([, nouns]) => nouns.includes(word));
    if (hit) return hit[0];
  }
  return undefined;
}

export interface VerbReading {
  riskClass: RiskClass;
  /** The verb that decided, and the strong verb that escalated (if any). */
  verb: string;
  escalatedBy?: string;
}

/** Adjust a write class by its object: files are local, permissions are permission changes. */
function adjustForObject(cls: RiskClass, words: readonly string[]): RiskClass {
  // `paypal_send`, `send_money`: sending money is a payment, not a message.
  if (cls === 'COMMUNICATION' && words.some((w) => MONEY_NOUNS.has(w))) return 'FINANCIAL';
  if (cls !== 'EXTERNAL_WRITE' && cls !== 'LOCAL_WRITE') return cls;
  if (words.some((w) => PERMISSION_NOUNS.has(w))) return 'PERMISSION_CHANGE';
  if (cls === 'EXTERNAL_WRITE' && words.some((w) => LOCAL_NOUNS.has(w))) return 'LOCAL_WRITE';
  return cls;
}

/** Strong verbs anywhere in the words, as an escalation of `cls`. */
export function escalate(cls: RiskClass, words: readonly string[]): { riskClass: RiskClass; escalatedBy?: string } {
  let result: { riskClass: RiskClass; escalatedBy?: string } = { riskClass: cls };
  for (const word of words) {
    if (!STRONG_VERBS.has(word)) continue;
    const strong = VERBS[word] as RiskClass;
    const raised = maxClass(result.riskClass, strong);
    if (raised !== result.riskClass) result = { riskClass: raised, escalatedBy: word };
  }
  return result;
}

/** Verb inference: the first recognised verb decides, strong verbs anywhere escalate. */
export function readVerbs(words: readonly string[]): VerbReading | undefined {
  const verb = words.find((w) => verbClass(w) !== undefined && !NOUN_OR_VERB.has(w)) ?? words.find((w) => verbClass(w) !== undefined);
  if (verb === undefined) return undefined;
  const base = adjustForObject(VERBS[verb] as RiskClass, words);
  const { riskClass, escalatedBy } = escalate(base, words);
  return escalatedBy === undefined ? { riskClass, verb } : { riskClass, verb, escalatedBy };
}
