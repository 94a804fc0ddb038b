import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startCdpProxy } from '../cdp-proxy/proxy';
import { DEFAULT_BASE_URL, DEFAULT_MODEL } from '../compiler';
import { HARNESS_BUILD, PACKAGE_ROOT, type ApprovalAnswer } from '../harness';
import type { PendingApproval } from '../messages/protocol';
import { UsageError } from './main';
import { launchPipeBrowser, type PipeBrowser } from './pipe-browser';

interface BrowserArgs {
  task: string;
  compiler: 'rules' | 'openai';
  baseUrl: string;
  model: string;
  headed: boolean;
  port: number;
  askTimeoutSeconds?: number;
}

function parseArgs(argv: string[]): BrowserArgs {
  const args: BrowserArgs = { task: '', compiler: 'rules', baseUrl: DEFAULT_BASE_URL, model: DEFAULT_MODEL, headed: false, port: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    const whole = (v: string, min: number, max: number) => {
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${arg} must be a whole number from ${min} to ${max}, got "${v}"`);
      return n;
    };
    if (arg === '--task') args.task = value();
    else if (arg === '--compiler') {
      const v = value();
      if (v !== 'rules' && v !== 'openai') throw new UsageError(`unknown compiler: ${v}`);
      args.compiler = v;
    } else if (arg === '--base-url') args.baseUrl = value();
    else if (arg === '--model') args.model = value();
    else if (arg === '--headed') args.headed = true;
    else if (arg === '--headless') args.headed = false;
    else if (arg === '--port') args.port = whole(value(), 0, 65535);
    else if (arg === '--ask-timeout') args.askTimeoutSeconds = whole(value(), 5, 3600);
    else throw new UsageError(`unknown option for browser: ${arg}`);
  }
  if (args.task.trim() === '') throw new UsageError('browser needs --task "<what the user asked for>"');
  return args;
}

/** The harness build when it has not been built (a clone); the package ships it. */
function ensureBuilt(): void {
  if (existsSync(join(HARNESS_BUILD, 'manifest.json'))) return;
  process.stderr.write('agentsfence: building the extension (first run)…\n');
  execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['wxt', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, AF_HARNESS: '1' } });
}

const ANSWERS: Record<string, ApprovalAnswer> = { y: 'once', yes: 'once', n: 'deny', no: 'deny', a: 'task', always: 'task' };

/**
 * Headless approvals in the terminal: each pending request is printed and answered with y (allow
 * once), n (deny) or always (allow for this task). stdin is the user's terminal, never the agent's.
 */
function approveInTerminal(fence: PipeBrowser): () => void {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | null = null;
  rl.on('line', (line) => (waiting ? waiting(line) : lines.push(line)));
  const nextLine = () => new Promise<string>((r) => (lines.length > 0 ? r(lines.shift()!) : (waiting = (l) => ((waiting = null), r(l)))));
  const asked = new Set<string>();
  let stopped = false;

  const ask = async (p: PendingApproval): Promise<void> => {
    process.stderr.write(
      `\nAgentsFence asks: ${p.tool} → ${p.destination}\n  why: ${p.check}: ${p.reason}\n` +
        `  allow? [y]es once / [n]o / [a]lways for this task: `,
    );
    for (;;) {
      const answer = ANSWERS[(await nextLine()).trim().toLowerCase()];
      if (stopped) return;
      if (answer === undefined) {
        process.stderr.write('  please answer y, n or always: ');
        continue;
      }
      await fence.answer(p.id, answer).then(
        () => process.stderr.write(`  → ${answer === 'deny' ? 'denied' : answer === 'task' ? 'allowed for this task' : 'allowed once'}\n`),
        (err: unknown) => process.stderr.write(`  → not applied: ${err instanceof Error ? err.message : String(err)}\n`),
      );
      return;
    }
  };

  void (async () => {
    while (!stopped) {
      const pending = await fence.pendingApprovals().catch(() => []);
      const next = pending.find((p) => !asked.has(p.id));
      if (next !== undefined) {
        asked.add(next.id);
        await ask(next);
      } else await new Promise((r) => setTimeout(r, 300));
    }
  })();
  return () => {
    stopped = true;
    rl.close();
  };
}

/** `agentsfence browser`: Chromium with AgentsFence and the task started; prints the filtering CDP endpoint. */
export async function runBrowser(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: agentsfence browser --task "<request>" [--compiler rules|openai [--base-url URL --model M]] [--headed] [--port N] [--ask-timeout S]\n' +
        'Prints one line, "cdp: http://127.0.0.1:<port>": a CDP endpoint for Playwright connectOverCDP, Puppeteer connect({browserURL}) or browser-use (cdp_url)\n' +
        'that shows the agent its pages only. Headless, approvals are asked here (y/n/always); headed, in the AgentsFence popup. Ctrl-C ends.\n',
    );
    return 0;
  }
  const args = parseArgs(argv);
  if (!process.env.AF_EXTENSION) ensureBuilt();
  // AF_EXTENSION: another unpacked build (the e2e suite's). *.test names map to 127.0.0.1 (they never exist on the Internet).
  const extensionPath = process.env.AF_EXTENSION;
  // Chromium with CDP over its DevTools pipe, held by this process: no debugging port for anyone to find.
  const fence = await launchPipeBrowser({ headless: !args.headed, extensionPath: extensionPath ?? HARNESS_BUILD });
  const apiKey = process.env.AGENTSFENCE_API_KEY || process.env.OPENROUTER_API_KEY || process.env.OPENAI_API_KEY || '';
  let state: Awaited<ReturnType<typeof fence.setTask>>;
  let proxy: Awaited<ReturnType<typeof startCdpProxy>>;
  try {
    state = await fence.setTask(args.task, {
      ...(args.askTimeoutSeconds !== undefined ? { askTimeoutSeconds: args.askTimeoutSeconds } : {}),
      compiler: args.compiler === 'rules' ? { backend: 'rules' } : { backend: 'openai-compatible', baseUrl: args.baseUrl, model: args.model, apiKey },
    });
    proxy = await startCdpProxy({ upstream: fence.router, port: args.port });
    // The e2e suite only (e2e/cdp-proxy.spec.ts): the browser's targets, hidden ones included, so it can try
    // them through the proxy. No debugging port exists to learn them from any more.
    if (process.env.AF_E2E_TARGETS_FILE) writeFileSync(process.env.AF_E2E_TARGETS_FILE, JSON.stringify((await fence.router.call('Target.getTargets')).targetInfos));
  } catch (err) {
    await fence.close();
    throw err;
  }
  const source = state.task?.policy.source ?? 'unknown';
  process.stderr.write(`agentsfence: task started (compiler: ${source}); ${args.headed ? 'approvals in the AgentsFence popup' : 'approvals here'}. Ctrl-C ends.\n`);
  process.stdout.write(`cdp: ${proxy.url}\n`);
  const stopApprovals = args.headed ? () => undefined : approveInTerminal(fence);

  let stopping = false;
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', resolveStop);
    process.once('SIGTERM', resolveStop);
    fence.router.onClose(() => {
      if (!stopping) process.stderr.write('agentsfence: the browser closed.\n');
      resolveStop();
    });
  });
  stopping = true;
  stopApprovals();
  await proxy.close();
  await fence.close();
  return 0;
}
