#!/usr/bin/env node
// Runs before `npm run demo`, `npm test` and `npm run bench` (npm's pre-scripts), so both quick-start
// commands work on a fresh clone with nothing but Node 20: installs the locked dependencies when
// node_modules is missing or older than package-lock.json, and Debian's Chromium when it is missing
// and we are root. Otherwise it says exactly what is missing. Plain Node: no dependency of its own.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
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
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  say('installing the locked dependencies (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}

const chromium = process.env.AF_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const hasApt = existsSync('/usr/bin/apt-get');
  if (process.env.AF_CHROMIUM === undefined && hasApt && process.getuid?.() === 0) {
    say("installing Debian's chromium (apt-get install -y chromium); Playwright's own browser download is not used…");
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    fail(
      `no Chromium at ${chromium}. Install Debian's chromium (as root: apt-get install -y chromium) or point AF_CHROMIUM at a Chromium binary.`,
    );
  }
}
