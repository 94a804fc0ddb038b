import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/core/decision';
import { EVALUATION_ORDER } from '../../src/core/evaluator';

/**
 * The README is the user's entry, and it stays true: every link stays inside the repository and lands
 * on a file (and heading) that exists, it carries no result figure of its own (figures live in
 * docs/results.md, written from the demo's and the bench's JSON), it fits in 250 lines, and it gives the
 * two quick-start commands CI and the hooks run.
 */
const ROOT = resolve(__dirname, '../..');
const README = join(ROOT, 'README.md');
const readme = readFileSync(README, 'utf8');
/** A measured figure: a number with a unit the demo and the bench report in (%, ms, µs, sizes, ratios). */
const FIGURE = /\d[\d,.]*\s?(?:%|ms\b|µs\b|[kKM]B\b|×)/g;
/** The README without its code blocks: what a reader takes as prose, links and claims. */
const prose = readme.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const headings = [...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!));
  const explicit = [...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]!);
  return new Set([...headings, ...explicit]);
}

/** Every link target in markdown text: `[text](target)` and `<img src="target">`. */
function linkTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g), ...markdown.matchAll(/\bsrc="([^"]+)"/g)].map((m) => m[1]!);
}

describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives the two quick-start commands', () => {
    expect(readme).toMatch(/^npm run demo\b/m);
    expect(readme).toMatch(/^npm test\b/m);
  });

  it('links only inside the repository, to files and headings that exist', () => {
    const targets = linkTargets(prose);
    expect(targets.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
        problems.push(`${target}: outside the repository`);
        continue;
      }
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? README : resolve(ROOT, path);
      const inside = relative(ROOT, file);
      if (inside.startsWith('..')) problems.push(`${target}: outside the repository`);
      else if (!existsSync(file)) problems.push(`${target}: no such file`);
      else if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchorsOf(file).has(anchor)) problems.push(`${target}: no such heading`);
    }
    expect(problems).toEqual([]);
  });

  it('carries no result figure: measured figures are in docs/results.md, which it links', () => {
    const figures = [...prose.matchAll(FIGURE)].map((m) => m[0]);
    expect(figures).toEqual([]);
    expect(linkTargets(prose)).toContain('docs/results.md');
  });

  it('the test notices a figure and an outside link (the rules are not vacuous)', () => {
    expect([...'round trip p50 6.8 ms, 4.9× the echo, 337.9 kB'.matchAll(FIGURE)].map((m) => m[0])).toEqual(['6.8 ms', '4.9×', '337.9 kB']);
    expect(linkTargets('[x](https://example.com) [y](../shared/design.md)')).toEqual(['https://example.com', '../shared/design.md']);
    expect(relative(ROOT, resolve(ROOT, '../shared/design.md')).startsWith('..')).toBe(true);
  });
});

describe('docs/results.md', () => {
  it('is what the committed result files give (scripts/results.mjs --check)', () => {
    expect(() => execFileSync(process.execPath, [join(ROOT, 'scripts', 'results.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('takes every figure from the result JSON: the bench figures appear as measured', () => {
    const page = readFileSync(join(ROOT, 'docs', 'results.md'), 'utf8');
    const bench = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'latest.json'), 'utf8')) as { figures: { measured: string }[] };
    for (const f of bench.figures) expect(page).toContain(f.measured.replaceAll('|', '\\|'));
  });
});

describe('the docs say each thing once', () => {
  const docs = ['docs/architecture.md', 'docs/decisions.md', 'docs/design-decisions.md', 'src/core/evaluator.ts'].map((f) => [f, readFileSync(join(ROOT, f), 'utf8')] as const);

  it('the evaluation order is written in docs/architecture.md only; the others point there', () => {
    const writtenOut = /schema\W+expiry\W+guards/;
    // decisions.md and design-decisions.md point at it; evaluator.ts follows CHECKS and points at it.
    expect(docs.filter(([, text]) => writtenOut.test(text)).map(([f]) => f)).toEqual(['docs/architecture.md']);
    expect(readFileSync(join(ROOT, 'src/core/evaluator.ts'), 'utf8')).toContain('docs/architecture.md');
    expect(readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8')).toContain('architecture.md#evaluation-order');
  });

  it('the evaluation order in docs/architecture.md is the evaluator\'s own table of checks (EVALUATION_ORDER) and CHECKS', () => {
    const architecture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = architecture.slice(architecture.indexOf('### Evaluation order'));
    const walk = /\n\n(`schema`[\s\S]*?`allowed`)\n/.exec(section)?.[1] ?? '';
    const written = [...walk.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    // Not steps of the walk (the section says so): the Minimizer's step after an ALLOW, errors, the Sanitizer's audit.
    expect(written).toEqual(CHECKS.filter((c) => !['minimizer', 'internal_error', 'sanitizer'].includes(c)));
    // The evaluator walks its table in this order: the statement and the code are one list.
    expect(written).toEqual([...EVALUATION_ORDER]);
  });

  it("no file points at a design.md section that is not in the repository", () => {
    const files = execFileSync('git', ['ls-files', 'src', 'e2e', 'demo', 'bench', 'docs', 'tests', '*.ts', '*.md'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => f !== '' && f !== 'tests/docs/readme.test.ts');
    const pointing = files.filter((f) => existsSync(join(ROOT, f)) && /\bdesign\.md §/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(pointing).toEqual([]);
  });
});
