import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InputError, parseCommand, readText } from './args';

export const USAGE = `agentsfence — task-scoped authority for AI agents

  agentsfence compile [--compiler rules|openai] [--base-url URL --model M] [--fallback] [--explain] "<request>" | -
      print the hardened TaskPolicy JSON for the user's request (- reads it from stdin);
      --explain prints the policy in plain words instead, with what hardening removed
  agentsfence evaluate --policy P.json [--now MS]
      read JSON lines {"tool":…,"args":{…}} on stdin, print one decision record per line (state carried)
  agentsfence explain [--policy P.json] [--now MS]
      read decision records (or, with --policy, tool calls) on stdin and print each decision in words
  agentsfence browser --task "<request>" [--compiler rules|openai] [--headed] [--port N] [--ask-timeout S]
      start Chromium with AgentsFence and the task; print "cdp: http://127.0.0.1:<port>", a CDP endpoint
      that shows your agent its pages only (approvals: here when headless, the popup when headed)
  agentsfence --version

Options take "--opt value" or "--opt=value". Exit codes: 0 done, 1 failed (e.g. compiler unreachable),
2 bad input (usage, an unreadable file, an empty request, a malformed line).
`;

function version(): string {
  // src/cli/main.ts and dist/cli/main.js are both two levels below the package root.
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Reads and validates a policy file: an InputError (exit 2) names the file and what is wrong with it. */
async function loadPolicy(path: string) {
  const { parsePolicy } = await import('../core/policy');
  const { z } = await import('../core/zod');
  const text = readText(path, 'the policy');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InputError(`the policy ${path} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return parsePolicy(json);
  } catch (err) {
    const issue = err instanceof z.core.$ZodError ? err.issues[0] : undefined;
    const where = issue === undefined ? '' : ` at ${issue.path.join('.') || '(root)'}`;
    throw new InputError(`the policy ${path} is not a TaskPolicy${where}: ${issue?.message ?? String(err)}`);
  }
}

/** Non-empty stdin lines with their 1-based line numbers in the input. */
async function* stdinLines(): AsyncGenerator<{ line: string; n: number }> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() !== '') yield { line, n };
  }
}

/** A line's JSON, or null after one line on stderr saying it is not JSON. */
function parseLine(line: string, n: number, command: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(line) };
  } catch (err) {
    process.stderr.write(`agentsfence ${command}: line ${n}: not JSON (${err instanceof Error ? err.message : String(err)})\n`);
    return null;
  }
}

function clock(now: string | undefined): () => number {
  if (now === undefined) return () => Date.now();
  const ms = Number(now);
  if (now.trim() === '' || !Number.isSafeInteger(ms) || ms < 0) throw new InputError(`--now must be milliseconds since the epoch, got "${now}"`);
  return () => ms;
}

/**
 * `evaluate` and `explain`: one answer per stdin line. A malformed line is said once on stderr and never
 * skipped silently: `evaluate` prints its BLOCK record (the evaluator's schema check) and goes on; the exit
 * code is 2 when any line was malformed.
 */
async function runDecide(command: 'evaluate' | 'explain', argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, { policy: { type: 'string' }, now: { type: 'string' } });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const now = clock(values.now);
  if (command === 'evaluate' && values.policy === undefined) throw new InputError('--policy P.json is required');
  const { explain } = await import('../core/explain');
  let malformed = 0;
  if (values.policy !== undefined) {
    const policy = await loadPolicy(values.policy);
    const { evaluate } = await import('../tools');
    const { initialState } = await import('../core/policy');
    let state = initialState();
    for await (const { line, n } of stdinLines()) {
      const parsed = parseLine(line, n, command);
      const result = evaluate(policy, state, parsed === null ? line : parsed.value, now());
      if (parsed === null) malformed++;
      else if (result.record.check === 'schema') {
        malformed++;
        process.stderr.write(`agentsfence ${command}: line ${n}: not a tool call (${result.record.reason}); blocked\n`);
      }
      state = result.state;
      process.stdout.write(command === 'evaluate' ? `${JSON.stringify(result.record)}\n` : `${explain(result.record)}\n\n`);
    }
    return malformed > 0 ? 2 : 0;
  }
  const { DecisionRecordSchema } = await import('../core/decision');
  for await (const { line, n } of stdinLines()) {
    const parsed = parseLine(line, n, command);
    if (parsed === null) {
      malformed++;
      continue;
    }
    const record = DecisionRecordSchema.safeParse(parsed.value);
    if (record.success) process.stdout.write(`${explain(record.data)}\n\n`);
    else {
      malformed++;
      const issue = record.error.issues[0];
      process.stderr.write(`agentsfence ${command}: line ${n}: not a decision record (${issue === undefined ? 'invalid' : `${issue.path.join('.') || '(root)'}: ${issue.message}`})\n`);
    }
  }
  return malformed > 0 ? 2 : 0;
}

const COMMANDS = new Set(['compile', 'evaluate', 'explain', 'browser']);

async function run(command: string | undefined, rest: string[]): Promise<number> {
  switch (command) {
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${version()}\n`);
      return 0;
    case 'evaluate':
    case 'explain':
      return runDecide(command, rest);
    case 'compile':
      return (await import('./compile')).runCompile(rest);
    case 'browser':
      return (await import('./browser')).runBrowser(rest);
    default:
      throw new InputError(command === undefined ? '' : `unknown command: ${command}`);
  }
}

/** A reader that closed our stdout (`explain … | head -2`) ends the command quietly. */
function quietOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  const [command, ...rest] = argv;
  try {
    return await run(command, rest);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    if (err.message === '') process.stderr.write(USAGE);
    else process.stderr.write(`agentsfence${COMMANDS.has(command ?? '') ? ` ${command}` : ''}: ${err.message} (see agentsfence --help)\n`);
    return 2;
  }
}
