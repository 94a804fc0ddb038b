import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The background's layout (docs/architecture.md, "The background's rooms"): no import circle runs through
 * a file of src/background, and its files sit in the rooms the picture shows. Static imports count, type
 * imports too (a type circle is the shape that made monitor.ts the place every shared type had to live);
 * `import()` does not: a lazy script (src/lazy/scripts.ts) is loaded on demand and is meant to point back.
 */

const ROOT = resolve(__dirname, '../..');
const SRC = join(ROOT, 'src');
const BACKGROUND = join(SRC, 'background');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** Each file's static imports and re-exports inside src/ (type-only ones included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets: string[] = [];
    for (const statement of source.statements) {
      const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : null;
      const target = specifier === null ? null : resolveImport(file, specifier);
      if (target !== null) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('src/background: rooms, no import circle', () => {
  it('no import circle runs through a file of src/background', () => {
    const through = circles(importGraph()).filter((component) => component.some((f) => f.startsWith('src/background/')));
    expect(through).toEqual([]);
  });

  it('the check sees a circle when there is one (negative control)', () => {
    const a = join(BACKGROUND, 'a.ts');
    const b = join(BACKGROUND, 'b.ts');
    expect(circles(new Map([[a, [b]], [b, [a]]]))).toEqual([['src/background/a.ts', 'src/background/b.ts']]);
    expect(circles(new Map([[a, [b]], [b, []]]))).toEqual([]);
  });

  it('every file sits in a room; only the composition root and the shared contracts stay at the top', () => {
    const top = readdirSync(BACKGROUND).filter((name) => statSync(join(BACKGROUND, name)).isFile()).sort();
    const rooms = readdirSync(BACKGROUND).filter((name) => statSync(join(BACKGROUND, name)).isDirectory()).sort();
    expect(top).toEqual(['contracts.ts', 'index.ts']);
    expect(rooms).toEqual(['decide', 'floor', 'intake', 'platform', 'task']);
  });

  it("docs/architecture.md's table of rooms lists each room's files as they are", () => {
    const architecture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const rows = [...architecture.matchAll(/^ {2}\| `(\w+)\/` \| ([^|]+) \|/gm)].map(([, room, files]) => [room!, [...files!.matchAll(/`([^`]+)`/g)].map(([, f]) => f!).sort()] as const);
    const rooms = readdirSync(BACKGROUND).filter((name) => statSync(join(BACKGROUND, name)).isDirectory()).sort();
    expect(rows.map(([room]) => room).sort()).toEqual(rooms);
    for (const [room, files] of rows) expect(files, room).toEqual(readdirSync(join(BACKGROUND, room)).filter((f) => f.endsWith('.ts')).sort());
  });
});
