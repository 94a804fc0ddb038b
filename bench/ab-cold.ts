import { startTestServer } from '../e2e/fixtures/server';
import { launchAgentBrowser } from '../src/harness';
import { APP, appShell, POLICY, timeColdFetch, workerStopper } from './page';
import { median } from './stats';

/**
 * Cold starts of two or more builds of ours, interleaved, for an A/B on a noisy machine: one browser per
 * build (the bench's task, page and probe), then AB_N rounds, each stopping every build's worker and
 * sending one cold POST to each, in rotating order. Prints each build's p50 and samples, and the median of
 * the paired differences of the first two.
 *
 *   AB_N=12 AB_DIRS=<build A>,<build B> flock /tmp/af-browser.lock npx tsx bench/ab-cold.ts
 */

const N = Number(process.env.AB_N ?? 16);
const dirs = (process.env.AB_DIRS ?? '').split(',');
const server = await startTestServer();
server.setPage('/app', appShell());
const arms = [];
for (const dir of dirs) {
  const browser = await launchAgentBrowser({ extensionPath: dir });
  await browser.setPolicy(POLICY);
  const page = await browser.context.newPage();
  await page.goto(`${server.origin(APP)}/app`);
  for (let i = 0; i < 5; i++) await timeColdFetch(page, `${server.origin(APP)}/w?warm=${i}`);
  arms.push({ dir, browser, page, stopper: await workerStopper({ name: 'guarded', browser }), ms: [] as number[] });
}
let k = 0;
for (let i = 0; i < N; i++) {
  for (let j = 0; j < arms.length; j++) {
    const arm = arms[(i + j) % arms.length]!;
    await arm.stopper.stop();
    arm.ms.push((await timeColdFetch(arm.page, `${server.origin(APP)}/w?cold=${k++}`)).ms);
  }
}
for (const arm of arms) console.log(arm.dir, 'p50', median(arm.ms).toFixed(1), JSON.stringify(arm.ms.map((x) => Math.round(x))));
const [a, b] = arms;
if (a && b) console.log('paired diff p50 (second − first)', median(b.ms.map((x, i) => x - a.ms[i]!)).toFixed(1));
for (const arm of arms) {
  await arm.stopper.close();
  await arm.browser.close();
}
await server.close();
