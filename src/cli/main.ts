import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from '../core/zod';
import { evaluate } from '../tools';
import { explain } from '../core/explain';
import { DecisionRecordSchema, type DecisionRecord } from '../core/decision';
import { initialState, parsePolicy, type TaskPolicy } from '../core/policy';

export const USAGE = `agentsfence — task-scoped authority for AI agents

  agentsfence compile [--compiler rules|openai] [--base-url URL --model M] [--fallback] [--explain] "<request>"
      print the hardened TaskPolicy JSON for the user's request (--explain: what hardening removed, on stderr)
  agentsfence evaluate --policy P.json [--now MS]
      read JSON lines {"tool":…,"args":{…}} on stdin, print one decision record per line (state carried)
  agentsfence explain [--policy P.json] [--now MS]
      read decision records (or, with --policy, tool calls) on stdin and print each decision in words
  agentsfence browser --task "<request>" [--compiler rules|openai] [--headed] [--port N] [--ask-timeout S]
      start Chromium with AgentsFence and the task; print "cdp: http://127.0.0.1:<port>", a CDP endpoint
      that shows your agent its pages only (approvals: here when headless, the popup when headed)

Exit codes: 0 done, 1 failed (e.g. compiler unreachable), 2 usage error.
`;

/** A usage error: printed on stderr with the usage text, exit 2. */
export class UsageError extends Error {}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return value;
}

/** Reads and validates a policy file; on failure prints the zod path and returns null (exit 2). */
function loadPolicy(path: string): TaskPolicy | null {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    process.stderr.write(`agentsfence: cannot read policy ${path}: ${err instanceof Error ? err.message : String(err)}\n`);
    return null;
  }
  try {
    return parsePolicy(json);
  } catch (err) {
    if (err instanceof z.core.$ZodError) {
      for (const issue of err.issues) process.stderr.write(`agentsfence: invalid policy at ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
    } else {
      process.stderr.write(`agentsfence: invalid policy: ${String(err)}\n`);
    }
    return null;
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

function parseLine(line: string, n: number): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    process.stderr.write(`agentsfence: line ${n}: not JSON (${err instanceof Error ? err.message : String(err)})\n`);
    // Hand the raw text to the evaluator, whose schema check blocks it with a record.
    return line;
  }
}

/** Evaluates each stdin line against the policy, carrying σ across lines. */
async function* decisions(policy: TaskPolicy, now: () => number): AsyncGenerator<DecisionRecord> {
  let state = initialState();
  for await (const { line, n } of stdinLines()) {
    const result = evaluate(policy, state, parseLine(line, n), now());
    if (result.record.check === 'schema') process.stderr.write(`agentsfence: line ${n}: malformed call: ${result.record.reason}\n`);
    state = result.state;
    yield result.record;
  }
}

function clock(argv: string[]): () => number {
  const fixed = flag(argv, '--now');
  if (fixed === undefined) return () => Date.now();
  const ms = Number(fixed);
  if (fixed.trim() === '' || !Number.isSafeInteger(ms) || ms < 0) throw new UsageError(`--now must be milliseconds since the epoch, got "${fixed}"`);
  return () => ms;
}

function isHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

async function runDecide(command: 'evaluate' | 'explain', rest: string[]): Promise<number> {
  const policyPath = flag(rest, '--policy');
  const now = clock(rest);
  if (command === 'evaluate' && policyPath === undefined) throw new UsageError('agentsfence evaluate: --policy P.json is required');
  if (policyPath !== undefined) {
    const policy = loadPolicy(policyPath);
    if (!policy) return 2;
    for await (const record of decisions(policy, now)) {
      process.stdout.write(command === 'evaluate' ? `${JSON.stringify(record)}\n` : `${explain(record)}\n\n`);
    }
    return 0;
  }
  for await (const { line, n } of stdinLines()) {
    const record = DecisionRecordSchema.safeParse(parseLine(line, n));
    process.stdout.write(record.success ? `${explain(record.data)}\n\n` : `line ${n}: not a decision record: ${record.error.issues[0]?.message ?? 'invalid'}\n\n`);
  }
  return 0;
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  if (command === undefined) throw new UsageError('');
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'evaluate' || command === 'explain') {
    if (isHelp(rest)) {
      process.stdout.write(USAGE);
      return 0;
    }
    return runDecide(command, rest);
  }
  if (command === 'compile') {
    const { runCompile } = await import('./compile');
    return runCompile(rest);
  }
  if (command === 'browser') {
    const { runBrowser } = await import('./browser');
    return runBrowser(rest);
  }
  throw new UsageError(`unknown command: ${command}`);
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    return await run(command, rest);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message ? `agentsfence: ${err.message}\n\n` : ''}${USAGE}`);
    return 2;
  }
}
