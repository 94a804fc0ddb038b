#!/usr/bin/env node
// Runs before `npm run demo`, `npm test` and `npm run bench` (npm's pre-scripts), so both quick-start
// commands work on a fresh clone with nothing but Node 20: installs the locked dependencies when
// node_modules is missing or older than package-lock.json, and Debian's Chromium when it is missing
// and we are root. Otherwise it says exactly what is missing. Plain Node: no dependency of its own.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => process.stderr.write(`setup: ${line}\n`);
const fail = (line) => {
  say(line);
  process.exit(1);
};

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) fail(`Node ${process.versions.node} is too old: AgentsFence needs Node 20.19 or newer.`);

const installed = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const modules = join(root, 'node_modules');
if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) {
  // A node_modules linked from another checkout (a second working copy sharing one install): npm ci would
  // empty the checkout it points to, so an outdated link is said, not reinstalled.
  if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) say('node_modules is a link to another install; not reinstalling it (run npm ci where it points if the lock changed).');
} else if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  say('installing the locked dependencies (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

const hasApt = existsSync('/usr/bin/apt-get');
const isRoot = process.getuid?.() === 0;

/** Installs a Debian package for a missing binary when we may (root, apt), else says exactly what to do. */
function ensurePackage(path, envName, pkg, why) {
  if (existsSync(path)) return;
  if (process.env[envName] === undefined && hasApt && isRoot) {
    say(`installing Debian's ${pkg} (apt-get install -y ${pkg}) ${why}…`);
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    fail(`no ${pkg} at ${path}. Install Debian's ${pkg} (as root: apt-get install -y ${pkg}) or point ${envName} at its binary.`);
  }
}

ensurePackage(process.env.AF_CHROMIUM ?? '/usr/bin/chromium', 'AF_CHROMIUM', 'chromium', "(Playwright's own browser download is not used)");
// Only the test suite drives Firefox (e2e/firefox.spec.ts, over WebDriver BiDi).
if (process.env.npm_lifecycle_event === 'pretest') {
  ensurePackage(process.env.AF_FIREFOX ?? '/usr/bin/firefox-esr', 'AF_FIREFOX', 'firefox-esr', 'for the Firefox e2e suite');
  // e2e/fixtures/https-server.ts makes its self-signed certificate with openssl.
  ensurePackage(process.env.AF_OPENSSL ?? '/usr/bin/openssl', 'AF_OPENSSL', 'openssl', 'for the e2e HTTPS fixture');
}
