/**
 * URL schemes a guarded agent may use: one allowlist, read by the evaluator's `guards` check and by the
 * browser guards (src/background/floor/guards.ts). Anything not listed (chrome:, brave:, opera:, vivaldi:,
 * edge:, intent:, file:, view-source:, filesystem:, extension pages, mailto:, …) is refused, so a
 * browser's new internal scheme is refused before anyone lists it.
 *
 * The scheme is read the way the WHATWG URL parser (Chromium's and Node's) reads it: leading and
 * trailing C0 controls and spaces are dropped, tabs and newlines anywhere are removed, case is folded.
 * So `  BRAVE://x`, `\tjavascript:…` and `java\nscript:…` are what the browser would open.
 */

/** How a URL's scheme is handled. */
export type SchemeUse =
  /** http, https, ws, wss: reach a host over the network; the domain and private-network checks apply. */
  | 'network'
  /** about:blank and about:srcdoc: empty documents. */
  | 'empty'
  /** data: and blob: documents carry what a page built; the exfiltration-shape rules apply to them. */
  | 'local'
  /** javascript: runs code in the page: the classifier makes it EXECUTION. */
  | 'execution'
  | 'forbidden';

const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);
const LOCAL_SCHEMES = new Set(['data:', 'blob:']);
const EMPTY_ABOUT = new Set(['blank', 'srcdoc']);

/** What the WHATWG parser strips or removes before it reads a scheme. */
// eslint-disable-next-line no-control-regex
const EDGE_CONTROLS = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const TAB_OR_NEWLINE = /[\t\n\r]/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const NETWORK_PREFIX = /^(https?|wss?):/i;

export interface UrlScheme {
  /** Lower-case, with the colon (`brave:`); null for a URL with no scheme (a relative reference). */
  scheme: string | null;
  use: SchemeUse;
}

const HTTPS: Readonly<UrlScheme> = Object.freeze({ scheme: 'https:', use: 'network' });
const HTTP: Readonly<UrlScheme> = Object.freeze({ scheme: 'http:', use: 'network' });

/** The scheme of `url` as the browser reads it, and how the product treats it. */
export function schemeOf(url: string): Readonly<UrlScheme> {
  // Nearly every URL an agent proposes starts with its network scheme as written: that is the scheme the
  // parser reads (no control, tab or newline comes before the colon), so nothing is parsed for it, and
  // the common lower-case spellings share one answer each (the evaluator's guards read every URL).
  if (url.startsWith('https:')) return HTTPS;
  if (url.startsWith('http:')) return HTTP;
  const written = NETWORK_PREFIX.exec(url);
  if (written !== null) return { scheme: `${written[1]!.toLowerCase()}:`, use: 'network' };
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // Not a whole URL (a relative reference, a broken host): read the scheme as the parser would.
  }
  const scheme = parsed?.protocol ?? schemePrefix(url);
  // A relative reference resolves against the page's own origin, which the agent has already reached.
  if (scheme === null) return { scheme: null, use: 'network' };
  if (NETWORK_SCHEMES.has(scheme)) return { scheme, use: 'network' };
  if (LOCAL_SCHEMES.has(scheme)) return { scheme, use: 'local' };
  if (scheme === 'javascript:') return { scheme, use: 'execution' };
  if (scheme === 'about:' && parsed !== null && EMPTY_ABOUT.has(parsed.pathname)) return { scheme, use: 'empty' };
  return { scheme, use: 'forbidden' };
}

function schemePrefix(url: string): string | null {
  const match = SCHEME.exec(url.replace(EDGE_CONTROLS, '').replace(TAB_OR_NEWLINE, ''));
  return match ? `${match[1]!.toLowerCase()}:` : null;
}
