import { amountOfNumber, amountTarget, currencyOf, fromMinorUnits, parseAmount, parseQuantity, UNREADABLE_AMOUNT, UNREADABLE_QUANTITY, type Money } from '../amounts';
import type { Targets } from '../classification';
import { siteKeyOf } from '../addresses';

/**
 * Targets from arguments and bodies. Only recipient-like keys yield recipients and only URL/host
 * keys (or absolute URLs) yield domains: free text (message, body, subject) is never parsed, so
 * page text the agent copies into a message cannot add or change a target.
 */

const MAX_DEPTH = 6;
/**
 * More than a 16 KB body view can hold (`[0,0,…]` is two characters a value): a recipient after two thousand
 * padding values (`{"to": bob, "pad": [0 × 2100], "cc": eve}`) was unseen, and the message passed on `to`
 * alone (adaptive review of the data lane).
 */
const MAX_NODES = 20_000;
const MAX_IDENTIFIER = 254;

/** Keys (lower-case, letters and digits only) whose values are recipients. */
const RECIPIENT_KEYS = new Set([
  'to', 'cc', 'bcc', 'recipient', 'recipients', 'email', 'emails', 'emailaddress', 'address', 'addresses',
  'payee', 'iban', 'account', 'accountnumber', 'forwardto', 'sharewith', 'user', 'users', 'invitee', 'invitees',
  'attendee', 'attendees', 'participant', 'participants', 'guest', 'guests', 'member', 'members', 'grantee', 'assignee', 'destinationaccount', 'beneficiary', 'collaborator', 'collaborators',
]);
/** Suffixes that make a compound key recipient-like (`recipient_email`, `payee_iban`, `to_account`). */
const RECIPIENT_SUFFIXES = [
  'recipient', 'recipients', 'email', 'emails', 'iban', 'payee', 'account', 'forwardto', 'sharewith',
  // Where a payment goes, as servers name it (`payTo`, `sendTo`, `receiver`, `creditor`, `counterparty`):
  // `{email: <alice>, payTo: <bob>}` was checked as a payment to alice alone.
  'payto', 'sendto', 'transferto', 'receiver', 'receivers', 'creditor', 'counterparty',
];

const URL_KEYS = new Set(['url', 'urls', 'uri', 'href', 'link', 'links', 'endpoint', 'website', 'site', 'origin', 'baseurl', 'webhook', 'webhookurl', 'callbackurl', 'redirecturi', 'redirecturl']);
const HOST_KEYS = new Set(['host', 'hostname', 'hosts', 'domain', 'domains', 'server', 'remote']);
const PATH_KEYS = new Set(['path', 'paths', 'file', 'files', 'filepath', 'filename', 'filenames', 'filepaths', 'source', 'destination', 'src', 'dest', 'target', 'targetpath', 'directory', 'dir', 'folder', 'cwd', 'output', 'outputpath', 'outfile', 'newpath', 'oldpath', 'attachment', 'attachments']);

/** Keys whose values name the thing an action acts on (see ../items.ts). */
const ITEM_KEYS = new Set([
  'sku', 'skus', 'item', 'items', 'itemid', 'product', 'products', 'productid', 'variant', 'variantid', 'asin',
  'listing', 'listingid', 'offer', 'offerid', 'document', 'documents', 'documentid', 'doc', 'docid', 'fileid', 'fileids',
]);
/** Suffixes that make a compound key an item key (`line_items[0][sku]`, `product_sku`, `cartItemId`). */
const ITEM_SUFFIXES = ['sku', 'productid', 'itemid', 'variantid', 'offerid', 'listingid', 'documentid', 'docid', 'fileid', 'asin'];
/** Path keys that, in a web page's form or body, name a file on the site rather than a local path. */
const FILE_ITEM_KEYS = new Set(['path', 'paths', 'file', 'files', 'filename', 'filenames', 'filepath', 'filepaths']);
/**
 * The item of an action whose body could not be read (cut at the size limit, or not JSON or form data).
 * It matches no name, so an action bound to an item asks rather than pass on what it could not see.
 */
export const UNREADABLE_ITEM = '(unreadable body)';
/**
 * A recipient in the part of a body that was not read (the view stops at 16 KB): it is named by no task,
 * so a message whose body was cut asks instead of passing on the recipients seen before the cut.
 */
export const UNREAD_RECIPIENT = '(a recipient past the part of the body read)';

const ABSOLUTE_URL = /^(?:https?|wss?|ftp):\/\/\S+$/i;
/** A lone word (an enum like `FEED`), never `localhost`, which names this machine. */
const BARE_WORD = /^(?!localhost$)[a-z][a-z0-9_-]*$/i;
/** An address token, internationalized ones included (`bob@corp.tеst` with a Cyrillic `е` is an address, not nobody). */
const EMAIL_TOKEN = /^[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+$/u;
const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const TOKEN_SEPARATORS = /[\s,;<>()"[\]]+/;

export function keyForm(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function isRecipientKey(key: string): boolean {
  const k = keyForm(key);
  return RECIPIENT_KEYS.has(k) || RECIPIENT_SUFFIXES.some((suffix) => k.endsWith(suffix));
}

/** Keys that are recipient-like only when they hold an address or number: flights have a `to`, parcels an `address`. */
const AMBIGUOUS_RECIPIENT_KEYS = new Set(['to', 'address', 'addresses']);
const NUMBER_IDENTIFIER = /^\+?[\d\s().-]{6,}$/;

/** An address as the mail system routes it: lower case, the domain in ASCII (punycode), so a homograph shows. */
function canonicalAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  let ascii = domain.toLowerCase();
  try {
    ascii = new URL(`http://${domain}`).hostname;
  } catch {
    // Not a valid host: keep it as written (it still matches nobody the user named).
  }
  return `${address.slice(0, at).toLowerCase()}@${ascii}`;
}

function percentDecoded(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Keys of the account a payment is made from. */
const SOURCE_KEY = /from|source|debtor|dbtr|sender|payer|origin|debit/;

/** ISO 13616 (upper-case letters and digits only): move the first four characters to the end, letters to numbers, remainder mod 97 is 1. */
export function ibanChecksumHolds(iban: string): boolean {
  let remainder = 0;
  for (const ch of iban.slice(4) + iban.slice(0, 4)) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** A value that is exactly one IBAN (spaces allowed) whose ISO 13616 mod-97 check holds. */
function wholeIban(value: string): boolean {
  const iban = value.replace(/\s+/g, '').toUpperCase();
  return value.length <= 60 && IBAN.test(iban) && ibanChecksumHolds(iban);
}

/**
 * Recipients in one value of a recipient-like field: every whole e-mail token (`not-alice@x.com`
 * stays itself) and every IBAN among the tokens, else the value as one IBAN, else the trimmed value as
 * an account identifier — an unreadable recipient is still a recipient, never nobody. The value is
 * read as a receiving system may read it: NFKC (`＠` is `@`), percent-decoded too (`eve%40x.test`),
 * internationalized domains in punycode. Under an ambiguous key (`to: "NYC"`) only addresses, IBANs,
 * numbers and values with an `@` count.
 */
/** A phone number's canonical form: a leading `+` if written, then its digits (the compiler writes the same). */
export function phoneForm(text: string): string {
  return `${text.trim().startsWith('+') ? '+' : ''}${text.replace(/\D/g, '')}`;
}

export function recipientsIn(value: string, key = ''): string[] {
  const text = value.normalize('NFKC').trim();
  if (text === '') return [];
  const tokens = [...new Set([text, percentDecoded(text)])]
    .flatMap((v) => v.split(TOKEN_SEPARATORS))
    .map((token) => token.replace(/^mailto:/i, '').replace(/^[.:]+|[.:]+$/g, ''));
  const emails = tokens.filter((token) => EMAIL_TOKEN.test(token)).map(canonicalAddress);
  const ibans = tokens.map((token) => token.toUpperCase()).filter((token) => IBAN.test(token)).map((iban) => iban.toLowerCase());
  if (emails.length > 0 || ibans.length > 0) return [...new Set([...emails, ...ibans])];
  const compact = text.replace(/\s+/g, '').toUpperCase();
  if (IBAN.test(compact)) return [compact.toLowerCase()];
  if (AMBIGUOUS_RECIPIENT_KEYS.has(keyForm(key)) && !NUMBER_IDENTIFIER.test(text) && !percentDecoded(text).includes('@')) return [];
  // A phone number however it is spaced ("+1 415 555 0134", "+1-415-555-0134"): its sign and digits.
  if (NUMBER_IDENTIFIER.test(text) && (text.match(/\d/g)?.length ?? 0) >= 7) return [phoneForm(text)];
  return [text.slice(0, MAX_IDENTIFIER).toLowerCase()];
}

export interface Collected extends Targets {
  urls: string[];
}

export function emptyCollected(): Collected {
  return { recipients: [], domains: [], paths: [], items: [], urls: [] };
}

/** Union without duplicates, first-seen order (targets are sets; order keeps records readable). */
export function addUnique(into: string[], values: Iterable<string>): void {
  for (const v of values) if (!into.includes(v)) into.push(v);
}

export function addUrl(into: Collected, url: string): void {
  addUnique(into.urls, [url]);
  // A private host is its endpoint (`localhost:3000`): the task names a port, not every service on the machine.
  const domain = siteKeyOf(url);
  if (domain !== null) addUnique(into.domains, [domain]);
}

export function addItem(into: Targets, item: string): void {
  const text = item.trim();
  if (text !== '') addUnique(into.items, [text.slice(0, MAX_IDENTIFIER)]);
}

/** Items in a URL's query (`/checkout?sku=gift-card-500`). */
export function addQueryItems(into: Collected, url: string): void {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return;
  }
  for (const [key, value] of params) if (namesItem(key, 'items-and-files')) addItem(into, value);
}

export function addHost(into: Collected, host: string): void {
  const domain = siteKeyOf(host, { singleLabel: false });
  if (domain !== null) addUnique(into.domains, [domain]);
}

type Role = 'recipient' | 'url' | 'host' | 'path' | 'item' | 'other';

function roleOf(key: string): Role {
  const k = keyForm(key);
  if (isRecipientKey(key)) return 'recipient';
  if (URL_KEYS.has(k) || k.endsWith('url')) return 'url';
  if (HOST_KEYS.has(k)) return 'host';
  if (PATH_KEYS.has(k)) return 'path';
  if (ITEM_KEYS.has(k) || ITEM_SUFFIXES.some((suffix) => k.endsWith(suffix))) return 'item';
  return 'other';
}

/** Whether a key's values name the thing the action acts on, under `scope` (see CollectOptions.items). */
function namesItem(key: string, scope: CollectOptions['items']): boolean {
  if (scope === 'none') return false;
  const role = roleOf(key);
  return role === 'item' || (scope === 'items-and-files' && role === 'path' && FILE_ITEM_KEYS.has(keyForm(key)));
}

export interface CollectOptions {
  /** Strings under other keys that are absolute URLs count (tool arguments). */
  urlsAnywhere: boolean;
  /** Path keys hold local paths (tool arguments), not a web page's file names. */
  paths: boolean;
  /**
   * Which keys name the thing the action acts on: `items` (item keys: tool arguments, where a `path` is
   * local), `items-and-files` (item keys and file keys: a web page's forms, bodies and queries).
   */
  items: 'none' | 'items' | 'items-and-files';
  /**
   * A `channel` argument is where a message goes (`slack.send {channel: "#eng"}`): `true` for tool arguments;
   * `names` for a web body, where only a channel written as a name is read (ids are opaque).
   */
  channels?: boolean | 'names';
}

const CHANNEL_KEYS = new Set(['channel', 'channels', 'channelname']);
/** A chat channel's canonical form: lower case with its `#` (the compiler writes "in #eng" the same). */
export function channelForm(text: string): string {
  return `#${text.trim().replace(/^#+/, '').toLowerCase()}`;
}

/**
 * Walk arguments or a JSON body (bounded depth and size). A string's role comes from the nearest
 * key above it; arrays inherit their key. Strings under other keys count only as absolute URLs
 * when `urlsAnywhere` (tool arguments), never as recipients.
 */
export function collectTargets(value: unknown, into: Collected, options: CollectOptions): void {
  let nodes = 0;
  const visit = (node: unknown, role: Role, key: string, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (typeof node === 'string') {
      if (options.channels === true && CHANNEL_KEYS.has(keyForm(key)) && /^#?[\p{L}\p{N}_.-]{1,80}$/u.test(node.trim())) addUnique(into.recipients, [channelForm(node)]);
      // (A web body's channel written as a name — `channel: "design"`, lower case, as a chat's own page sends it — is
      // that channel; an opaque id such as `C01GENERAL` or `1103221190457720912` is none, and stays unread.)
      if (options.channels === 'names' && CHANNEL_KEYS.has(keyForm(key)) && /^#?[\p{Ll}][\p{Ll}\p{N}_-]{0,79}$/u.test(node.trim())) addUnique(into.recipients, [channelForm(node)]);
      // (`channel: "@dana"`: a chat API's direct message to a person, named by handle as the words name them.)
      // (Any call: a handle is whom it reaches, in a tool's arguments or a web body.)
      if (CHANNEL_KEYS.has(keyForm(key)) && /^@[\p{L}\p{N}_.-]{1,80}$/u.test(node.trim())) addUnique(into.recipients, [node.trim().toLowerCase()]);
      if (role === 'recipient') addUnique(into.recipients, recipientsIn(node, key));
      // A whole value that is an IBAN (checksum valid) is where money goes, whatever its key is called:
      // `{iban: <named>, dest: <another>}` paid the other while only the named one was read.
      // (Not the account paid from — `from_account`, `source_iban`, `debtor`: a transfer form names the user's own.)
      else if (wholeIban(node) && !SOURCE_KEY.test(keyForm(key))) addUnique(into.recipients, [node.replace(/\s+/g, '').toLowerCase()]);
      else if (role === 'url' || (options.urlsAnywhere && role === 'other' && ABSOLUTE_URL.test(node.trim()))) {
        // (A bare word under a URL key — LinkedIn's `origin: "FEED"` — is an enum, not a single-label host; any
        // other value is read as the address it claims to be, and one that does not parse is refused as such.)
        if (node.trim() !== '' && !BARE_WORD.test(node.trim())) addUrl(into, node.trim());
      } else if (role === 'host') addHost(into, node);
      else if (role === 'path' && options.paths && node.trim() !== '') addUnique(into.paths, [node.trim()]);
      if (namesItem(key, options.items)) addItem(into, node);
      return;
    }
    if (typeof node === 'number' && role === 'recipient' && Number.isFinite(node)) {
      addUnique(into.recipients, [String(node)]);
      return;
    }
    if (typeof node === 'number' && namesItem(key, options.items) && Number.isFinite(node)) {
      addItem(into, String(node));
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item, role, key, depth + 1);
      return;
    }
    if (node !== null && typeof node === 'object') {
      // `{ to: [{ email, name }] }`: inside a recipient, only recipient keys count.
      for (const [childKey, child] of Object.entries(node)) visit(child, roleOf(childKey), childKey, depth + 1);
    }
  };
  visit(value, 'other', '', 0);
}

/** Keys (letters and digits) whose values are money amounts; compounds ending in one count too (`payment[amount]`). */
const AMOUNT_KEYS = new Set([
  'amount', 'amounts', 'total', 'sum', 'price', 'grandtotal', 'subtotal', 'tip', 'tips', 'gratuity', 'donation', 'surcharge', 'amt',
  // The word in the languages banks speak: a body that names it is read whatever else it carries.
  'betrag', 'montant', 'importe', 'importo', 'valor', 'bedrag', 'kwota', 'summe', 'somme', 'belopp', 'belob', 'castka', 'suma',
]);
/** `shippingFee`, `deliveryCost`, `serviceCharge`, `amountMajor`, `amount_int`: money the bound covers too. */
const AMOUNT_SUFFIXES = ['amount', 'total', 'price', 'fee', 'fees', 'charge', 'charges', 'deposit', 'cost', 'major', 'majorunits'];
/**
 * `amount2`, `amount_value`, `amountEur`: a key that begins with `amount` is money too (a server may read
 * it instead of the `amount` beside it). Read loosely: a value with no digit in it (`amount_type: fixed`)
 * is not an amount.
 */
const LOOSE_AMOUNT_PREFIXES = ['amount', 'amt'];
/** Amount keys in minor units (`amount_cents: 4500` is 45.00). */
const MINOR_SUFFIXES = ['cents', 'minor', 'minorunits', 'inminorunits'];
/** `value` is an amount only beside a currency or inside an amount (`amount: {value, currency}`): elsewhere it is anything. */
const VALUE_KEYS = new Set(['value', 'val']);
const CURRENCY_KEYS = new Set(['currency', 'cur', 'ccy', 'currencycode', 'curr']);
/** `curr_code`, `ccy_iso`, `currencyIsoCode` (any key holding `currency` counts too). */
const CURRENCY_KEY_FORMS = /^(?:cur|curr|ccy)(?:code|iso|isocode|id)$/;
/** How many times one call pays: a server that repeats a payment `times: 100` moves 100 times the amount. */
const QUANTITY_KEYS = new Set([
  'qty', 'quantity', 'quantities', 'count', 'times', 'repeat', 'repeats', 'repetitions', 'occurrences', 'recurrences', 'iterations',
  'installments', 'instalments', 'numberofpayments', 'paymentcount', 'copies', 'multiplier', 'factor', 'units',
]);
const QUANTITY_SUFFIXES = ['qty', 'quantity'];

type MoneyRole = 'amount' | 'loose' | 'minor' | 'scale' | 'quantity' | 'currency' | 'other';
const MONEY_ROLES: ReadonlySet<MoneyRole> = new Set(['amount', 'loose', 'minor']);
const SCALE_KEYS = new Set(['scale', 'exponent', 'exp', 'power', 'multiplier', 'factor', 'shift']);

/** Inside an amount object: `{units: 4500, nanos: 0}` (google.type.Money), `{whole, fraction}`. */
const WHOLE_KEYS = new Set(['units', 'whole', 'major', 'integer', 'int', 'euros', 'dollars', 'pounds']);

function moneyRoleOf(key: string, besideCurrency: boolean, insideAmount: boolean): MoneyRole {
  // (`amount2`, `amount_1`: numbered copies of a key are the key.)
  const k = keyForm(key).replace(/(?<=[a-z])\d+$/, '');
  if (CURRENCY_KEYS.has(k) || k.includes('currency') || CURRENCY_KEY_FORMS.test(k)) return 'currency';
  if (MINOR_SUFFIXES.some((s) => k.endsWith(s)) && (AMOUNT_SUFFIXES.some((s) => k.includes(s)) || LOOSE_AMOUNT_PREFIXES.some((s) => k.startsWith(s)))) return 'minor';
  if (AMOUNT_KEYS.has(k) || AMOUNT_SUFFIXES.some((s) => k.endsWith(s))) return 'amount';
  if (VALUE_KEYS.has(k) && (besideCurrency || insideAmount)) return 'amount';
  if (insideAmount && WHOLE_KEYS.has(k)) return 'amount';
  // A fraction of a unit beside the whole (`nanos`, `fraction`, `cents` inside an amount) is minor money.
  if (insideAmount && (k === 'nanos' || k === 'fraction' || k === 'cents' || k === 'minor')) return 'minor';
  // `{value: 45, scale: 2}`: a power of ten the server may apply; only none (0) leaves the value as read.
  if (insideAmount && SCALE_KEYS.has(k)) return 'scale';
  if (LOOSE_AMOUNT_PREFIXES.some((s) => k.startsWith(s)) && k !== 'amtrak') return 'loose';
  if (QUANTITY_KEYS.has(k) || QUANTITY_SUFFIXES.some((s) => k.endsWith(s))) return 'quantity';
  return 'other';
}

/**
 * A currency field's value: a code, symbol or word; null when empty; `undefined` when it names none it can
 * read — a number (`840`), an object (`{code: "USD"}`), or a repeated field whose values differ.
 */
function currencyField(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const read = new Set(value.map(currencyField));
    return read.size === 1 ? [...read][0] : undefined;
  }
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') return null;
  return currencyOf(value) ?? undefined;
}

/** Codes of money the bound cannot be compared with (crypto assets, metals, three-decimal currencies). */
const OTHER_MONEY_CODES = new Set(['BTC', 'XBT', 'ETH', 'USDT', 'USDC', 'XRP', 'SOL', 'DOGE', 'LTC', 'XAU', 'XAG', 'KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD']);

/**
 * A value that is exactly a currency (outside a currency key): a symbol, a code in capitals, or a code of
 * other money (`undefined`: unreadable); null for anything else — a word such as "try" or a country code.
 */
function currencyValue(text: string): string | null | undefined {
  const t = text.trim();
  if (OTHER_MONEY_CODES.has(t.toUpperCase()) && t === t.toUpperCase()) return undefined;
  if (/^[A-Z]{3}$/.test(t) || !/^[a-z]+$/i.test(t)) return currencyOf(t);
  return null;
}

/**
 * Every currency a structure names anywhere (bounded like collectTargets); `undefined` among them for one
 * it cannot read. An amount with no currency of its own or above it takes these: one readable currency is
 * its currency, anything else makes it unreadable (`{amount: 120, details: {currency: "USD"}}`).
 */
function currenciesIn(value: unknown): Set<string | undefined> {
  const found = new Set<string | undefined>();
  eachEntry(value, (key, child) => {
    if (moneyRoleOf(key, false, false) !== 'currency') {
      // A currency in a key not named like one (`unit: "GBP"`, `asset: "BTC"`, `sym: "€"`) is still the
      // currency a server may pay in: one it cannot read makes an amount without its own unreadable.
      const named = typeof child === 'string' ? currencyValue(child) : null;
      if (named !== null) found.add(named);
      return true;
    }
    const read = currencyField(child);
    if (read !== null) found.add(read);
    return false;
  });
  return found;
}

/**
 * Amounts and quantities in arguments, a JSON body, form fields or a query (bounded like
 * collectTargets). An amount takes the currency written in it, else the nearest currency field
 * beside or above it. What a money field holds but cannot be read (`"4500 (approx)"`, `-45`, a
 * currency field naming no currency, an amount and a currency field that disagree) is reported as
 * UNREADABLE_AMOUNT / UNREADABLE_QUANTITY, never dropped: the evaluator asks about it. Ambiguous
 * numbers (`4,500`) are read as their larger value (see ../amounts.ts).
 */
export function collectAmounts(value: unknown, into: Targets): void {
  const amounts = into.amounts ?? [];
  const quantities = into.quantities ?? [];
  let nodes = 0;
  const named = currenciesIn(value);
  const anywhere = named.size === 0 ? null : named.size === 1 ? [...named][0] : undefined;
  const addAmount = (m: Money | null, above: string | null | undefined) => {
    const currency = above === null && m?.currency == null ? anywhere : above;
    if (m === null || currency === undefined || (m.currency !== null && currency !== null && m.currency !== currency)) {
      addUnique(amounts, [UNREADABLE_AMOUNT]);
      return;
    }
    addUnique(amounts, [amountTarget({ value: m.value, currency: m.currency ?? currency })]);
  };
  const leaf = (node: unknown, role: MoneyRole, currency: string | null | undefined) => {
    if (node === null || node === undefined || (typeof node === 'string' && node.trim() === '')) return;
    if (role === 'loose' && typeof node !== 'number' && !(typeof node === 'string' && /\d/.test(node))) return;
    if (role === 'scale') {
      if (node !== 0 && node !== '0') addUnique(amounts, [UNREADABLE_AMOUNT]);
      return;
    }
    if (role === 'amount' || role === 'loose') addAmount(typeof node === 'number' ? amountOfNumber(node) : typeof node === 'string' ? parseAmount(node) : null, currency);
    else if (role === 'minor') {
      const minor = typeof node === 'number' && Number.isSafeInteger(node) && node >= 0 ? String(node) : typeof node === 'string' ? node.trim() : '';
      const decimal = fromMinorUnits(minor);
      addAmount(decimal === null ? null : { value: decimal, currency: null }, currency);
    } else if (role === 'quantity') {
      const n = typeof node === 'number' ? (Number.isSafeInteger(node) && node >= 0 ? node : null) : typeof node === 'string' ? parseQuantity(node) : null;
      addUnique(quantities, [n === null ? UNREADABLE_QUANTITY : String(n)]);
    }
  };
  const visit = (node: unknown, role: MoneyRole, currency: string | null | undefined, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (Array.isArray(node)) {
      // Several payments in one body (`payments: [{amount: 45}, {amount: 45}]`): each is within the bound,
      // together they are not — how many there are is the call's quantity.
      const priced = node.filter((item) => item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).some((k) => MONEY_ROLES.has(moneyRoleOf(k, true, false))));
      if (role === 'other' && priced.length > 1) addUnique(quantities, [String(priced.length)]);
      for (const item of node) visit(item, role, currency, depth + 1);
      return;
    }
    if (node === null || typeof node !== 'object') {
      leaf(node, role, currency);
      return;
    }
    const entries = Object.entries(node);
    const currencyEntry = entries.find(([k, v]) => moneyRoleOf(k, false, false) === 'currency' && v !== null && v !== undefined);
    const here = currencyEntry === undefined ? currency : currencyField(currencyEntry[1]);
    for (const [k, child] of entries) {
      const childRole = moneyRoleOf(k, currencyEntry !== undefined, role === 'amount' || role === 'loose' || role === 'minor');
      if (childRole === 'currency') continue;
      // `amount: {value, currency}`: the object is the amount, its `value` the number.
      visit(child, childRole === 'other' && (role === 'amount' || role === 'loose' || role === 'minor') && typeof child === 'object' ? role : childRole, here, depth + 1);
    }
  };
  visit(value, 'other', null, 0);
  if (amounts.length > 0) into.amounts = amounts;
  if (quantities.length > 0) into.quantities = quantities;
}

/**
 * Amounts and quantities in a request's query (`/pay?amount=45&currency=EUR`) and the body sent with it,
 * read together: a currency named in one is the currency of an amount in the other.
 */
export function collectRequestAmounts(into: Targets, url: string, body: unknown): void {
  const query: Record<string, string[]> = {};
  try {
    for (const [k, v] of new URL(url).searchParams) (query[k] ??= []).push(v);
  } catch {
    // An unparseable URL has no query to read; the evaluator's checks refuse it.
  }
  collectAmounts({ query, body }, into);
}

/** The targets of collected facts, with amounts and quantities only when there are some. */
export function targetsOf(c: Targets): Targets {
  const t: Targets = { recipients: c.recipients, domains: c.domains, paths: c.paths, items: c.items };
  if (c.amounts !== undefined && c.amounts.length > 0) t.amounts = c.amounts;
  if (c.quantities !== undefined && c.quantities.length > 0) t.quantities = c.quantities;
  return t;
}

/** Every key of an object structure and its value, bounded like collectTargets; `onEntry` says whether to look inside the value. */
function eachEntry(value: unknown, onEntry: (key: string, child: unknown) => boolean): void {
  let nodes = 0;
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(node)) if (onEntry(key, child)) visit(child, depth + 1);
  };
  visit(value, 0);
}

/** Keys of an object body, lower-cased letters and digits, recursively (bounded). */
export function keysOf(value: unknown): Set<string> {
  const keys = new Set<string>();
  eachEntry(value, (key) => {
    keys.add(keyForm(key));
    return true;
  });
  return keys;
}

/** A string body as structure: JSON when it parses, `a=1&b=2` form encoding when it looks like it. */
export function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const text = body.trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return body;
    }
  }
  if (/^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*$/.test(text)) {
    const fields: Record<string, string[]> = {};
    for (const [k, v] of new URLSearchParams(text)) (fields[k] ??= []).push(v);
    return fields;
  }
  return body;
}

const JSON_MEMBER = /"((?:[^"\\]|\\.){1,200})"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/g;

/**
 * A JSON text that repeats a key in one object (`{"amount": 4500, "amount": 45}`) parses to the last
 * value, while a server whose parser keeps the first pays 4500 (or another `iban`). When a key appears
 * more than once in the text, every scalar value written for it is read beside the parsed body,
 * `{parsed, written: {amount: [4500, 45]}}`; a text without repeated keys is returned as parsed. (The
 * wrapper's keys name no field a signal reads: `body` would read as a message's.)
 */
export function withWritten(raw: unknown, parsed: unknown): unknown {
  if (typeof raw !== 'string' || parsed === null || typeof parsed !== 'object') return parsed;
  const text = raw.slice(0, 65_536);
  const values = new Map<string, unknown[]>();
  let repeated = false;
  for (const m of text.matchAll(JSON_MEMBER)) {
    let key: string;
    let value: unknown;
    try {
      key = JSON.parse(`"${m[1]!}"`) as string;
      value = JSON.parse(m[2]!) as unknown;
    } catch {
      continue;
    }
    const seen = values.get(key);
    if (seen === undefined) values.set(key, [value]);
    else {
      seen.push(value);
      repeated = true;
    }
  }
  return repeated ? { parsed, written: Object.fromEntries(values) } : parsed;
}

const MUTATION = /^\s*(?:#[^\n]*\n\s*)*mutation\b/;
const GRAPHQL_ARG = /([A-Za-z_]\w*)\s*:\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null|[A-Z_][A-Z0-9_]*)/g;
const GRAPHQL_FIELD = /([A-Za-z_]\w*)\s*\(/g;

/**
 * A GraphQL mutation writes its arguments inside the query text (`mutation { transfer(iban: "…",
 * amount: 4500) }`), where no key of the body is: they are read as a structure of their own beside the
 * body, `graphql: {fields: [transfer], arguments: {iban: […], amount: [4500]}}`, so recipients, amounts
 * and what the mutation does (its field names, read as a path's words) are checked like any body's.
 * Only a string `query` that is a mutation is read (a batch of them too); anything else is returned as is.
 */
export function withGraphQL(structured: unknown): unknown {
  const operations = Array.isArray(structured) ? structured : [structured];
  const fields: string[] = [];
  const args: Record<string, unknown[]> = {};
  for (const op of operations.slice(0, 20)) {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) continue;
    const query = (op as Record<string, unknown>).query;
    if (typeof query !== 'string' || !MUTATION.test(query)) continue;
    const text = query.slice(0, 16_384);
    for (const m of text.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(GRAPHQL_FIELD)) if (m[1] !== 'mutation') fields.push(m[1]!);
    for (const m of text.matchAll(GRAPHQL_ARG)) {
      (args[m[1]!] ??= []).push(graphqlValue(m[2]!));
    }
  }
  if (fields.length === 0 && Object.keys(args).length === 0) return structured;
  return { parsed: structured, graphql: { fields, arguments: args } };
}

/** A GraphQL literal as JSON reads it (a string, a number); an enum or an unreadable literal as written. */
function graphqlValue(raw: string): unknown {
  if (!raw.startsWith('"') && !/^-?\d/.test(raw)) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The field names of a GraphQL mutation read by withGraphQL (`transfer`, `sendPayment`); empty for any other body. */
export function graphqlFields(structured: unknown): string[] {
  if (structured === null || typeof structured !== 'object' || Array.isArray(structured)) return [];
  const g = (structured as Record<string, unknown>).graphql;
  if (g === null || typeof g !== 'object') return [];
  const fields = (g as Record<string, unknown>).fields;
  return Array.isArray(fields) ? fields.filter((f): f is string => typeof f === 'string') : [];
}

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** Bytes of a value as it would travel: strings as UTF-8, structures as JSON. */
export function payloadBytes(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value === 'string') return byteLength(value);
  try {
    return byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}
