#!/usr/bin/env node
// Runs the compiled CLI in dist/cli (scripts/build-cli.mjs; `npm install` in a clone builds it through
// `prepare`, and the package ships it). No TypeScript is transpiled at start.
import { URL } from 'node:url';
const compiled = new URL('../dist/cli/main.js', import.meta.url);
let cli;
try {
  cli = await import(compiled.href);
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(compiled.pathname)) throw err;
  process.stderr.write('agentsfence: the compiled CLI (dist/cli/main.js) is missing: run `npm run build:cli` (`npm install` runs it in a clone).\n');
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2));
