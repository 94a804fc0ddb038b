/**
 * Path matching for the path allowlist. Literal, segment-aware: `/home/u/docs` covers
 * `/home/u/docs/a.txt` but not `/home/u/docs-secret`. A path with `..` segments is never covered.
 */
export function normalisePath(path: string): string | null {
  const unified = path.replace(/\\/g, '/').trim();
  if (unified.length === 0) return null;
  const segments = unified.split('/');
  if (segments.includes('..')) return null;
  const kept = segments.filter((s) => s !== '' && s !== '.').join('/');
  return unified.startsWith('/') ? `/${kept}` : kept;
}

export function pathCovered(path: string, allowed: readonly string[]): boolean {
  const p = normalisePath(path);
  if (p === null) return false;
  return allowed.some((entry) => {
    const a = normalisePath(entry);
    if (a === null) return false;
    return p === a || p.startsWith(a.endsWith('/') ? a : `${a}/`);
  });
}
