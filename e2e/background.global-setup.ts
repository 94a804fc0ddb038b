import { buildExtension } from './fixtures/extension';

/**
 * Playwright globalSetup: build the extension variants once per run (the harness build, the
 * AF_NO_MAIN_HOOKS control and the production build, each ~5 s), then let every spec reuse them
 * (AF_E2E_REUSE_BUILD reaches the workers). The e2e builds live in .output/e2e-*, so `npm run build`'s
 * .output/chrome-mv3 is never overwritten.
 */
export default function globalSetup(): void {
  const started = Date.now();
  buildExtension('full');
  buildExtension('nohooks');
  buildExtension('production');
  process.env.AF_E2E_REUSE_BUILD = '1';
  console.log(`e2e: extension builds ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
