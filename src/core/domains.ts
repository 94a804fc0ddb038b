import ipaddr from 'ipaddr.js';
import { getDomain } from 'tldts';

/**
 * Registrable domains ("sites") via tldts and the Public Suffix List, private section included
 * (`alice.github.io` and `bob.github.io` are different sites). No hand-written suffix logic.
 *
 * The WHATWG URL parser does the host normalisation (lower case, punycode for IDNs, IPv4 forms such
 * as `0x7f.1` → `127.0.0.1`, userinfo and port removed), so `bücher.de` and `xn--bcher-kva.de`
 * are one domain. IP literals are their own domain. `localhost`/`*.localhost` and `*.test` are in
 * the suffix list as suffixes, so `mail.localhost` and `bank.test` are sites of their own and
 * `www.bank.test` belongs to `bank.test`.
 */

/** Schemes whose URLs reach a host over the network. Everything else (data:, blob:, file:, …) has no domain. */
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);

/** `scheme://…`, or a scheme that never carries `//` (javascript:, data:, mailto:, about:, blob:). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const OPAQUE_SCHEME = /^(?:javascript|data|blob|mailto|about|file|filesystem|chrome|chrome-extension|devtools|view-source|tel|sms):/i;

function parseNetworkUrl(urlOrHost: string): URL | null {
  const input = urlOrHost.trim();
  if (input === '' || OPAQUE_SCHEME.test(input)) return null;
  let url: URL;
  try {
    // A bare host (`www.x.com`, `user@x.com:81/path`, `[::1]`, `::1`) is read as an http URL.
    // (An unbracketed IPv6 literal has a colon and no slash; ipaddr.js is asked only then, as it decides by throwing.)
    const bare = /^[^/]*:[^/]*:/.test(input) && ipaddr.IPv6.isValid(input) ? `[${input}]` : input.replace(/^\/\//, '');
    url = new URL(HAS_SCHEME.test(input) ? input : `http://${bare}`);
  } catch {
    return null;
  }
  if (!NETWORK_SCHEMES.has(url.protocol) || url.hostname === '') return null;
  return url;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The host of a network URL: lower-case ASCII (punycode), no port, IPv6 without brackets; null otherwise. */
export function hostOf(urlOrHost: string): string | null {
  const url = parseNetworkUrl(urlOrHost);
  if (url === null) return null;
  const host = url.hostname.replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return host === '' ? null : host;
}

/** The registrable domain of a URL or host (or the IP literal); null for non-network URLs. */
export function registrableDomain(urlOrHost: string): string | null {
  const host = hostOf(urlOrHost);
  return host === null ? null : siteOfHost(host);
}

/** The registrable domain of a host as hostOf gives it (for a caller that has already parsed the URL). */
export function siteOfHost(host: string): string {
  if (IPV4.test(host) || host.includes(':')) return host;
  // A bare suffix (`localhost`, a single-label intranet name) is its own site.
  return getDomain(host, { allowPrivateDomains: true, validateHostname: false }) ?? host;
}

/** Exact registrable-domain equality with any allowed entry; never a substring or suffix match. */
export function domainMatches(domain: string, allowed: readonly string[]): boolean {
  const site = registrableDomain(domain);
  if (site === null) return false;
  return allowed.some((entry) => registrableDomain(entry) === site);
}
