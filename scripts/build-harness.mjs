// Builds the `agentsfence/harness` export: tsc (tsconfig.harness.json) to dist/, then gives relative
// specifiers their `.js` extension, which Node ESM and TypeScript's node16/nodenext resolution need
// (the sources use extensionless imports, as the bundler-based extension build expects).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.harness.json')], { stdio: 'inherit' });

const RELATIVE = /(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)(?<!\.js)\2/g;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|d\.ts)$/.test(entry.name)) continue;
  const file = join(entry.parentPath, entry.name);
  const source = readFileSync(file, 'utf8');
  writeFileSync(file, source.replace(RELATIVE, (_m, lead, quote, spec) => `${lead}${quote}${spec}.js${quote}`));
}
