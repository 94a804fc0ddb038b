/**
 * A small POSIX-shell reader, enough to see what a command line does: words with quotes, escapes
 * and command substitutions resolved; redirections; heredocs skipped; commands split on `|`, `||`,
 * `&&`, `;`, `&`, newlines and subshell parentheses. It never executes or expands anything:
 * `$VAR` stays literal text, and what runs inside `$(…)`, backticks and `<(…)` is returned for
 * classification in its own right.
 */

export interface Redirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `<`. fd duplications (`2>&1`) and heredocs are not listed. */
  op: string;
  target: string;
}

export interface SimpleCommand {
  words: string[];
  redirects: Redirect[];
}

export interface ParsedLine {
  commands: SimpleCommand[];
  /** Command lines found in `$(…)`, backticks and process substitutions. */
  substitutions: string[];
}

export class ShellSyntaxError extends Error {}

const OPERATOR_CHARS = new Set(['|', '&', ';', '<', '>', '(', ')', '\n']);
const BLANK = new Set([' ', '\t', '\r']);

/** Index just past the `)` that closes a `$(`/`<(` opened before `start`; quotes respected. */
function closingParen(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) break;
      i = end;
    } else if (ch === '"') {
      i = closingQuote(text, i + 1);
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  throw new ShellSyntaxError('unterminated substitution');
}

function closingQuote(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  throw new ShellSyntaxError('unterminated double quote');
}

export function parseShell(line: string): ParsedLine {
  const commands: SimpleCommand[] = [];
  const substitutions: string[] = [];
  const pendingHeredocs: { delimiter: string; stripTabs: boolean }[] = [];
  let words: string[] = [];
  let redirects: Redirect[] = [];
  let i = 0;

  const endCommand = () => {
    if (words.length > 0 || redirects.length > 0) commands.push({ words, redirects });
    words = [];
    redirects = [];
  };

  /** `$(…)`, `$((…))`, backticks: record what runs, leave a placeholder in the word. */
  const readSubstitution = (): string => {
    if (line.startsWith('$((', i)) {
      const end = closingParen(line, i + 3);
      i = end + 1;
      return '$((…))';
    }
    if (line[i] === '`') {
      let end = i + 1;
      while (end < line.length && line[end] !== '`') end += line[end] === '\\' ? 2 : 1;
      if (end >= line.length) throw new ShellSyntaxError('unterminated backtick');
      substitutions.push(line.slice(i + 1, end).replace(/\\`/g, '`'));
      i = end + 1;
      return '$(…)';
    }
    const end = closingParen(line, i + 2);
    substitutions.push(line.slice(i + 2, end - 1));
    i = end;
    return '$(…)';
  };

  const readWord = (): string => {
    let word = '';
    while (i < line.length) {
      const ch = line[i] as string;
      if (BLANK.has(ch) || OPERATOR_CHARS.has(ch)) break;
      if (ch === '\\') {
        if (line[i + 1] === '\n') i += 2;
        else {
          word += line[i + 1] ?? '';
          i += 2;
        }
      } else if (ch === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) throw new ShellSyntaxError('unterminated single quote');
        word += line.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        const end = closingQuote(line, i + 1);
        let j = i + 1;
        while (j < end) {
          if (line[j] === '\\' && '"\\$`\n'.includes(line[j + 1] ?? '')) {
            word += line[j + 1];
            j += 2;
          } else if (line.startsWith('$(', j) || line[j] === '`') {
            i = j;
            word += readSubstitution();
            j = i;
          } else word += line[j++];
        }
        i = end + 1;
      } else if (line.startsWith('$(', i) || ch === '`') {
        word += readSubstitution();
      } else {
        word += ch;
        i++;
      }
    }
    return word;
  };

  const skipBlanks = () => {
    while (i < line.length && BLANK.has(line[i] as string)) i++;
  };

  const skipHeredocBodies = () => {
    while (pendingHeredocs.length > 0 && i < line.length) {
      const { delimiter, stripTabs } = pendingHeredocs[0] as { delimiter: string; stripTabs: boolean };
      const end = line.indexOf('\n', i);
      const bodyLine = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end + 1;
      if ((stripTabs ? bodyLine.replace(/^\t+/, '') : bodyLine) === delimiter) pendingHeredocs.shift();
    }
  };

  const readRedirect = () => {
    let op = '';
    if (line[i] === '&') op += line[i++];
    op += line[i++];
    // Second character of the operator: `>>`, `>|`, `<<`, `<>`, `>&`, `<&`.
    const next = line[i];
    if (next === '>' || next === '|' || next === '<' || next === '&') {
      op += next;
      i++;
    }
    if (op === '<<' && (line[i] === '<' || line[i] === '-')) op += line[i++];
    if (op === '&>' && line[i] === '>') op += line[i++];
    skipBlanks();
    if (op === '>&' || op === '<&') {
      const target = readWord();
      // `2>&1`, `>&-` duplicate descriptors; `>& file` is bash for `&> file`.
      if (!/^(?:\d+|-)$/.test(target)) redirects.push({ op: '&>', target });
      return;
    }
    const target = readWord();
    if (target === '') throw new ShellSyntaxError(`redirection ${op} without a target`);
    if (op === '<<' || op === '<<-') pendingHeredocs.push({ delimiter: target, stripTabs: op === '<<-' });
    else if (op !== '<<<') redirects.push({ op, target });
  };

  while (i < line.length) {
    const ch = line[i] as string;
    if (BLANK.has(ch)) {
      i++;
    } else if (ch === '\n') {
      i++;
      endCommand();
      skipHeredocBodies();
    } else if (ch === '#') {
      while (i < line.length && line[i] !== '\n') i++;
    } else if ((ch === '<' || ch === '>') && line[i + 1] === '(') {
      const end = closingParen(line, i + 2);
      substitutions.push(line.slice(i + 2, end - 1));
      words.push('/dev/fd/63');
      i = end;
    } else if (ch === '<' || ch === '>' || (ch === '&' && line[i + 1] === '>')) {
      // A preceding all-digit word is the descriptor (`2>`), not an argument.
      if (words.length > 0 && /^\d+$/.test(words[words.length - 1] as string) && !BLANK.has(line[i - 1] ?? ' ')) words.pop();
      readRedirect();
    } else if (OPERATOR_CHARS.has(ch)) {
      i++;
      if ((ch === '|' || ch === '&' || ch === ';') && (line[i] === ch || (ch === '|' && line[i] === '&'))) i++;
      endCommand();
    } else {
      words.push(readWord());
    }
  }
  if (pendingHeredocs.length > 0 && i < line.length) skipHeredocBodies();
  endCommand();
  return { commands, substitutions };
}
