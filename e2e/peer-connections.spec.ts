import { createSocket, type Socket } from 'node:dgram';
import type { AgentBrowser } from '../src/harness';
import { expect, test } from './fixtures/extension';
import type { TestServer } from './fixtures/server';
import { ALLOWED_HOST, VECTOR_POLICY } from './vectors';

/**
 * WebRTC (issue 11, class 3), semantic layer: a page makes its peer connection send a STUN binding
 * request to a UDP "STUN server" on loopback (the attacker's). Judged by what that UDP socket receives.
 * Without the extension the packet arrives (negative control); with the extension during a task the
 * ICE server is decided first (an IP literal the task does not name: asked, denied) and nothing arrives.
 */

let udp: Socket;
let udpPort = 0;
const packets: Buffer[] = [];

test.beforeAll(async ({ server }) => {
  server.setPage('/rtc', '<!doctype html><title>rtc</title>');
  udp = createSocket('udp4');
  udp.on('message', (message) => packets.push(message));
  await new Promise<void>((done) => udp.bind(0, '127.0.0.1', done));
  udpPort = udp.address().port;
});
test.afterAll(async () => {
  udp.close();
});

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function gather(browser: AgentBrowser, server: TestServer): Promise<string> {
  const page = await browser.context.newPage();
  await page.goto(`${server.origin(ALLOWED_HOST)}/rtc`);
  const outcome = await page.evaluate(async (port) => {
    const connection = new RTCPeerConnection({ iceServers: [{ urls: `stun:127.0.0.1:${port}` }] });
    connection.createDataChannel('x');
    try {
      await connection.setLocalDescription(await connection.createOffer());
      return 'gathering';
    } catch (error) {
      return error instanceof DOMException ? error.name : String(error);
    }
  }, udpPort);
  await sleep(2_000);
  await page.close();
  return outcome;
}

test('without the extension: the STUN request reaches the attacker (negative control)', async ({ launchFence, server }) => {
  const browser = await launchFence({ extension: false });
  packets.length = 0;
  expect(await gather(browser, server)).toBe('gathering');
  expect(packets.length).toBeGreaterThan(0);
});

test('with the extension during a task: the ICE server is decided first, denied, and nothing is sent', async ({ launchFence, server }) => {
  const browser = await launchFence();
  await browser.setPolicy(VECTOR_POLICY);
  packets.length = 0;
  const outcome = gather(browser, server);
  await sleep(1_000);
  for (const approval of await browser.pendingApprovals()) await browser.answer(approval.id, 'deny');
  expect(await outcome).toBe('NotAllowedError');
  expect(packets.length).toBe(0);
});
