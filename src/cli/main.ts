import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ZodError } from 'zod';
import { evaluate } from '../core/evaluator';
import { explain } from '../core/explain';
import { DecisionRecordSchema, type DecisionRecord } from '../core/decision';
import { initialState, parsePolicy, type TaskPolicy } from '../core/policy';

const USAGE = `agentsfence — task-scoped authority for AI agents

  agentsfence compile [--compiler rules|openai] [--base-url URL --model M] [--explain] "<request>"
      print the hardened TaskPolicy JSON for the user's request
  agentsfence evaluate --policy P.json [--now MS]
      read JSON lines {"tool":…,"args":{…}} on stdin, print one decision record per line (state carried)
  agentsfence explain [--policy P.json] [--now MS]
      read decision records (or, with --policy, tool calls) on stdin and print each decision in words
`;

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
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
    if (err instanceof ZodError) {
      for (const issue of err.issues) process.stderr.write(`agentsfence: invalid policy at ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
    } else {
      process.stderr.write(`agentsfence: invalid policy: ${String(err)}\n`);
    }
    return null;
  }
}

async function* stdinLines(): AsyncGenerator<string> {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) if (line.trim() !== '') yield line;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    // Not JSON: hand the raw text to the evaluator, whose schema check blocks it with a record.
    return line;
  }
}

/** Evaluates each stdin line against the policy, carrying σ across lines. */
async function* decisions(policy: TaskPolicy, now: () => number): AsyncGenerator<DecisionRecord> {
  let state = initialState();
  for await (const line of stdinLines()) {
    const result = evaluate(policy, state, parseLine(line), now());
    state = result.state;
    yield result.record;
  }
}

function clock(argv: string[]): () => number {
  const fixed = flag(argv, '--now');
  return fixed !== undefined ? () => Number(fixed) : () => Date.now();
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'evaluate' || command === 'explain') {
    const policyPath = flag(rest, '--policy');
    if (command === 'evaluate' && policyPath === undefined) {
      process.stderr.write('agentsfence evaluate: --policy P.json is required\n');
      return 2;
    }
    if (policyPath !== undefined) {
      const policy = loadPolicy(policyPath);
      if (!policy) return 2;
      for await (const record of decisions(policy, clock(rest))) {
        process.stdout.write(command === 'evaluate' ? `${JSON.stringify(record)}\n` : `${explain(record)}\n\n`);
      }
      return 0;
    }
    for await (const line of stdinLines()) {
      const record = DecisionRecordSchema.safeParse(parseLine(line));
      process.stdout.write(record.success ? `${explain(record.data)}\n\n` : `not a decision record: ${record.error.issues[0]?.message ?? 'invalid'}\n\n`);
    }
    return 0;
  }
  if (command === 'compile') {
    const { runCompile } = await import('./compile');
    return runCompile(rest);
  }
  process.stdout.write(USAGE);
  return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}
