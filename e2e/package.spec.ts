import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeOfflineLock } from './fixtures/offline-install';

/**
 * The harness as a package: `npm pack` (prepack builds the extension and dist/), install the tarball
 * into a fresh project without the registry, then run the README's example with plain `node` and
 * type-check a TypeScript use of `agentsfence/harness` under nodenext resolution.
 */

const ROOT = resolve(import.meta.dirname, '..');
test.setTimeout(240_000);

function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const match = /<!-- harness-example -->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (match === null) throw new Error('README has no harness example');
  return match[1]!;
}

test('npm pack → offline install into a fresh project → the README example runs under plain node; types resolve', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'af-package-'));
  try {
    execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    const app = join(dir, 'app');
    mkdirSync(app);
    writeOfflineLock(ROOT, app, join(dir, tarball));
    execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });

    writeFileSync(join(app, 'example.mjs'), readmeExample());
    const out = execFileSync(process.execPath, ['example.mjs'], { cwd: app, encoding: 'utf8', timeout: 60_000 });
    expect(out).toContain('net::ERR_BLOCKED_BY_CLIENT');
    expect(out).toMatch(/Blocked by AgentsFence \(domain_allowlist: /);
    expect(out).toMatch(/BLOCK domain_allowlist/);

    writeFileSync(
      join(app, 'typed.ts'),
      [
        "import { launchAgentBrowser, type AgentBrowser } from 'agentsfence/harness';",
        'const fence: AgentBrowser = await launchAgentBrowser({ askTimeoutSeconds: 10 });',
        'const id: string | null = fence.extensionId;',
        '// @ts-expect-error a task is words, not a number',
        'await fence.setTask(42);',
        "const decision: 'ALLOW' | 'BLOCK' | 'ASK_USER' | undefined = (await fence.audit())[0]?.record.decision;",
        'console.log(id, decision);',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['typed.ts'] }),
    );
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', app], { cwd: app, stdio: 'inherit' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
