import type { ToolCall } from '../../core/call';
import type { DecisionRecord } from '../../core/decision';

/**
 * Redaction for the audit log: it keeps what an auditor needs (which tool, which targets, which check,
 * field NAMES) and drops what an attacker or a shoulder-surfer wants (field values, request bodies,
 * query values, credentials). Secret-looking strings left in reasons or targets are masked.
 */

const MASK = '[masked]';

/** Patterns of things that look like secrets wherever they appear. Order: specific before generic. */
const SECRET_PATTERNS: RegExp[] = [
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, // JWT
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}\b/g, // API keys (OpenAI/OpenRouter style)
  /\b(?:ghp|gho|ghu|ghs|github_pat|xox[abpors])_?[A-Za-z0-9_-]{16,}\b/g, // GitHub, Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, // Authorization header values
  /\b(?:\d[ -]?){13,19}\b/g, // card numbers and long account numbers
  /\b[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9@.])/g, // long base64/hex runs
];

export function maskSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, (m) => (/[0-9]/.test(m) || m.length >= 40 ? MASK : m));
  return out;
}

/**
 * A path masked segment by segment: a secret sent in a URL path is one segment (a `/` inside it is sent as
 * `%2F`), while a route's segments together easily run past the long-run pattern's 32 characters
 * (`:8080/byteblaze/dotfiles/-/issues/1001/notes` is not a secret, and the person must see it to decide).
 */
export function maskPath(path: string): string {
  return path.split('/').map(maskSecrets).join('/');
}

/** Origin + path, query values replaced (names kept), no userinfo, no fragment. Non-URLs are masked text. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return maskSecrets(raw.slice(0, 200));
  }
  if (url.protocol === 'data:' || url.protocol === 'blob:' || url.protocol === 'javascript:') return `${url.protocol}…`;
  const names = [...new Set([...url.searchParams.keys()])];
  const query = names.length > 0 ? `?${names.map((n) => `${encodeURIComponent(n)}=…`).join('&')}` : '';
  return `${url.protocol}//${maskSecrets(url.host)}${maskPath(url.pathname)}`.slice(0, 300) + query;
}

/** The origin of a sender URL, or null. */
export function originOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    const url = new URL(raw);
    // Browsers give an extension page its scheme and id as origin; Node's URL gives "null" (unit tests).
    if (url.protocol === 'chrome-extension:' || url.protocol === 'moz-extension:') return `${url.protocol}//${url.host}`;
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

function keysOf(value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.keys(value).slice(0, 50).map(maskSecrets);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** What the audit keeps of a tool call: the redacted destination and field/body key NAMES. */
export function summarizeCall(call: ToolCall): { destination?: string; fields?: string[] } {
  const url = str(call.args.url);
  const method = str(call.args.method);
  const names = [...keysOf(call.args.fields), ...keysOf(call.args.body)];
  return {
    ...(url !== undefined ? { destination: `${method !== undefined ? `${method.slice(0, 16).toUpperCase()} ` : ''}${redactUrl(url)}` } : {}),
    ...(names.length > 0 ? { fields: names } : {}),
  };
}

const DATA_VIEW_LIMIT = 4_000;

/** Bidi, zero-width and other format characters, controls and line separators. */
const HIDDEN_CHARACTERS = /[\p{Cf}\p{Cc}\u2028\u2029]/gu;

/**
 * Text a page wrote, shown to the person who decides exactly as it is: each bidi, zero-width or control
 * character (line breaks too) is written out as `⟨U+202E⟩` instead of acting on the text around it, so
 * `\u202E` + `tset.kcatta@bob` cannot read as `bob@attack.test`, and a field name or value cannot draw a line of
 * its own ("AgentsFence: verified safe …") in the data view.
 */
export function revealed(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/**
 * What the person sees before approving: names and values of what would be sent, secrets masked,
 * bounded. Shown only in the approval UI (the audit log keeps names only).
 */
export function dataViewOf(call: ToolCall): string {
  const lines: string[] = [];
  const add = (name: string, value: unknown) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    lines.push(`${revealed(maskSecrets(name))}: ${revealed(maskSecrets(String(text)).slice(0, 500))}`);
  };
  const { fields, body, files } = call.args;
  if (fields !== null && typeof fields === 'object') for (const [k, v] of Object.entries(fields)) add(k, v);
  if (typeof body === 'string') add('body', body);
  else if (body !== null && typeof body === 'object') for (const [k, v] of Object.entries(body)) add(k, v);
  if (Array.isArray(files)) add('files', files.join(', '));
  return lines.join('\n').slice(0, DATA_VIEW_LIMIT);
}

/** Masks the free-text parts of a decision record before it is stored or shown. */
export function redactRecord(record: DecisionRecord): DecisionRecord {
  return {
    ...record,
    reason: maskSecrets(record.reason).slice(0, 500),
    targets: {
      recipients: record.targets.recipients.map(maskSecrets),
      domains: record.targets.domains.map(maskSecrets),
      paths: record.targets.paths.map(maskSecrets),
      items: record.targets.items.map(maskSecrets),
      // Amounts and quantities are canonical numbers (see core/amounts.ts): an auditor needs them as they are.
      ...(record.targets.amounts !== undefined ? { amounts: record.targets.amounts } : {}),
      ...(record.targets.quantities !== undefined ? { quantities: record.targets.quantities } : {}),
    },
    ...(record.evidence !== undefined ? { evidence: maskSecrets(record.evidence) } : {}),
    // The basis may quote page text (a button's label): masked and bounded like the reason.
    ...(record.basis !== undefined ? { basis: maskSecrets(record.basis).slice(0, 200) } : {}),
    ...(record.action !== undefined ? { action: { ...record.action, object: record.action.object === null ? null : maskPath(record.action.object) } } : {}),
  };
}
