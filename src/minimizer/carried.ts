import { BROWSER_TOOLS, type ToolCall } from '../core/call';
import type { Rewrite } from '../messages/protocol';
import { withoutFindings, type CarriedValue, type Finding } from './detect';

/**
 * What an action carries, as strings with a path the person can read (`fields.note`, `body.message`,
 * `query.q`), and the same action with flagged spans cut out ("Send without it").
 *
 * The rewrite keeps the action's own shape: form fields stay fields, a parsed body stays the same object
 * (the page-side guard re-encodes it the way the page encoded it), a query stays a query. A body the guard
 * saw only in part (cut at the view limit, or multipart with files) cannot be rewritten exactly, so it
 * gets no "Send without it".
 */


/**
 * A body view is at most 16 KB of text (src/content/body.ts), so no view the page-side guard sends comes near
 * this many values; the bound only caps the work on a message. There is no depth bound: a datum nested ten
 * objects deep, or after five hundred empty strings, is carried all the same (both were passed unread).
 */
const MAX_VALUES = 50_000;

/** The path of a name (an object key, a field or query parameter name) that may carry data; never the name itself. */
export const NAME_MARK = '⟨name⟩';

/**
 * Names are written by whoever builds the request, so a datum can ride in one (`{"4111 1111 1111 1111": 1}`,
 * `<input name="…">`, `?483920=`). Names made of letters and underscores alone carry none of the data the
 * detectors know (each has digits, a separator or a known prefix longer than this), so only the others are read.
 */
function carriesName(name: string): boolean {
  return name.length > 16 || /[^A-Za-z_]/.test(name);
}

function pushName(name: string, path: string, out: CarriedValue[]): void {
  if (carriesName(name)) out.push({ path: `${path}.${NAME_MARK}`, value: name, name: true });
}

function leaves(root: unknown, rootPath: string, out: CarriedValue[]): void {
  // Depth first, in document order, with a stack of its own (a 16 KB view can nest thousands deep).
  const stack: { value: unknown; path: string }[] = [{ value: root, path: rootPath }];
  while (stack.length > 0 && out.length < MAX_VALUES) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') out.push({ path, value });
    else if (typeof value === 'number') out.push({ path, value: String(value) });
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]` });
    else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        stack.push({ value: v, path: `${path}.${k}` });
      }
      for (const [k] of entries) pushName(k, path, out);
    }
  }
}

function queryValues(url: unknown, out: CarriedValue[]): void {
  if (typeof url !== 'string') return;
  try {
    for (const [name, value] of new URL(url).searchParams) {
      pushName(name, 'query', out);
      out.push({ path: `query.${name}`, value });
    }
  } catch {
    // Not a URL: the evaluator already refused it.
  }
}

/** Every string value a browser action carries (form fields, body leaves, query parameters). */
export function carriedValues(call: ToolCall): CarriedValue[] {
  const out: CarriedValue[] = [];
  const { args } = call;
  if (call.tool === BROWSER_TOOLS.formSubmit) {
    const types = (args.fieldTypes ?? {}) as Record<string, string>;
    for (const [name, value] of Object.entries((args.fields ?? {}) as Record<string, string | string[]>)) {
      const values = Array.isArray(value) ? value : [value];
      pushName(name, 'fields', out);
      values.forEach((v, i) => out.push({ path: values.length > 1 ? `fields.${name}[${i}]` : `fields.${name}`, value: v, ...(types[name] !== undefined ? { fieldType: types[name] } : {}) }));
    }
  } else if (call.tool === BROWSER_TOOLS.request) {
    leaves(args.body, 'body', out);
  }
  queryValues(args.url, out);
  return out;
}

/** The value with the findings under it cut out; a subtree no finding is under is kept as it is (no descent). */
function minimizedLeaf(value: unknown, path: string, byPath: ReadonlyMap<string, Finding[]>, under: (path: string) => boolean): unknown {
  const found = byPath.get(path);
  if (typeof value === 'string') return found === undefined ? value : withoutFindings(value, found);
  if (typeof value === 'number') return found === undefined ? value : withoutFindings(String(value), found);
  if (!under(path)) return value;
  if (Array.isArray(value)) return value.map((v, i) => minimizedLeaf(v, `${path}[${i}]`, byPath, under));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, minimizedLeaf(v, `${path}.${k}`, byPath, under)]));
  }
  return value;
}

/** Whether the guard saw everything the action would send (no cut body, no file parts it cannot rebuild). */
function fullyVisible(call: ToolCall): boolean {
  const { body, bodyBytes } = call.args;
  if (typeof bodyBytes === 'number' && typeof body === 'string' && bodyBytes > new TextEncoder().encode(body).length) return false;
  if (typeof bodyBytes === 'number' && body !== undefined && typeof body !== 'string' && bodyBytes > 16 * 1024) return false;
  return !JSON.stringify(body ?? '').includes('[file ');
}

/**
 * The action without the flagged spans, and the rewrite the page-side guard applies; null when the action
 * cannot be rewritten exactly (then only "Send as is" and "Deny" are offered).
 */
export function minimizeCall(call: ToolCall, findings: readonly Finding[]): { call: ToolCall; rewrite: Rewrite } | null {
  // A datum in a name cannot be cut out of the name exactly: "Send as is" or "Deny".
  if (findings.length === 0 || !fullyVisible(call) || findings.some((f) => f.path.endsWith(NAME_MARK))) return null;
  const byPath = new Map<string, Finding[]>();
  for (const f of findings) byPath.set(f.path, [...(byPath.get(f.path) ?? []), f]);
  const under = (path: string) => [...byPath.keys()].some((p) => p.startsWith(path) && (p[path.length] === '.' || p[path.length] === '['));
  const rewrite: Rewrite = {};
  const args = { ...call.args };

  if ([...byPath.keys()].some((p) => p.startsWith('query.')) && typeof args.url === 'string') {
    const url = new URL(args.url);
    const rebuilt = new URLSearchParams();
    for (const [name, value] of url.searchParams) {
      const found = byPath.get(`query.${name}`);
      rebuilt.append(name, found === undefined ? value : withoutFindings(value, found));
    }
    url.search = rebuilt.toString();
    args.url = rewrite.url = url.toString();
  }
  if (call.tool === BROWSER_TOOLS.formSubmit) {
    const fields: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries((args.fields ?? {}) as Record<string, string | string[]>)) {
      if (Array.isArray(value)) fields[name] = value.map((v, i) => minimizedLeaf(v, `fields.${name}[${i}]`, byPath, under) as string);
      else fields[name] = minimizedLeaf(value, `fields.${name}`, byPath, under) as string;
    }
    args.fields = rewrite.fields = fields;
  } else if (call.tool === BROWSER_TOOLS.request && [...byPath.keys()].some((p) => p.startsWith('body'))) {
    let body: Rewrite['body'];
    try {
      body = minimizedLeaf(args.body, 'body', byPath, under) as Rewrite['body'];
    } catch {
      return null; // nested deeper than the stack goes: it cannot be rebuilt, only sent as is or denied
    }
    args.body = body;
    if (body !== undefined) rewrite.body = body;
    delete args.bodyBytes;
  }
  return { call: { ...call, args }, rewrite };
}
