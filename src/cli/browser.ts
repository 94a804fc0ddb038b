import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCdpProxy } from '../cdp-proxy/proxy';
import { DEFAULT_BASE_URL, DEFAULT_MODEL } from '../compiler';
import { revealed } from '../background/decide/redact';
import { AGENT_ASK_TIMEOUT_SECONDS, HARNESS_BUILD, PACKAGE_ROOT } from '../harness';
import { approveInTerminal } from './approvals';
import { InputError, parseCommand, wholeNumber } from './args';
import { policyWords } from './policy-words';
import { launchPipeBrowser } from './pipe-browser';

const OPTIONS = {
  task: { type: 'string' },
  compiler: { type: 'string', default: 'rules' },
  'base-url': { type: 'string', default: DEFAULT_BASE_URL },
  model: { type: 'string', default: DEFAULT_MODEL },
  headed: { type: 'boolean', default: false },
  headless: { type: 'boolean' },
  port: { type: 'string', default: '0' },
  'ask-timeout': { type: 'string', default: String(AGENT_ASK_TIMEOUT_SECONDS) },
} as const;

const HELP =
  `usage: agentsfence browser --task "<request>" [--compiler rules|openai [--base-url URL --model M]] [--headed] [--port N] [--ask-timeout S]\n` +
  'Prints one line, "cdp: http://127.0.0.1:<port>": a CDP endpoint for Playwright connectOverCDP, Puppeteer connect({browserURL}) or browser-use (cdp_url)\n' +
  'that shows the agent its pages only. Headless, approvals are asked here; headed, in the AgentsFence popup. Ctrl-C ends.\n' +
  `--ask-timeout: seconds an action waits for your answer before it is blocked (default ${AGENT_ASK_TIMEOUT_SECONDS}: under the 60 s after which\n` +
  'MCP clients and browser-use give up on a call; see docs/clients.md).\n';

/** The harness build when it has not been built (a clone); the package ships it. */
function ensureBuilt(): void {
  if (existsSync(join(HARNESS_BUILD, 'manifest.json'))) return;
  process.stderr.write('agentsfence: building the extension (first run)…\n');
  execFileSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['wxt', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, AF_HARNESS: '1' } });
}

/** `agentsfence browser`: Chromium with AgentsFence and the task started; prints the filtering CDP endpoint. */
export async function runBrowser(argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, OPTIONS);
  if (values.help === true) {
    process.stdout.write(HELP);
    return 0;
  }
  const task = values.task ?? '';
  if (task.trim() === '') throw new InputError('needs --task "<what the user asked for>"');
  if (values.compiler !== 'rules' && values.compiler !== 'openai') throw new InputError(`unknown compiler: ${values.compiler} (rules or openai)`);
  const headed = values.headed && values.headless !== true;
  const port = wholeNumber('port', values.port, 0, 65535);
  const askTimeoutSeconds = wholeNumber('ask-timeout', values['ask-timeout'], 5, 3600);
  if (!process.env.AF_EXTENSION) ensureBuilt();
  // AF_EXTENSION: another unpacked build (the e2e suite's). *.test names map to 127.0.0.1 (they never exist on the Internet).
  const extensionPath = process.env.AF_EXTENSION;
  // Chromium with CDP over its DevTools pipe, held by this process: no debugging port for anyone to find.
  const fence = await launchPipeBrowser({ headless: !headed, extensionPath: extensionPath ?? HARNESS_BUILD });
  const apiKey = process.env.AGENTSFENCE_API_KEY || process.env.OPENROUTER_API_KEY || process.env.OPENAI_API_KEY || '';
  let state: Awaited<ReturnType<typeof fence.setTask>>;
  let proxy: Awaited<ReturnType<typeof startCdpProxy>>;
  try {
    state = await fence.setTask(task, {
      askTimeoutSeconds,
      compiler: values.compiler === 'rules' ? { backend: 'rules' } : { backend: 'openai-compatible', baseUrl: values['base-url'], model: values.model, apiKey },
    });
    proxy = await startCdpProxy({ upstream: fence.router, port, extensionId: fence.extensionId });
    // The e2e suite only (e2e/cdp-proxy.spec.ts): the browser's targets, hidden ones included, so it can try
    // them through the proxy. No debugging port exists to learn them from any more.
    if (process.env.AF_E2E_TARGETS_FILE) writeFileSync(process.env.AF_E2E_TARGETS_FILE, JSON.stringify((await fence.router.call('Target.getTargets')).targetInfos));
  } catch (err) {
    await fence.close();
    throw err;
  }
  const words = state.task === null ? ['(no task is running)'] : policyWords(state.task.policy, state.task.report);
  process.stderr.write(
    `agentsfence: task started: "${revealed(task)}"\n${words.join('\n')}\n` +
      `agentsfence: ${headed ? 'approvals in the AgentsFence popup' : 'approvals here'}; an action waits ${askTimeoutSeconds} s for an answer, then it is blocked. Ctrl-C ends.\n`,
  );
  process.stdout.write(`cdp: ${proxy.url}\n`);

  let stopping = false;
  let stopApprovals: () => void = () => undefined;
  await new Promise<void>((resolveStop) => {
    if (!headed) stopApprovals = approveInTerminal(fence, { onInterrupt: resolveStop });
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
