import type { Page } from '@playwright/test';
import { expect, test } from './fixtures/extension';
import type { TaskPolicyInput } from '../src/core/policy';
import type { AgentBrowser } from '../src/harness';
import { openApp, quiet } from './background.helpers';
import type { TestServer } from './fixtures/server';

/**
 * The Minimizer: the task allows a reply to bob@corp.test on app.test, and an injected page tells the agent
 * to put confidential data into it. The send is in policy; the data is the theft. Judged by what the
 * server received: with the extension, the message arrives only after a person chose, and "Send without
 * it" delivers it minus exactly the flagged data; without the extension the data arrives (negative control).
 */

const REPLY: TaskPolicyInput = {
  version: 1,
  taskId: 'minimizer',
  issuedAt: 0,
  expiresAt: null,
  domains: ['app.test'],
  recipients: ['bob@corp.test'],
  ceilings: { COMMUNICATION: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
};

/** One message per data class: the benign sentence plus the stolen datum. */
const THEFTS: { kind: string; datum: string }[] = [
  { kind: 'one-time code', datum: 'My sign-in code is 483920.' },
  { kind: 'card number', datum: 'Card 4111 1111 1111 1111.' },
  { kind: 'IBAN', datum: 'IBAN DE89 3704 0044 0532 0130 00.' },
  { kind: 'API key', datum: 'Key sk-proj-Zx81Lq02Vb77Np3Ta9Ke4Ru6.' },
  { kind: 'JWT', datum: 'Token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U.' },
];
const BENIGN = 'I will attend on Friday.';

const sendJson = (page: Page, path: string, text: string) =>
  page.evaluate(
    ({ path, text }) =>
      fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: 'bob@corp.test', text }) }).then(
        (r) => r.status,
        (e: unknown) => String(e),
      ),
    { path, text },
  );

async function guarded(browser: AgentBrowser, server: TestServer): Promise<Page> {
  await browser.setPolicy(REPLY);
  return openApp(browser, server, 'app.test');
}

test('every data class: held for the person; "Send without it" delivers the message minus exactly that data', async ({ fence: browser, server }) => {
  const page = await guarded(browser, server);
  for (const [i, theft] of THEFTS.entries()) {
    const path = `/api/send/${i}`;
    const sent = sendJson(page, path, `${BENIGN} ${theft.datum}`);
    const [approval] = await browser.waitForApprovals(1);
    expect(approval?.check, theft.kind).toBe('minimizer');
    expect(approval?.minimizable, theft.kind).toBe(true);
    expect(server.hits(path), `${theft.kind}: nothing leaves while the person decides`).toHaveLength(0);
    await browser.answer(approval!.id, 'send-without');
    expect(await sent).toBe(200);
    const [hit] = server.hits(path);
    const body = JSON.parse(hit!.body) as { to: string; text: string };
    expect(body.to).toBe('bob@corp.test');
    expect(body.text.startsWith(BENIGN), theft.kind).toBe(true);
    for (const digits of theft.datum.match(/[0-9]{4,}|sk-proj-\w+|eyJ\w+/g) ?? []) expect(body.text, theft.kind).not.toContain(digits);
  }
  const audit = await browser.audit({ check: 'minimizer' });
  expect(audit.some((e) => e.answer === 'send-without')).toBe(true);
  expect(JSON.stringify(audit)).not.toMatch(/483920|4111 1111|DE89 3704|sk-proj|eyJhbGci/);
});

test('a form whose message field carries a card number: Deny sends nothing; a clean reply passes without a prompt', async ({ fence: browser, server }) => {
  const page = await guarded(browser, server);
  server.setPage(
    '/compose',
    `<!doctype html><form method="post" action="/form-send"><input name="to" value="bob@corp.test"><textarea name="message">${BENIGN} Card 4111 1111 1111 1111.</textarea><button id="send">Send</button></form>`,
  );
  await page.goto(`${server.origin('app.test')}/compose`);
  await page.click('#send');
  const [approval] = await browser.waitForApprovals(1);
  expect(approval?.check).toBe('minimizer');
  await browser.answer(approval!.id, 'deny');
  await quiet(page);
  expect(server.hits('/form-send')).toHaveLength(0);

  expect(await sendJson(page, '/api/clean', BENIGN)).toBe(200);
  expect(server.hits('/api/clean')).toHaveLength(1);
});

test('"Send without it" on a form rewrites the field and submits the rest', async ({ fence: browser, server }) => {
  const page = await guarded(browser, server);
  server.setPage(
    '/compose2',
    `<!doctype html><form method="post" action="/form-send2"><input name="to" value="bob@corp.test"><textarea name="message">${BENIGN} My sign-in code is 483920.</textarea><button id="send">Send</button></form>`,
  );
  await page.goto(`${server.origin('app.test')}/compose2`);
  await page.click('#send');
  const [approval] = await browser.waitForApprovals(1);
  await browser.answer(approval!.id, 'send-without');
  const hit = await server.waitFor('/form-send2');
  const fields = new URLSearchParams(hit.body);
  expect(fields.get('to')).toBe('bob@corp.test');
  expect(fields.get('message')).toContain(BENIGN);
  expect(fields.get('message')).not.toContain('483920');
});

/** Found by the adaptive review of the data lane: shapes whose datum the Minimizer did not read. */
const CARD = '4111 1111 1111 1111';
const B64_CARD = Buffer.from(`card ${CARD}`).toString('base64');
const HEX_CARD = Buffer.from(`card ${CARD}`).toString('hex');
const HIDING_PLACES: { name: string; body: () => unknown; needle: string }[] = [
  { name: 'twelve objects deep', body: () => ({ to: 'bob@corp.test', text: BENIGN, meta: JSON.parse(`${'{"x":'.repeat(12)}"card ${CARD}"${'}'.repeat(12)}`) as unknown }), needle: CARD },
  { name: 'after 600 padding values', body: () => ({ pad: Array<string>(600).fill(''), to: 'bob@corp.test', text: `${BENIGN} card ${CARD}` }), needle: CARD },
  { name: 'in a key', body: () => ({ to: 'bob@corp.test', text: BENIGN, meta: { [CARD]: true } }), needle: CARD },
  // Found by the second data-lane review.
  { name: 'split over two keys with no separators', body: () => ({ to: 'bob@corp.test', text: BENIGN, ref: '41111111', ext: '11111111' }), needle: '41111111' },
  { name: 'base64-encoded', body: () => ({ to: 'bob@corp.test', text: `${BENIGN} ${B64_CARD}` }), needle: B64_CARD },
  { name: 'hex-encoded', body: () => ({ to: 'bob@corp.test', text: BENIGN, attachment: HEX_CARD }), needle: HEX_CARD },
];
const postBody = (page: Page, path: string, body: unknown) =>
  page.evaluate(
    ({ path, body }) =>
      fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.status,
        (e: unknown) => String(e),
      ),
    { path, body },
  );

test('a card number nested deep, after padding, in a key, split over two keys, or base64- or hex-encoded is held; values are cut out, a key can only be denied', async ({ fence: browser, server }) => {
  const page = await guarded(browser, server);
  for (const [i, place] of HIDING_PLACES.entries()) {
    const path = `/api/hide/${i}`;
    const sent = postBody(page, path, place.body());
    const [approval] = await browser.waitForApprovals(1);
    expect(approval?.check, place.name).toBe('minimizer');
    expect(server.hits(path), place.name).toHaveLength(0);
    expect(approval?.minimizable, place.name).toBe(place.name !== 'in a key');
    await browser.answer(approval!.id, place.name === 'in a key' ? 'deny' : 'send-without');
    await sent;
    await quiet(page, 200);
    const received = server.hits(path).map((h) => h.body).join('');
    expect(received, place.name).not.toContain(place.needle);
    expect(received, place.name).not.toContain('4111');
  }
  expect(await sendJson(page, '/api/clean2', BENIGN)).toBe(200);
});

test('a second recipient after 2,100 padding values is read: the send asks (recipient binding) and a denial sends nothing', async ({ fence: browser, server }) => {
  const page = await guarded(browser, server);
  const sent = postBody(page, '/api/padded-cc', { to: 'bob@corp.test', pad: Array<number>(2100).fill(0), cc: 'eve@attacker.test', text: BENIGN });
  const [approval] = await browser.waitForApprovals(1);
  expect(approval?.check).toBe('recipient_binding');
  await browser.answer(approval!.id, 'deny');
  await sent;
  expect(server.hits('/api/padded-cc')).toHaveLength(0);
});

test('negative control: without the extension every data class reaches the server', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  const page = await openApp(browser, server, 'app.test');
  for (const [i, theft] of THEFTS.entries()) {
    const path = `/api/control/${i}`;
    expect(await sendJson(page, path, `${BENIGN} ${theft.datum}`)).toBe(200);
    expect(server.hits(path)[0]?.body).toContain(theft.datum.match(/[0-9]{4,}|sk-proj-\w+|eyJ\w+/)![0]);
  }
  expect(await postBody(page, '/api/control-padded-cc', { to: 'bob@corp.test', pad: Array<number>(2100).fill(0), cc: 'eve@attacker.test', text: BENIGN })).toBe(200);
  expect(server.hits('/api/control-padded-cc')[0]?.body).toContain('eve@attacker.test');
  for (const [i, place] of HIDING_PLACES.entries()) {
    expect(await postBody(page, `/api/control-hide/${i}`, place.body())).toBe(200);
    expect(server.hits(`/api/control-hide/${i}`)[0]?.body, place.name).toContain(place.needle);
  }
});
