// What the extension's bundles are made of: builds with source maps into .output/bundle-report and
// attributes every byte of each minified script to its source (a package, or a file of ours).
// Usage: node scripts/bundle-report.mjs [top=12]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { join, relative, resolve } from 'node:path';
import { SourceMapConsumer } from 'source-map-js';
import { build } from 'wxt';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, '.output', 'bundle-report');
const top = Number(process.argv[2] ?? 12);
const quiet = { ...console, debug() {}, info() {}, log() {}, success() {}, warn: console.warn, error: console.error, fatal: console.error, fail: console.error, ready() {}, start() {}, box() {}, trace() {}, verbose() {}, level: 1 };
await build({ outDir: OUT, logger: quiet, vite: () => ({ build: { sourcemap: true } }) });

function scripts(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return scripts(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

function groupOf(source) {
  const at = source.lastIndexOf('node_modules/');
  if (at < 0) return source.replace(/^(\.\.\/)+/, '');
  const [scope, name] = source.slice(at + 'node_modules/'.length).split('/');
  return `npm:${scope.startsWith('@') ? `${scope}/${name}` : scope}`;
}

const dir = join(OUT, 'chrome-mv3');
for (const file of scripts(dir)) {
  const code = readFileSync(file, 'utf8');
  const lines = code.split('\n');
  const mappings = [];
  new SourceMapConsumer(JSON.parse(readFileSync(`${file}.map`, 'utf8'))).eachMapping((m) => mappings.push(m));
  mappings.sort((a, b) => a.generatedLine - b.generatedLine || a.generatedColumn - b.generatedColumn);
  const bytes = new Map();
  mappings.forEach((m, i) => {
    const next = mappings[i + 1];
    const end = next !== undefined && next.generatedLine === m.generatedLine ? next.generatedColumn : lines[m.generatedLine - 1].length;
    const group = m.source === null ? '(bundler)' : groupOf(m.source);
    bytes.set(group, (bytes.get(group) ?? 0) + end - m.generatedColumn);
  });
  const size = Buffer.byteLength(code.replace(/\n\/\/# sourceMappingURL=.*\n?$/, ''));
  console.log(`\n${relative(dir, file)}  ${(size / 1000).toFixed(1)} kB`);
  for (const [group, n] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(n / 1000).toFixed(1).padStart(7)} kB  ${((100 * n) / size).toFixed(1).padStart(5)} %  ${group}`);
}
