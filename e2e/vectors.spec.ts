import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchVectorBrowser, type VectorBrowser } from './fixtures/browser';
import { buildExtension } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';
import { ALLOWED_HOST, ALLOWED_RECIPIENT, ATTACKER_HOST, FOREIGN_RECIPIENT, VECTOR_POLICY, VECTORS, type Vector, type VectorCase } from './vectors';

/**
 * Every vector of issue 4, three ways, one browser per describe block:
 *  1. with the extension: the allowed case reaches the server, the disallowed case does not;
 *  2. without the extension (negative control): the disallowed case reaches the server, so (1) proves
 *     something, and within the same quiet period (1) waits;
 *  3. with the nohooks build (no MAIN-world hooks): which disallowed cases still do not reach the
 *     server. The result is asserted against each vector's expected layer and written to e2e/FLOOR.md.
 * The server's request log is the truth, not the extension's report.
 */

/** How long a disallowed case is given to reach the server (the negative controls arrive well within it). */
const QUIET_MS = 1_000;
const ALLOWED_TIMEOUT_MS = 5_000;
const FLOOR_TABLE = resolve(import.meta.dirname, 'FLOOR.md');

/**
 * Which disallowed cases still fail to reach the server with the MAIN-world hooks removed. `floor`:
 * the network floor alone; `isolated`: the ISOLATED form guard (no MAIN hooks needed); `reaches`: only
 * the MAIN-world hooks stop it (semantic-only). Asserted, so FLOOR.md cannot drift from the truth.
 */
const WITHOUT_HOOKS: Record<string, 'floor' | 'isolated' | 'reaches'> = {
  'form POST naming another recipient': 'isolated',
  'fetch JSON naming another recipient': 'reaches',
  'XHR form body naming another recipient': 'reaches',
  'form.submit() naming another recipient': 'reaches',
};

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
}

/** Runs one case in a fresh page and reports whether its probe reached the server within `waitMs`. */
async function runCase(browser: VectorBrowser, vector: Vector, allowed: boolean, waitMs: number): Promise<CaseResult> {
  const id = `${slug(vector.name)}-${++caseNumber}`;
  const host = vector.kind === 'domain' && !allowed ? ATTACKER_HOST : ALLOWED_HOST;
  const path = vector.probePath?.(id) ?? `/v/${id}`;
  const home = server.origin(ALLOWED_HOST);
  const page = await browser.context.newPage();
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
      await page.goto(`${home}/case/${id}`).catch(() => undefined);
    }
    // A case that navigates away destroys its evaluate context; the log still says what happened.
    await vector.run(c).catch(() => undefined);
    const reached = await server.waitFor(path, host, waitMs).then(
      () => true,
      () => false,
    );
    return { reached, host, path };
  } finally {
    for (const open of browser.context.pages()) if (open !== browser.context.pages()[0]) await open.close().catch(() => undefined);
  }
}

test.describe('vectors with the extension', () => {
  let browser: VectorBrowser;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    browser = await launchVectorBrowser(buildExtension('full'));
    await browser.setPolicy(VECTOR_POLICY);
  });
  test.afterAll(async () => browser?.close());

  for (const vector of VECTORS) {
    test(`${vector.name}: allowed case reaches the server`, async () => {
      const result = await runCase(browser, vector, true, ALLOWED_TIMEOUT_MS);
      expect(result.reached, `${result.host}${result.path} was never requested`).toBe(true);
    });
    test(`${vector.name}: disallowed case does not reach the server`, async () => {
      const result = await runCase(browser, vector, false, QUIET_MS);
      expect(result.reached, `${result.host}${result.path} was requested`).toBe(false);
    });
  }

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
          channel.port1.postMessage(forged(i));
          window.postMessage(forged(i), '*');
          window.dispatchEvent(new CustomEvent('message', { detail: forged(i) }));
          document.dispatchEvent(new CustomEvent('agentsfence:answer', { detail: forged(i) }));
        }
      };
      setInterval(spam, 5);
    </script>${`<form method="post" action="${home}/v/${id}-form"><input name="to" value="${FOREIGN_RECIPIENT}"></form>`}`;
    server.setPage(`/case/${id}`, `<!doctype html><title>${id}</title>${forger}`);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${home}/case/${id}`);
      const outcome = await page.evaluate(
        ({ url, to }) =>
          fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to }) }).then(
            () => 'released',
            (e: unknown) => String(e),
          ),
        { url: `${home}/v/${id}`, to: FOREIGN_RECIPIENT },
      );
      await page.evaluate(() => document.forms[0]!.submit());
      await page.waitForTimeout(QUIET_MS);
      expect(outcome).toContain('blocked by AgentsFence');
      expect(server.hits(`/v/${id}`)).toEqual([]);
      // The hooks used none of the page's replacements.
      expect(await page.evaluate(() => (window as unknown as { __forged: { portPosts: number } }).__forged.portPosts)).toBe(0);
    } finally {
      await page.close();
    }
  });
});

test.describe('vectors without the extension (negative control)', () => {
  let browser: VectorBrowser;
  test.beforeAll(async () => {
    browser = await launchVectorBrowser(null);
  });
  test.afterAll(async () => browser?.close());

  for (const vector of VECTORS) {
    test(`${vector.name}: disallowed case reaches the server`, async () => {
      const result = await runCase(browser, vector, false, QUIET_MS);
      expect(result.reached, `${result.host}${result.path} was not requested within ${QUIET_MS} ms`).toBe(true);
    });
  }
});

test.describe('vectors with the MAIN-world hooks removed (nohooks build)', () => {
  let browser: VectorBrowser;
  const observed = new Map<string, boolean>();
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    browser = await launchVectorBrowser(buildExtension('nohooks'));
    await browser.setPolicy(VECTOR_POLICY);
  });
  test.afterAll(async () => {
    await browser?.close();
    if (observed.size === VECTORS.length) writeFileSync(FLOOR_TABLE, floorTable(observed));
  });

  for (const vector of VECTORS) {
    const expected = WITHOUT_HOOKS[vector.name] ?? 'floor';
    const words = expected === 'reaches' ? 'reaches the server (semantic-only)' : `is still stopped (${expected})`;
    test(`${vector.name}: disallowed case ${words}`, async () => {
      const result = await runCase(browser, vector, false, QUIET_MS);
      observed.set(vector.name, result.reached);
      expect(result.reached).toBe(expected === 'reaches');
    });
  }
});

function floorTable(observed: Map<string, boolean>): string {
  const layer = (vector: Vector): string => {
    const expected = WITHOUT_HOOKS[vector.name] ?? 'floor';
    if (observed.get(vector.name) === true) return 'MAIN-world hooks only (semantic-only)';
    return expected === 'isolated' ? 'ISOLATED form guard (no MAIN hooks needed)' : 'network floor / browser guards';
  };
  const rows = VECTORS.map(
    (v) => `| ${v.name.replace(/\|/g, '\\|')} | ${v.kind === 'domain' ? 'site the task does not name' : 'recipient the task does not name, same site'} | ${observed.get(v.name) === true ? 'reaches the server' : 'blocked'} | ${layer(v)} |`,
  );
  return [
    '# Which protections hold without the MAIN-world hooks',
    '',
    'Generated by `e2e/vectors.spec.ts` (describe "vectors with the MAIN-world hooks removed"): each disallowed',
    'case run against the `AF_NO_MAIN_HOOKS=1` build, judged by the test server\'s own request log. With the full',
    'build every disallowed case below is blocked (same spec). Do not edit by hand.',
    '',
    '| Vector | Disallowed because | Without MAIN hooks | Stopped by |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
