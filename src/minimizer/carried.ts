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


const MAX_VALUES = 500;
const MAX_DEPTH = 8;

function leaves(value: unknown, path: string, out: CarriedValue[], depth: number): void {
  if (out.length >= MAX_VALUES || depth > MAX_DEPTH) return;
  if (typeof value === 'string') out.push({ path, value });
  else if (typeof value === 'number') out.push({ path, value: String(value) });
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, `${path}[${i}]`, out, depth + 1));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, out, depth + 1);
}

function queryValues(url: unknown, out: CarriedValue[]): void {
  if (typeof url !== 'string') return;
  try {
    for (const [name, value] of new URL(url).searchParams) out.push({ path: `query.${name}`, value });
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
      values.forEach((v, i) => out.push({ path: values.length > 1 ? `fields.${name}[${i}]` : `fields.${name}`, value: v, ...(types[name] !== undefined ? { fieldType: types[name] } : {}) }));
    }
  } else if (call.tool === BROWSER_TOOLS.request) {
    leaves(args.body, 'body', out, 0);
  }
  queryValues(args.url, out);
  return out;
}

function minimizedLeaf(value: unknown, path: string, byPath: ReadonlyMap<string, Finding[]>, depth: number): unknown {
  const found = byPath.get(path);
  if (typeof value === 'string') return found === undefined ? value : withoutFindings(value, found);
  if (typeof value === 'number') return found === undefined ? value : withoutFindings(String(value), found);
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v, i) => minimizedLeaf(v, `${path}[${i}]`, byPath, depth + 1));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, minimizedLeaf(v, `${path}.${k}`, byPath, depth + 1)]));
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
  if (findings.length === 0 || !fullyVisible(call)) return null;
  const byPath = new Map<string, Finding[]>();
  for (const f of findings) byPath.set(f.path, [...(byPath.get(f.path) ?? []), f]);
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
      if (Array.isArray(value)) fields[name] = value.map((v, i) => minimizedLeaf(v, `fields.${name}[${i}]`, byPath, 0) as string);
      else fields[name] = minimizedLeaf(value, `fields.${name}`, byPath, 0) as string;
    }
    args.fields = rewrite.fields = fields;
  } else if (call.tool === BROWSER_TOOLS.request && [...byPath.keys()].some((p) => p.startsWith('body'))) {
    const body = minimizedLeaf(args.body, 'body', byPath, 0) as Rewrite['body'];
    args.body = body;
    if (body !== undefined) rewrite.body = body;
    delete args.bodyBytes;
  }
  return { call: { ...call, args }, rewrite };
}
