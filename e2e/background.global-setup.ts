import { chromeBuildJob, runBuilds } from './fixtures/extension';
import { firefoxBuildJob } from './fixtures/firefox';

/**
 * Playwright globalSetup: build the extension variants once per run, all at the same time (the harness
 * build, the AF_NO_MAIN_HOOKS control, the production build and the two Firefox builds: ~17 s together
 * on 2 cores, ~40 s one after another), then let every spec reuse them (AF_E2E_REUSE_BUILD reaches the
 * workers). Building here also means no spec runs wxt while another worker does. The e2e builds live in
 * .output/e2e-*, so `npm run build`'s .output/chrome-mv3 is never overwritten.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  await runBuilds([chromeBuildJob('full'), chromeBuildJob('nohooks'), chromeBuildJob('production'), firefoxBuildJob('full'), firefoxBuildJob('nohooks')]);
  process.env.AF_E2E_REUSE_BUILD = '1';
  console.log(`e2e: extension builds ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
