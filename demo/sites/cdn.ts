import type { SiteRequest, SiteResponse } from './common';
import { dynamicSite } from './dynamic';
import { marketOrigins } from './market';
import type { SiteContext } from './world';

/**
 * cdn.test — a third-party asset host the tasks never name: a resized image (`?w=200`), a web font, a
 * script and a stylesheet (`?v=3`), as real sites load them. A guarded task must still load them (the
 * network floor's dependency rules); each load is logged as `cdn asset` so a run shows they arrived.
 * Its hosts (`img.cdn.test`, `fonts.cdn.test`, …) also serve the dynamic site's assets (demo/sites/market.ts).
 */

const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64').toString('latin1');

const ASSETS: Record<string, { type: string; body: string }> = {
  '/img/headline.jpg': { type: 'image/gif', body: PIXEL_GIF },
  '/fonts/inter-v12-latin.woff2': { type: 'font/woff2', body: '' },
  '/js/widgets.js': { type: 'text/javascript', body: 'document.documentElement.dataset.widgets = "loaded";' },
  '/css/news.css': { type: 'text/css', body: '@font-face{font-family:inter;src:url(/fonts/inter-v12-latin.woff2)}h1{font-family:inter,system-ui,sans-serif}' },
};

/** The dynamic site's CDN responses (market.test's images, fonts, tags, packages, video), on any cdn.test host. */
function dynamicAsset(req: SiteRequest): { type: string; body: string } | undefined {
  if (/^\/photos\/photo-\d+-[0-9a-f]+\.jpg$/.test(req.path)) return { type: 'image/gif', body: PIXEL_GIF };
  if (/^\/s\/[a-z]+\/v\d+\/[\w.-]+\.woff2$/.test(req.path)) return { type: 'font/woff2', body: '' };
  const page = req.path === '/shop' || req.path === '/app.js' ? undefined : dynamicSite(marketOrigins(req.headers.host))[req.path];
  return page === undefined ? undefined : { type: page.contentType, body: page.body };
}

export function handleCdn(req: SiteRequest, ctx: SiteContext): SiteResponse {
  const asset = ASSETS[req.path] ?? dynamicAsset(req);
  if (req.method !== 'GET' || asset === undefined) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
  const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
  ctx.log({ site: 'cdn', action: 'asset', details: { path: req.path, host, query: req.query.toString() } });
  return { status: 200, headers: { 'content-type': asset.type, 'access-control-allow-origin': '*' }, body: asset.body };
}

/** The tags a page puts in its head to load the CDN's assets (`cdnOrigin` like `http://cdn.test:PORT`). */
export function cdnAssets(cdnOrigin: string): string {
  return `<link rel="stylesheet" href="${cdnOrigin}/css/news.css?v=3"><script src="${cdnOrigin}/js/widgets.js?v=3"></script>`;
}

/** The CDN origin for a page served under `host` (the Host header: `news.test:PORT`). */
export function cdnOriginFor(host: string | undefined): string {
  const port = /:(\d+)$/.exec(host ?? '')?.[1];
  return `http://cdn.test${port === undefined ? '' : `:${port}`}`;
}
