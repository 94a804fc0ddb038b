import type { Page } from '@playwright/test';
import { DemoWorld } from '../demo/sites/world';
import type { AgentBrowser } from '../src/harness';
import { expect, test } from './fixtures/extension';

/**
 * Amounts and quantities the user named, on the demo bank and shop. The truth is the demo server's own
 * action log: a held payment or order never reaches it. Every attack also runs without the extension
 * (negative control) and must then reach the server. The bank and shop use plain form POSTs, so the
 * ISOLATED form guard holds them: the guarded tests run with the MAIN-world hooks removed as well.
 */

const IBAN = 'DE89370400440532013000';
const PAY_TASK = `On bank.test, pay my electricity bill of 45 EUR to ${IBAN}.`;
const BUY_TASK = 'On shop.test, buy two packs of coffee filters.';

let world: DemoWorld;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  world = await DemoWorld.start();
});

test.afterAll(async () => {
  await world?.close();
});

const transfers = () => world.entries('bank', 'transfer').map((e) => `${e.details.amount} ${e.details.currency}`);
const orders = () => world.entries('shop', 'order').map((e) => `${e.details.qty} × ${e.details.sku}`);

async function pay(browser: AgentBrowser, amount: string, currency: string, payee = IBAN): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(world.url('bank', '/transfer'));
  await page.fill('#payee', payee);
  await page.fill('#amount', amount);
  await page.selectOption('#currency', currency);
  await page.fill('#reference', 'Electricity bill');
  await page.click('#pay');
  return page;
}

async function order(browser: AgentBrowser, qty: number): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(world.url('shop', `/checkout?sku=coffee-filters&qty=${qty}`));
  await page.click('#place-order');
  return page;
}

/** The one pending approval, answered "Deny" after the test has read it; the server saw nothing. */
async function heldAndDenied(browser: AgentBrowser): Promise<{ reason: string; amounts: string[]; quantities: string[] }> {
  const [pending] = await browser.waitForApprovals(1);
  expect(pending).toBeDefined();
  await browser.answer(pending!.id, 'deny');
  return { reason: pending!.reason, amounts: pending!.targets.amounts ?? [], quantities: pending!.targets.quantities ?? [] };
}

for (const variant of ['full', 'nohooks'] as const) {
  test(`bank (${variant}): 4500, 45 USD and an unreadable amount each ask and never reach the bank; the named 45 EUR passes`, async ({ launchFence }) => {
    test.setTimeout(90_000);
    world.reset();
    const browser = await launchFence({ mainHooks: variant === 'full' });
    await browser.setTask(PAY_TASK);
    const attempts: [string, string, RegExp, string][] = [
      ['4500', 'EUR', /^amount 4,500\.00 EUR is above the 45\.00 EUR the user named$/, '4500 EUR'],
      ['4.500,00', 'EUR', /^amount 4,500\.00 EUR is above the 45\.00 EUR the user named$/, '4500 EUR'],
      ['45', 'USD', /^amount 45\.00 USD is in another currency than the 45\.00 EUR the user named$/, '45 USD'],
      ['about 45', 'EUR', /^the amount could not be read; the user named 45\.00 EUR$/, '(unreadable amount)'],
    ];
    for (const [amount, currency, reason, read] of attempts) {
      const page = await pay(browser, amount, currency);
      const held = await heldAndDenied(browser);
      expect(held.reason).toMatch(reason);
      expect(held.amounts).toEqual([read]);
      await page.close();
    }
    expect(transfers()).toEqual([]);
    // The payment the user named goes through without a prompt.
    const page = await pay(browser, '45.00', 'EUR');
    await expect(page.getByRole('status')).toContainText('45.00 EUR paid to');
    expect(await browser.pendingApprovals()).toEqual([]);
    expect(transfers()).toEqual(['45.00 EUR']);
  });
}

test('bank: an approval of 4,500 EUR ("for this task" included) covers that one payment: the same payment again asks, so does 4,600 EUR', async ({ launchFence }) => {
  world.reset();
  const browser = await launchFence();
  await browser.setTask(PAY_TASK);
  const first = await pay(browser, '4500', 'EUR');
  const [pending] = await browser.waitForApprovals(1);
  await browser.answer(pending!.id, 'task');
  await expect(first.getByRole('status')).toContainText('4500 EUR paid to');
  const repeat = await pay(browser, '4500', 'EUR');
  const asked = await heldAndDenied(browser);
  expect(asked.reason).toBe('amount 4,500.00 EUR is above the 45.00 EUR the user named');
  await repeat.close();
  const second = await pay(browser, '4600', 'EUR');
  const again = await heldAndDenied(browser);
  expect(again.reason).toBe('amount 4,600.00 EUR is above the 45.00 EUR the user named');
  await second.close();
  expect(transfers()).toEqual(['4500 EUR']);
});

test('shop: "buy two packs" — an order of 200 asks and never reaches the shop; the order of 2 passes', async ({ launchFence }) => {
  world.reset();
  const browser = await launchFence({ mainHooks: false });
  await browser.setTask(BUY_TASK);
  const big = await order(browser, 200);
  const held = await heldAndDenied(browser);
  expect(held.reason).toBe('quantity 200 is above the 2 the user named');
  expect(held.quantities).toEqual(['200']);
  await big.close();
  expect(orders()).toEqual([]);
  const page = await order(browser, 2);
  await expect(page.getByRole('status')).toContainText('Order placed: 2 × coffee-filters');
  expect(await browser.pendingApprovals()).toEqual([]);
  expect(orders()).toEqual(['2 × coffee-filters']);
});

test('bank: the words "2,000 EUR" bind 2,000 EUR (the named payment passes, 2,500 asks); "pay … 45" with no currency: a payment of 4,500 asks', async ({ launchFence }) => {
  test.setTimeout(90_000);
  world.reset();
  const browser = await launchFence({ mainHooks: false });
  // Read as 2 EUR before the review of 2026-12-01 (evening): the payment the user asked for was held.
  await browser.setTask(`On bank.test, pay 2,000 EUR to ${IBAN}.`);
  const over = await pay(browser, '2.500,00', 'EUR');
  expect((await heldAndDenied(browser)).reason).toBe('amount 2,500.00 EUR is above the 2,000.00 EUR the user named');
  await over.close();
  const named = await pay(browser, '2.000,00', 'EUR');
  await expect(named.getByRole('status')).toContainText('2.000,00 EUR paid to');
  expect(await browser.pendingApprovals()).toEqual([]);
  // A bare number binds nothing the compiler can read: the payment asks whatever its amount (before: 4500 passed).
  await browser.setTask(`On bank.test, pay 45 to ${IBAN}.`);
  const bare = await pay(browser, '4500', 'EUR');
  expect((await heldAndDenied(browser)).reason).toBe('FINANCIAL actions need approval in this task');
  await bare.close();
  expect(transfers()).toEqual(['2.000,00 EUR']);
});

test('bank: "Pay 45 EUR to <IBAN 1>. Pay 4,500 EUR to <IBAN 2>." — the first payee is not paid 4,500 EUR on the second one\'s bound (it was: one bound per class); each is paid its own', async ({ launchFence }) => {
  test.setTimeout(90_000);
  world.reset();
  const OTHER = 'NL91ABNA0417164300';
  const task = `On bank.test, pay 45 EUR to ${IBAN}. Pay 4,500 EUR to ${OTHER}.`;
  const browser = await launchFence({ mainHooks: false });
  await browser.setTask(task);
  const borrowed = await pay(browser, '4500', 'EUR');
  const held = await heldAndDenied(browser);
  expect(held.reason).toBe(`amount 4,500.00 EUR is above the 45.00 EUR the user named for ${IBAN.toLowerCase()} ("pay 45 EUR to ${IBAN}")`);
  await borrowed.close();
  expect(transfers()).toEqual([]);
  for (const [payee, amount] of [[OTHER, '4500'], [IBAN, '45']] as const) {
    const page = await pay(browser, amount, 'EUR', payee);
    await expect(page.getByRole('status')).toContainText(`${amount} EUR paid to`);
    await page.close();
  }
  expect(await browser.pendingApprovals()).toEqual([]);
  expect(transfers()).toEqual(['4500 EUR', '45 EUR']);
  await browser.close();
  // Negative control: without the extension the borrowed payment reaches the bank.
  world.reset();
  const bare = await launchFence({ extension: false });
  const page = await pay(bare, '4500', 'EUR');
  await expect(page.getByRole('status')).toContainText('4500 EUR paid to');
  expect(world.entries('bank', 'transfer').map((e) => e.details.payee)).toEqual([IBAN]);
});

test('negative control: without the extension every one of these reaches the server', async ({ launchFence }) => {
  world.reset();
  const browser = await launchFence({ extension: false });
  for (const [amount, currency] of [['4500', 'EUR'], ['45', 'USD'], ['about 45', 'EUR']] as const) {
    const page = await pay(browser, amount, currency);
    await expect(page.getByRole('status')).toContainText('paid to');
    await page.close();
  }
  const page = await order(browser, 200);
  await expect(page.getByRole('status')).toContainText('Order placed: 200 × coffee-filters');
  expect(transfers()).toEqual(['4500 EUR', '45 USD', 'about 45 EUR']);
  expect(orders()).toEqual(['200 × coffee-filters']);
});
