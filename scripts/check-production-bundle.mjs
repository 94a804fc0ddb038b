#!/usr/bin/env node
// Fails when an extension build contains the harness channel (src/background/platform/harness-channel.ts).
// `npm run build` and `npm pack` run it on .output/chrome-mv3, the build users load; the e2e suite runs
// it on its own production build and, as a positive control, on the harness build (which must fail).
// Usage: node scripts/check-production-bundle.mjs [DIR]   (default .output/chrome-mv3)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The channel's global (the bridge's `__agentsfence_bridge_v1` handshake key is not it), and the
// strings only the channel's setPolicy writes.
const MARKERS = [/__agentsfence\b/, /test-hook/, /policy set by the test hook/];

const dir = process.argv[2] ?? join(import.meta.dirname, '..', '.output', 'chrome-mv3');
const hits = [];
for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|mjs|html|json)$/.test(entry.name)) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  for (const marker of MARKERS) if (marker.test(text)) hits.push(`${relative(dir, file)}: ${marker.source}`);
}
if (hits.length > 0) {
  process.stderr.write(`check-production-bundle: ${dir} contains the harness channel:\n  ${hits.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`check-production-bundle: ${dir}: no harness channel\n`);
