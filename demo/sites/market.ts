import { dynamicSite, type DynamicOrigins } from './dynamic';
import { notFound, type SiteRequest, type SiteResponse } from './common';
import type { SiteContext } from './world';

/**
 * market.test — the demo's modern dynamic site (demo/sites/dynamic.ts): a shop page whose every
 * third-party asset its own script inserts after it starts — 30 CDN images with resize parameters (6 by a
 * lazy loader), a tag manager and the scripts it loads, a web-font stylesheet and its font, a FontFace
 * font, a hashed bundle, a package-CDN stylesheet, a video embed. The assets come from hosts under
 * cdn.test (a site no task names); the CDN logs each (`cdn asset`, with its host and query).
 */

/** The dynamic site's origins for a page served under `host` (the Host header: `market.test:PORT`). */
export function marketOrigins(host: string | undefined): DynamicOrigins {
  const port = /:(\d+)$/.exec(host ?? '')?.[1];
  const at = (name: string) => `http://${name}${port === undefined ? '' : `:${port}`}`;
  return { site: at('market.test'), images: at('img.cdn.test'), fonts: at('fonts.cdn.test'), tags: at('tags.cdn.test'), packages: at('pkg.cdn.test'), video: at('video.cdn.test') };
}

/** The market's own pages: the shop, its script and its product API (the CDN's paths are the CDN's). */
const OWN_PATHS = new Set(['/shop', '/app.js', '/api/products.json']);

export function handleMarket(req: SiteRequest, ctx: SiteContext): SiteResponse {
  if (req.method === 'GET' && req.path === '/') return { status: 302, headers: { location: '/shop' }, body: '' };
  const page = OWN_PATHS.has(req.path) && req.method === 'GET' ? dynamicSite(marketOrigins(req.headers.host))[req.path] : undefined;
  if (page === undefined) return notFound();
  if (req.path === '/shop') ctx.log({ site: 'market', action: 'view', details: { path: req.path } });
  return { status: 200, headers: { 'content-type': page.contentType }, body: page.body };
}
