#!/usr/bin/env node
// `npm test`: the type check, ESLint and Vitest at the same time, then the Playwright e2e suite.
// tsc and ESLint are one thread each: one after another, with Vitest after them, a core sat idle while
// each ran. The e2e suite runs only once all three passed, and alone: its waits are timed, so it gets the
// cores to itself. Each check's output is printed whole when it ends, so the three never interleave.
// Plain Node: no dependency of its own. Extra arguments go to `playwright test`.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Runs a check with its output kept; resolves with its exit code once it has printed that output. */
function check(name, command, args) {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.once('close', (code, signal) => {
      const status = code ?? (signal === null ? 1 : 128);
      process.stdout.write(`\n── ${name}: ${status === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds(started)}\n`);
      process.stdout.write(Buffer.concat(output));
      done(status);
    });
  });
}

const started = Date.now();
const codes = await Promise.all([check('tsc --noEmit', bin('tsc'), ['--noEmit']), check('eslint .', bin('eslint'), ['.']), check('vitest run', bin('vitest'), ['run'])]);
process.stdout.write(`\n── checks done in ${seconds(started)}\n`);
if (codes.some((code) => code !== 0)) process.exit(1);

const e2e = spawn(bin('playwright'), ['test', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
e2e.once('close', (code, signal) => {
  process.stdout.write(`\n── npm test: e2e ${code === 0 ? 'passed' : 'FAILED'}; ${seconds(started)} in all\n`);
  process.exit(code ?? (signal === null ? 1 : 128));
});
