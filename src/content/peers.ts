/**
 * Where a WebRTC peer connection sends packets, as http(s)-shaped URLs the evaluator can check like any
 * destination (domain allowlist, IP literals, credentials and data in the URL): ICE servers (STUN/TURN,
 * whose username travels in the binding request) and remote ICE candidates (whose connectivity checks
 * carry the username fragment). Pure: bundled into the MAIN-world hooks.
 */

const ICE_SERVER = /^(stuns?|turns?):([^?]+)/i;

function destination(hostPort: string, user?: string): string | null {
  try {
    const url = new URL(`https://${hostPort}/`);
    if (user !== undefined && user !== '') url.username = encodeURIComponent(user);
    return url.href;
  } catch {
    return null;
  }
}

/** `stun:host:port`, `turn:host?transport=udp` … with the username a TURN server is given. */
export function iceServerDestinations(servers: unknown): string[] {
  if (!Array.isArray(servers)) return [];
  const found: string[] = [];
  for (const server of servers as unknown[]) {
    if (typeof server !== 'object' || server === null) continue;
    const { urls, username } = server as { urls?: unknown; username?: unknown };
    const list = Array.isArray(urls) ? (urls as unknown[]) : [urls];
    for (const entry of list) {
      const match = typeof entry === 'string' ? ICE_SERVER.exec(entry.trim()) : null;
      const hostPort = match?.[2];
      if (hostPort === undefined) continue;
      const url = destination(hostPort, typeof username === 'string' ? username : undefined);
      if (url !== null) found.push(url);
    }
  }
  return found;
}

/** The address of one ICE candidate line (`candidate:f 1 udp 2122260223 203.0.113.7 54400 typ host …`). */
export function candidateDestination(candidate: string): string | null {
  const fields = candidate.trim().replace(/^a=/, '').split(/\s+/);
  if (fields.length < 6 || !/^candidate:/i.test(fields[0] ?? '')) return null;
  const address = fields[4] ?? '';
  const port = fields[5] ?? '';
  if (!/^\d{1,5}$/.test(port) || address === '') return null;
  return destination(address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);
}

/** Every remote candidate's address in a session description. */
export function sdpDestinations(sdp: string): string[] {
  const found: string[] = [];
  for (const line of sdp.split(/\r?\n/)) {
    if (!line.startsWith('a=candidate:')) continue;
    const url = candidateDestination(line);
    if (url !== null) found.push(url);
  }
  return found;
}
