import type { ToolCall } from '../core/call';
import type { ActionFacts, Classification } from '../core/classification';
import { classifyTotal, unknownClassification } from '../core/classifier';
import { CAPABILITY_CLASSES, capabilityFor, shellCapability } from '../core/classifier/capabilities';
import { collectAmounts, collectTargets, emptyCollected, keyForm, payloadBytes, targetsOf } from '../core/classifier/targets';
import { escalate, normaliseName, objectOf, readVerbs, splitWords } from '../core/classifier/vocabulary';
import { WEB_HANDLERS } from '../core/classifier/web';
import { maxClass, OUTBOUND_CLASSES, type RiskClass } from '../core/risk';
import { matchExplicit, matchGlob, RESERVATION_TOOLS, type Rule } from './names';
import { classifyPatch } from './patch';
import { classifyShell } from './shell';
import { OBJECT_REF } from '../core/objects';

/**
 * κ, ρ, τ of any agent's tool call (the CLI's `evaluate`, the compiler's reading of tool names): what it
 * is (capability), how consequential (risk class) and whom or what it reaches (targets). Layers, first
 * that knows wins:
 *   web     — the browser actions (`browser.navigate`, `browser.request`, …), by their arguments;
 *   explicit — a per-tool table, refined by arguments (action values, shell commands, patches);
 *   glob    — name patterns such as `mcp_*_send_*`;
 *   verb    — the first recognised verb in the name, raised by strong verbs anywhere in it.
 * Anything else is UNKNOWN, which is never safe. An action-like argument (`action`, `operation`,
 * `mode`, `method`) can raise any tool's class: a read-named tool that multiplexes writes is
 * classified by what it is asked to do. `call.data` is never read.
 */

type Layer = ActionFacts['layer'];

const ACTION_ARGS = ['action', 'operation', 'op', 'mode', 'command', 'verb', 'method'];
const SHELL_ARGS = ['command', 'cmd', 'script', 'commands', 'code', 'input'];
const PATCH_ARGS = ['patch', 'input', 'diff', 'content', 'patch_text'];
const HTTP_METHOD_CLASS: ReadonlyMap<string, RiskClass> = new Map<string, RiskClass>([['GET', 'READ'], ['HEAD', 'READ'], ['OPTIONS', 'READ'], ['POST', 'EXTERNAL_WRITE'], ['PUT', 'EXTERNAL_WRITE'], ['PATCH', 'EXTERNAL_WRITE'], ['DELETE', 'DELETE']]);

function argString(args: Record<string, unknown>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = args[name];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value.join('\n');
  }
  return undefined;
}

/** The action an argument asks for: `{ action: "send" }` → COMMUNICATION; `{ method: "DELETE" }` → DELETE. */
function actionClass(args: Record<string, unknown>, exclude: readonly string[] = []): { riskClass: RiskClass; arg: string; value: string } | undefined {
  for (const [name, value] of Object.entries(args)) {
    const key = keyForm(name);
    if (typeof value !== 'string' || exclude.includes(key) || !ACTION_ARGS.includes(key)) continue;
    const httpClass = key === 'method' ? HTTP_METHOD_CLASS.get(value.trim().toUpperCase()) : undefined;
    const reading = httpClass === undefined ? readVerbs(splitWords(value)) : undefined;
    const riskClass = httpClass ?? reading?.riskClass;
    if (riskClass !== undefined) return { riskClass, arg: name, value: value.slice(0, 40) };
  }
  return undefined;
}

/** Targets and byte count of a generic tool call's arguments. */
function generic(args: Record<string, unknown>, capability: string, riskClass: RiskClass, layer: Layer, basis: string): ActionFacts {
  const t = emptyCollected();
  // A document tool's `file` names a document in the drive (`drive.share {file: "Q3-plan.docx"}`): an item too.
  collectTargets(args, t, { urlsAnywhere: true, paths: true, items: capability.startsWith('doc.') ? 'items-and-files' : 'items', channels: true });
  collectAmounts(args, t);
  return {
    capability,
    riskClass,
    targets: targetsOf(t),
    layer,
    basis,
    urls: t.urls,
    outboundBytes: OUTBOUND_CLASSES.includes(riskClass) ? payloadBytes(args) : 0,
  };
}

/** Apply a name rule (explicit or glob) to the arguments. */
function applyRule(rule: Rule, args: Record<string, unknown>, layer: Layer, label: string, nameWords: readonly string[]): ActionFacts {
  switch (rule.kind) {
    case 'web': {
      const handler = WEB_HANDLERS.get(rule.tool);
      return handler === undefined ? unknownClassification(`no handler for ${rule.tool}`) : { ...handler(args), layer: 'web' };
    }
    case 'http': {
      const url = args.url ?? args.uri ?? args.endpoint;
      if (typeof url !== 'string') return unknownClassification(`${label}: no URL argument`);
      const body = args.body ?? args.data ?? args.json;
      const request: Record<string, unknown> = { method: typeof args.method === 'string' ? args.method : body === undefined ? 'GET' : 'POST', url };
      if (body !== undefined) request.body = typeof body === 'string' || (typeof body === 'object' && body !== null) ? body : String(body);
      const handler = WEB_HANDLERS.get('browser.request');
      return handler === undefined ? unknownClassification(`${label}: no request handler`) : { ...handler(request), layer };
    }
    case 'shell': {
      const line = argString(args, SHELL_ARGS);
      if (line === undefined) return unknownClassification(`${label}: no command argument`);
      const v = classifyShell(line);
      return {
        capability: shellCapability(v.riskClass),
        riskClass: v.riskClass,
        targets: { recipients: v.targets.recipients, domains: v.targets.domains, paths: v.targets.paths, items: v.targets.items },
        layer: 'shell',
        basis: v.basis,
        urls: v.targets.urls,
        outboundBytes: 0,
      };
    }
    case 'patch': {
      const patch = argString(args, PATCH_ARGS);
      if (patch === undefined) return unknownClassification(`${label}: no patch argument`);
      const v = classifyPatch(patch);
      return { capability: v.capability, riskClass: v.riskClass, targets: { recipients: [], domains: [], paths: v.paths, items: [] }, layer, basis: `${label}: ${v.basis}`, urls: [], outboundBytes: 0 };
    }
    case 'action': {
      const base = CAPABILITY_CLASSES[rule.capability] ?? 'UNKNOWN';
      const hasAction = ACTION_ARGS.some((name) => Object.keys(args).some((k) => keyForm(k) === name && typeof args[k] === 'string'));
      if (!hasAction) return generic(args, rule.capability, base, layer, `${label}`);
      const asked = actionClass(args);
      if (asked === undefined) return unknownClassification(`${label}: unrecognised action argument`);
      // The action decides, both ways (`send_message(action="list")` reads); the tool's nouns name the object.
      const riskClass = adjustLocality(asked.riskClass, rule.capability);
      return generic(args, capabilityFor(objectOf(nameWords) ?? rule.capability.split('.')[0], riskClass), riskClass, layer, `${label}: ${asked.arg}="${asked.value}"`);
    }
    case 'fixed': {
      const riskClass = CAPABILITY_CLASSES[rule.capability] ?? 'UNKNOWN';
      const facts = generic(args, rule.capability, riskClass, layer, label);
      return rule.action === undefined ? facts : { ...facts, action: { id: rule.action, object: null, app: null, why: `the tool's name (${label})` } };
    }
  }
}

/** A write through a file tool stays on this machine. */
function adjustLocality(riskClass: RiskClass, capability: string): RiskClass {
  return riskClass === 'EXTERNAL_WRITE' && capability.startsWith('file.') ? 'LOCAL_WRITE' : riskClass;
}

/** Strong verbs in the whole name and action-like arguments raise a classification, never lower it. */
function raise(c: ActionFacts, nameWords: readonly string[], args: Record<string, unknown>, fromName: boolean): ActionFacts {
  if (c.riskClass === 'UNKNOWN' || c.layer === 'shell' || c.layer === 'web') return c;
  let result = c;
  if (fromName) {
    const { riskClass, escalatedBy } = escalate(c.riskClass, nameWords);
    if (escalatedBy !== undefined) {
      result = { ...result, riskClass, capability: capabilityFor(objectOf(nameWords), riskClass), basis: `${result.basis}; "${escalatedBy}" in the name raises it to ${riskClass}` };
    }
  }
  const asked = actionClass(args);
  if (asked !== undefined && maxClass(result.riskClass, asked.riskClass) !== result.riskClass) {
    const riskClass = adjustLocality(asked.riskClass, result.capability);
    if (maxClass(result.riskClass, riskClass) !== result.riskClass) {
      result = { ...result, riskClass, capability: capabilityFor(objectOf(nameWords) ?? result.capability.split('.')[0], riskClass), basis: `${result.basis}; ${asked.arg}="${asked.value}" raises it to ${riskClass}` };
    }
  }
  if (OUTBOUND_CLASSES.includes(result.riskClass) && result.outboundBytes === 0) {
    result = { ...result, outboundBytes: payloadBytes(args) };
  }
  // (A name's action is of the class it was read in: raised to another class, it is no longer what the name says.)
  if (result.riskClass !== c.riskClass && result.action !== undefined) {
    const { action: _dropped, ...rest } = result;
    result = rest;
  }
  return result;
}

/** An argument that names its object by id: `id`, `file_id`, `eventId`, `email_ids`. */
const ID_KEY = /^ids?$|[_.-]ids?$|[a-z]Ids?$/;
const MESSAGE_ID_KEYS: ReadonlySet<string> = new Set(['messageid', 'emailid', 'mailid', 'threadid', 'conversationid', 'replytoid', 'inreplytoid', 'parentid']);
const NO_KEYS: ReadonlySet<string> = new Set();
/** An id as tools write them: a number or a token, never an address, a URL or a sentence. */
const ID_VALUE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** The ids a call's arguments name objects by, nested ones (an attachment's `file_id`) included. */
function idsIn(value: unknown, key: string, depth: number, into: Set<string>, skip: ReadonlySet<string>): void {
  if (depth > 4) return;
  if (Array.isArray(value)) {
    for (const v of value) idsIn(v, key, depth + 1, into, skip);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) idsIn(v, k, depth + 1, into, skip);
    return;
  }
  if (!ID_KEY.test(key) || skip.has(keyForm(key))) return;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (ID_VALUE.test(text) && !text.includes('@')) into.add(text);
}

/**
 * A tool call's objects named only by id are items of their own kind (src/core/objects.ts): the value an id
 * key gives (`file_id: "44"`, read as the item "44" by the item keys) is the item `id:44`, which no name the
 * words give matches and which the evaluator binds to the things the words name.
 */
function withObjectRefs(c: ActionFacts, args: Record<string, unknown>): ActionFacts {
  if (c.layer === 'web' || c.layer === 'shell' || c.riskClass === 'READ' || c.riskClass === 'UNKNOWN') return c;
  const ids = new Set<string>();
  // (A reply's or a forward's own message is the one the words name, "forward the booking email": what it
  // carries besides — an attachment's file — is what a message is bound by.)
  idsIn(args, '', 0, ids, c.riskClass === 'COMMUNICATION' ? MESSAGE_ID_KEYS : NO_KEYS);
  if (ids.size === 0) return c;
  const items = [...c.targets.items.filter((i) => !ids.has(i)), ...[...ids].map((id) => `${OBJECT_REF}${id}`)];
  return { ...c, targets: { ...c.targets, items } };
}

/**
 * A drive's document, not a file on this machine: a file tool that names its file by a drive's id, or by a bare
 * name with no folder (`create_file {filename: "groceries.txt"}`, `append_to_file {file_id: "12"}`), writes to
 * the user's drive, as the words "make a new file called …" ask (a write, not a local save). One with a path
 * (`path`, `file_path`, a name with a folder in it) is local.
 */
const DRIVE_NAME_KEYS = ['filename', 'file_name', 'name', 'title'];
function driveDocument(c: ActionFacts, args: Record<string, unknown>, label: string): ActionFacts {
  if (c.capability !== 'file.write') return c;
  const keys = Object.keys(args).map(keyForm);
  const pathed = keys.some((k) => ['path', 'filepath', 'paths', 'directory', 'dir', 'folder', 'cwd', 'destination', 'dest', 'target', 'targetpath', 'newpath', 'oldpath'].includes(k));
  const byId = keys.includes('fileid') || keys.includes('documentid') || keys.includes('docid');
  const name = DRIVE_NAME_KEYS.map((k) => args[k]).find((v): v is string => typeof v === 'string');
  const bare = name !== undefined && !/[/\\]/.test(name) && !name.startsWith('.');
  if (pathed || !(byId || bare)) return c;
  const t = emptyCollected();
  collectTargets(args, t, { urlsAnywhere: true, paths: false, items: 'items', channels: true });
  if (name !== undefined && bare) t.items.push(name);
  return { ...c, capability: 'doc.write', riskClass: 'EXTERNAL_WRITE', targets: targetsOf(t), basis: `${label}: a drive document (named by ${byId ? 'its id' : 'a bare file name'}, no path)`, outboundBytes: payloadBytes(args) };
}

/** Keys that name a workspace's person. */
const PERSON_KEYS = new Set(['user', 'users', 'member', 'members', 'username']);
/**
 * Whom a removal acts on (`remove_user_from_slack {user: "Dave"}`) is the thing removed, not someone it reaches:
 * the words name it as the item ("remove dave from the workspace").
 */
function removedPeople(c: ActionFacts, args: Record<string, unknown>): ActionFacts {
  if (c.riskClass !== 'DELETE' || c.layer === 'web' || c.layer === 'shell') return c;
  const people = Object.entries(args).flatMap(([k, v]) => (PERSON_KEYS.has(keyForm(k)) ? (Array.isArray(v) ? v : [v]) : [])).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (people.length === 0) return c;
  const lowered = new Set(people.map((p) => p.trim().toLowerCase()));
  return { ...c, targets: { ...c.targets, recipients: c.targets.recipients.filter((r) => !lowered.has(r)), items: [...new Set([...c.targets.items, ...people.map((p) => p.trim())])] } };
}

/**
 * An invitation's own name for the person (`invite_user_to_slack {user: "Leo", user_email: "leo@…"}`) is how the
 * workspace will show them, not a second person: the address is whom it reaches.
 */
function inviteeName(c: ActionFacts, args: Record<string, unknown>, nameWords: readonly string[]): ActionFacts {
  if (c.riskClass !== 'PERMISSION_CHANGE' || !nameWords.includes('invite')) return c;
  const addresses = c.targets.recipients.filter((r) => r.includes('@'));
  if (addresses.length !== 1) return c;
  const names = new Set(Object.entries(args).flatMap(([k, v]) => (PERSON_KEYS.has(keyForm(k)) && typeof v === 'string' && !v.includes('@') ? [v.trim().toLowerCase()] : [])));
  return names.size === 0 ? c : { ...c, targets: { ...c.targets, recipients: c.targets.recipients.filter((r) => !names.has(r)) } };
}

/** Keys whose value is a web address. */
const URL_ARG_KEYS = new Set(['url', 'uri', 'link', 'href', 'website', 'page']);
/** `www.example.test/a`: a host and path written without a scheme, as people and agents write them. */
const SCHEMELESS_URL = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*(?::\d{1,5})?(?:[/?#]\S*)?$/i;

/** A tool's URL argument without a scheme is read as the https URL it names, not as a URL that does not parse. */
function withSchemes(args: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string' || !URL_ARG_KEYS.has(keyForm(k)) || !SCHEMELESS_URL.test(v.trim())) continue;
    out ??= { ...args };
    out[k] = `https://${v.trim()}`;
  }
  return out ?? args;
}

/** The keys a reservation names its place by. */
const PLACE_KEYS = new Set(['hotel', 'restaurant', 'company', 'place', 'venue', 'hotelname', 'restaurantname', 'companyname']);
/**
 * What a reservation books is the place it names (`reserve_hotel {hotel: "Hotel Lumiere"}`): its item, matched
 * against a place the words name; and, like an id, an object of its own (src/core/objects.ts), so that under
 * words that name no place ("book the cheapest hotel") the first place booked is the one, another place asks.
 */
function reservedPlace(c: ActionFacts, args: Record<string, unknown>, name: string): ActionFacts {
  if (!RESERVATION_TOOLS.includes(name)) return c;
  const places = Object.entries(args).flatMap(([k, v]) => (PLACE_KEYS.has(keyForm(k)) && typeof v === 'string' && v.trim() !== '' ? [v.trim()] : []));
  const refs = places.map((p) => `${OBJECT_REF}${p.toLowerCase()}`);
  return places.length === 0 ? c : { ...c, targets: { ...c.targets, items: [...new Set([...c.targets.items, ...places, ...refs])] } };
}

function classifyUnsafe(call: ToolCall): ActionFacts {
  const web = WEB_HANDLERS.has(call.tool);
  const args = web ? call.args : withSchemes(call.args);
  const c = classifyByName({ ...call, args });
  const words = normaliseName(call.tool).split('_');
  return withObjectRefs(reservedPlace(inviteeName(removedPeople(c, args), args, words), args, words.join('_')), args);
}

function classifyByName(call: ToolCall): ActionFacts {
  const args = call.args;
  const web = WEB_HANDLERS.get(call.tool);
  if (web !== undefined) return { ...web(args), layer: 'web' };

  const name = normaliseName(call.tool);
  const words = name.split('_').filter((w) => w !== '');
  if (words.length === 0) return unknownClassification('tool name has no words');

  const explicit = matchExplicit(name);
  if (explicit !== undefined) {
    const c = driveDocument(applyRule(explicit.rule, args, 'explicit', `explicit: ${explicit.entry}`, words), args, `explicit: ${explicit.entry}`);
    return explicit.rule.kind === 'action' ? c : raise(c, words, args, explicit.suffix);
  }
  const glob = matchGlob(name);
  if (glob !== undefined) return raise(applyRule(glob.rule, args, 'glob', `glob: ${glob.glob}`, words), words, args, true);

  const reading = readVerbs(words);
  if (reading !== undefined) {
    const basis = `verb "${reading.verb}"${reading.escalatedBy !== undefined && reading.escalatedBy !== reading.verb ? `, raised by "${reading.escalatedBy}"` : ''}`;
    const c = generic(args, capabilityFor(objectOf(words), reading.riskClass), reading.riskClass, 'verb', basis);
    return raise(c, words, args, false);
  }
  return unknownClassification('unrecognised tool name');
}

/** Total: a classifier error is UNKNOWN, never an exception and never a guess. */
export function classify(call: ToolCall): Classification {
  return classifyTotal(classifyUnsafe, call);
}
