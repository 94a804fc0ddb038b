import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TaskPolicySchema } from '../../src/core/policy';
import { startMockLlmServer } from '../../src/testkit/mock-llm-server';
import { buildCli, runCli } from './run';

const NO_KEYS = { AGENTSFENCE_API_KEY: '', OPENROUTER_API_KEY: '', OPENAI_API_KEY: '' };

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

function policyFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'af-cli-')), 'P.json');
}

describe('agentsfence (spawned)', () => {
  it('no arguments: usage on stderr, nothing on stdout, exit 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('agentsfence compile');
  });

  it('--help: usage on stdout, exit 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('agentsfence evaluate');
  });

  it('unknown command: "unknown command: X", exit 2', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command: frobnicate');
    expect(r.stdout).toBe('');
  });

  it('explain --help and evaluate --help print help without reading stdin', async () => {
    for (const command of ['explain', 'evaluate']) {
      const r = await runCli([command, '--help'], { timeoutMs: 10_000 });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('agentsfence explain');
    }
  });

  it('compile prints the hardened TaskPolicy JSON with evidence quotes', async () => {
    const r = await runCli(['compile', 'Reply to bob@x.com on mail.test']);
    expect(r.code).toBe(0);
    const policy = TaskPolicySchema.parse(JSON.parse(r.stdout));
    expect(policy.source).toBe('rules');
    expect(policy.evidence).toContainEqual({ ref: 'allow.classes:COMMUNICATION', quote: 'Reply to bob@x.com on mail.test' });
  });

  it('compile --explain prints the policy in plain words, with the user\'s words behind each line (no JSON)', async () => {
    const r = await runCli(['compile', '--explain', 'Email bob@x.com.', "Don't", 'pay', 'anything']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('{');
    expect(r.stdout).toContain('Policy (compiler: rules)');
    expect(r.stdout).toContain('Recipient: bob@x.com.');
    expect(r.stdout).toContain(`Must not pay or buy.  ("Don't pay anything")`);
    expect(r.stdout.split('\n').length).toBeLessThan(25);
  });

  it('compile --compiler openai without a key exits 1 naming the URL; --fallback prints a read-only policy', async () => {
    const r = await runCli(['compile', '--compiler', 'openai', 'Email bob@x.com'], { env: NO_KEYS });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('https://openrouter.ai/api/v1');
    expect(r.stderr).toContain('no API key');
    const fb = await runCli(['compile', '--compiler', 'openai', '--fallback', 'Email bob@x.com'], { env: NO_KEYS });
    expect(fb.code).toBe(0);
    expect(TaskPolicySchema.parse(JSON.parse(fb.stdout)).source).toBe('fallback:read-only');
    expect(fb.stderr).toContain('printed a read-only policy (--fallback)');
    const words = await runCli(['compile', '--compiler', 'openai', '--fallback', '--explain', 'Email bob@x.com'], { env: NO_KEYS });
    expect(words.stdout).toContain('fell back to read-only');
  });

  it('compile --compiler openai with an unreachable --base-url exits 1 naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runCli(['compile', '--compiler', 'openai', '--base-url', url, '--timeout-ms', '3000', 'Email bob@x.com'], { env: NO_KEYS });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(url);
  });

  it('compile --compiler openai against a working model exits 0 with its policy', async () => {
    const llm = await startMockLlmServer(() => ({ content: JSON.stringify({ permissions: [], readDomains: ['news.test'], openWeb: false, prohibitions: [] }) }));
    try {
      const r = await runCli(['compile', '--compiler', 'openai', '--base-url', llm.baseUrl, '--model', 'm', 'Read the news on news.test'], { env: NO_KEYS });
      expect(r.stderr).not.toContain('did not produce a policy');
      expect(r.code).toBe(0);
      expect(TaskPolicySchema.parse(JSON.parse(r.stdout)).source).not.toBe('fallback:read-only');
    } finally {
      await llm.close();
    }
  });

  it('usage errors exit 2: unknown option, unknown compiler, bad --timeout-ms', async () => {
    for (const args of [['compile', '--compiler', 'magic', 'x'], ['compile', '--frobnicate', 'x'], ['compile', '--timeout-ms', 'soon', 'x']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });

  it('evaluate: a malformed JSONL line is reported with its line number, becomes a BLOCK record, and processing continues', async () => {
    const path = policyFile();
    const compiled = await runCli(['compile', 'Reply to bob@x.com on mail.test']);
    writeFileSync(path, compiled.stdout);
    const input = ['{"tool":"send_email","args":{"to":"bob@x.com"}}', '', '{not json', '"a string"', '{"tool":"send_email","args":{"to":"bob@x.com"}}'].join('\n');
    const r = await runCli(['evaluate', '--policy', path], { stdin: input });
    // Nothing lost: every line has its record (the malformed ones BLOCK), and the exit code says some were malformed.
    expect(r.code).toBe(2);
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { decision: string; check: string });
    expect(records.map((x) => x.check)).toEqual(['allowed', 'schema', 'schema', 'allowed']);
    // A JSON syntax error is said once, as such.
    expect(r.stderr.match(/line 3:/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/^agentsfence evaluate: line 3: not JSON \(/m);
    expect(r.stderr).toMatch(/^agentsfence evaluate: line 4: not a tool call/m);
    expect(r.stderr).not.toMatch(/line [125]:/);
    expect(r.stderr).not.toContain('agentsfence: agentsfence');
  });

  it('evaluate --now abc is rejected with exit 2; evaluate without --policy is a usage error', async () => {
    const path = policyFile();
    writeFileSync(path, (await runCli(['compile', 'Read news.test'])).stdout);
    const bad = await runCli(['evaluate', '--policy', path, '--now', 'abc'], { stdin: '' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--now');
    const ok = await runCli(['evaluate', '--policy', path, '--now', '1700000000000'], { stdin: '' });
    expect(ok.code).toBe(0);
    const missing = await runCli(['evaluate'], { stdin: '' });
    expect(missing.code).toBe(2);
  });

  it('explain without --policy names, on stderr, the line of a record it cannot read, and exits 2', async () => {
    const r = await runCli(['explain'], { stdin: '\n{"x":1}\n{oops\n' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^agentsfence explain: line 2: not a decision record \(/m);
    expect(r.stderr).toMatch(/^agentsfence explain: line 3: not JSON \(/m);
  });

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });

  it('--opt=value is accepted like --opt value', async () => {
    const r = await runCli(['compile', '--compiler=rules', '--timeout-ms=5000', 'Read news.test']);
    expect(r.code).toBe(0);
    expect(TaskPolicySchema.parse(JSON.parse(r.stdout)).source).toBe('rules');
  });

  it('bad input is one line on stderr with one prefix, and exit 2: empty request, no request, unreadable policy, not-JSON policy', async () => {
    const notJson = policyFile();
    writeFileSync(notJson, '{"version": 2,');
    const cases: [string[], RegExp][] = [
      [['compile', ''], /^agentsfence compile: the request is empty/],
      [['compile'], /^agentsfence compile: the request is empty/],
      [['compile', '-'], /^agentsfence compile: the request is empty/],
      [['evaluate', '--policy', '/nonexistent/P.json'], /^agentsfence evaluate: cannot read the policy \/nonexistent\/P.json: no such file/],
      [['evaluate', '--policy', notJson], /^agentsfence evaluate: the policy .* is not JSON/],
      [['evaluate', '--policy'], /^agentsfence evaluate: Option '--policy <value>' argument missing/],
      [['browser'], /^agentsfence browser: needs --task/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { stdin: '' });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('compile - reads the request from stdin', async () => {
    const r = await runCli(['compile', '-'], { stdin: 'Reply to bob@x.com on mail.test\n' });
    expect(r.code).toBe(0);
    expect(TaskPolicySchema.parse(JSON.parse(r.stdout)).evidence).toContainEqual({ ref: 'allow.classes:COMMUNICATION', quote: 'Reply to bob@x.com on mail.test' });
  });

  it('a reader that stops early (| head -2) ends the command quietly: no EPIPE, no stack', async () => {
    const path = policyFile();
    writeFileSync(path, (await runCli(['compile', 'Read news.test'])).stdout);
    buildCli();
    const child = spawn(process.execPath, [fileURLToPath(new URL('../../bin/agentsfence.mjs', import.meta.url)), 'explain', '--policy', path], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // The reader takes the first chunk and goes away, as head does.
    child.stdout.once('data', () => child.stdout.destroy());
    const line = '{"tool":"browser.navigate","args":{"url":"https://news.test/"}}\n';
    child.stdin.on('error', () => undefined);
    for (let i = 0; i < 2000; i++) child.stdin.write(line);
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
