// Builds the CLI `bin/agentsfence.mjs` runs: src/cli/main.ts bundled with esbuild into dist/cli (ESM, one
// chunk per command's lazy import). Compiled once here, so a start reads a few files of JavaScript instead
// of transpiling the TypeScript sources (1 s with tsx at every start). The small dependencies every
// command loads (zod/mini: hundreds of ES modules to resolve; tldts; ipaddr.js) are bundled too; the
// large ones only `browser` or `--compiler openai` loads stay imports.
// Runs in `npm run prepare` after the harness build (which empties dist/). Builds may run at the same time
// (test workers): each writes to a directory of its own and renames its files into dist/cli, main.js last,
// so a CLI starting meanwhile reads whole files; chunk names are content hashes, so the same sources give
// the same names.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');

// zod/mini's `z` namespace carries `z.locales`, every language's messages (370 kB, a third of what
// `compile` loads); esbuild keeps a whole namespace that is used as a value, as `z` is. The CLI uses one
// locale, English (src/core/zod.ts), so zod's locale index here offers that one. `compile`'s process CPU
// (user + system, p50, before → after, each beside a bare `node -e 0`, on a loaded shared machine):
// 256.5 → 229.6 ms (15 runs; node 82.2 ms) and 199.5 → 179.2 ms (25 runs; node 67.9 ms).
const englishOnly = {
  name: 'zod-locales-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};
const outdir = join(root, 'dist/cli');
const staging = join(root, 'dist', `.cli-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'src/cli/main.ts')],
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@playwright/test', 'playwright-core', 'ws', 'openai'],
  // The build flag the extension's bundler defines (src/build-flags.d.ts): the CLI is no extension build.
  define: { __AF_HARNESS__: 'false' },
  plugins: [englishOnly],
  logLevel: 'warning',
});
mkdirSync(outdir, { recursive: true });
const built = readdirSync(staging);
for (const file of [...built.filter((f) => f !== 'main.js'), 'main.js']) renameSync(join(staging, file), join(outdir, file));
// Chunks of older sources (other content hashes) go.
for (const file of readdirSync(outdir)) if (!built.includes(file)) rmSync(join(outdir, file), { force: true });
rmSync(staging, { recursive: true, force: true });
