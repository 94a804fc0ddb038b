import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCompile } from '../../src/cli/compile';
import { TaskPolicySchema } from '../../src/core/policy';

function capture() {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return { text: () => chunks.join(''), spy };
}

afterEach(() => vi.restoreAllMocks());

describe('agentsfence compile', () => {
  it('prints the hardened TaskPolicy JSON with evidence quotes', async () => {
    const out = capture();
    expect(await runCompile(['Reply to bob@x.com on mail.test'])).toBe(0);
    const policy = TaskPolicySchema.parse(JSON.parse(out.text()));
    expect(policy.source).toBe('rules');
    expect(policy.evidence).toContainEqual({ ref: 'allow.classes:COMMUNICATION', quote: 'Reply to bob@x.com on mail.test' });
  });

  it('--explain adds what hardening removed and why, after the JSON', async () => {
    const out = capture();
    expect(await runCompile(['--explain', 'Email bob@x.com.', "Don't", 'pay', 'anything'])).toBe(0);
    const text = out.text();
    const json = text.slice(0, text.indexOf('\n# '));
    expect(TaskPolicySchema.parse(JSON.parse(json)).prohibitions).toHaveLength(1);
    expect(text).toContain('# compiler: rules');
    expect(text).toContain(`# prohibition: FINANCIAL: "Don't pay anything"`);
  });

  it('--compiler openai without a key falls back to read-only and says so', async () => {
    for (const name of ['AGENTSFENCE_API_KEY', 'OPENROUTER_API_KEY', 'OPENAI_API_KEY']) vi.stubEnv(name, '');
    const out = capture();
    expect(await runCompile(['--compiler', 'openai', '--explain', 'Email bob@x.com'])).toBe(0);
    expect(out.text()).toContain('fell back to read-only');
    expect(out.text()).toContain('"source": "fallback:read-only"');
    vi.unstubAllEnvs();
  });

  it('rejects unknown options and compilers with exit 2', async () => {
    capture();
    expect(await runCompile(['--compiler', 'magic', 'x'])).toBe(2);
    expect(await runCompile(['--frobnicate', 'x'])).toBe(2);
  });
});
