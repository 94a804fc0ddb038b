import { classOfAnyForm, isVerb, requestClassOfVerb, STRONG_OPEN_WEB_VERBS, WEAK_OPEN_WEB_VERBS, type GrantableClass } from './verbs';
import { extractTargets, type TargetToken } from './targets';
import { findMoney, parseQuantity, unreadMoney, wordsNumber, type MoneyMention, type UnreadMoney } from '../core/amounts';

/**
 * Reads an isolated instruction as a list of clauses. A clause is a request for class C when, with
 * framing ("please", "can you", "then") removed, it opens with one of C's verbs and is not negated.
 * Everything here is linear in the length of the text: fixed word lists, no backtracking patterns.
 */

interface Word {
  /** Lower case, curly apostrophes straightened. */
  w: string;
  start: number;
  end: number;
}

export interface Clause {
  /** Verbatim span of the instruction (trimmed). */
  start: number;
  end: number;
  text: string;
  negated: boolean;
  /**
   * Where a negation's scope lies in the instruction: from the negator ("do not", "never", "without",
   * "must not be") to the end of the clause; null when nothing in the clause is negated. No permission
   * may take its evidence from inside it.
   */
  negatedSpan: [number, number] | null;
  /** The class this clause asks for, with the opening verb; null for no request. */
  request: GrantableClass | null;
  verb: Word | null;
  /** Classes a negated clause bans (empty otherwise). */
  bans: GrantableClass[];
  /** The words that ban them, lower case, as written ("downvote", "commenting"): what prohibitions.ts reads actions from. */
  banWords: string[];
  /** "only read", "read-only", "don't change anything": every consequential class is banned. */
  readOnly: boolean;
  /** "don't buy anything else", "nothing else": the ban spares what the user did request. */
  beyondRequested: boolean;
  /**
   * The text this clause sends, posts or writes, when the user dictates it ("reply to Bob that …", "email
   * bob@… saying …", "send the text below to …", "add a comment saying …"): what the text says, not what
   * the agent is asked to do; for a clause that opens inside such text, the whole clause. Clauses that open inside it
   * request nothing, and the addresses, hosts and paths in it are no recipients, sites or paths of the task.
   */
  dictated: [number, number] | null;
  /** Literal targets inside the clause. */
  targets: TargetToken[];
  /**
   * Recipients (e-mail / IBAN / phone tokens) that are the object of this clause's request; for a write, the
   * addresses and handles it is about or for ("draft a reply to sam@…", "follow @nasa"), see Constraint.reaches.
   */
  objects: TargetToken[];
  /** Recipients named after "except" / "but" / "other than" (exceptions to a ban). */
  excepted: TargetToken[];
  /** Names after "except" that are not addresses ("anyone except John"). */
  exceptedNames: string[];
  /** Targets preceded by a negator ("not to eve@x.com", "except evil.test"): never granted. */
  refused: TargetToken[];
  /**
   * The named things a purchase, deletion or share acts on, verbatim ("USB-C cable", "old-draft.txt");
   * empty when the clause names none ("delete them", "pay Bob").
   */
  items: string[];
  /** How many calls the clause asks for ("once", "buy two tickets"); null when it does not say. */
  count: number | null;
  /** Money amounts written in the clause with a currency ("45 EUR", "€45", "forty-five euros"). */
  amounts: MoneyMention[];
  /**
   * Money the clause writes but findMoney cannot read exactly ("pay bob 45", "99 cents", "tip 15%",
   * "under 50"), see unreadMoney: a payment the words carry one of is never bound wider than read — it asks.
   */
  unread: UnreadMoney[];
  /** How many items a purchase asks for in one order ("buy two packs", "a dozen", "3x"); null when unsaid. */
  quantity: number | null;
  /**
   * The payees a payment clause names, each with the amounts the words tie to it ("pay bob 45 EUR and alice
   * 4,500 EUR", "send 45 EUR to bob@…"), see payeeTies; none tied when the words do not say whose an amount
   * is; null when it names no payee.
   */
  payees: PayeeTie[] | null;
  /**
   * A READ request for research across the open web: `strong` ("research", "search the web"),
   * `weak` ("find", "look up", "compare": open web only when the instruction names no site).
   */
  openWeb: 'strong' | 'weak' | null;
}

/** A payee of a payment clause and the amounts tied to it (none: the clause names no amount for it). */
export interface PayeeTie {
  /** An address or IBAN as the classifier reads it, or a name in lower case ("bob", "bob smith"). */
  recipient: string;
  amounts: MoneyMention[];
}

export interface Analysis {
  text: string;
  clauses: Clause[];
  targets: TargetToken[];
}

/** Letters and digits of any script: a file named `旧草稿.txt` is a word and an extension, not just `txt`. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

/** Phrases that frame a request without changing it. Longest first where they share a start. */
const FRAMING: readonly string[][] = [
  ["don't", 'forget', 'to'], ['do', 'not', 'forget', 'to'], ['never', 'forget', 'to'], ["don't", 'hesitate', 'to'],
  ['do', 'not', 'hesitate', 'to'], ['i', 'want', 'you', 'to'], ["i'd", 'like', 'you', 'to'], ['i', 'would', 'like', 'you', 'to'],
  ['i', 'need', 'you', 'to'], ['i', 'want', 'to'], ["i'd", 'like', 'to'], ['i', 'would', 'like', 'to'], ['i', 'need', 'to'],
  ['go', 'ahead', 'and'], ['make', 'sure', 'to'], ['make', 'sure', 'you'], ['be', 'sure', 'to'], ['remember', 'to'],
  ['feel', 'free', 'to'], ['try', 'to'], ['help', 'me'], ['after', 'that'], ['and', 'then'], ['can', 'you'], ['could', 'you'],
  ['would', 'you'], ['will', 'you'], ['can', 'u'], ['you', 'should'], ['you', 'can'], ['you', 'may'], ['you', 'must'],
  ['please'], ['pls'], ['plz'], ['kindly'], ['also'], ['then'], ['and'], ['now'], ['just'], ['first'], ['next'], ['finally'],
  ['afterwards'], ["let's"], ['lets'], ['ok'], ['okay'], ['so'], ['but'], ['or'], ['actually'], ['instead'], ['rather'],
  ['yes'], ['sure'], ['quickly'], ['lastly'], ['additionally'], ['plus'], ['hey'], ['hi'], ['oh'], ['only'],
];

/** Phrases that open a negated clause. */
const NEGATION: readonly string[][] = [
  ['i', "don't", 'want', 'you', 'to'], ['i', 'do', 'not', 'want', 'you', 'to'], ['make', 'sure', 'not', 'to'],
  ['make', 'sure', 'you', "don't"], ['be', 'sure', 'not', 'to'], ['you', 'must', 'not'], ['you', "mustn't"],
  ['you', 'should', 'not'], ['you', "shouldn't"], ['you', 'may', 'not'], ['you', 'cannot'], ['you', "can't"],
  ['under', 'no', 'circumstances'], ['at', 'no', 'point'], ['refrain', 'from'], ['no', 'need', 'to'], ['do', 'not'],
  ["don't"], ['dont'], ['never'], ['no'], ['not'], ['avoid'], ['without'], ['stop'], ['nothing'], ['none'], ['nobody'],
  ['neither'], ['nor'], ["shouldn't"], ["mustn't"], ["won't"], ["can't"], ['cannot'],
];

/** Words after which a conjunction does not split (they are objects: "list save and delete commands"). */
const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'this', 'that', 'your', 'his', 'her', 'our', 'their', 'these', 'those', 'its', 'any', 'each', 'every', 'some']);
const CONJUNCTIONS = new Set(['and', 'then', 'but', 'or', 'so', 'also', 'plus']);
/** Words that join the verbs of one negated list ("send, post or share"). */
const LIST_JOINERS = new Set(['or', 'nor', 'and']);
/** A verb followed by one of these is a noun ("Email from Alice", "order status"). */
const NOUN_NEXT = new Set(['from', 'of', 'about', 'is', 'was', 'were', 'are', 'says', 'said', 'has', 'had', 'status', 'history', 'address', 'confirmation', 'number', 'details', 'page', 'settings', 'thread', 'list', 'id', 'subject', 'body']);
/** A target right after one of these is not the object of the request. */
const NOT_OBJECT_BEFORE = new Set(['from', 'about', 'regarding', 'concerning', 'of', 'by', 're', 'except', 'but', 'not', 'without', 'than', 'like', 'mention', 'mentioning', 'excluding', 'besides']);
/**
 * Words that open a phrase about something ("the invoice for alice@…", "the call with bob@…"): every
 * address up to a word that names whom the request reaches ("to", "cc") is mentioned, not reached.
 * "with" names the recipient of a share, "for" the person of a grant or revocation of access that names no other.
 */
const MENTION_OPENERS = new Set([...NOT_OBJECT_BEFORE, 'for', 'with']);
const RECIPIENT_OPENERS = new Set(['to', 'cc', 'bcc']);
const SHARE_VERBS = new Set(['share', 'unshare']);
/** Verbs that make a meeting: "with" names whom it invites ("schedule a call with bob@…"). */
const MEETING_VERBS = new Set(['schedule', 'book', 'arrange', 'plan', 'organise', 'organize', 'set', 'setup', 'create', 'add', 'move', 'reschedule']);
const UNSHARE_VERBS = new Set(['unshare', 'revoke', 'remove']);
const ACCESS_VERBS = new Set(['grant', 'give', 'revoke', 'remove', 'authorize', 'authorise', 'permit']);
/** "with carol@… in cc": a copy recipient. */
const IN_COPY = /^\s+(?:in|on|as)\s+b?cc\b|^\s+(?:in|on)\s+copy\b/i;
/** Words that open a clause of their own inside a request: an address after one is not the request's object. */
const SUBORDINATORS = new Set(['that', 'whether', 'if', 'who', 'whom', 'which', 'where', 'because', 'since', 'unless', 'otherwise']);
/** An address followed by one of these does something in a clause of its own ("the emails bob@… sent"). */
const SUBJECT_VERBS_AFTER = new Set(['sent', 'wrote', 'asked', 'asks', 'says', 'said', 'mentioned', 'forwarded', 'shared', 'posted', 'replied', 'emailed', 'requested', 'told', 'wants', 'needs']);
const NEGATORS_BEFORE = new Set(['not', 'except', 'without', 'avoid', 'excluding', 'ignore', 'never', 'than', 'besides']);
const REPLY_VERBS = new Set(['reply', 'respond', 'answer']);
/** Which targets a request of each class reaches: a write its addressee, handle or channel; a message also a phone. */
const OBJECT_KINDS: Partial<Record<GrantableClass, readonly string[]>> = {
  EXTERNAL_WRITE: ['email', 'handle', 'channel'],
  COMMUNICATION: ['email', 'iban', 'phone', 'channel'],
  PERMISSION_CHANGE: ['email', 'iban', 'channel'],
  // ("pay @sam-lee 20 USD": a payment app's account handle is whom it pays.)
  FINANCIAL: ['email', 'iban', 'handle'],
};
const DRAFTING_VERBS = new Set(['draft', 'write', 'prepare', 'compose']);
/** Words right before the user's own address: "my email is …", "with my work e-mail …", "my address: …". */
const OWN_ADDRESS = /\bmy\s+(?:[a-z]+\s+)?(?:e-?mail|address)(?:\s+address)?(?:\s+is)?\s*:?\s*$/i;
const MONEY_VERBS_NEED_AMOUNT = new Set(['transfer', 'wire']);
const MONEY_MAKES_PAYMENT = new Set(['send', 'set', 'schedule']);
/** Verbs that are a payment only when money is their object ("give bob 20 EUR", "venmo alice $12"); else nothing. */
const MONEY_ONLY_VERBS = new Set(['give', 'reimburse', 'repay', 'lend', 'recharge', 'venmo', 'zelle', 'paypal', 'cashapp']);
/** Verbs that pay only when money is right after them ("move €250 to checking"), never for money elsewhere in the clause ("move the $50 lamp to my wishlist"). */
const MONEY_RIGHT_AFTER = new Set(['move', 'put']);
/** "send money to bob", "transfer cash to …": the object is money. */
const MONEY_NOUNS = new Set(['money', 'cash', 'funds']);
const AMOUNT = /[$€£¥]\s?\d|\d(?:[\d.,]*)\s?(?:€|\$|£|eur\b|euros?\b|usd\b|dollars?\b|gbp\b|pounds?\b|chf\b)/i;
const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, single: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  once: 1, twice: 2, thrice: 3,
};
const READ_ONLY = /\bread[- ]only\b|\bnothing else\b|\bonly (?:read|look|browse|research|view|summari[sz]e|search|check|compare)\b|\b(?:don'?t|do not|never) (?:do|change|touch|modify|alter) (?:anything|a thing)\b|\blook but (?:don'?t|do not) touch\b/i;
const ONLY_READING = /\bonly (?:read|look|browse|research|view|summari[sz]e|search|check|compare)\b/i;
const PASSIVE_BAN = /\b(?:(?:should|must|may|can|will|shall|is|are) not|shouldn'?t|mustn'?t|can'?t|cannot|won'?t|never) (?:ever )?be ([a-z-]+)/gi;
/** "without posting", "without posting, sharing or sending anything": every gerund in the list is banned. */
const WITHOUT_GERUND = /\bwithout ([a-z-]+ing(?:(?:\s*,\s*(?:or\s+|and\s+|nor\s+)?|\s+(?:or|and|nor)\s+)[a-z-]+ing)*)\b/gi;
const BEYOND_REQUESTED = /\b(?:else|other|more|additional|further)\b/i;
const OPEN_WEB_WORDS = /\b(?:online|the web|the internet|any site|websites|web search)\b/i;

function wordsOf(text: string, offset: number): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(WORD)) {
    out.push({ w: m[0].toLowerCase().replace(/’/g, "'"), start: offset + m.index, end: offset + m.index + m[0].length });
  }
  return out;
}

function matchesAt(words: Word[], i: number, phrase: readonly string[]): boolean {
  for (let k = 0; k < phrase.length; k++) if (words[i + k]?.w !== phrase[k]) return false;
  return true;
}

function matchPrefix(words: Word[], i: number, list: readonly string[][]): number {
  for (const phrase of list) if (matchesAt(words, i, phrase)) return phrase.length;
  return 0;
}

/** Prepositions that open a phrase saying where the request happens ("on shop.test buy …", "in servicenow on it.test update …"). */
const LOCATIVES = new Set(['on', 'in', 'at', 'over', 'via', 'through']);
/**
 * The length of a leading phrase that says where ("on shop.test", "over on gitlab.test", "in servicenow on it.test")
 * before the clause's verb, with no comma: up to five words, none a verb, then a verb with words after it. 0 when
 * the clause does not open so.
 */
function leadingLocative(words: Word[], i: number): number {
  if (!LOCATIVES.has(words[i]?.w ?? '')) return 0;
  for (let j = i + 1; j <= i + 6 && j < words.length - 1; j++) {
    const w = words[j]!.w;
    if (isVerb(w)) return j > i + 1 && !DETERMINERS.has(words[j - 1]!.w) ? j - i : 0;
    // ("do not, in any case, transfer …": a phrase that stresses a negation says no place.)
    if (INTENSIFIERS.has(w)) return 0;
  }
  return 0;
}

/** Index of the first word after framing, and whether a negation opens the clause. */
function stripFraming(words: Word[], from: number, text?: string): { at: number; negated: boolean } {
  let i = from;
  let negated = false;
  for (let guard = 0; guard < 16; guard++) {
    const framing = matchPrefix(words, i, FRAMING);
    if (framing > 0) {
      i += framing;
      continue;
    }
    const locative = i === from ? leadingLocative(words, i) : 0;
    if (locative > 0) {
      i += locative;
      continue;
    }
    const negation = matchPrefix(words, i, NEGATION);
    // ("cancel… actually no, just lower it to 10.99": a "no" the comma closes takes back what came before; it
    // negates nothing after it.)
    if (negation === 1 && words[i]!.w === 'no' && text !== undefined && /^\s*[,;!]/.test(text.slice(words[i]!.end, words[i]!.end + 3))) {
      i += 1;
      continue;
    }
    if (negation > 0) {
      negated = true;
      i += negation;
      continue;
    }
    break;
  }
  return { at: i, negated };
}

/** A word inside a target token (`store.test`, `send-money@x.com`) is never a verb. */
function insideTarget(word: Word, targets: readonly TargetToken[]): boolean {
  return targets.some((t) => word.start >= t.start && word.end <= t.end);
}

function opensClause(words: Word[], i: number, targets: readonly TargetToken[]): boolean {
  const { at, negated } = stripFraming(words, i);
  const first = words[at];
  return negated || (first !== undefined && !insideTarget(first, targets) && (isVerb(first.w) || PHRASAL_OPENERS.has(first.w)) && !nounNext(words, at));
}

/**
 * Whether the word after a verb makes it a noun ("Email from Alice", "order status"). Not across a quoted text:
 * "tweet '…' from my x.test account" tweets the text (isolate.ts leaves `[…]` where it stood).
 */
function nounNext(words: Word[], at: number, text?: string): boolean {
  const next = words[at + 1];
  if (next === undefined || !NOUN_NEXT.has(next.w)) return false;
  return text === undefined || !text.slice(words[at]!.end, next.start).includes('[…]');
}

/** Words that open a request only in a phrase (see phrasalRequest): "turn on …", "close issue …", "leave a review". */
const PHRASAL_OPENERS = new Set(['turn', 'switch', 'close', 'leave', 'make', 'pass', 'drop', 'grab', 'snag']);

/**
 * Negation scopes over a coordination of verbs: in "do not send, post or share anything" and "never
 * delete or archive it", every verb after the negator is negated. While a negated clause has only
 * verbs (and "or"/"nor"/"and") after its negator, a comma or "or"/"nor" followed directly by a verb
 * continues the list rather than opening a request; "do not delete anything, archive the rest" has an
 * object before the comma and splits as before.
 */
function continuesNegatedList(words: Word[], startWord: number, i: number, commaBefore: boolean): boolean {
  const { at, negated } = stripFraming(words, startWord);
  if (!negated || at >= i) return false;
  // "Don't send anything to Jones or pay the invoice": "or"/"nor" carry the negation past an object.
  if (!commaBefore && (words[i]!.w === 'or' || words[i]!.w === 'nor')) return true;
  for (let k = at; k < i; k++) if (!isVerb(words[k]!.w) && !LIST_JOINERS.has(words[k]!.w) && !INTENSIFIERS.has(words[k]!.w)) return false;
  const word = words[i]!.w;
  if (word === 'or' || word === 'nor') return true;
  return commaBefore && (isVerb(word) || LIST_JOINERS.has(word)) && stripFraming(words, i).at === i;
}

/**
 * Words that stress a negation without ending it: "do not, under any circumstances, send money" negates
 * the send (the phrase between commas kept the negation from reaching it).
 */
const INTENSIFIERS = new Set(['under', 'any', 'circumstances', 'circumstance', 'in', 'case', 'way', 'event', 'at', 'all', 'ever', 'whatsoever', 'time', 'point', 'for', 'reason', 'please', 'repeat', 'again']);
/** Abbreviations whose full stop ends no sentence ("Dr. Jones"). */
const ABBREVIATIONS = /(?:^|[\s(])(?:dr|mr|mrs|ms|prof|st|jr|sr|mt|vs|etc|approx|no|e\.g|i\.e|inc|ltd|co)$/i;
/**
 * Sentence ends, and the dashes and brackets that set a clause apart ("reply to Bob — don't cc Carol"). A dash
 * between a number and another (a range: "may 2 - may 6", "9 – 5") joins them.
 */
const SENTENCE = /[.!?;:]+(?=\s|$)|\n+|(?<!\d)\s[—–-]\s|(?<=\d)\s[—–-]\s(?!(?:\p{L}{3,9}\.?\s+)?\d)|[—()]/gu;

/** "while you browse …", "when reading …": a reading that frames the clause before it, a clause of its own. */
const WHILE = new Set(['while', 'whilst', 'when']);
function whileReading(words: Word[], i: number): boolean {
  if (!WHILE.has(words[i]!.w)) return false;
  const next = ['you', 'i', 'we'].includes(words[i + 1]?.w ?? '') ? words[i + 2] : words[i + 1];
  return next !== undefined && classOfAnyForm(next.w) === 'READ';
}

/** Spans of clauses: sentence punctuation always splits; commas and conjunctions only before a new verb. */
function clauseSpans(text: string, targets: readonly TargetToken[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const quotes = quotedSpans(text);
  // ("share it with uncle joe (joe.p@family.test)": brackets around an address say whose it is, they set no clause apart.)
  // ("text mom (+1 412 555 0187)": so do brackets around a phone number.)
  const addressed = targets.filter((t) => (t.kind === 'email' || t.kind === 'phone') && /\(\s*$/.test(text.slice(Math.max(0, t.start - 3), t.start)) && (/^\s*\)/.test(text.slice(t.end, t.end + 3)) || text[t.end - 1] === ')'));
  // ("email the invoice from acme (it's in my downloads) to accounts@…": an aside the clause goes on after, with a
  // preposition, is no clause of its own; its brackets set nothing apart.)
  const asides: Array<[number, number]> = [];
  for (const m of text.matchAll(/\(([^()]{1,120})\)\s+(?=(?:to|for|with|on|in|at|via|from|by|into)\s)/gi)) asides.push([m.index, m.index + m[0].indexOf(')')]);
  let last = 0;
  for (const m of text.matchAll(SENTENCE)) {
    if ((m[0] === '(' || m[0] === ')') && addressed.some((t) => m.index >= t.start - 3 && m.index < t.end + 3)) continue;
    if (asides.some(([a, b]) => m.index >= a && m.index <= b)) continue;
    // ("phone (412) 268-2000": a bracket inside a phone number is part of it.)
    if (targets.some((t) => t.kind === 'phone' && m.index >= t.start && m.index < t.end)) continue;
    if (m[0] === '.' && ABBREVIATIONS.test(text.slice(Math.max(0, m.index - 8), m.index))) continue;
    // ("tweet 'we're hiring! link in bio' on social.test": a quote's own punctuation ends no sentence.)
    if (quotes.some(([qs, qe]) => m.index > qs && m.index < qe)) continue;
    spans.push([last, m.index]);
    last = m.index + m[0].length;
  }
  spans.push([last, text.length]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of spans) {
    const words = wordsOf(text.slice(s, e), s);
    let start = s;
    let startWord = 0;
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      const prev = words[i - 1]!;
      const commaBefore = text.slice(prev.end, word.start).includes(',');
      const conjunction = CONJUNCTIONS.has(word.w);
      // "never post anything while you browse forum.test": the reading goes on outside the ban, and so does its site.
      if (whileReading(words, i)) {
        out.push([start, word.start]);
        start = word.start;
        startWord = i;
        continue;
      }
      if (!commaBefore && !conjunction) continue;
      // "list save and delete commands": a bare verb before the conjunction makes the pair an object.
      const prevIsBareVerb = isVerb(prev.w) && !DETERMINERS.has(words[i - 2]?.w ?? '');
      if (conjunction && prevIsBareVerb) continue;
      if (continuesNegatedList(words, startWord, i, commaBefore)) continue;
      if (!opensClause(words, i, targets)) continue;
      const cut = commaBefore ? text.lastIndexOf(',', word.start) : word.start;
      out.push([start, cut]);
      start = commaBefore ? cut + 1 : word.start;
      startWord = i;
    }
    out.push([start, e]);
  }
  return joinAroundAsides(text, out, targets);
}

/**
 * "draft (dont send!) a msg to recruiting@…": a bracketed aside inside a clause is a clause of its own (its
 * ban stands), and the clause goes on after it — a bare verb before the brackets and words after them that
 * open no clause are one clause (spanning the aside, which keeps its own span too).
 */
function joinAroundAsides(text: string, spans: Array<[number, number]>, targets: readonly TargetToken[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < spans.length; i++) {
    const [s, e] = spans[i]!;
    const close = /^\s*\(/.test(text.slice(e, e + 3)) ? text.indexOf(')', e) : -1;
    const after = close < 0 ? -1 : spans.findIndex(([cs]) => cs === close + 1);
    const head = wordsOf(text.slice(s, e), s);
    const tail = after < 0 ? [] : wordsOf(text.slice(spans[after]![0], spans[after]![1]), spans[after]![0]);
    if (after > i && close - e <= 60 && head.length > 0 && head.length <= 3 && tail.length > 0 && !opensClause(tail, 0, targets)) {
      out.push([s, spans[after]![1]], ...spans.slice(i + 1, after));
      i = after;
      continue;
    }
    out.push([s, e]);
  }
  return out;
}

/** Writes whose object, when it is one thing ("a …", "my <singular>", "issue #88"), are made or ended once. */
const ONE_THING_VERBS = ['cancel', 'open', 'create', 'add', 'leave', 'file', 'make', 'start', 'close'];
/** Writes that switch one setting ("turn on two-factor authentication", "freeze my card", "mute #random"). */
const SWITCH_VERBS = ['turn', 'switch', 'enable', 'disable', 'mute', 'unmute', 'freeze', 'unfreeze', 'lock', 'unlock', 'block', 'unblock'];
const ONE_THING = new Set([...ONE_THING_VERBS, ...SWITCH_VERBS]);
/** Quotation marks and the mark that closes each. */
const QUOTE_CLOSE: Record<string, string> = { '"': '"', '“': '”', '„': '“', '‘': '’', "'": "'", '«': '»' };
/** Longest quotation read as one (an unclosed mark quotes nothing). */
const MAX_QUOTE = 280;

/**
 * Spans of quoted text ("post 'deploy done!' in #releases"), marks included: a mark opens a quote at the start
 * or after a space or bracket, before a non-space; it closes at its closing mark followed by a space, punctuation
 * or the end ("we're" and "Priya's" close nothing). Linear: each mark is looked at once per opening.
 */
export function quotedSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < text.length; i++) {
    const close = QUOTE_CLOSE[text[i]!];
    if (close === undefined || (i > 0 && !/[\s([:]/.test(text[i - 1]!)) || !/\S/.test(text[i + 1] ?? ' ')) continue;
    const limit = Math.min(text.length, i + MAX_QUOTE);
    for (let j = i + 2; j < limit; j++) {
      if (text[j] !== close || !/\S/.test(text[j - 1]!) || /[\p{L}\p{N}]/u.test(text[j + 1] ?? ' ')) continue;
      out.push([i, j + 1]);
      i = j;
      break;
    }
  }
  return out;
}

/** Verbs whose object may carry a count ("buy two tickets"); for payments a number is an amount. */
const COUNTED_OBJECT_VERBS = new Set([
  'buy', 'purchase', 'order', 'reorder', 'book', 'subscribe', 'delete', 'remove', 'erase', 'trash', 'discard', 'invite',
  // Writes that make, end or switch one thing: "open a PR", "add a comment", "cancel my hotel booking", "turn on 2FA"
  // is one write, not every write on the site ("cancel my booking" allowed a new booking; "open a PR" merging it).
  ...ONE_THING,
]);
/** Words that end the object's noun phrase (where, when, how): its last word before one is its head. */
const PHRASE_END = new Set(['at', 'on', 'in', 'for', 'to', 'from', 'with', 'by', 'via', 'and', 'or', 'so', 'because', 'since', 'today', 'tomorrow', 'tonight', 'now', 'asap', 'please', 'pls', 'then', 'that', 'saying', 'as', 'into', 'under', 'off']);
const ONE_THING_LEAD = new Set(['a', 'an', 'one', 'my', 'our', 'the', 'this', 'that', 'your']);

/**
 * "cancel my hotel booking", "close issue #88", "turn on two-factor authentication": the object is one thing
 * (its head noun, the last word of letters before where/when/how, is singular); a list ("X and Y") is not.
 */
function oneThing(words: Word[], verbIndex: number, text: string): boolean {
  const verb = words[verbIndex]?.w ?? '';
  if (!ONE_THING.has(verb)) return false;
  let k = verbIndex + 1;
  if ((verb === 'turn' || verb === 'switch') && ['on', 'off'].includes(words[k]?.w ?? '')) k++;
  if (ONE_THING_LEAD.has(words[k]?.w ?? '')) k++;
  let head: Word | null = null;
  for (const end = k + 5; k < words.length && k <= end; k++) {
    const word = words[k]!;
    // ("add milk and eggs to my list": a list is not one thing; a new request after "and" is its own clause.)
    if (word.w === 'and' || word.w === 'or') return false;
    if (PHRASE_END.has(word.w) || ITEM_END.has(word.w)) break;
    // ("issue #88", "my 4pm meeting": numbers say which one; they are no head.)
    if (/^\p{L}[\p{L}'-]*$/u.test(word.w)) head = word;
    // (A comma ends it too: "cancel my booking, it's …".)
    if (/^[ \t]*[,;]/.test(text.slice(word.end))) break;
  }
  return head !== null && (!head.w.endsWith('s') || head.w.endsWith('ss'));
}

function countIn(words: Word[], verbIndex: number, text: string): number | null {
  for (let k = verbIndex + 1; k < words.length; k++) {
    const w = words[k]!.w;
    if (w === 'once' || w === 'twice' || w === 'thrice') return NUMBER_WORDS[w]!;
    if (w === 'times' && k > 0) {
      const n = numberOf(words[k - 1]!.w);
      if (n !== null) return n;
    }
  }
  if (!COUNTED_OBJECT_VERBS.has(words[verbIndex]?.w ?? '')) return null;
  if (oneThing(words, verbIndex, text)) return 1;
  // "buy two tickets", "order 3 books": a count right after the verb (within two words), not an amount,
  // a measure ("the 15 inch sleeve", "the 10 GB backup", "the 3 pack") or a model ("iPhone 15").
  for (let k = verbIndex + 1; k <= verbIndex + 2 && k < words.length; k++) {
    const word = words[k]!;
    if (/[$€£¥]/.test(text.charAt(word.start - 1))) continue;
    // ("buy the 12.50 EUR coffee": the whole part of a decimal is no count — it allowed 12 purchases.)
    if (/^[.,]\d/.test(text.slice(word.end))) continue;
    const n = numberOf(word.w);
    if (n === null) continue;
    const before = words[k - 1]!.w;
    if (UNITS_AFTER_COUNT.has(words[k + 1]?.w ?? '') || (k > verbIndex + 1 && !DETERMINERS.has(before))) return null;
    return n;
  }
  return null;
}

/** Words after a number that make it a measure or a price, not how many: "15 inch", "10 GB", "20 EUR", "3 pack". */
const UNITS_AFTER_COUNT = new Set(['inch', 'inches', 'in', 'cm', 'mm', 'm', 'ft', 'foot', 'gb', 'tb', 'mb', 'kb', 'kg', 'g', 'lb', 'lbs', 'oz', 'ml', 'l', 'litre', 'liter', 'w', 'watt', 'v', 'mah', 'dollar', 'dollars', 'euro', 'euros', 'eur', 'usd', 'gbp', 'chf', 'pound', 'pounds', 'buck', 'bucks', 'percent', 'pack', 'year', 'month', 'week', 'day', 'hour', 'minute', 'series', 'pro', 'max', 'plus', 'mini', 'ultra']);

/** Verbs whose object count is how many items one order may carry. */
const QUANTITY_VERBS = new Set(['buy', 'purchase', 'order', 'reorder', 'book']);
/** Words a quantity may be written in, after the verb: "a dozen", "two hundred", "3x", "x3". */
const QUANTITY_WORDS = /^(?:\d{1,9}|\d{1,9}x|x\d{1,9}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozen|and)$/;

/**
 * The quantity a purchase clause names: the largest count written before one of its items ("buy a
 * cable and two chargers" → 2). A count that is money ("buy €50 of credit") is not a quantity.
 */
function quantityIn(words: Word[], verbIndex: number, text: string, amounts: readonly MoneyMention[]): number | null {
  if (!QUANTITY_VERBS.has(words[verbIndex]?.w ?? '')) return null;
  let best: number | null = null;
  for (let k = verbIndex + 1; k < words.length; k++) {
    const atItemStart = k === verbIndex + 1 || words[k - 1]!.w === 'and' || /[,&]/.test(text.slice(words[k - 1]!.end, words[k]!.start));
    if (!atItemStart) continue;
    let end = k;
    while (end < words.length && QUANTITY_WORDS.test(words[end]!.w) && !(words[end]!.w === 'and' && end === k)) end++;
    if (end === k || amounts.some((a) => words[k]!.start >= a.start && words[k]!.start < a.end)) continue;
    const phrase = words.slice(k, end).map((w) => w.w);
    if (phrase.at(-1) === 'and') phrase.pop();
    const n = phrase.length === 1 ? (phrase[0] === 'a' || phrase[0] === 'an' ? 1 : parseQuantity(phrase[0]!)) : wordsNumber(phrase.join(' '));
    if (n !== null && n > 0 && (best === null || n > best)) best = n;
  }
  return best;
}

function numberOf(w: string): number | null {
  if (/^\d{1,2}$/.test(w)) {
    const n = Number(w);
    return n >= 1 && n <= 20 ? n : null;
  }
  return NUMBER_WORDS[w] ?? null;
}

/** Verbs whose object is a thing the site names (a product, a file, a document): the action binds to it. */
const ITEM_VERBS = new Set(['buy', 'purchase', 'order', 'reorder', 'delete', 'remove', 'erase', 'trash', 'discard', 'share', 'unshare']);
/** Words that end an item's name: what follows says where, to whom, how or when. */
const ITEM_END = new Set([
  'with', 'to', 'on', 'at', 'in', 'from', 'for', 'using', 'via', 'by', 'into', 'onto', 'as', 'so', 'that', 'which', 'who', 'if',
  'before', 'after', 'when', 'because', 'then', 'please', 'now', 'today', 'tomorrow', 'tonight', 'instead', 'too', 'also',
  'here', 'there', 'only', 'but', 'except', 'without', 'unless', 'once', 'twice', 'again', 'right', 'asap',
  'under', 'below', 'over', 'above', 'than', 'older', 'newer', 'larger', 'smaller', 'bigger', 'cheaper', 'costing', 'priced',
  'worth', 'around', 'about',
]);
/** Words before an item's name that are not part of it: articles, counts, the kind of thing. */
const ITEM_LEAD = new Set([
  ...DETERMINERS, 'one', 'two', 'three', 'four', 'five', 'single', 'of', 'file', 'files', 'document', 'documents', 'doc', 'docs', 'item',
  'items', 'product', 'products', 'copy', 'copies', 'pair', 'email', 'emails', 'e-mail', 'message', 'messages', 'mail', 'photo',
  'photos', 'picture', 'pictures', 'image', 'images', 'folder', 'folders', 'spreadsheet', 'presentation', 'cheapest', 'best',
  'latest', 'newest', 'oldest', 'usual', 'same', 'pack', 'packs', 'bag', 'bags', 'box', 'boxes', 'bottle', 'bottles', 'set', 'sets',
  'roll', 'rolls', 'can', 'cans', 'jar', 'jars', 'carton', 'cartons', 'dozen', 'stale', 'unused', 'duplicate', 'branch', 'branches', 'book', 'books', 'ticket', 'tickets',
]);
/** Kind nouns that may follow an item's name ("the Q4 roadmap doc"). */
const ITEM_KINDS = new Set(['file', 'files', 'document', 'documents', 'doc', 'docs', 'sheet', 'spreadsheet', 'folder', 'branch', 'presentation', 'deck', 'slides']);
/** A count written with digits before an item's name: "2", "3x", "x3". */
const COUNT_WORD = /^(?:\d+|\d+x|x\d+)$/;
/** An item phrase made only of these names no particular thing ("delete them", "buy everything"). */
const NOT_AN_ITEM = new Set([
  ...ITEM_LEAD, 'it', 'them', 'this', 'that', 'these', 'those', 'everything', 'all', 'anything', 'something', 'stuff', 'ones', 'rest', 'others', 'other', 'more', 'else',
]);

/**
 * The items a request clause names: the words after the verb up to where, to whom or when, split at
 * "and" and commas, without leading articles, counts and kind nouns. Kept verbatim from the text.
 */
function itemsIn(text: string, words: Word[], verbIndex: number, targets: readonly TargetToken[]): string[] {
  const items: string[] = [];
  let phrase: Word[] = [];
  const close = () => {
    let lead = 0;
    // A kind noun leads only when a name follows ("the file old-draft.txt"), else it is the name ("the invoice").
    while (lead < phrase.length - 1 && (ITEM_LEAD.has(phrase[lead]!.w) || COUNT_WORD.test(phrase[lead]!.w))) lead++;
    let tail = phrase.length;
    // "the Q4 roadmap doc": a kind noun after the name is not part of it either.
    while (tail - 1 > lead && ITEM_KINDS.has(phrase[tail - 1]!.w)) tail--;
    const kept = phrase.slice(lead, tail);
    if (kept.length > 0 && !kept.every((w) => NOT_AN_ITEM.has(w.w) || COUNT_WORD.test(w.w))) items.push(text.slice(kept[0]!.start, kept.at(-1)!.end));
    phrase = [];
  };
  for (let k = verbIndex + 1; k < words.length; k++) {
    const word = words[k]!;
    if (ITEM_END.has(word.w) || targets.some((t) => word.start < t.end && word.end > t.start)) break;
    const gap = k > verbIndex + 1 ? text.slice(words[k - 1]!.end, word.start) : '';
    if (word.w === 'and' || word.w === 'or') {
      close();
      continue;
    }
    if (gap.includes(',') || gap.includes('&')) close();
    // ("delete draft-v1.docx and draft-v2.docx, keep the final one": a verb after a comma says something else.)
    if (gap.includes(',') && (isVerb(word.w) || word.w === 'keep')) break;
    phrase.push(word);
  }
  close();
  return items;
}

function previousWord(words: Word[], position: number): string {
  let prev = '';
  for (const word of words) {
    if (word.end > position) break;
    prev = word.w;
  }
  return prev;
}

const PEOPLE_ME = new Set(['me', 'us', 'myself', 'ourselves']);
const ACCESS_WORDS = new Set(['access', 'permission', 'permissions', 'rights']);
/** Write verbs that change the path they name (an upload or a post only reads it). */
const EDITS_IN_PLACE = new Set(['write', 'add', 'put', 'create', 'edit', 'update', 'move', 'rename', 'modify', 'change', 'append', 'draft', 'fix', 'correct', 'proofread']);
const OPENED_THINGS = new Set(['pull', 'pr', 'issue', 'ticket', 'account', 'case', 'bug', 'merge']);
/** Things one closes by writing to a site ("close issue #88", "close the ticket"); not "close the tab". */
const CLOSED_THINGS = new Set(['pull', 'pr', 'issue', 'issues', 'ticket', 'tickets', 'case', 'bug', 'poll', 'thread', 'discussion']);
/** What one leaves on a site ("leave a 5 star review", "leave your comments"): a text posted there. */
const LEFT_TEXTS = new Set(['review', 'reviews', 'comment', 'comments', 'rating', 'feedback', 'note', 'reply']);
/** Documents and pages one makes ("make a new doc called …"); not "make a list for me". */
const MADE_THINGS = new Set(['doc', 'document', 'page', 'note', 'folder', 'file', 'spreadsheet', 'sheet', 'event', 'post', 'issue', 'ticket', 'playlist', 'board', 'channel']);

/**
 * The request a clause opens with. Usually its first word's class; a few phrases say otherwise:
 * "check out" pays, "check me in" writes, "tell the team …" / "let Sam know …" sends (but "tell me"
 * reads), "give / remove X's access" changes permissions, "open a pull request / ticket" writes,
 * "use my saved card to buy …" is the verb after "to"; an edit whose only targets are local paths is
 * local, and "write / compose" to an address is a message.
 */
function phrasalRequest(words: Word[], at: number, targets: readonly TargetToken[]): { request: GrantableClass | null; verb: Word | null } {
  const first = words[at]!;
  const next = (k: number) => words[at + k]?.w ?? '';
  const clauseWords = words.slice(at).map((w) => w.w);
  let verb: Word | null = first;
  let request = requestClassOfVerb(first.w);
  if (first.w === 'use' || first.w === 'using') {
    const to = words.findIndex((w, k) => k > at && k <= at + 8 && w.w === 'to' && isVerb(words[k + 1]?.w ?? ''));
    verb = to === -1 ? null : words[to + 1]!;
    request = verb === null ? null : requestClassOfVerb(verb.w);
  } else if (first.w === 'check') {
    const particle = PEOPLE_ME.has(next(1)) ? next(2) : next(1);
    // "check out the cart" pays; "check out my todos" / "check out this article" reads.
    if (particle === 'out') request = checkoutObject(words, at + (PEOPLE_ME.has(next(1)) ? 3 : 2)) ? 'FINANCIAL' : 'READ';
    else if (particle === 'in') request = 'EXTERNAL_WRITE';
  } else if (first.w === 'top' && next(1) === 'up') {
    // "top up my phone with 20 EUR": money moves.
    request = 'FINANCIAL';
  } else if (first.w === 'tell' && next(1) !== '' && !PEOPLE_ME.has(next(1))) {
    request = 'COMMUNICATION';
  } else if (first.w === 'let' && next(1) !== '' && !PEOPLE_ME.has(next(1)) && clauseWords.slice(0, 5).includes('know')) {
    request = 'COMMUNICATION';
  } else if (first.w === 'pass' && (['on', 'along'].includes(next(1)) || (['it', 'this', 'that'].includes(next(1)) && ['on', 'along'].includes(next(2))))) {
    // "pass it on to the channel": a message.
    request = 'COMMUNICATION';
  } else if (first.w === 'drop' && clauseWords.slice(1, 4).some((w) => LEFT_TEXTS.has(w))) {
    // "drop a comment on …": a text left where the words say, as "leave a comment".
    request = 'EXTERNAL_WRITE';
  } else if ((first.w === 'grab' || first.w === 'snag') && clauseWords.slice(1, 5).some((w) => BOOKED_THINGS.has(w))) {
    // "grab 2 seats for the 7:40 showing": tickets are bought.
    request = 'FINANCIAL';
  } else if (['give', 'grant', 'remove', 'revoke'].includes(first.w) && clauseWords.some((w) => ACCESS_WORDS.has(w))) {
    request = 'PERMISSION_CHANGE';
  } else if (first.w === 'open' && ['a', 'an', 'new'].includes(next(1)) && clauseWords.slice(1, 5).some((w) => OPENED_THINGS.has(w))) {
    request = 'EXTERNAL_WRITE';
  } else if (SHARE_VERBS.has(first.w) && !clauseWords.some((w) => SHARED_WITH.has(w)) && !targets.some((t) => t.kind !== 'domain')) {
    // "… and also share the price range": telling the user, not a permission (no one to share it with).
    request = 'READ';
  } else if (MESSAGE_NOUN_VERBS.has(first.w) && NOUN_AFTER_MESSAGE_WORD.has(next(1))) {
    // "find the customer name and email with phone number …": a field being read, not a message.
    request = null;
    verb = null;
  } else if ((first.w === 'write' || first.w === 'compose') && targets.some((t) => t.kind === 'email')) {
    request = 'COMMUNICATION';
  } else if ((first.w === 'turn' || first.w === 'switch') && (next(1) === 'on' || next(1) === 'off' || next(2) === 'on' || next(2) === 'off')) {
    // "turn on two-factor authentication", "switch notifications off": a setting, as enable / disable.
    request = 'EXTERNAL_WRITE';
  } else if (first.w === 'close' && clauseWords.slice(1, 4).some((w) => CLOSED_THINGS.has(w))) {
    request = 'EXTERNAL_WRITE';
  } else if (first.w === 'leave' && clauseWords.slice(1, 6).some((w) => LEFT_TEXTS.has(w))) {
    request = 'EXTERNAL_WRITE';
  } else if (first.w === 'make' && ['a', 'an', 'new'].includes(next(1)) && clauseWords.slice(1, 4).some((w) => MADE_THINGS.has(w))) {
    request = 'EXTERNAL_WRITE';
  } else if (first.w === 'make' && !['a', 'an', 'new', 'sure', 'certain'].includes(next(1)) && clauseWords.slice(1, 6).some((w) => VISIBILITIES.has(w))) {
    // "make my profile private", "make the repo public": a thing's visibility (its own words, an account-security action).
    request = 'PERMISSION_CHANGE';
  }
  if (request === 'EXTERNAL_WRITE' && verb !== null && EDITS_IN_PLACE.has(verb.w) && targets.some((t) => t.kind === 'path') && !targets.some((t) => t.kind === 'domain')) request = 'LOCAL_WRITE';
  // ("make a new file called groceries.txt": a file made here.)
  if (request === 'EXTERNAL_WRITE' && first.w === 'make' && clauseWords.slice(1, 4).some((w) => w === 'file' || w === 'folder') && targets.some((t) => t.kind === 'path') && !targets.some((t) => t.kind === 'domain')) request = 'LOCAL_WRITE';
  // ("post in #general that …": a message to the channel, as "send it to #general".)
  if (request === 'EXTERNAL_WRITE' && first.w === 'post' && targets.some((t) => t.kind === 'channel' && t.start > first.end) && !targets.some((t) => t.kind === 'domain')) request = 'COMMUNICATION';
  return request === null ? { request: null, verb: null } : { request, verb };
}

/**
 * Phrases that ask for things by saying one wants them: "I need 3 bags of …", "get me 4 tickets", "we want two
 * pizzas". Read as a purchase only when a count follows at once — "I need a summary" and "get me the report" ask
 * for nothing bought — and then exactly as "buy 3 bags of …" (its count, items and site bind the same way).
 */
const WANT_PHRASES: readonly string[][] = [['i', 'need'], ['we', 'need'], ['i', 'want'], ['we', 'want'], ["i'd", 'like'], ['i', 'would', 'like'], ['get', 'me'], ['get', 'us'], ['grab', 'me'], ['grab', 'us']];
const PURCHASE_COUNT = /^(?:\d{1,3}|\d{1,3}x|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple|a\s+dozen)$/;

/** Where the clause's verb is: at `at`, or — after a want-phrase and a count — its last word, read as "buy" (rewritten in place). */
function wantedPurchase(words: Word[], at: number): number {
  const length = matchPrefix(words, at, WANT_PHRASES);
  if (length === 0 || !PURCHASE_COUNT.test(words[at + length]?.w ?? '')) return at;
  const last = at + length - 1;
  words[last] = { ...words[last]!, w: 'buy' };
  return last;
}

/** Message verbs whose next word may be the person's name ("dm alice", "message bob", "ping dana"); not "text", which goes to a number. */
const NAMED_BY_VERBS = new Set(['dm', 'message', 'msg', 'ping']);
/** Message verbs whose person may follow "to" ("reply to alice that …"). */
const TO_NAME_VERBS = new Set(['reply', 'respond', 'send', 'write', 'message', 'msg', 'dm', 'answer', 'forward']);
/** Verbs that add a person to a workspace or a channel. */
const MEMBER_VERBS = new Set(['add', 'invite']);
/** Words after such a verb that are no person ("message the team", "text me", "dm everyone"). */
const NOT_A_NAME = new Set([...DETERMINERS, ...PEOPLE_ME, 'everyone', 'everybody', 'anyone', 'someone', 'team', 'all', 'them', 'him', 'her', 'back', 'in', 'on', 'to', 'about', 'that', 'saying', 'with', 'from', 'for', 'and', 'or', 'it', 'group', 'channel', 'seller', 'host', 'owner', 'support', 'admin', 'people', 'folks', 'guys']);

/** What one grabs by buying it ("grab 2 seats", "snag tickets for friday"). */
const BOOKED_THINGS = new Set(['seat', 'seats', 'ticket', 'tickets', 'pass', 'passes', 'spot', 'spots']);

/** What "make X …" sets when it is a visibility: "make a public post" makes a post (a/an/new), not this. */
const VISIBILITIES = new Set(['public', 'private', 'internal']);

/** What a "check out" pays for: a cart or an order, or nothing named ("check out now", "check out on shop.test"). */
const CHECKOUT_THINGS = new Set(['cart', 'basket', 'bag', 'order', 'orders', 'items', 'item', 'purchase', 'now', 'on', 'at', 'with', 'using', 'from', 'and', 'then']);
function checkoutObject(words: Word[], from: number): boolean {
  let k = from;
  while (k < words.length && DETERMINERS.has(words[k]!.w)) k++;
  const w = words[k]?.w;
  return w === undefined || CHECKOUT_THINGS.has(w) || words.slice(k, k + 3).some((x) => CHECKOUT_THINGS.has(x.w) && x.w !== 'on' && x.w !== 'at' && x.w !== 'and');
}
/** Words that say whom or how a thing is shared: without them "share the price range" shares nothing with anyone. */
const SHARED_WITH = new Set(['with', 'to', 'publicly', 'public', 'access', 'link', 'everyone', 'team', 'anyone', 'them', 'him', 'her', 'us', 'folder', 'file', 'doc', 'document', 'drive', 'permission', 'permissions']);
/** Message verbs that are as often the field they name ("name and email with phone number"). */
const MESSAGE_NOUN_VERBS = new Set(['email', 'e-mail', 'mail', 'text', 'message', 'phone']);
const NOUN_AFTER_MESSAGE_WORD = new Set(['with', 'and', 'or', 'address', 'addresses', 'of', 'for', 'id', 'ids', 'field', 'fields', 'number', 'numbers']);

/** Non-message verbs whose clause is a text to publish or write down ("post on blog.test that …", "write the following"). */
const POSTING_VERBS = new Set(['post', 'comment', 'publish', 'write', 'draft', 'tweet', 'leave']);
/** A write whose object is one of these is a text too ("add a comment on git.test: …", "update my status to …"). */
const TEXT_NOUNS = new Set(['comment', 'note', 'message', 'post', 'reply', 'review', 'description', 'status', 'caption', 'tweet', 'answer', 'bio']);
/** Words after which the rest of a writing clause's sentence is its text ("… saying I'll attend", "… asking him to pay"). */
const SAYING_WORDS = new Set(['say', 'says', 'saying', 'telling', 'ask', 'asking', 'reads', 'reading']);
/** Words that, right after the message's recipient, start what it says ("tell Bob that …", "reply to bob@… I'll pay"). */
const SAID_AFTER_RECIPIENT = new Set(['that', 'i', "i'll", "i'm", "i've", "i'd", 'we', "we'll", "we're", "we've", 'he', "he'll", 'she', "she'll", 'they', "they'll", "they're", "it's", "there's"]);
/** Recipients without an address: a name, a pronoun, a group ("tell her that …", "let the team know that …"). */
const PEOPLE_WORDS = new Set(['him', 'her', 'them', 'us', 'me', 'everyone', 'everybody', 'all', 'team', 'know', 'back']);
/** Words that introduce a block of text after the request ("send the text below to …", "post the following"). */
const BLOCK_WORDS = new Set(['below', 'following', 'follows']);
/** What opens the user's next step after a comma: ", then …", ", and then …", ", after that …". */
const NEXT_STEP = /^\s*(?:(?:and\s+)?(?:then|after that|afterwards|next|finally)|and\s+(?:b?cc|copy\s+in))\b/i;
const SENTENCE_END = /[.!?;](?=\s|$)|\n/g;

/**
 * The text a writing clause dictates, as a span of the instruction: after "saying"/"asking"/"reads", the
 * rest of the sentence. For a `message` (a COMMUNICATION clause, a post, a comment, a note …) also: after
 * "the text below", "the following", "this text" or a colon ending the clause, the rest of the instruction;
 * after "to <verb>" ("tell him to pay …") or "that"/a subject pronoun right after the recipient, the rest
 * of the sentence. The words stay in the instruction (evidence quotes hold them); they only grant nothing.
 */
function dictatedSpan(text: string, words: Word[], verbIndex: number, end: number, targets: readonly TargetToken[], message: boolean): [number, number] | null {
  // "post 'deploy done' in #releases", "tweet \"we're hiring\" on social.test": the quoted text is what it says.
  const verbEnd = words[verbIndex]!.end;
  const quoted = message ? quotedSpans(text).find(([qs]) => qs >= verbEnd && qs < end) : undefined;
  if (quoted !== undefined && !/[^\s\p{L}\p{N}'’-]/u.test(text.slice(verbEnd, quoted[0]).replace(/[,:]/g, ''))) return quoted;
  const restOfSentence = (from: number): [number, number] => {
    SENTENCE_END.lastIndex = from;
    return [from, SENTENCE_END.exec(text)?.index ?? text.length];
  };
  for (let k = verbIndex + 1; k < words.length; k++) {
    const word = words[k]!;
    const prev = words[k - 1]!;
    if (insideTarget(word, targets)) continue;
    const next = words[k + 1];
    if (SAYING_WORDS.has(word.w) && next !== undefined) return restOfSentence(next.start);
    // Other writes ("complete the following steps", "fill in the form below") introduce no text to send.
    if (!message) continue;
    if (BLOCK_WORDS.has(word.w) || (['text', 'wording', 'paragraph'].includes(word.w) && (prev.w === 'this' || prev.w === 'these'))) return [end, text.length];
    if (next === undefined) break;
    // "tell him to pay carol@…": what he is told to do; not "reply to …" (the verb's own preposition).
    if (word.w === 'to' && k - 1 > verbIndex && isVerb(next.w) && !insideTarget(next, targets)) return restOfSentence(next.start);
    const afterRecipient =
      PEOPLE_WORDS.has(prev.w) ||
      targets.some((t) => t.end <= word.start && text.slice(t.end, word.start).trim() === '') ||
      (k - 1 > verbIndex && /^\p{Lu}/u.test(text.slice(prev.start, prev.end)) && !insideTarget(prev, targets));
    if (SAID_AFTER_RECIPIENT.has(word.w) && afterRecipient) return restOfSentence(word.w === 'that' ? next.start : word.start);
  }
  return message && /^[ \t]*:/.test(text.slice(end)) ? [end, text.length] : null;
}

/** Paying verbs whose object or `to` names whom the money goes to ("pay bob", "send 45 EUR to bob"). */
const PAYEE_VERBS = new Set(['pay', 'send', 'transfer', 'wire', 'tip', 'donate', 'refund', 'reimburse', 'repay', 'venmo', 'zelle', 'give', 'lend']);
/** Words that split a payment's list into parts ("pay bob 45 EUR and alice 4,500 EUR"). */
const LIST_WORDS = new Set(['and', 'or', 'plus']);
/** Words before a payee's name that are not part of it ("to my landlord"). */
const PAYEE_LEAD = new Set(['my', 'our', 'to']);
/** Words that are no payee's name: what is paid, pronouns, people in general, small words. */
const NOT_A_PAYEE = new Set([
  ...DETERMINERS, ...PEOPLE_ME, 'him', 'her', 'them', 'it', 'you', 'everyone', 'everybody', 'all', 'both', 'each', 'someone', 'anyone', 'nobody', 'back', 'off', 'up', 'out',
  'not', 'never', 'no', 'except', 'without', 'but', 'request', 'charge', 'ask',
  'to', 'for', 'from', 'via', 'with', 'on', 'in', 'by', 'at', 'into', 'of', 'now', 'today', 'tomorrow', 'tonight', 'then', 'please', 'pls', 'plz', 'again', 'also', 'asap', 'only',
  'rent', 'bill', 'bills', 'invoice', 'invoices', 'fee', 'fees', 'tax', 'taxes', 'deposit', 'balance', 'rest', 'remaining', 'amount', 'total', 'money', 'cash', 'sum',
  'subscription', 'membership', 'tuition', 'mortgage', 'loan', 'installment', 'instalment', 'debt', 'share', 'half', 'what', 'whatever', 'order', 'ticket', 'tickets',
  'euro', 'euros', 'dollar', 'dollars', 'buck', 'bucks', 'pound', 'pounds', 'quid', 'cent', 'cents', 'pence', 'grand', 'eur', 'usd', 'gbp', 'chf',
]);

/**
 * Who a payment clause pays and which amounts the words tie to whom. Payees are the clause's objects
 * (addresses, IBANs) and names: the word after the verb ("pay bob"), the first word of a later part of its
 * list (", alice 4,500 EUR"), the word after "to" ("send 45 EUR to bob"), with the capitalised words after
 * it ("Bob Smith"). One payee takes every amount of the clause; with several, the list's parts (split at
 * commas, "and", "or", "plus") must each name one payee for the amounts they carry — otherwise whose an
 * amount is is not said, and the clause ties none (each payee with no amount: the least amount of the task binds
 * them); null when the clause names no payee.
 */
function payeeTies(text: string, words: Word[], verbIndex: number, targets: readonly TargetToken[], objects: readonly TargetToken[], amounts: readonly MoneyMention[]): PayeeTie[] | null {
  interface Named {
    value: string;
    start: number;
    end: number;
  }
  const parts: { start: number; payees: Named[] }[] = [];
  const inAmount = (w: Word) => amounts.some((a) => w.start < a.end && w.end > a.start);
  const nameAt = (k: number): Named | null => {
    while (k < words.length && PAYEE_LEAD.has(words[k]!.w)) k++;
    const first = words[k];
    if (first === undefined || insideTarget(first, targets) || inAmount(first) || NOT_A_PAYEE.has(first.w) || isVerb(first.w) || !/^\p{L}[\p{L}'’-]*$/u.test(first.w)) return null;
    const name = [first];
    // "Bob Smith": capitalised words after a capitalised name are part of it.
    for (let j = k + 1; j < words.length && name.length < 3; j++) {
      const w = words[j]!;
      const written = text.slice(w.start, w.end);
      if (!/^\p{Lu}/u.test(text.slice(first.start, first.end)) || !/^\p{Lu}\p{L}*$/u.test(written) || text.slice(words[j - 1]!.end, w.start) !== ' ' || NOT_A_PAYEE.has(w.w) || inAmount(w) || insideTarget(w, targets)) break;
      name.push(w);
    }
    return { value: name.map((w) => w.w.replace(/['’]s$/, '')).join(' '), start: first.start, end: name.at(-1)!.end };
  };
  for (let k = verbIndex + 1; k < words.length; k++) {
    const word = words[k]!;
    const gap = k === verbIndex + 1 ? '' : text.slice(words[k - 1]!.end, word.start);
    // (Not the comma of "4,500 EUR" nor anything inside an address.)
    const within = (spans: readonly { start: number; end: number }[]) => spans.some((a) => words[k - 1]!.end > a.start && word.start < a.end);
    const opens = k === verbIndex + 1 || (!within(amounts) && !within(targets) && (/[,;&]/.test(gap) || (LIST_WORDS.has(word.w) && !insideTarget(word, targets))));
    if (opens) {
      const at = LIST_WORDS.has(word.w) ? k + 1 : k;
      // (A part opens right after its comma or "and": "€2 to bob" keeps its "€".)
      parts.push({ start: k === verbIndex + 1 ? word.start : LIST_WORDS.has(word.w) ? word.end : words[k - 1]!.end + gap.search(/[,;&]/) + 1, payees: [] });
      const name = nameAt(at);
      if (name !== null) parts.at(-1)!.payees.push(name);
    }
    if (word.w === 'to' && parts.length > 0) {
      const name = nameAt(k + 1);
      if (name !== null) parts.at(-1)!.payees.push(name);
    }
  }
  if (parts.length === 0) return null;
  const partOf = (position: number) => parts.reduce((found, p, i) => (p.start <= position ? i : found), 0);
  for (const o of objects) parts[partOf(o.start)]!.payees.push({ value: o.value, start: o.start, end: o.end });
  const all = [...new Set(parts.flatMap((p) => p.payees.map((n) => n.value)))];
  if (all.length === 0) return null;
  if (all.length === 1) return [{ recipient: all[0]!, amounts: [...amounts] }];
  // With several payees an amount is tied only when written right beside its part's one payee: "bob 45 EUR",
  // "45 EUR to bob" ("pay bob 45 EUR, alice owes me 4,500 EUR" ties nothing to alice: whose it is is not said).
  const beside = (n: Named, a: MoneyMention) =>
    (n.end <= a.start && /^[\s:=–-]*$/.test(text.slice(n.end, a.start))) || (a.end <= n.start && /^\s+to\s+(?:(?:my|our)\s+)?$/i.test(text.slice(a.end, n.start)));
  const ties = new Map<string, MoneyMention[]>(all.map((p) => [p, []]));
  for (const a of amounts) {
    const payees = parts[partOf(a.start)]!.payees;
    const values = new Set(payees.map((n) => n.value));
    if (values.size !== 1 || !payees.some((n) => beside(n, a))) return all.map((recipient) => ({ recipient, amounts: [] }));
    ties.get(payees[0]!.value)!.push(a);
  }
  return [...ties].map(([recipient, tied]) => ({ recipient, amounts: tied }));
}

/** `inDictation`: the clause opens inside message text an earlier clause dictates (see dictatedSpan). */
function analyzeClause(text: string, start: number, end: number, allTargets: TargetToken[], inDictation: boolean): Clause | null {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const s = start + lead;
  const e = end - (raw.length - raw.trimEnd().length);
  if (e <= s) return null;
  const clauseText = text.slice(s, e);
  const words = wordsOf(clauseText, s);
  const targets = allTargets.filter((t) => t.start >= s && t.end <= e);
  const framed = stripFraming(words, 0, text);
  const { negated } = framed;
  const at = negated ? framed.at : wantedPurchase(words, framed.at);
  const first = words[at] ?? null;
  const lower = clauseText.toLowerCase();

  const bans = new Set<GrantableClass>();
  const banWords = new Set<string>();
  const passiveFrom: number[] = [];
  if (negated) {
    for (let k = at; k < words.length; k++) {
      const cls = words[k]!.w === 'check' && words[k + 1]?.w === 'out' ? 'FINANCIAL' : classOfAnyForm(words[k]!.w);
      if (cls !== null && cls !== 'READ') {
        bans.add(cls);
        banWords.add(words[k]!.w);
      }
    }
  }
  for (const m of lower.matchAll(PASSIVE_BAN)) {
    passiveFrom.push(s + m.index);
    const cls = classOfAnyForm(m[1]!);
    if (cls !== null && cls !== 'READ') {
      bans.add(cls);
      banWords.add(m[1]!);
    }
  }
  const negatedFrom: number[] = negated ? [words[0]!.start] : [];
  for (const m of lower.matchAll(WITHOUT_GERUND)) {
    negatedFrom.push(s + m.index);
    for (const gerund of m[1]!.split(/[^a-z-]+/)) {
      const cls = classOfAnyForm(gerund);
      if (cls !== null && cls !== 'READ') {
        bans.add(cls);
        banWords.add(gerund);
      }
    }
  }

  let request: GrantableClass | null = null;
  let verb: Word | null = null;
  let moneyOnly: Word | null = null;
  if (!negated && !inDictation && first !== null && !insideTarget(first, targets) && !nounNext(words, at, text)) {
    ({ request, verb } = phrasalRequest(words, at, targets));
    // (Not "lend me 20 EUR", "give us 50 EUR": money coming to the user is no payment the task makes.)
    if (request === null && MONEY_ONLY_VERBS.has(first.w) && !PEOPLE_ME.has(words[at + 1]?.w ?? '')) moneyOnly = first;
  }
  // Money written in words or slang ("two hundred euros", "20 bucks") counts when it is what the verb moves:
  // right after it or after the payee's name ("send bob 20 bucks", "send the 20 bucks I owe bob"), not "send
  // bob a note about the forty euros". ("recharge my phone with 20 EUR": after "with", "by" or "for".)
  const moneyObject = (opening: Word | null): boolean => {
    if (opening === null) return false;
    const first = findMoney(clauseText).map((m) => m.start + s).find((at) => at > opening.end);
    if (first === undefined) return false;
    // (An address is one word: "venmo alice@x.test $12".)
    const between = words.filter((w) => w.start > opening.end && w.end <= first && !targets.some((t) => w.start >= t.start && w.end <= t.end && w.start !== t.start));
    if (between.some((w) => TEXT_NOUNS.has(w.w) || isVerb(w.w))) return false;
    if (opening.w === 'recharge' && between.length <= 5 && ['with', 'by', 'for'].includes(between.at(-1)?.w ?? '')) return true;
    return between.length <= 2 && !between.slice(0, -1).some((w) => DETERMINERS.has(w.w));
  };
  const moneyNoun = (opening: Word | null) => opening !== null && MONEY_NOUNS.has(words[words.indexOf(opening) + 1]?.w ?? '');
  const hasAmount = AMOUNT.test(clauseText) || moneyObject(verb);
  const hasIban = targets.some((t) => t.kind === 'iban');
  // "give bob 20 EUR", "venmo alice@… $12", "recharge my phone with 20 EUR": verbs that pay only when money is what they move.
  if (verb === null && moneyOnly !== null && moneyObject(moneyOnly)) {
    request = 'FINANCIAL';
    verb = moneyOnly;
  }
  // "send €50 to …", "set up a transfer of €100 to NL91…", "send money to bob": money in the clause makes it a payment.
  if (verb !== null && MONEY_MAKES_PAYMENT.has(verb.w) && (hasAmount || hasIban || moneyNoun(verb))) request = 'FINANCIAL';
  if (verb !== null && MONEY_RIGHT_AFTER.has(verb.w) && (moneyNoun(verb) || findMoney(clauseText).some((m) => m.start + s > verb!.end && clauseText.slice(verb!.end - s, m.start).trim() === ''))) request = 'FINANCIAL';
  if (verb !== null && request === 'FINANCIAL' && MONEY_VERBS_NEED_AMOUNT.has(verb.w) && !hasAmount && !hasIban && !moneyNoun(verb)) {
    request = null;
    verb = null;
  }

  const refused: TargetToken[] = [];
  const excepted: TargetToken[] = [];
  for (const t of targets) {
    const before = previousWord(words, t.start);
    const beforeThat = words[words.findIndex((w) => w.end > t.start) - 2]?.w ?? '';
    if (NEGATORS_BEFORE.has(before) || NEGATORS_BEFORE.has(beforeThat) || negated) refused.push(t);
    if (before === 'except' || before === 'but' || (before === 'than' && beforeThat === 'other')) excepted.push(t);
  }
  const exceptedNames: string[] = [];
  for (let k = 0; k < words.length - 1; k++) {
    if (words[k]!.w === 'except' || (words[k]!.w === 'but' && negated && k > 0)) {
      const next = words[k + 1]!;
      if (!targets.some((t) => t.start <= next.start && t.end >= next.end) && /^[a-z][a-z'-]*$/.test(next.w)) exceptedNames.push(next.w);
    }
  }

  const verbIndex = verb === null ? -1 : words.indexOf(verb);
  const dictated: [number, number] | null = inDictation
    ? [s, e]
    : verb !== null && (request === 'COMMUNICATION' || request === 'EXTERNAL_WRITE' || request === 'LOCAL_WRITE')
      ? dictatedSpan(text, words, verbIndex, e, targets, request === 'COMMUNICATION' || POSTING_VERBS.has(verb.w) || words.slice(verbIndex + 1).some((w) => TEXT_NOUNS.has(w.w)))
      : null;
  const objects: TargetToken[] = [];
  if (verb !== null && (request === 'COMMUNICATION' || request === 'PERMISSION_CHANGE' || request === 'FINANCIAL' || request === 'EXTERNAL_WRITE')) {
    // An address inside a clause of its own ("the notes that john@… sent me", "ask whether bob@… still
    // has access") or a possessive ("bob@…'s number") is mentioned, not sent to.
    const subordinate = words.find((w) => w.start > verb.end && SUBORDINATORS.has(w.w))?.start ?? Infinity;
    const opensRecipient = (w: string) =>
      RECIPIENT_OPENERS.has(w) ||
      (w === 'with' && SHARE_VERBS.has(verb.w)) ||
      // ("schedule a 1:1 with dev.rao@…": whom the meeting invites.)
      (w === 'with' && request === 'EXTERNAL_WRITE' && MEETING_VERBS.has(verb.w)) ||
      (w === 'for' && ACCESS_VERBS.has(verb.w) && objects.length === 0) ||
      // ("unshare budget.xlsx from contractor@…", "revoke access from bob@…": whose access goes.)
      (w === 'from' && request === 'PERMISSION_CHANGE' && UNSHARE_VERBS.has(verb.w));
    for (const t of targets) {
      // Addresses in the message's own text are what it says, not whom it goes to.
      if (dictated !== null && t.start >= dictated[0] && t.end <= dictated[1]) continue;
      // (A channel is where a message goes, or what an invitation opens: "invite noah@… to the #design channel".)
      const kinds = OBJECT_KINDS[request] ?? ['email', 'iban'];
      if (t.start < verb.end || t.start > subordinate || !kinds.includes(t.kind)) continue;
      if (SUBJECT_VERBS_AFTER.has(/^\s+([a-z]+)/i.exec(text.slice(t.end, t.end + 20))?.[1]?.toLowerCase() ?? '')) continue;
      // ("reply to bob@…'s message": the author of what is replied to is its recipient.)
      if (/^['’]s\b/.test(text.slice(t.end, t.end + 3)) && !REPLY_VERBS.has(verb.w)) continue;
      if (refused.includes(t)) continue;
      const between = words.filter((w) => w.start > verb.end && w.end <= t.start && !insideTarget(w, targets));
      const before = between.at(-1)?.w ?? '';
      // Whether a phrase about something is open before the word right before the address.
      let mention = false;
      for (const w of between.slice(0, -1)) if (opensRecipient(w.w)) mention = false; else if (MENTION_OPENERS.has(w.w)) mention = true;
      // ("reply to the email from alice@…": the author of what is replied to is its recipient.)
      // ("draft a reply to the email from sam@…": a drafted reply is addressed as a reply is.)
      const replies = REPLY_VERBS.has(verb.w) || (DRAFTING_VERBS.has(verb.w) && words.slice(verbIndex + 1, verbIndex + 4).some((w) => w.w === 'reply'));
      // ("register me … with my work email me@corp.test": a write carries the user's own address.)
      const own = request === 'EXTERNAL_WRITE' && OWN_ADDRESS.test(text.slice(Math.max(0, t.start - 40), t.start));
      const reached = own || opensRecipient(before) || (before === 'from' && replies && !mention) || !(mention || MENTION_OPENERS.has(before)) || IN_COPY.test(text.slice(t.end));
      if (reached) objects.push(t);
    }
    // ("dm alice that the report's done", "ping dana": a direct message names its person by name; a chat tool
    // addresses them so. Only right after the verb, only a name — never a word the clause goes on with.)
    const named = words[verbIndex + 1];
    // ("let priya know that …": the person told is named between "let" and "know".)
    const letKnow = verb.w === 'let' && words[verbIndex + 2]?.w === 'know';
    const aName = (w: Word | undefined): w is Word => w !== undefined && !insideTarget(w, targets) && /^[a-z][a-z-]{1,30}$/.test(w.w) && !NOT_A_NAME.has(w.w) && !isVerb(w.w) && (dictated === null || w.start < dictated[0]);
    if (request === 'COMMUNICATION' && objects.length === 0 && (NAMED_BY_VERBS.has(verb.w) || letKnow) && aName(named)) {
      objects.push({ kind: 'handle', value: named.w, start: named.start, end: named.end });
    }
    // ("reply to alice that …", "send a note to bob": the person a message goes to, named after "to".)
    const toAt = words.findIndex((w, i) => i > verbIndex && i <= verbIndex + 4 && w.w === 'to');
    const toWhom = toAt === -1 ? undefined : words[toAt + 1];
    const after = toWhom === undefined ? '' : text.slice(toWhom.end, toWhom.end + 8);
    if (request === 'COMMUNICATION' && objects.length === 0 && TO_NAME_VERBS.has(verb.w) && aName(toWhom) && !/^\s*[.@#/:-]\w/.test(after) && /^(?:\s+(?:that|saying|about|and|to)\b|\s*[,:]|\s*$)/.test(after)) {
      objects.push({ kind: 'handle', value: toWhom.w, start: toWhom.start, end: toWhom.end });
    }
    // ("add emma to #design", "invite leo to the workspace": in a chat workspace the person added is named right
    // after the verb.)
    const inWorkspace = targets.some((t) => t.kind === 'channel') || /\b(?:workspace|slack|channel)\b/i.test(clauseText);
    if ((request === 'EXTERNAL_WRITE' || request === 'PERMISSION_CHANGE') && MEMBER_VERBS.has(verb.w) && inWorkspace && !objects.some((t) => t.kind === 'handle') && aName(named) && !ITEM_LEAD.has(named.w)) {
      objects.push({ kind: 'handle', value: named.w, start: named.start, end: named.end });
    }
  }

  const count = verb === null ? null : countIn(words, verbIndex, text);
  const items = verb !== null && ITEM_VERBS.has(verb.w) ? itemsIn(text, words, verbIndex, targets) : [];
  const amounts = findMoney(clauseText).map((m) => ({ ...m, start: m.start + s, end: m.end + s }));
  const read = [...amounts, ...targets].map((r) => ({ start: r.start - s, end: r.end - s }));
  const unread = unreadMoney(clauseText, read, verb?.w ?? null, request === 'FINANCIAL').map((m) => ({ ...m, start: m.start + s, end: m.end + s }));
  const quantity = verb === null ? null : quantityIn(words, verbIndex, text, amounts);
  const payees = request === 'FINANCIAL' && verb !== null && PAYEE_VERBS.has(verb.w) ? payeeTies(text, words, verbIndex, targets, objects, amounts) : null;
  let openWeb: Clause['openWeb'] = null;
  if (request === 'READ' && verb !== null) {
    const namesSite = targets.some((t) => t.kind === 'domain');
    if ((STRONG_OPEN_WEB_VERBS.has(verb.w) || OPEN_WEB_WORDS.test(clauseText)) && !namesSite) openWeb = 'strong';
    else if (WEAK_OPEN_WEB_VERBS.has(verb.w)) openWeb = 'weak';
  }

  const scopeStart = Math.min(...negatedFrom, ...passiveFrom);
  return {
    start: s,
    end: e,
    text: clauseText,
    negated,
    negatedSpan: Number.isFinite(scopeStart) ? [scopeStart, e] : null,
    request,
    verb,
    dictated,
    bans: [...bans],
    banWords: [...banWords],
    readOnly: READ_ONLY.test(clauseText),
    // "only read X, then reply to Y": "only" limits what is done to X; the reply the user asked for stays.
    beyondRequested: BEYOND_REQUESTED.test(clauseText) || ONLY_READING.test(clauseText),
    targets,
    objects,
    excepted,
    exceptedNames,
    refused,
    items,
    count,
    amounts,
    unread,
    quantity,
    payees,
    openWeb,
  };
}

/** The clause asking for open-web reading, if the instruction asks for it. */
export function openWebClause(analysis: Analysis): Clause | null {
  const reading = analysis.clauses.filter((c) => !c.negated);
  const namesSite = analysis.targets.some((t) => t.kind === 'domain');
  return reading.find((c) => c.openWeb === 'strong') ?? (namesSite ? null : (reading.find((c) => c.openWeb === 'weak') ?? null));
}

/** Clauses and targets of an (already isolated) instruction. */
export function analyzeInstruction(text: string): Analysis {
  const targets = extractTargets(text);
  const clauses: Clause[] = [];
  let dictatedUntil = -1;
  for (const [s, e] of clauseSpans(text, targets)) {
    // ", then delete the invitation": the user's next step after the message, not part of it.
    if (s < dictatedUntil && /,\s*$/.test(text.slice(0, s)) && NEXT_STEP.test(text.slice(s, e))) {
      dictatedUntil = -1;
      // (What the message says ends where the user's next step begins.)
      for (const c of clauses) if (c.dictated !== null && c.dictated[1] > s) c.dictated = [c.dictated[0], Math.max(c.dictated[0], text.lastIndexOf(',', s))];
    }
    const clause = analyzeClause(text, s, e, targets, s < dictatedUntil);
    if (clause === null) continue;
    clauses.push(clause);
    if (clause.dictated !== null) dictatedUntil = Math.max(dictatedUntil, clause.dictated[1]);
  }
  // ("draft a refund message …, order 000000161": a clause that is only an order's number, after a request of
  // another kind, names the order that request is about; it buys nothing.)
  for (const clause of clauses) {
    if (clause.request !== 'FINANCIAL' || !/^order\s+#?\d{4,}$/i.test(clause.text.trim())) continue;
    if (!clauses.some((c) => c !== clause && c.request !== null && c.request !== 'READ' && c.request !== 'FINANCIAL')) continue;
    Object.assign(clause, { request: null, verb: null, count: null, quantity: null });
  }
  // "Email bob@… that the new portal is at portal.evil.io": what the message says names no site to reach.
  const said = (t: TargetToken) => clauses.some((c) => c.dictated !== null && t.start >= c.dictated[0] && t.end <= c.dictated[1]);
  for (const clause of clauses) clause.targets = clause.targets.filter((t) => !said(t));
  return { text, clauses, targets: targets.filter((t) => !said(t)) };
}
