import { randomUUID } from 'node:crypto';
import { compileTask, DEFAULT_BASE_URL, DEFAULT_MODEL } from '../compiler';
import { classify } from '../tools';

const USAGE = `usage: agentsfence compile [--compiler rules|openai] [--base-url URL] [--model M] [--timeout-ms N] [--fallback] [--explain] "<request>"
The API key for --compiler openai is read from AGENTSFENCE_API_KEY, OPENROUTER_API_KEY or OPENAI_API_KEY.
With --compiler openai, an unreachable or failing model is an error (exit 1) unless --fallback is given,
which compiles a read-only policy instead. --explain writes what hardening removed to stderr.
`;

interface CompileArgs {
  backend: 'rules' | 'openai';
  baseUrl: string;
  model: string;
  timeoutMs?: number;
  explain: boolean;
  fallback: boolean;
  request: string;
}

function parseArgs(argv: string[]): CompileArgs | string {
  const args: CompileArgs = { backend: 'rules', baseUrl: DEFAULT_BASE_URL, model: DEFAULT_MODEL, explain: false, fallback: false, request: '' };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--compiler') {
        const v = value();
        if (v !== 'rules' && v !== 'openai') return `unknown compiler: ${v}`;
        args.backend = v;
      } else if (arg === '--base-url') args.baseUrl = value();
      else if (arg === '--model') args.model = value();
      else if (arg === '--timeout-ms') {
        const v = value();
        args.timeoutMs = Number(v);
        if (!Number.isSafeInteger(args.timeoutMs) || args.timeoutMs <= 0) return `--timeout-ms must be a positive whole number, got "${v}"`;
      } else if (arg === '--explain') args.explain = true;
      else if (arg === '--fallback') args.fallback = true;
      else if (arg === '--help' || arg === '-h') return '';
      else if (arg.startsWith('--')) return `unknown option: ${arg}`;
      else words.push(arg);
    } catch (err) {
      return (err as Error).message;
    }
  }
  args.request = words.join(' ');
  return args;
}

/**
 * `agentsfence compile`: prints the hardened TaskPolicy JSON on stdout (and nothing else, so
 * `> P.json` is JSON); with --explain, what hardening removed and why on stderr.
 */
export async function runCompile(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args === '') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (typeof args === 'string') {
    process.stderr.write(`agentsfence compile: ${args}\n${USAGE}`);
    return 2;
  }
  const apiKey = process.env.AGENTSFENCE_API_KEY || process.env.OPENROUTER_API_KEY || process.env.OPENAI_API_KEY;
  const { policy, report } = await compileTask(args.request, {
    backend: args.backend,
    baseUrl: args.baseUrl,
    model: args.model,
    ...(apiKey ? { apiKey } : {}),
    ...(args.timeoutMs !== undefined ? { timeoutMs: args.timeoutMs } : {}),
    now: Date.now(),
    taskId: randomUUID(),
    classify,
  });
  const modelFailure = args.backend === 'openai' && report.fallbackReason !== null ? report.fallbackReason : undefined;
  if (modelFailure !== undefined && !args.fallback) {
    // An explicitly chosen model that cannot answer is an error, never a silent read-only policy.
    process.stderr.write(
      `agentsfence compile: the compiler at ${args.baseUrl} (model ${args.model}) did not produce a policy: ${modelFailure}\n` +
        'Pass --fallback to accept a read-only policy instead, or --compiler rules for the offline compiler.\n',
    );
    return 1;
  }
  process.stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  if (modelFailure !== undefined) process.stderr.write(`agentsfence compile: the compiler at ${args.baseUrl} failed (fallback: ${modelFailure}); printed a read-only policy (--fallback)\n`);
  if (args.explain) {
    const lines = [`# compiler: ${report.backend}${report.fallbackReason !== null ? ' (fell back to read-only)' : ''}, model calls: ${report.modelCalls}`];
    for (const p of report.prohibitions) lines.push(`# prohibition: ${p}`);
    if (report.removed.length === 0) lines.push('# hardening removed nothing');
    for (const r of report.removed) lines.push(`# removed ${r.ref}: ${r.why}`);
    process.stderr.write(`${lines.join('\n')}\n`);
  }
  return 0;
}
