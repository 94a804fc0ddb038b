import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAttacker } from './attacker';
import { handleBank } from './bank';
import { handleCdn } from './cdn';
import type { ActionLogEntry, Injection, SiteName, SiteRequest, SiteResponse } from './common';
import { handleDrive } from './drive';
import { handleForge } from './forge';
import { handleForum } from './forum';
import { handleMail } from './mail';
import { handleMarket } from './market';
import { handleNews } from './news';
import { handleShop } from './shop';

/**
 * The demo world: one HTTP server on 127.0.0.1 and one port that serves every demo site, routed by
 * the Host header (`mail.test`, `bank.test`, … — Chromium maps `*.test` to loopback). It keeps the
 * server-side log of what each site did: the benchmark's truth of whether an action ran.
 */

export interface SiteContext {
  log(entry: ActionLogEntry): void;
  injections: readonly Injection[];
  deletedFiles: Set<string>;
  /** What this run posted to a thread (an issue's notes, a post's comments), shown on its page. */
  thread(key: string): string[];
}

type Handler = (req: SiteRequest, ctx: SiteContext) => SiteResponse;

export const SITE_HOSTS: Record<SiteName, string> = {
  mail: 'mail.test',
  bank: 'bank.test',
  shop: 'shop.test',
  drive: 'drive.test',
  news: 'news.test',
  attacker: 'attacker.test',
  cdn: 'cdn.test',
  gitlab: 'gitlab.test',
  forum: 'forum.test',
  market: 'market.test',
};

const HANDLERS: Record<SiteName, Handler> = {
  mail: handleMail,
  bank: handleBank,
  shop: handleShop,
  drive: handleDrive,
  news: handleNews,
  attacker: handleAttacker,
  cdn: handleCdn,
  gitlab: handleForge,
  forum: handleForum,
  market: handleMarket,
};

const MAX_BODY_BYTES = 64 * 1024;

/** Chromium flag that sends every `*.test` host to the demo server. */
export function hostResolverRule(port: number): string {
  return `--host-resolver-rules=MAP *.test 127.0.0.1:${port}`;
}

function siteOfHost(hostHeader: string | undefined): SiteName | null {
  const host = (hostHeader ?? '').replace(/:\d+$/, '').toLowerCase();
  for (const [site, name] of Object.entries(SITE_HOSTS) as [SiteName, string][]) {
    if (host === name || host.endsWith(`.${name}`)) return site;
  }
  return null;
}

function parseFields(body: string, contentType: string): Record<string, string> {
  const fields: Record<string, string> = {};
  if (body === '') return fields;
  if (contentType.includes('application/x-www-form-urlencoded')) {
    for (const [key, value] of new URLSearchParams(body)) fields[key] = value;
    return fields;
  }
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const [key, value] of Object.entries(parsed)) fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  } catch {
    // Not JSON: the raw body stays available to the handler.
  }
  return fields;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class DemoWorld {
  /** Every action every site recorded since the last reset, in order. */
  readonly log: ActionLogEntry[] = [];
  private injections: Injection[] = [];
  private readonly deletedFiles = new Set<string>();
  private readonly threads = new Map<string, string[]>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(port = 0): Promise<DemoWorld> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    const world = new DemoWorld(server, (server.address() as AddressInfo).port);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void world.handle(req, res));
    return world;
  }

  /** Start a fresh run: empty log, restored files, and these injections placed in their slots. */
  reset(injections: readonly Injection[] = []): void {
    this.log.length = 0;
    this.injections = [...injections];
    this.deletedFiles.clear();
    this.threads.clear();
  }

  /** `http://mail.test:PORT/path` — the port is explicit so the URL works with any resolver rule. */
  url(site: SiteName, path = '/'): string {
    return `http://${SITE_HOSTS[site]}:${this.port}${path}`;
  }

  entries(site: SiteName, action?: string): ActionLogEntry[] {
    return this.log.filter((e) => e.site === site && (action === undefined || e.action === action));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const site = siteOfHost(req.headers.host);
      const url = new URL(req.url ?? '/', 'http://demo.invalid');
      const body = await readBody(req);
      if (site === null) {
        res.writeHead(421, { 'content-type': 'text/plain' }).end('unknown site');
        return;
      }
      const request: SiteRequest = {
        method: (req.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        fields: parseFields(body, String(req.headers['content-type'] ?? '')),
      };
      const thread = (key: string): string[] => {
        const posts = this.threads.get(key) ?? [];
        this.threads.set(key, posts);
        return posts;
      };
      const context: SiteContext = { log: (entry) => this.log.push(entry), injections: this.injections, deletedFiles: this.deletedFiles, thread };
      const response = HANDLERS[site](request, context);
      res.writeHead(response.status, { 'cache-control': 'no-store', ...response.headers }).end(response.body);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : 'error');
    }
  }
}
