import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/agentsfence.mjs', import.meta.url));

let built = false;
/** The compiled CLI from the sources as they are now (bin/ runs dist/cli): built once per test file. */
export function buildCli(): void {
  if (built) return;
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build-cli.mjs', import.meta.url))], { stdio: 'inherit' });
  built = true;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI (`node bin/agentsfence.mjs …`) as a user would. `stdin` undefined leaves stdin
 * open and never written, so a command that waits on it is caught by the timeout.
 */
export function runCli(args: string[], opts: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  buildCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...opts.env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`agentsfence ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 15_000} ms (waiting on stdin?)`));
    }, opts.timeoutMs ?? 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
  });
}

/** `agentsfence browser` as a child process, until it prints its CDP endpoint. */
export interface BrowserCli {
  child: import('node:child_process').ChildProcessWithoutNullStreams;
  cdpUrl: string;
  /** Everything it wrote on stderr so far (the policy, the approvals). */
  stderr(): string;
  close(): Promise<void>;
}

export async function startBrowserCli(args: string[], env: Record<string, string>): Promise<BrowserCli> {
  buildCli();
  const child = spawn(process.execPath, [BIN, 'browser', ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const cdpUrl = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = /^cdp: (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (line) resolveUrl(line[1]!);
    });
    child.once('exit', (code) => reject(new Error(`agentsfence browser exited ${code}: ${stderr}`)));
    setTimeout(() => reject(new Error(`no cdp line within 60 s: ${stderr}`)), 60_000);
  });
  return {
    child,
    cdpUrl,
    stderr: () => stderr,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
}
