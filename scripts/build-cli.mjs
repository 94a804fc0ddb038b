// Builds the CLI `bin/agentsfence.mjs` runs: src/cli/main.ts bundled with esbuild into dist/cli (ESM, one
// chunk per command's lazy import). Compiled once here, so a start reads a few files of JavaScript instead
// of transpiling the TypeScript sources (1 s with tsx at every start). The small dependencies every
// command loads (zod/mini: hundreds of ES modules to resolve; tldts; ipaddr.js) are bundled too; the
// large ones only `browser` or `--compiler openai` loads stay imports.
// Runs in `npm run prepare` after the harness build (which empties dist/).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const outdir = join(root, 'dist/cli');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'src/cli/main.ts')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@playwright/test', 'playwright-core', 'ws', 'openai'],
  // The build flags the extension's bundler defines (src/build-flags.d.ts): the CLI is no extension build.
  define: { __AF_HARNESS__: 'false' },
  logLevel: 'warning',
});
