import { expect, test } from './fixtures/extension';
import fc from 'fast-check';

/**
 * ≥ 1,000 random and malformed messages to the background through chrome.runtime.sendMessage from an
 * extension page an agent's tab can show (the blocked-navigation page): every one is BLOCKed (or, for a
 * page message, refused) and audited, and the same worker is alive afterwards.
 */

const COUNT = 1_200;

/** Messages that cannot parse: non-objects, or objects with a key no strict schema allows. */
function malformedMessages(count: number): unknown[] {
  const types = fc.constantFrom('proposal', 'task.start', 'task.end', 'approval.answer', 'audit.list', 'options.set', 'nope', '');
  const call = fc.record({ tool: fc.oneof(fc.string(), fc.integer()), args: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()) }, { requiredKeys: [] });
  const objectMessage = fc
    .record({ type: fc.oneof(types, fc.jsonValue()), id: fc.oneof(fc.string({ maxLength: 80 }), fc.integer()), call, layer: fc.constantFrom('main', 'isolated', 'x'), answer: fc.string() }, { requiredKeys: [] })
    .map((m) => ({ ...m, unexpected: true }));
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue(), { maxLength: 5 }));
  return fc.sample(fc.oneof(objectMessage, scalar), { numRuns: count, seed: 4242 });
}

test(`${COUNT} malformed messages: every one BLOCKed and audited, worker alive`, async ({ fence: browser }) => {
  test.setTimeout(180_000);
  // An extension page with the runtime API, opened before the task (a guarded tab may not open one; the
  // blocked page, which it may, is sandboxed and has none).
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${browser.extensionId}/options.html`);
  await browser.setPolicy({ version: 1, taskId: 't-fuzz', issuedAt: 0, expiresAt: null, domains: ['app.test'] });
  await browser.serviceWorker!.evaluate(() => ((globalThis as Record<string, unknown>).__mark = 'same-worker'));
  const auditBefore = (await browser.audit({ limit: 10_000 })).length;

  const messages = malformedMessages(COUNT);
  expect(messages).toHaveLength(COUNT);
  const answers = await page.evaluate(async (all) => {
    const send = (m: unknown) => (globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }).chrome.runtime.sendMessage(m);
    const out: unknown[] = [];
    for (let i = 0; i < all.length; i += 50) out.push(...(await Promise.all(all.slice(i, i + 50).map((m) => send(m).catch((e: unknown) => ({ thrown: String(e) }))))));
    return out;
  }, messages);

  const refused = answers.filter((a) => {
    const r = a as { decision?: string; check?: string; ok?: boolean; code?: string };
    return (r.decision === 'BLOCK' && r.check === 'schema') || (r.ok === false && r.code === 'invalid-message');
  });
  expect(refused).toHaveLength(COUNT);
  const auditAfter = (await browser.audit({ limit: 10_000 })).length;
  expect(auditAfter - auditBefore).toBe(COUNT);
  expect(await browser.serviceWorker!.evaluate(() => (globalThis as Record<string, unknown>).__mark)).toBe('same-worker');
  expect((await browser.snapshot()).task?.taskId).toBe('t-fuzz');
});
