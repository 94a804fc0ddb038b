import { maxClass, RISK_CLASSES, type RiskClass } from '../core/risk';
import { parseShell, ShellSyntaxError, type SimpleCommand } from './shell-parse';
import { addHost, addUnique, addUrl, emptyCollected, recipientsIn, type Collected } from '../core/classifier/targets';

/**
 * Shell sub-classifier. Each simple command of a line (pipes, `&&`, `||`, `;`, substitutions) is
 * classified on its own and the line takes the highest class: `cat secrets | curl -d @- x` is an
 * external write, `ls && rm -rf src` a delete. Unknown programs are UNKNOWN, never READ.
 */

export interface ShellVerdict {
  riskClass: RiskClass;
  /** Why, naming the command that decided. */
  basis: string;
  targets: Collected;
}

interface Part {
  riskClass: RiskClass;
  why: string;
}

const MAX_NESTING = 4;

const READ_PROGRAMS = new Set([
  'ls', 'cat', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'head', 'tail', 'less', 'more', 'wc', 'echo', 'printf',
  'pwd', 'whoami', 'id', 'date', 'which', 'whereis', 'type', 'file', 'stat', 'du', 'df', 'tree', 'diff',
  'cmp', 'uniq', 'cut', 'tr', 'jq', 'yq', 'base64', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'shasum',
  'cksum', 'true', 'false', 'test', '[', '[[', 'basename', 'dirname', 'realpath', 'readlink', 'ps', 'uname',
  'hostname', 'man', 'column', 'nl', 'tac', 'rev', 'xxd', 'hexdump', 'od', 'strings', 'zcat', 'bzcat',
  'xzcat', 'zgrep', 'cd', 'pushd', 'popd', 'export', 'unset', 'sleep', 'seq', 'expr', 'printenv', 'uptime',
  'free', 'nproc', 'arch', 'groups', 'who', 'ping', 'dig', 'nslookup', 'host', 'fold', 'fmt', 'paste', 'join',
  'comm', 'expand', 'unexpand', 'sort', 'read', 'exit', 'return', 'wait', 'jobs', 'locale', 'tput', 'clear', 'history',
]);
/** Read programs whose operands are files (recorded as paths read). */
const FILE_READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'wc', 'stat', 'file', 'tree', 'du', 'diff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'shasum', 'base64', 'xxd', 'od', 'strings', 'tac', 'nl', 'ls']);
const DELETE_PROGRAMS = new Set(['rm', 'rmdir', 'shred', 'unlink', 'truncate', 'wipefs', 'mkfs', 'srm']);
const LOCAL_WRITE_PROGRAMS = new Set(['cp', 'mv', 'mkdir', 'touch', 'ln', 'install', 'unzip', 'zip', 'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz', '7z', 'patch', 'split', 'mktemp', 'mkfifo']);
const PERMISSION_PROGRAMS = new Set(['chmod', 'chown', 'chgrp', 'setfacl', 'chattr', 'passwd', 'usermod', 'useradd', 'visudo', 'crontab']);
const INTERPRETERS = new Set([
  'bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'eval', 'source', '.', 'exec', 'python', 'python2',
  'python3', 'node', 'nodejs', 'perl', 'ruby', 'php', 'deno', 'bun', 'lua', 'rscript', 'osascript', 'powershell',
  'pwsh', 'java', 'npm', 'npx', 'yarn', 'pnpm', 'pip', 'pip3', 'make', 'cargo', 'go', 'alias', 'trap', 'xdg-open', 'open',
]);
const NETWORK_SENDERS = new Set(['nc', 'ncat', 'netcat', 'socat', 'telnet', 'sftp', 'ftp']);
const MAILERS = new Set(['mail', 'mailx', 'sendmail', 'mutt']);
/** Prefixes that run the rest of the words as a command, with their options that take a value. */
const WRAPPERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries({
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S']),
  nohup: new Set(),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e']),
  command: new Set(),
  builtin: new Set(),
  time: new Set(),
  xargs: new Set(['-I', '-i', '-n', '-P', '-d', '-L', '-s', '-a', '-E', '--delimiter', '--max-args', '--max-procs', '--arg-file', '--replace']),
  watch: new Set(['-n', '--interval']),
  sudo: new Set(['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '--user', '--group']),
  doas: new Set(['-u', '-C']),
}));
const SHELL_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'function']);
const HARMLESS_TARGETS = /^\/dev\/(?:null|stdout|stderr|tty|fd\/[0-2])$/;
const NET_DEVICE = /^\/dev\/(?:tcp|udp)\/([^/]+)\//;
const REMOTE_SPEC = /^(?:[^@/\s]+@)?(\[[^\]]+\]|[a-z0-9][a-z0-9.-]*):(?!\/\/)/i;
const ABSOLUTE_URL = /^(?:https?|wss?|ftp|rsync|ssh|git):\/\//i;
const SHORT_CLUSTER = /^-[a-zA-Z0-9]+$/;

/** Words after options; `valueOptions` consume the next word (or an attached `=value`). */
function operands(args: readonly string[], valueOptions: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return out.concat(args.slice(i + 1));
    if (arg.startsWith('-') && arg !== '-') {
      if (valueOptions.has(arg)) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The value of an option given as `-o v`, `-ov`, `--output v` or `--output=v`; short letters may be clustered (`-uo v`). */
function optionValues(args: readonly string[], short: string, longs: readonly string[], shortWithValue = ''): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') break;
    const long = longs.find((l) => arg === l || arg.startsWith(`${l}=`));
    if (long !== undefined) {
      if (arg === long) values.push(args[++i] ?? '');
      else values.push(arg.slice(long.length + 1));
      continue;
    }
    if (short !== '' && /^-[a-zA-Z0-9]/.test(arg)) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        if (!/[a-zA-Z0-9]/.test(letter)) break;
        if (letter === short) {
          const rest = arg.slice(j + 1);
          values.push(rest !== '' ? rest : (args[++i] ?? ''));
          break;
        }
        if (shortWithValue.includes(letter)) {
          if (j === arg.length - 1) i++;
          break;
        }
      }
    }
  }
  return values;
}

function hasFlag(args: readonly string[], shortLetters: string, longs: readonly string[]): boolean {
  return args.some((arg) => longs.some((l) => arg === l || arg.startsWith(`${l}=`)) || (shortLetters !== '' && SHORT_CLUSTER.test(arg) && [...arg.slice(1)].some((c) => shortLetters.includes(c))));
}

function addPaths(t: Collected, paths: readonly string[]): void {
  addUnique(t.paths, paths.filter((p) => p !== '' && p !== '-' && p !== '{}' && !HARMLESS_TARGETS.test(p)));
}

/** `host:path`, `user@host:path`, `rsync://host/…`: the remote host, or null for a local path. */
function remoteHost(spec: string): string | null {
  if (ABSOLUTE_URL.test(spec)) {
    try {
      return new URL(spec).hostname || null;
    } catch {
      return null;
    }
  }
  if (spec.startsWith('/') || spec.startsWith('.') || spec.startsWith('~')) return null;
  const host = REMOTE_SPEC.exec(spec)?.[1];
  return host === undefined ? null : host.replace(/^\[|\]$/g, '');
}

const CURL_VALUE_OPTIONS = new Set([
  '-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '-F', '--form',
  '--form-string', '-T', '--upload-file', '-X', '--request', '-o', '--output', '-H', '--header', '-u', '--user',
  '-A', '--user-agent', '-e', '--referer', '-b', '--cookie', '-c', '--cookie-jar', '-x', '--proxy', '-m',
  '--max-time', '--connect-timeout', '-w', '--write-out', '-K', '--config', '-E', '--cert', '--key', '--cacert',
  '-r', '--range', '-C', '--continue-at', '--retry', '--url', '--resolve', '-D', '--dump-header', '--limit-rate',
  '-Y', '-y', '-z', '--output-dir',
]);
const CURL_DATA = ['--data', '--data-raw', '--data-binary', '--data-urlencode', '--data-ascii', '--json', '--form', '--form-string', '--upload-file'];

function curl(args: readonly string[], t: Collected): Part {
  for (const target of operands(args, CURL_VALUE_OPTIONS).concat(optionValues(args, '', ['--url']))) {
    if (ABSOLUTE_URL.test(target)) addUrl(t, target);
    else addHost(t, target);
  }
  const uploads = [
    ...optionValues(args, 'T', ['--upload-file']),
    ...optionValues(args, 'd', ['--data', '--data-binary', '--data-ascii', '--data-urlencode', '--json']).filter((v) => v.startsWith('@')).map((v) => v.slice(1)),
    ...optionValues(args, 'F', ['--form']).flatMap((v) => /=[@<]([^;]+)/.exec(v)?.[1] ?? []),
  ];
  addPaths(t, uploads);
  const method = (optionValues(args, 'X', ['--request'])[0] ?? '').toUpperCase();
  let part: Part = { riskClass: 'READ', why: 'curl fetches' };
  if (hasFlag(args, '', CURL_DATA) || optionValues(args, 'd', []).length > 0 || optionValues(args, 'F', []).length > 0 || optionValues(args, 'T', []).length > 0) {
    part = { riskClass: 'EXTERNAL_WRITE', why: 'curl sends data' };
  }
  if (method === 'DELETE') part = { riskClass: 'DELETE', why: 'curl -X DELETE' };
  else if (method !== '' && !['GET', 'HEAD', 'OPTIONS'].includes(method)) part = { riskClass: maxClass(part.riskClass, 'EXTERNAL_WRITE'), why: `curl -X ${method}` };
  const output = optionValues(args, 'o', ['--output']).filter((p) => p !== '-');
  if (output.length > 0 || hasFlag(args, 'O', ['--remote-name', '--remote-name-all'])) {
    addPaths(t, output);
    if (part.riskClass === 'READ') part = { riskClass: 'LOCAL_WRITE', why: 'curl saves a file' };
  }
  return part;
}

function wget(args: readonly string[], t: Collected): Part {
  const valueOptions = new Set(['-O', '--output-document', '-o', '--output-file', '-P', '--directory-prefix', '--post-data', '--post-file', '--body-data', '--body-file', '--method', '-U', '--user-agent', '--header', '-e', '-t', '-T']);
  for (const target of operands(args, valueOptions)) {
    if (ABSOLUTE_URL.test(target)) addUrl(t, target);
    else addHost(t, target);
  }
  const method = (optionValues(args, '', ['--method'])[0] ?? '').toUpperCase();
  if (method === 'DELETE') return { riskClass: 'DELETE', why: 'wget --method=DELETE' };
  if (hasFlag(args, '', ['--post-data', '--post-file', '--body-data', '--body-file']) || (method !== '' && !['GET', 'HEAD', 'OPTIONS'].includes(method))) {
    addPaths(t, optionValues(args, '', ['--post-file', '--body-file']));
    return { riskClass: 'EXTERNAL_WRITE', why: 'wget sends data' };
  }
  const output = optionValues(args, 'O', ['--output-document']);
  if (hasFlag(args, '', ['--spider']) || (output.length > 0 && output.every((o) => o === '-'))) return { riskClass: 'READ', why: 'wget fetches to stdout' };
  addPaths(t, [...output, ...optionValues(args, 'P', ['--directory-prefix'])]);
  return { riskClass: 'LOCAL_WRITE', why: 'wget saves a file' };
}

function httpie(args: readonly string[], t: Collected): Part {
  const words = operands(args, new Set(['-a', '--auth', '-o', '--output', '--session']));
  let method = '';
  if (/^[A-Z]+$/.test(words[0] ?? '')) method = words.shift() as string;
  const target = words.shift();
  if (target !== undefined) {
    if (ABSOLUTE_URL.test(target)) addUrl(t, target);
    else addHost(t, target.replace(/^:/, 'localhost:'));
  }
  if (method === 'DELETE') return { riskClass: 'DELETE', why: 'http DELETE' };
  const dataItems = words.some((w) => /^[^=:@]+(?::=|=(?!=)|@)/.test(w));
  if ((method !== '' && !['GET', 'HEAD', 'OPTIONS'].includes(method)) || dataItems) return { riskClass: 'EXTERNAL_WRITE', why: 'http sends data' };
  return { riskClass: 'READ', why: 'http fetches' };
}

/** scp/rsync: to a remote is an external write, from a remote a local write. */
function copyRemote(program: string, args: readonly string[], t: Collected): Part {
  const valueOptions = program === 'scp'
    ? new Set(['-P', '-i', '-o', '-F', '-l', '-c', '-J', '-S'])
    : new Set(['-e', '--rsh', '-f', '--filter', '--exclude', '--include', '--files-from', '--port', '-B', '--block-size', '--exclude-from', '--include-from', '--partial-dir', '--log-file', '-T', '--temp-dir']);
  const specs = operands(args, valueOptions);
  const destination = specs.pop();
  const destHost = destination === undefined ? null : remoteHost(destination);
  const sources = specs;
  const sourceHosts = sources.map(remoteHost);
  for (const host of [destHost, ...sourceHosts]) if (host !== null) addHost(t, host);
  addPaths(t, sources.filter((_, k) => sourceHosts[k] === null));
  const deletes = program === 'rsync' && args.some((a) => a.startsWith('--delete') || a === '--remove-source-files');
  if (destHost !== null) {
    return deletes ? { riskClass: 'DELETE', why: `${program} --delete to a remote` } : { riskClass: 'EXTERNAL_WRITE', why: `${program} copies to ${destHost}` };
  }
  if (destination !== undefined) addPaths(t, [destination]);
  return deletes ? { riskClass: 'DELETE', why: `${program} --delete` } : { riskClass: 'LOCAL_WRITE', why: `${program} copies locally` };
}

const GIT_READ = new Set(['status', 'log', 'diff', 'show', 'blame', 'ls-files', 'ls-tree', 'rev-parse', 'describe', 'shortlog', 'grep', 'reflog', 'cat-file', 'for-each-ref', 'rev-list', 'whatchanged', 'count-objects', 'fetch', 'ls-remote', 'help', 'version', 'show-ref', 'name-rev', 'merge-base', 'var']);
const GIT_LOCAL_WRITE = new Set(['add', 'commit', 'merge', 'rebase', 'cherry-pick', 'revert', 'apply', 'am', 'init', 'switch', 'worktree', 'submodule', 'notes', 'bisect', 'gc', 'mv', 'pull', 'clone', 'checkout', 'restore', 'reset', 'stash', 'tag', 'branch', 'remote', 'config', 'fsck', 'prune', 'update-index', 'sparse-checkout', 'format-patch']);
const GIT_GLOBAL_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);
/** `git -c` settings that run programs. */
const GIT_EXEC_CONFIG = /alias\.|sshcommand|pager|editor|hookspath|fsmonitor|askpass|credential\.helper|diff\.external|gitproxy|filter\.|textconv|uploadpack|receivepack/i;

function git(args: readonly string[], t: Collected): Part {
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-')) {
    const option = args[i] as string;
    if (option === '-c' && GIT_EXEC_CONFIG.test(args[i + 1] ?? '')) return { riskClass: 'EXECUTION', why: `git -c ${args[i + 1]} runs a program` };
    i += GIT_GLOBAL_VALUE.has(option) ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  const ops = operands(rest, new Set(['-m', '--message', '-b', '-B', '-c', '-C', '-u', '--set-upstream-to', '-o', '--origin', '--depth', '-F', '--file', '-S']));
  if (sub === undefined) return { riskClass: 'READ', why: 'git' };
  const named = `git ${sub}`;
  for (const spec of ops) {
    const host = remoteHost(spec);
    if (host !== null) {
      if (ABSOLUTE_URL.test(spec)) addUrl(t, spec);
      else addHost(t, host);
    }
  }
  switch (sub) {
    case 'push':
      if (hasFlag(rest, 'df', ['--delete', '--force', '--force-with-lease', '--mirror', '--prune']) || ops.some((o) => o.startsWith(':') || o.startsWith('+'))) {
        return { riskClass: 'DELETE', why: 'git push deletes or overwrites remote history' };
      }
      return { riskClass: 'EXTERNAL_WRITE', why: 'git push' };
    case 'rm':
      addPaths(t, ops);
      return { riskClass: 'DELETE', why: 'git rm' };
    case 'clean':
      return hasFlag(rest, 'n', ['--dry-run']) ? { riskClass: 'READ', why: 'git clean --dry-run' } : { riskClass: 'DELETE', why: 'git clean deletes untracked files' };
    case 'reset':
      return hasFlag(rest, '', ['--hard', '--merge', '--keep']) ? { riskClass: 'DELETE', why: 'git reset --hard discards changes' } : { riskClass: 'LOCAL_WRITE', why: named };
    case 'branch':
      if (hasFlag(rest, 'dD', ['--delete'])) return { riskClass: 'DELETE', why: 'git branch -D deletes a branch' };
      if (ops.length === 0 && !hasFlag(rest, 'mMcCu', ['--move', '--copy', '--set-upstream-to', '--unset-upstream', '--edit-description'])) return { riskClass: 'READ', why: 'git branch lists' };
      return { riskClass: 'LOCAL_WRITE', why: named };
    case 'tag':
      if (hasFlag(rest, 'd', ['--delete'])) return { riskClass: 'DELETE', why: 'git tag -d' };
      return ops.length === 0 || hasFlag(rest, 'l', ['--list']) ? { riskClass: 'READ', why: 'git tag lists' } : { riskClass: 'LOCAL_WRITE', why: named };
    case 'stash':
      if (ops[0] === 'drop' || ops[0] === 'clear') return { riskClass: 'DELETE', why: `git stash ${ops[0]}` };
      return ops[0] === 'list' || ops[0] === 'show' ? { riskClass: 'READ', why: `git stash ${ops[0]}` } : { riskClass: 'LOCAL_WRITE', why: named };
    case 'remote':
      if (ops[0] === 'remove' || ops[0] === 'rm') return { riskClass: 'DELETE', why: 'git remote remove' };
      return ops.length === 0 || ops[0] === 'show' || ops[0] === 'get-url' ? { riskClass: 'READ', why: 'git remote' } : { riskClass: 'LOCAL_WRITE', why: named };
    case 'checkout':
      // `git checkout -- file`, `git checkout .`, `-f`: uncommitted changes are thrown away.
      if (rest.includes('--') || ops.includes('.') || hasFlag(rest, 'f', ['--force'])) return { riskClass: 'DELETE', why: 'git checkout discards changes' };
      return { riskClass: 'LOCAL_WRITE', why: named };
    case 'restore':
      return hasFlag(rest, 'S', ['--staged']) && !hasFlag(rest, 'W', ['--worktree']) ? { riskClass: 'LOCAL_WRITE', why: 'git restore --staged' } : { riskClass: 'DELETE', why: 'git restore discards changes' };
    case 'config':
      return hasFlag(rest, 'l', ['--get', '--get-all', '--list', '--get-regexp']) || ops.length <= 1 ? { riskClass: 'READ', why: 'git config reads' } : { riskClass: 'LOCAL_WRITE', why: named };
    default:
      if (GIT_READ.has(sub)) return { riskClass: 'READ', why: named };
      if (GIT_LOCAL_WRITE.has(sub)) return { riskClass: 'LOCAL_WRITE', why: named };
      return { riskClass: 'UNKNOWN', why: `unrecognised ${named}` };
  }
}

function find(args: readonly string[], t: Collected, depth: number): Part {
  let part: Part = { riskClass: 'READ', why: 'find' };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-delete') part = { riskClass: maxClass(part.riskClass, 'DELETE'), why: 'find -delete' };
    else if (arg === '-fprint' || arg === '-fprintf' || arg === '-fls' || arg === '-fprint0') {
      addPaths(t, [args[i + 1] ?? '']);
      part = { riskClass: maxClass(part.riskClass, 'LOCAL_WRITE'), why: `find ${arg}` };
    } else if (arg === '-exec' || arg === '-execdir' || arg === '-ok' || arg === '-okdir') {
      const end = args.findIndex((a, k) => k > i && (a === ';' || a === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end);
      const sub = classifyWords(inner, [], t, depth + 1);
      if (sub.riskClass !== part.riskClass && maxClass(part.riskClass, sub.riskClass) === sub.riskClass) part = { riskClass: sub.riskClass, why: `find ${arg} ${sub.why}` };
      i = end < 0 ? args.length : end;
    }
  }
  // What find acts on lies under its starting points.
  if (part.riskClass !== 'READ') addPaths(t, args.slice(0, Math.max(0, args.findIndex((a) => /^[-!(]/.test(a)))));
  return part;
}

function awk(args: readonly string[], t: Collected): Part {
  if (args.some((a, k) => a === '-i' && args[k + 1] === 'inplace') || args.includes('-iinplace')) {
    addPaths(t, operands(args, new Set(['-i', '-f', '-v', '-F'])).slice(1));
    return { riskClass: 'LOCAL_WRITE', why: 'awk -i inplace' };
  }
  const program = operands(args, new Set(['-f', '-v', '-F']))[0] ?? '';
  if (/system\s*\(|\|\s*["a-z]|>\s*"|getline/.test(program) || args.includes('-f')) return { riskClass: 'EXECUTION', why: 'awk program runs commands or writes files' };
  return { riskClass: 'READ', why: 'awk' };
}

function sed(args: readonly string[], t: Collected): Part {
  const inPlace = args.some((a) => a.startsWith('--in-place') || (/^-[a-zA-Z]*i/.test(a) && !a.startsWith('--')));
  if (!inPlace) return { riskClass: 'READ', why: 'sed' };
  const hasScriptOption = args.some((a) => a === '-e' || a === '--expression' || a === '-f' || a === '--file');
  const files = operands(args, new Set(['-e', '--expression', '-f', '--file', '-l']));
  addPaths(t, hasScriptOption ? files : files.slice(1));
  return { riskClass: 'LOCAL_WRITE', why: 'sed -i edits files in place' };
}

function tar(args: readonly string[], t: Collected): Part {
  const mode = args[0] !== undefined && !args[0].startsWith('-') ? `-${args[0]}` : '';
  const all = mode === '' ? args : [mode, ...args.slice(1)];
  if (hasFlag(all, 't', ['--list']) && !hasFlag(all, 'xcru', ['--extract', '--create', '--append', '--update'])) return { riskClass: 'READ', why: 'tar lists' };
  addPaths(t, [...optionValues(all, 'f', ['--file']), ...optionValues(all, 'C', ['--directory'])]);
  return { riskClass: 'LOCAL_WRITE', why: 'tar writes files' };
}

/** Classify one command's words and redirections, adding its targets. */
function classifyWords(input: readonly string[], redirects: SimpleCommand['redirects'], t: Collected, depth: number): Part {
  let part: Part = { riskClass: 'READ', why: 'no command' };
  const raise = (next: Part) => {
    if (maxClass(part.riskClass, next.riskClass) !== part.riskClass || part.why === 'no command') part = next;
  };
  for (const r of redirects) {
    if (r.op === '<' || HARMLESS_TARGETS.test(r.target)) continue;
    const device = NET_DEVICE.exec(r.target);
    if (device) {
      addHost(t, device[1] as string);
      raise({ riskClass: 'EXTERNAL_WRITE', why: `redirection to ${r.target}` });
    } else {
      addPaths(t, [r.target]);
      raise({ riskClass: 'LOCAL_WRITE', why: `redirection ${r.op} ${r.target}` });
    }
  }
  if (depth > MAX_NESTING) return { riskClass: 'UNKNOWN', why: 'commands nested too deeply' };

  let words = [...input];
  while (words.length > 0) {
    const first = words[0] as string;
    if (SHELL_KEYWORDS.has(first)) words = words.slice(1);
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) words = words.slice(1);
    else break;
  }
  if (words[0] === 'for' || words[0] === 'case' || words[0] === 'select') return part;
  const program = (words[0] ?? '').replace(/^.*\//, '').replace(/^\\/, '');
  const args = words.slice(1);
  if (program === '') return part;

  const wrapperOptions = WRAPPERS.get(program);
  if (wrapperOptions !== undefined) {
    let k = 0;
    while (k < args.length && ((args[k] as string).startsWith('-') || (program === 'env' && (args[k] as string).includes('=')))) {
      k += wrapperOptions.has(args[k] as string) ? 2 : 1;
    }
    if (program === 'timeout' && k < args.length) k++; // the duration
    const inner = args.slice(k);
    if (program === 'sudo' || program === 'doas') raise({ riskClass: 'PERMISSION_CHANGE', why: `${program} runs with raised privileges` });
    if (inner.length > 0) raise(classifyWords(inner, [], t, depth + 1));
    else if (program === 'xargs') raise({ riskClass: 'READ', why: 'xargs echo' });
    return part;
  }

  const lower = program.toLowerCase();
  if (READ_PROGRAMS.has(lower)) {
    if (FILE_READERS.has(lower)) addPaths(t, operands(args, new Set(['-n', '-c', '-L', '-I', '--max-depth'])));
    raise({ riskClass: 'READ', why: program });
  } else if (DELETE_PROGRAMS.has(lower) || lower.startsWith('mkfs.')) {
    addPaths(t, operands(args, new Set(['-s', '--size', '-n', '--iterations'])));
    raise({ riskClass: 'DELETE', why: `${program} deletes` });
  } else if (LOCAL_WRITE_PROGRAMS.has(lower)) {
    const valueOptions = new Set(['-t', '--target-directory', '-S', '--suffix', '-m', '--mode', '-o', '--owner', '-g', '--group', '-d', '-x']);
    addPaths(t, [...operands(args, valueOptions), ...optionValues(args, 't', ['--target-directory']), ...(lower === 'unzip' ? optionValues(args, 'd', []) : [])]);
    raise({ riskClass: 'LOCAL_WRITE', why: `${program} writes` });
  } else if (PERMISSION_PROGRAMS.has(lower)) {
    addPaths(t, operands(args, new Set(['--reference'])).slice(1));
    raise({ riskClass: 'PERMISSION_CHANGE', why: `${program} changes permissions` });
  } else if (INTERPRETERS.has(lower) || /^python\d/.test(lower)) {
    raise({ riskClass: 'EXECUTION', why: `${program} runs code` });
  } else if (NETWORK_SENDERS.has(lower)) {
    const host = operands(args, new Set(['-p', '-s', '-w', '-i', '-P', '-o', '-e']))[0];
    if (host !== undefined) addHost(t, host.replace(/^[a-z-]+:/i, '').replace(/:\d+$/, ''));
    raise({ riskClass: 'EXTERNAL_WRITE', why: `${program} opens a connection` });
  } else if (MAILERS.has(lower)) {
    const ops = operands(args, new Set(['-s', '-a', '-r', '-c', '-b', '-f', '-F', '-S', '-A']));
    addUnique(t.recipients, [...ops, ...optionValues(args, 'c', []), ...optionValues(args, 'b', [])].flatMap((v) => (v.includes('@') ? recipientsIn(v) : [])));
    addPaths(t, optionValues(args, 'a', ['--attach']));
    raise({ riskClass: 'COMMUNICATION', why: `${program} sends mail` });
  } else if (lower === 'ssh') {
    const host = operands(args, new Set(['-p', '-i', '-o', '-F', '-l', '-J', '-L', '-R', '-D', '-W', '-b', '-c', '-E', '-m', '-O', '-Q', '-S', '-w', '-B']))[0];
    if (host !== undefined) addHost(t, host.replace(/^[^@]*@/, ''));
    raise({ riskClass: 'EXECUTION', why: 'ssh runs commands on another machine' });
  } else {
    switch (lower) {
      case 'curl':
        raise(curl(args, t));
        break;
      case 'wget':
        raise(wget(args, t));
        break;
      case 'http':
      case 'https':
      case 'xh':
        raise(httpie(args, t));
        break;
      case 'scp':
      case 'rsync':
        raise(copyRemote(lower, args, t));
        break;
      case 'git':
        raise(git(args, t));
        break;
      case 'find':
        raise(find(args, t, depth));
        break;
      case 'awk':
      case 'gawk':
      case 'mawk':
        raise(awk(args, t));
        break;
      case 'sed':
        raise(sed(args, t));
        break;
      case 'tar':
        raise(tar(args, t));
        break;
      case 'tee': {
        const files = operands(args).filter((f) => !HARMLESS_TARGETS.test(f));
        const devices = files.map((f) => NET_DEVICE.exec(f)?.[1]).filter((h): h is string => h !== undefined);
        for (const host of devices) addHost(t, host);
        addPaths(t, files.filter((f) => !NET_DEVICE.test(f)));
        raise(devices.length > 0 ? { riskClass: 'EXTERNAL_WRITE', why: 'tee to a network device' } : files.length > 0 ? { riskClass: 'LOCAL_WRITE', why: 'tee writes files' } : { riskClass: 'READ', why: 'tee' });
        break;
      }
      case 'dd': {
        const target = args.find((a) => a.startsWith('of='))?.slice(3);
        if (target === undefined) raise({ riskClass: 'READ', why: 'dd' });
        else {
          addPaths(t, [target]);
          raise(target.startsWith('/dev/') ? { riskClass: 'DELETE', why: 'dd overwrites a device' } : { riskClass: 'LOCAL_WRITE', why: 'dd writes a file' });
        }
        break;
      }
      default:
        raise({ riskClass: 'UNKNOWN', why: `unrecognised program ${program}` });
    }
  }
  if (lower === 'sort') {
    const outputs = optionValues(args, 'o', ['--output'], 'ktST');
    if (outputs.length > 0) {
      addPaths(t, outputs);
      raise({ riskClass: 'LOCAL_WRITE', why: 'sort -o writes a file' });
    }
  }
  return part;
}

/** Classify a command line. A line that does not parse, or parses to nothing, is UNKNOWN. */
export function classifyShell(line: string, depth = 0): ShellVerdict {
  const t = emptyCollected();
  let parsed;
  try {
    parsed = parseShell(line);
  } catch (err) {
    const why = err instanceof ShellSyntaxError ? err.message : 'unreadable';
    return { riskClass: 'UNKNOWN', basis: `shell: command does not parse (${why})`, targets: t };
  }
  if (parsed.commands.length === 0 && parsed.substitutions.length === 0) return { riskClass: 'UNKNOWN', basis: 'shell: empty command', targets: t };
  let best: Part | undefined;
  const consider = (part: Part) => {
    if (best === undefined || RISK_CLASSES.indexOf(part.riskClass) > RISK_CLASSES.indexOf(best.riskClass)) best = part;
  };
  for (const command of parsed.commands) consider(classifyWords(command.words, command.redirects, t, depth));
  for (const inner of parsed.substitutions) {
    const sub = depth >= MAX_NESTING ? { riskClass: 'UNKNOWN' as const, basis: 'commands nested too deeply', targets: emptyCollected() } : classifyShell(inner, depth + 1);
    addUnique(t.recipients, sub.targets.recipients);
    addUnique(t.domains, sub.targets.domains);
    addUnique(t.paths, sub.targets.paths);
    addUnique(t.urls, sub.targets.urls);
    consider({ riskClass: sub.riskClass, why: `substitution: ${sub.basis.replace(/^shell: /, '')}` });
  }
  const decided = best as Part;
  const many = parsed.commands.length + parsed.substitutions.length > 1;
  return { riskClass: decided.riskClass, basis: `shell: ${decided.why}${many ? ' (highest class of the chain)' : ''}`, targets: t };
}
