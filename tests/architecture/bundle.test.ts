import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The extension bundle holds the web guard alone: nothing the extension's entrypoints import, directly
 * or through any chain of imports, is the generic tool-call classifier (src/tools: shell and patch
 * parsers, tool-name tables). Read from the source's import graph, so it fails at the import that adds
 * it, before any build. Dynamic `import()` counts as an import: a service worker cannot load a chunk
 * later, so the bundler puts it in background.js.
 */

const ROOT = resolve(__dirname, '../..');
const ENTRYPOINTS = join(ROOT, 'entrypoints');
const IMPORT = /(?:^|[;\s])(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((p) => existsSync(p) && statSync(p).isFile());
}

/** Every source file and every package reachable from the given files (`swap`: a module the build replaces). */
function importGraph(starts: readonly string[], swap: ReadonlyMap<string, string> = new Map()): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    for (const match of source.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith('.')) {
        const target = resolveLocal(file, specifier);
        if (target !== undefined && /\.tsx?$/.test(target)) queue.push(swap.get(target) ?? target);
      } else {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
      }
    }
  }
  return { files, packages };
}

/** As wxt.config.ts builds the extension: `lazy(name)` evaluates the script, not the module (src/lazy). */
const EXTENSION_SWAP = new Map([[join(ROOT, 'src/lazy/load.ts'), join(ROOT, 'src/lazy/load-extension.ts')]]);
const extension = importGraph(filesUnder(ENTRYPOINTS), EXTENSION_SWAP);
const relativeFiles = [...extension.files].map((f) => relative(ROOT, f));

describe('the extension bundle holds the web guard alone', () => {
  it('reads the whole graph (the decider, the evaluator and the web classifier are in it)', () => {
    expect(relativeFiles).toEqual(expect.arrayContaining(['src/background/decide/decider.ts', 'src/core/evaluator.ts', 'src/core/classifier/web.ts']));
    expect(extension.packages).toContain('zod');
  });

  it('no extension entrypoint reaches the generic tool-call classifier (src/tools)', () => {
    expect(relativeFiles.filter((f) => f.startsWith('src/tools/'))).toEqual([]);
  });

  it('the CLI reaches it (the test would see an import if there were one)', () => {
    const cli = importGraph([join(ROOT, 'src/cli/main.ts')]);
    expect([...cli.files].map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['src/tools/shell.ts', 'src/tools/names.ts', 'src/tools/patch.ts']));
  });

  it('the worker does not carry the openai SDK: only its own script (openai-sdk.js) imports it', () => {
    expect(extension.packages).toContain('openai');
    const worker = importGraph([join(ENTRYPOINTS, 'background.ts')], EXTENSION_SWAP);
    expect(importGraph([join(ENTRYPOINTS, 'model-modes.ts')], EXTENSION_SWAP).files).toContain(join(ROOT, 'src/llm/client.ts'));
    expect(worker.packages).not.toContain('openai');
    expect(importGraph([join(ENTRYPOINTS, 'background.ts')]).packages).toContain('openai');
  });

  it('the worker does not carry the compiler (src/compiler): only its own script (compiler.js) imports it', () => {
    // report.ts is the compile report's schema, a leaf the protocol parses with; not the compiler.
    const inWorker = (graph: Set<string>) => [...graph].map((f) => relative(ROOT, f)).filter((f) => f.startsWith('src/compiler/') && f !== 'src/compiler/report.ts');
    const worker = importGraph([join(ENTRYPOINTS, 'background.ts')], EXTENSION_SWAP);
    expect(worker.files).toContain(join(ROOT, 'src/background/task/compile.ts'));
    expect(inWorker(worker.files)).toEqual([]);
    expect(inWorker(importGraph([join(ENTRYPOINTS, 'compiler.ts')], EXTENSION_SWAP).files)).toContain('src/compiler/index.ts');
    expect(inWorker(importGraph([join(ENTRYPOINTS, 'background.ts')]).files)).toContain('src/compiler/index.ts');
  });

  it("the worker does not carry the popup's and options page's requests (control.js), the audit shipper (collector.js) nor the model modes (model-modes.js)", () => {
    const onDemand = ['src/background/task/control.ts', 'src/org/collector.ts', 'src/org/otlp.ts', 'src/llm/client.ts', 'src/minimizer/model.ts', 'src/sanitizer/model-review.ts'];
    const worker = [...importGraph([join(ENTRYPOINTS, 'background.ts')], EXTENSION_SWAP).files].map((f) => relative(ROOT, f));
    expect(worker).toEqual(expect.arrayContaining(['src/background/intake/router.ts', 'src/org/collector-on-demand.ts', 'src/llm/model-modes-on-demand.ts']));
    expect(worker.filter((f) => onDemand.includes(f))).toEqual([]);
    const control = importGraph([join(ENTRYPOINTS, 'control.ts')]);
    expect([...control.files].map((f) => relative(ROOT, f))).toContain('src/background/task/control.ts');
    // The popup's first request after a wake evaluates it: no schemas, no suffix list.
    expect([...control.packages]).toEqual([]);
    expect([...importGraph([join(ENTRYPOINTS, 'collector.ts')]).files].map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['src/org/collector.ts', 'src/org/otlp.ts']));
    // Without the swap (Node) the same graph holds them: the test would see an import if there were one.
    expect([...importGraph([join(ENTRYPOINTS, 'background.ts')]).files].map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(onDemand));
  });

  it('every schema is zod/mini, imported through src/core/zod.ts (classic zod ships its whole API into each bundle, and mini without the locale there says only "Invalid input")', () => {
    const ZOD_IMPORT = /\bfrom\s+['"]zod(?:\/[^'"]*)?['"]/;
    const direct = [...filesUnder(join(ROOT, 'src')), ...filesUnder(ENTRYPOINTS)].filter((f) => ZOD_IMPORT.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(direct).toEqual(['src/core/zod.ts']);
  });

  it('content scripts (they load in every frame of every page) carry no zod: the background parses what they send', () => {
    // The two scripts the background registers while a task runs (src/background/floor/registration.ts).
    const contentScripts = ['frame-guard.ts', 'page-hooks.ts'];
    for (const name of contentScripts) expect([...importGraph([join(ENTRYPOINTS, name)]).packages], name).not.toContain('zod');
    expect(importGraph([join(ENTRYPOINTS, 'background.ts')]).packages).toContain('zod');
  });
});
