import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Builds the extension when its output is missing or older than the sources it is built from: the
 * harness builds the demo drives through the harness channel, `.output/harness/chrome-mv3` (the product
 * plus the channel) and `.output/nohooks/chrome-mv3` (the control without MAIN-world hooks). The
 * production build (.output/chrome-mv3) has no channel and is not used here.
 */

export const ROOT = resolve(import.meta.dirname, '..');
export const EXTENSION_DIR = join(ROOT, '.output', 'harness', 'chrome-mv3');
export const NO_HOOKS_EXTENSION_DIR = join(ROOT, '.output', 'nohooks', 'chrome-mv3');

const SOURCES = ['src', 'entrypoints', 'public', 'wxt.config.ts', 'package.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isStale(outDir: string): boolean {
  const manifest = join(outDir, 'manifest.json');
  if (!existsSync(manifest)) return true;
  const built = statSync(manifest).mtimeMs;
  return SOURCES.some((s) => newestMtime(join(ROOT, s)) > built);
}

export function ensureBuilt(log: (line: string) => void): void {
  if (isStale(EXTENSION_DIR)) {
    log('Building the extension with the harness channel (AF_HARNESS=1)…');
    execFileSync('npx', ['wxt', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, AF_HARNESS: '1' } });
  }
  if (isStale(NO_HOOKS_EXTENSION_DIR)) {
    log('Building the control variant without MAIN-world hooks (AF_NO_MAIN_HOOKS=1)…');
    execFileSync('npx', ['wxt', 'build'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, AF_NO_MAIN_HOOKS: '1' } });
  }
}
