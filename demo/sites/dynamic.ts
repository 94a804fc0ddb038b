/**
 * A modern dynamic site, as single-page apps and lazy-loading pages are built: everything third-party is
 * inserted by the page's own script after it starts, none of it is in the HTML the server sent —
 *  - product images rendered from the site's own JSON API, from an image CDN with resize parameters
 *    (`?w=200&h=200&fit=crop&fm=webp&q=80`), 30 of them;
 *  - a lazy loader (IntersectionObserver, `data-src` → `src`);
 *  - a tag-manager-style loader: an inline snippet inserts `gtm.js?id=…`, which inserts two more scripts;
 *  - web fonts by CSS (a font stylesheet `css2?family=…` whose `@font-face` names a Google-Fonts-shaped
 *    file) and by the FontFace API (a content-hashed file name);
 *  - a content-hashed bundle (32 hex) and a versioned stylesheet from a package CDN;
 *  - a video embed iframe.
 * Pure: the pages as path → response for the origins given, so the e2e server (e2e/floor-volume.spec.ts)
 * and a demo world can serve them. `assetPaths` lists every third-party request the page must make.
 */

export interface DynamicOrigins {
  /** The site the task names, e.g. `http://shop.test:PORT`. */
  site: string;
  /** The third-party hosts, all under one CDN site (one ledger account): images, fonts, tags, packages, video. */
  images: string;
  fonts: string;
  tags: string;
  packages: string;
  video: string;
}

export interface DynamicPage {
  body: string;
  contentType: string;
}

/** Realistic photo ids (Unsplash-shaped: a 13-digit time and a 12-hex suffix). */
export const PHOTO_IDS = Array.from({ length: 30 }, (_, i) => `photo-${1523275335684 + i * 7919}-${(0x37898b6baf30 + i * 104729).toString(16)}`);
const BUNDLE = 'main.3f2a9c1b4e5d6f7081923a4b5c6d7e8f.js';
const FONT_FILE = 'UcCO3FwrK3iLTeHuS_fvQtMwCp50KnMw2boKoduKmMEVuLyfAZ9hiA.woff2';
const BRAND_FONT = 'brand-display.8c1f2e9a7b3d4c5e.woff2';

/** Every third-party request the page makes, as `host-kind path?query` (what the CDN's log must show). */
export function assetPaths(): { origin: keyof Omit<DynamicOrigins, 'site'>; path: string }[] {
  return [
    ...PHOTO_IDS.slice(0, 24).map((id) => ({ origin: 'images' as const, path: `/photos/${id}.jpg?w=200&h=200&fit=crop&fm=webp&q=80` })),
    ...PHOTO_IDS.slice(24).map((id) => ({ origin: 'images' as const, path: `/photos/${id}.jpg?w=400&dpr=2` })),
    { origin: 'tags', path: '/gtm.js?id=GTM-K7Q2XR&l=dataLayer' },
    { origin: 'tags', path: '/tags/consent.js?v=4' },
    { origin: 'tags', path: '/tags/reviews-widget.js' },
    { origin: 'fonts', path: '/css2?family=Inter:wght@400;700&display=swap' },
    { origin: 'fonts', path: `/s/inter/v13/${FONT_FILE}` },
    { origin: 'fonts', path: `/s/brand/v2/${BRAND_FONT}` },
    { origin: 'packages', path: `/static/js/${BUNDLE}` },
    { origin: 'packages', path: '/npm/carousel@2.4.1/dist/carousel.min.css' },
    { origin: 'video', path: '/embed/dQw4w9WgXcQ?rel=0&autoplay=0' },
  ];
}

const js = (body: string): DynamicPage => ({ body, contentType: 'text/javascript' });

/** The site's pages and the CDN's responses, by path (the same paths answer on every host). */
export function dynamicSite(o: DynamicOrigins): Record<string, DynamicPage> {
  const products = PHOTO_IDS.map((id, i) => ({ name: `Product ${i + 1}`, photo: id, lazy: i >= 24 }));
  const app = `
    const cdn = ${JSON.stringify(o)};
    fetch('/api/products.json').then((r) => r.json()).then((items) => {
      const grid = document.getElementById('grid');
      const lazy = new IntersectionObserver((entries) => {
        for (const e of entries) if (e.isIntersecting) { e.target.src = e.target.dataset.src; lazy.unobserve(e.target); }
      });
      for (const item of items) {
        const img = document.createElement('img');
        img.alt = item.name; img.width = 40; img.height = 40;
        const url = cdn.images + '/photos/' + item.photo + '.jpg';
        if (item.lazy) { img.dataset.src = url + '?w=400&dpr=2'; lazy.observe(img); }
        else img.src = url + '?w=200&h=200&fit=crop&fm=webp&q=80';
        grid.append(img);
      }
      document.getElementById('count').textContent = items.length + ' products';
    });
    // Web fonts: the font service's stylesheet (its @font-face names the file), and the FontFace API.
    const fonts = document.createElement('link');
    fonts.rel = 'stylesheet'; fonts.href = cdn.fonts + '/css2?family=Inter:wght@400;700&display=swap';
    document.head.append(fonts);
    new FontFace('Brand', 'url(' + cdn.fonts + '/s/brand/v2/${BRAND_FONT})').load().then((f) => document.fonts.add(f), () => {});
    const bundle = document.createElement('script');
    bundle.src = cdn.packages + '/static/js/${BUNDLE}';
    document.body.append(bundle);
    const css = document.createElement('link');
    css.rel = 'stylesheet'; css.href = cdn.packages + '/npm/carousel@2.4.1/dist/carousel.min.css';
    document.head.append(css);
    const video = document.createElement('iframe');
    video.width = 320; video.height = 180; video.title = 'Product video';
    video.src = cdn.video + '/embed/dQw4w9WgXcQ?rel=0&autoplay=0';
    document.body.append(video);
  `;
  // The tag manager's snippet, as sites paste it, and what its container loads.
  const snippet = `(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':Date.now(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],j=d.createElement(s);j.async=true;j.src=${JSON.stringify(o.tags)}+'/gtm.js?id='+i+'&l='+l;f.parentNode.insertBefore(j,f);})(window,document,'script','dataLayer','GTM-K7Q2XR');`;
  const container = `for (const src of ['/tags/consent.js?v=4', '/tags/reviews-widget.js']) { const s = document.createElement('script'); s.async = true; s.src = ${JSON.stringify(o.tags)} + src; document.head.append(s); }`;
  return {
    '/shop': {
      contentType: 'text/html',
      body: `<!doctype html><html><head><title>Shop</title><script>${snippet}</script></head>
<body style="font-family: Inter, Brand, sans-serif"><h1>New arrivals</h1><p id="count"></p><div id="grid"></div><script src="/app.js"></script></body></html>`,
    },
    '/app.js': js(app),
    '/api/products.json': { contentType: 'application/json', body: JSON.stringify(products) },
    '/gtm.js': js(container),
    '/tags/consent.js': js('window.consentLoaded = true;'),
    '/tags/reviews-widget.js': js('window.reviewsLoaded = true;'),
    '/css2': { contentType: 'text/css', body: `@font-face { font-family: Inter; font-weight: 400; src: url(${o.fonts}/s/inter/v13/${FONT_FILE}) format('woff2'); }` },
    [`/static/js/${BUNDLE}`]: js('window.bundleLoaded = true;'),
    '/npm/carousel@2.4.1/dist/carousel.min.css': { contentType: 'text/css', body: '.carousel{display:flex}' },
    '/embed/dQw4w9WgXcQ': { contentType: 'text/html', body: '<!doctype html><title>video</title><p>video player</p>' },
  };
}
