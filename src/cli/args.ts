import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * Bad input to a command (an unknown option, a missing value, an empty request, an unreadable file, a
 * malformed line): main prints it as one line, `agentsfence <command>: <message>`, and exits 2.
 */
export class InputError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs (`--opt value` and `--opt=value`), its errors as one-line InputErrors. */
export function parseCommand<O extends Options>(argv: readonly string[], options: O, positionals = false) {
  try {
    return parseArgs({ args: [...argv], options: { help: { type: 'boolean', short: 'h' }, ...options }, allowPositionals: positionals, strict: true });
  } catch (err) {
    // parseArgs explains an ambiguous value over three lines; its first says what is wrong.
    throw new InputError((err instanceof Error ? err.message : String(err)).split('\n')[0]!);
  }
}

/** A whole number option within bounds. */
export function wholeNumber(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min || n > max) throw new InputError(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** A file's text, or an InputError naming it. */
export function readText(path: string, what: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : err instanceof Error ? err.message : String(err)}`);
  }
}
