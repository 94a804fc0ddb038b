import ipaddr from 'ipaddr.js';
import { hostOf, registrableDomain, siteOfHost } from './domains';

/**
 * Whether a URL's host is on the private network: the user's machine, router, intranet or a cloud
 * metadata endpoint. Pure: it reads the host the WHATWG URL parser (Chromium's and Node's) makes of the
 * URL, never the raw string, so every spelling the browser accepts is the address it connects to:
 * `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, `%31%32%37.0.0.1` and `127。0。0。1` are all
 * `127.0.0.1`; `[::ffff:127.0.0.1]` is `[::ffff:7f00:1]`. Ranges come from ipaddr.js.
 *
 * A name is private by its form only: `localhost` and `*.localhost` (Chromium resolves them to loopback
 * itself), the suffixes of RFC 6762 appendix G and RFC 8375 (`.local`, `.internal`, `.lan`, `.home.arpa`,
 * …) and single-label names (`http://router/`), which only a local resolver answers. What an ordinary
 * name resolves to (`127.0.0.1.nip.io`, DNS rebinding) is not visible here: docs/limits.md#30-private-network-and-dns-rebinding.
 */

export interface PrivateHost {
  /** The canonical host: `127.0.0.1`, `::ffff:7f00:1` (no brackets), `printer.local`. */
  host: string;
  /** Which private range or name, in words: `loopback`, `link-local, cloud metadata`, `.internal name`. */
  range: string;
}

const V4_RANGES: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
};
const V6_RANGES: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  uniqueLocal: 'unique local',
  linkLocal: 'link-local',
  deprecatedSiteLocal: 'site-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  reserved: 'reserved',
  benchmarking: 'benchmarking',
  discard: 'discard',
};
/** IPv6 ranges that carry an IPv4 address the packet reaches: mapped, translated (NAT64), 6to4. */
const V6_WITH_V4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4']);
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

const PRIVATE_SUFFIXES = ['localhost', 'local', 'internal', 'lan', 'home.arpa', 'intranet', 'private', 'corp', 'home', 'localdomain'];

/**
 * The private host a URL (or bare host) reaches, or null when its host is public or it has none.
 * `singleLabel: false` leaves single-label names alone: outside a URL (`ssh prod`, `scp f backup:`) they
 * are usually aliases the user configured, not names a resolver's search list turns into intranet hosts.
 */
export function privateHostOf(urlOrHost: string, { singleLabel = true }: { singleLabel?: boolean } = {}): PrivateHost | null {
  const parsed = hostOf(urlOrHost);
  return parsed === null ? null : privateHostOfHost(parsed, singleLabel);
}

/** privateHostOf for a host as hostOf gives it. */
function privateHostOfHost(parsed: string, singleLabel: boolean): PrivateHost | null {
  const host = parsed.replace(/\.+$/, '');
  if (mayBeAddress(host) && ipaddr.isValid(host)) {
    const range = addressRange(ipaddr.parse(host));
    if (range === null) return null;
    return { host, range: METADATA.has(host) ? `${range}, cloud metadata` : range };
  }
  const suffix = PRIVATE_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix !== undefined) return { host, range: suffix === 'localhost' ? 'localhost' : `.${suffix} name` };
  if (singleLabel && host !== '' && !host.includes('.')) return { host, range: 'single-label intranet name' };
  return null;
}

/**
 * Whether `host` could be an IP literal in any form ipaddr.js reads (dotted, hex, octal, IPv6): a name
 * with any other character is not one. ipaddr.js decides by throwing and catching, which made this check
 * the evaluator's largest cost on ordinary names (bench/evaluator.ts).
 */
function mayBeAddress(host: string): boolean {
  return host.includes(':') || /^[0-9a-fx.]+$/i.test(host);
}

/**
 * The local-use NAT64 prefix (RFC 8215): where its IPv4 address sits depends on the prefix length each
 * network chooses, so no address inside can be read as public (the floor blocks all of 64:ff9b: too).
 */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');

function addressRange(address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (address.kind() === 'ipv4') return V4_RANGES[address.range()] ?? null;
  const v6 = address as ipaddr.IPv6;
  if (v6.match(LOCAL_USE_NAT64)) return 'local-use NAT64';
  const range = v6.range();
  const embedded = V6_WITH_V4.has(range) || v6.parts.slice(0, 6).every((p) => p === 0) ? embeddedV4(v6, range) : null;
  if (embedded !== null) {
    const inner = V4_RANGES[embedded.range()];
    return inner === undefined ? null : `${inner}, IPv4 ${embedded.toString()} inside IPv6`;
  }
  return V6_RANGES[range] ?? null;
}

/** The IPv4 address an IPv6 address carries: the last 32 bits, or bits 16–48 for 6to4 (RFC 3056). */
function embeddedV4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = v6.toByteArray();
  // `::` and `::1` are the unspecified and loopback addresses, not IPv4-compatible ones.
  if (range === 'unspecified' || range === 'loopback') return null;
  const four = range === '6to4' ? bytes.slice(2, 6) : bytes.slice(12, 16);
  return ipaddr.fromByteArray(four) as ipaddr.IPv4;
}

/**
 * A private host as the task may name it: exactly one host and one port. `port` is the port written, or
 * the scheme's default (`http://localhost/` is port 80, `wss://router.lan/` 443); null for a bare host
 * written with neither, which names the default ports (80 and 443). Nothing else is implied: `localhost`
 * does not name `127.0.0.1`, `[::1]` or `admin.localhost`, and port 3000 does not name 9222.
 */
export interface PrivateEndpoint {
  /** As in PrivateHost: canonical, IPv6 without brackets. */
  host: string;
  port: number | null;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'ws:': 80, 'https:': 443, 'wss:': 443, 'ftp:': 21 };
/** The ports a private host named without a port and without a scheme opens: the web's two. */
export const BARE_HOST_PORTS: readonly number[] = [80, 443];
const WRITTEN_SCHEME = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The private endpoint a URL or host reaches, or null when it is not private. `singleLabel` as in
 * privateHostOf; a bare host written with a port (`router:8080`) counts as one anyway, as a URL would.
 */
export function privateEndpointOf(urlOrHost: string, { singleLabel = true }: { singleLabel?: boolean } = {}): PrivateEndpoint | null {
  // The host first: most URLs are public, and for them nothing more is parsed.
  const found = privateHostOf(urlOrHost);
  if (found === null) return null;
  const written = WRITTEN_SCHEME.test(urlOrHost);
  let port: number | null;
  if (written) {
    const url = parseUrl(urlOrHost.trim());
    if (url === null) return null;
    port = url.port !== '' ? Number(url.port) : (DEFAULT_PORTS[url.protocol] ?? null);
  } else {
    // The URL parser drops a port equal to the scheme's default: read it under both schemes.
    const bare = bareUrl(urlOrHost);
    const p = bare === null ? '' : parseUrl(`http://${bare}`)?.port || parseUrl(`https://${bare}`)?.port;
    port = p ? Number(p) : null;
  }
  if (!singleLabel && !written && port === null && privateHostOf(urlOrHost, { singleLabel: false }) === null) return null;
  return { host: found.host, port };
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** A bare host as the authority of an http URL (`::1` gets its brackets), or null when it has a path's `//`. */
function bareUrl(input: string): string | null {
  const text = input.trim().replace(/^\/\//, '');
  if (text === '') return null;
  return /^[^/[]*:[^/]*:/.test(text) && ipaddr.IPv6.isValid(text.split('/')[0]!) ? `[${text}]` : text;
}

/** `localhost:3000`, `[::1]:3000`; a bare host (`localhost`, `::1`) when the port is null. */
export function endpointKey({ host, port }: PrivateEndpoint): string {
  if (port === null) return host;
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What an action's target is, as the policy lists it: for a private host its exact endpoint
 * (`localhost:3000`, see PrivateEndpoint), otherwise the registrable domain. Null for a non-network URL.
 * A bare host written without a port is single-label-private only with `singleLabel` (see privateHostOf).
 */
export function siteKeyOf(urlOrHost: string, { singleLabel = true }: { singleLabel?: boolean } = {}): string | null {
  // One parse for the public hosts most actions reach; the endpoint is read only for a private one.
  const host = hostOf(urlOrHost);
  if (host === null) return null;
  const endpoint = privateHostOfHost(host, true) === null ? null : privateEndpointOf(urlOrHost, { singleLabel });
  return endpoint !== null ? endpointKey(endpoint) : siteOfHost(host);
}

/**
 * The targets a policy entry names (domain list, a constraint's domains, a grant's domains): for a
 * private host exactly its endpoint, or, for one written without a port, its default ports and the bare
 * host (a host argument with no port: `ssh nas.lan`); otherwise its registrable domain. A policy stored
 * before ports were kept (`localhost`, version 2) so reads as the default ports: narrower, never wider.
 */
export function siteKeysOf(entry: string): string[] {
  const endpoint = privateEndpointOf(entry);
  if (endpoint === null) return [registrableDomain(entry) ?? entry.toLowerCase()];
  if (endpoint.port !== null) return [endpointKey(endpoint)];
  return [endpoint.host, ...BARE_HOST_PORTS.map((port) => endpointKey({ host: endpoint.host, port }))];
}
