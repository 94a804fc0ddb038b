import { randomUUID } from 'node:crypto';
import { compileTask, DEFAULT_BASE_URL, DEFAULT_MODEL } from '../compiler';
import { classify } from '../tools';
import { InputError, parseCommand, readText, wholeNumber } from './args';
import { policyWords } from './policy-words';

const USAGE = `usage: agentsfence compile [--compiler rules|openai] [--base-url URL] [--model M] [--timeout-ms N] [--fallback] [--explain] "<request>" | -
"-" reads the request from stdin. The API key for --compiler openai is read from AGENTSFENCE_API_KEY,
OPENROUTER_API_KEY or OPENAI_API_KEY. With --compiler openai, an unreachable or failing model is an error
(exit 1) unless --fallback is given, which compiles a read-only policy instead. --explain prints the
policy in plain words (with what hardening removed) instead of its JSON.
`;

/**
 * `agentsfence compile`: prints the hardened TaskPolicy JSON on stdout (and nothing else, so `> P.json`
 * is JSON); with --explain, the same policy in plain words instead.
 */
export async function runCompile(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      compiler: { type: 'string', default: 'rules' },
      'base-url': { type: 'string', default: DEFAULT_BASE_URL },
      model: { type: 'string', default: DEFAULT_MODEL },
      'timeout-ms': { type: 'string' },
      explain: { type: 'boolean', default: false },
      fallback: { type: 'boolean', default: false },
    },
    true,
  );
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.compiler !== 'rules' && values.compiler !== 'openai') throw new InputError(`unknown compiler: ${values.compiler} (rules or openai)`);
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : wholeNumber('timeout-ms', values['timeout-ms'], 1, 3_600_000);
  const request = positionals.length === 1 && positionals[0] === '-' ? readText('-', 'the request from').trim() : positionals.join(' ');
  if (request.trim() === '') throw new InputError(`the request is empty: give the user's words, e.g. agentsfence compile "Reply to bob@x.com on mail.test" (or - to read them from stdin)`);

  const baseUrl = values['base-url'];
  const model = values.model;
  const apiKey = process.env.AGENTSFENCE_API_KEY || process.env.OPENROUTER_API_KEY || process.env.OPENAI_API_KEY;
  const { policy, report } = await compileTask(request, {
    backend: values.compiler,
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    now: Date.now(),
    taskId: randomUUID(),
    classify,
  });
  const modelFailure = values.compiler === 'openai' && report.fallbackReason !== null ? report.fallbackReason : undefined;
  if (modelFailure !== undefined && !values.fallback) {
    // An explicitly chosen model that cannot answer is an error, never a silent read-only policy.
    process.stderr.write(
      `agentsfence compile: the compiler at ${baseUrl} (model ${model}) did not produce a policy: ${modelFailure}\n` +
        'Pass --fallback to accept a read-only policy instead, or --compiler rules for the offline compiler.\n',
    );
    return 1;
  }
  process.stdout.write(values.explain ? `${policyWords(policy, report).join('\n')}\n` : `${JSON.stringify(policy, null, 2)}\n`);
  if (modelFailure !== undefined) process.stderr.write(`agentsfence compile: the compiler at ${baseUrl} failed (${modelFailure}); printed a read-only policy (--fallback)\n`);
  return 0;
}
