import { randomUUID } from 'node:crypto';
import { compileTask, DEFAULT_BASE_URL, DEFAULT_MODEL } from '../compiler';

const USAGE = `usage: agentsfence compile [--compiler rules|openai] [--base-url URL] [--model M] [--timeout-ms N] [--explain] "<request>"
The API key for --compiler openai is read from AGENTSFENCE_API_KEY, OPENROUTER_API_KEY or OPENAI_API_KEY.
`;

interface CompileArgs {
  backend: 'rules' | 'openai';
  baseUrl: string;
  model: string;
  timeoutMs?: number;
  explain: boolean;
  request: string;
}

function parseArgs(argv: string[]): CompileArgs | string {
  const args: CompileArgs = { backend: 'rules', baseUrl: DEFAULT_BASE_URL, model: DEFAULT_MODEL, explain: false, request: '' };
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
      else if (arg === '--timeout-ms') args.timeoutMs = Number(value());
      else if (arg === '--explain') args.explain = true;
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

/** `agentsfence compile`: prints the hardened TaskPolicy JSON; with --explain, what hardening removed and why. */
export async function runCompile(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    process.stdout.write(args === '' ? USAGE : `${args}\n${USAGE}`);
    return args === '' ? 0 : 2;
  }
  const apiKey = process.env.AGENTSFENCE_API_KEY ?? process.env.OPENROUTER_API_KEY ?? process.env.OPENAI_API_KEY;
  const { policy, report } = await compileTask(args.request, {
    backend: args.backend,
    baseUrl: args.baseUrl,
    model: args.model,
    ...(apiKey ? { apiKey } : {}),
    ...(args.timeoutMs !== undefined && Number.isFinite(args.timeoutMs) ? { timeoutMs: args.timeoutMs } : {}),
    now: Date.now(),
    taskId: randomUUID(),
  });
  process.stdout.write(`${JSON.stringify(policy, null, 2)}\n`);
  if (args.explain) {
    const lines = [`# compiler: ${report.backend}${report.fallback ? ' (fell back to read-only)' : ''}, model calls: ${report.modelCalls}`];
    for (const p of report.prohibitions) lines.push(`# prohibition: ${p}`);
    if (report.removed.length === 0) lines.push('# hardening removed nothing');
    for (const r of report.removed) lines.push(`# removed ${r.ref}: ${r.why}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return 0;
}
