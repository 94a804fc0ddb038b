import type { RiskClass } from '../core/risk';

/**
 * Patch tools touch every file their patch names, not just the first: `apply_patch` envelopes
 * (`*** Update File:`, `*** Add File:`, `*** Delete File:`, `*** Move File: a -> b`, `*** Move to:`)
 * and unified/git diffs (`--- a/x` + `+++ b/y`, `rename from/to`, `deleted file mode`). Header
 * matching tolerates odd spacing, tabs and timestamps: an unusual header must not hide a file.
 */

export interface PatchVerdict {
  riskClass: RiskClass;
  capability: string;
  paths: string[];
  basis: string;
}

const ENVELOPE = /^\*{3}\s*(update|add|delete|move)\s*file\s*:\s*(.*?)\s*$/i;
const MOVE_TO = /^\*{3}\s*move\s*to\s*:\s*(.*?)\s*$/i;
const OLD_HEADER = /^---[ \t]+(.*)$/;
const NEW_HEADER = /^\+\+\+[ \t]+(.*)$/;
const GIT_HEADER = /^diff[ \t]+--git[ \t]+(\S+)[ \t]+(\S+)\s*$/;
const GIT_RENAME = /^(?:rename|copy)[ \t]+(?:from|to)[ \t]+(.*?)\s*$/;
const DELETED_FILE = /^deleted[ \t]+file[ \t]+mode/;

/** `"a/dir/x y"\t2024-01-01 …` → `dir/x y`; `/dev/null` → null. */
function diffPath(raw: string, stripPrefix: boolean): string | null {
  let path = raw.split('\t')[0]?.trim() ?? '';
  if (path.startsWith('"') && path.endsWith('"') && path.length >= 2) path = path.slice(1, -1);
  if (path === '' || path === '/dev/null') return null;
  return stripPrefix ? path.replace(/^[ab]\//, '') : path;
}

export function classifyPatch(patch: string): PatchVerdict {
  const paths: string[] = [];
  const add = (p: string | null) => {
    if (p !== null && p !== '' && !paths.includes(p)) paths.push(p);
  };
  let deletes = false;
  const lines = patch.split(/\r?\n/);
  lines.forEach((line, k) => {
    const envelope = ENVELOPE.exec(line);
    if (envelope) {
      const [, kind = '', target = ''] = envelope;
      if (kind.toLowerCase() === 'move') target.split(/\s*->\s*/).forEach(add);
      else add(target);
      if (kind.toLowerCase() === 'delete') deletes = true;
      return;
    }
    const moveTo = MOVE_TO.exec(line);
    if (moveTo) return add(moveTo[1] ?? null);
    const git = GIT_HEADER.exec(line);
    if (git) {
      add(diffPath(git[1] ?? '', true));
      add(diffPath(git[2] ?? '', true));
      return;
    }
    const rename = GIT_RENAME.exec(line);
    if (rename) return add(diffPath(rename[1] ?? '', false));
    if (DELETED_FILE.test(line)) deletes = true;
    const old = OLD_HEADER.exec(line);
    const next = NEW_HEADER.exec(lines[k + 1] ?? '');
    if (old && next) {
      const from = diffPath(old[1] ?? '', true);
      const to = diffPath(next[1] ?? '', true);
      add(from);
      add(to);
      if (from !== null && to === null) deletes = true;
    }
  });
  if (paths.length === 0) return { riskClass: 'UNKNOWN', capability: 'unknown', paths, basis: 'patch names no file' };
  if (deletes) return { riskClass: 'DELETE', capability: 'file.delete', paths, basis: `patch deletes a file (${paths.length} files)` };
  return { riskClass: 'LOCAL_WRITE', capability: 'file.write', paths, basis: `patch writes ${paths.length} file${paths.length === 1 ? '' : 's'}` };
}
