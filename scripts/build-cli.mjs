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
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
// The same namespace keeps all of zod/mini's modules (341 kB, 22 ms of a `compile` start's CPU to import on
// a loaded machine, against 59 kB in the extension's rolldown bundle). src/core/zod.ts's `z` is built here
// from the members the sources read (`z.string`, `z.core.$ZodError`, …, found by scanning src/), so
// esbuild keeps only what those use. A name that is no runtime export of zod/mini (a type such as `z.infer`)
// is left out. A member read any other way than `z.name` (`z['name']`, destructuring `z`) would be missing
// at run time: the sources read none so, and tests/cli runs the CLI built by this script. (Measured: the
// zod chunk 341 → 133 kB; `compile`'s process CPU p50 197 → 179 ms and 179 → 170 ms in two runs of 25,
// each beside `node -e 0` at 74 / 67 ms, load 8–14.)
const zodMini = await import('zod/mini');
function zodUsed() {
  const members = new Set();
  const coreMembers = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/\bz\.core\.([A-Za-z_$][\w$]*)/g)) coreMembers.add(m[1]);
        for (const m of text.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) if (m[1] !== 'core') members.add(m[1]);
      }
    }
  };
  walk(join(root, 'src'));
  const runtime = [...members].filter((name) => name in zodMini.z).sort();
  for (const name of coreMembers) if (!(name in zodMini.z.core)) throw new Error(`build-cli: z.core.${name} is not in zod/mini`);
  return [
    `export { ${runtime.join(', ')} } from 'zod/mini';`,
    `import { ${[...coreMembers].join(', ')} } from 'zod/v4/core';`,
    `export const core = { ${[...coreMembers].join(', ')} };`,
  ].join('\n');
}
const zodMembers = {
  name: 'zod-members-used',
  setup(b) {
    // Only src/core/zod.ts's import: zod's own modules import one another directly.
    b.onResolve({ filter: /^zod\/mini$/ }, (args) => (args.importer.endsWith(join('src', 'core', 'zod.ts')) ? { path: 'zod-mini', namespace: 'zod-used' } : undefined));
    b.onResolve({ filter: /^zod-members$/, namespace: 'zod-used' }, () => ({ path: 'zod-members', namespace: 'zod-used' }));
    b.onLoad({ filter: /^zod-mini$/, namespace: 'zod-used' }, () => ({ contents: "import * as z from 'zod-members';\nexport { z };", resolveDir: root, loader: 'js' }));
    b.onLoad({ filter: /^zod-members$/, namespace: 'zod-used' }, () => ({ contents: zodUsed(), resolveDir: root, loader: 'js' }));
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
  plugins: [englishOnly, zodMembers],
  logLevel: 'warning',
});
mkdirSync(outdir, { recursive: true });
const built = readdirSync(staging);
for (const file of [...built.filter((f) => f !== 'main.js'), 'main.js']) renameSync(join(staging, file), join(outdir, file));
// Chunks of older sources (other content hashes) go.
for (const file of readdirSync(outdir)) if (!built.includes(file)) rmSync(join(outdir, file), { force: true });
rmSync(staging, { recursive: true, force: true });
