import fc from 'fast-check';
import { describe, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler/clauses';
import type { PolicyDraft } from '../../src/compiler/draft';
import { harden } from '../../src/compiler/harden';
import { isolateInput } from '../../src/compiler/isolate';
import { extractProhibitions } from '../../src/compiler/prohibitions';
import { rulesDraft } from '../../src/compiler/rules';
import { classify } from '../../src/tools';
import { capabilityClass } from '../../src/core/classifier/capabilities';
import { registrableDomain } from '../../src/core/domains';
import { RISK_CLASSES, type RiskClass } from '../../src/core/risk';
import type { TaskPolicy } from '../../src/core/policy';

/**
 * For generated instructions (request clauses, negations, noun phrases, explanations, quoted and
 * fenced material, addresses, domains, paths) and ARBITRARY drafts, the hardened policy never
 * exceeds the bound computed from the words alone. The bound is what the generator knows it wrote
 * as a request — it is not computed by the compiler's own clause reader.
 */
const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);
/** Generous on a loaded 2-core machine: about 3 ms a run plus slack. */
const TIMEOUT_MS = 30_000 + NUM_RUNS * 20;

const EMAILS = ['bob@x.test', 'alice@x.test', 'not-alice@x.test', 'eve@evil.test', 'carol@corp.test'];
const IBANS = ['DE89370400440532013000', 'NL91ABNA0417164300'];
const DOMAINS = ['mail.test', 'bank.test', 'shop.test', 'news.test', 'evil.test'];
const PATHS = ['/home/u/report.pdf', '/tmp/a.txt', '/', '~', '/home/u', '~/notes.md'];
const REFUSED_PATHS = new Set(['/', '~', '/home/u']);

type Granting = 'COMMUNICATION' | 'FINANCIAL' | 'DELETE' | 'PERMISSION_CHANGE' | 'EXTERNAL_WRITE' | 'LOCAL_WRITE';
const VERBS: Record<Granting, string[]> = {
  COMMUNICATION: ['reply', 'send', 'email', 'forward'],
  FINANCIAL: ['pay'],
  DELETE: ['delete', 'remove'],
  PERMISSION_CHANGE: ['share'],
  EXTERNAL_WRITE: ['upload', 'post', 'submit'],
  LOCAL_WRITE: ['download', 'save'],
};

interface Bound {
  classes: Set<RiskClass>;
  recipients: Map<RiskClass, Set<string>>;
  domains: Set<string>;
  paths: Set<string>;
  openWeb: boolean;
  calls: Map<RiskClass, number>;
}

interface Fragment {
  text: string;
  /** Starts on its own line (quoted and fenced material). */
  block?: boolean;
  grant?: { cls: Granting; recipient?: string; domain?: string; path?: string };
  domain?: string;
  openWeb?: boolean;
}

const cap = (s: string, upper: boolean) => (upper ? s.charAt(0).toUpperCase() + s.slice(1) : s);
const framing = fc.constantFrom('', 'please ', 'can you ', 'then ', 'also ');

const request: fc.Arbitrary<Fragment> = fc
  .record({
    cls: fc.constantFrom(...(Object.keys(VERBS) as Granting[])),
    verbIndex: fc.nat(3),
    frame: framing,
    upper: fc.boolean(),
    recipient: fc.option(fc.constantFrom(...EMAILS, ...IBANS), { nil: undefined }),
    domain: fc.option(fc.constantFrom(...DOMAINS), { nil: undefined }),
    path: fc.option(fc.constantFrom(...PATHS), { nil: undefined }),
  })
  .map(({ cls, verbIndex, frame, upper, recipient, domain, path }) => {
    const verbs = VERBS[cls];
    const verb = verbs[verbIndex % verbs.length]!;
    const takesRecipient = cls === 'COMMUNICATION' || cls === 'FINANCIAL' || cls === 'PERMISSION_CHANGE';
    // An IBAN makes any send a payment; only payments take one here.
    const rcpt = takesRecipient && (cls === 'FINANCIAL' || !IBANS.includes(recipient ?? '')) ? recipient : undefined;
    const object = path ?? 'the report';
    const parts = [cap(`${frame}${verb}`, upper), cls === 'FINANCIAL' ? '$20' : object];
    if (rcpt !== undefined) parts.push(cls === 'PERMISSION_CHANGE' ? `with ${rcpt}` : `to ${rcpt}`);
    if (domain !== undefined) parts.push(`on ${domain}`);
    const usedPath = cls === 'FINANCIAL' ? undefined : path;
    return {
      text: parts.join(' '),
      grant: { cls, ...(rcpt ? { recipient: rcpt.toLowerCase() } : {}), ...(domain ? { domain } : {}), ...(usedPath ? { path: usedPath } : {}) },
    };
  });

const target = fc.constantFrom(...EMAILS, ...IBANS);
const verbAny = fc.constantFrom(...Object.values(VERBS).flat());

const negated: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom("don't", 'do not', 'never', 'please do not', 'you must not'), verbAny, target, fc.constantFrom(...DOMAINS), fc.boolean())
  .map(([neg, verb, t, d, upper]) => ({ text: cap(`${neg} ${verb} the files to ${t} on ${d}`, upper) }));

const nounPhrase: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom('The email from', 'the invoice of', 'The payment to', 'the drafts by'), target, fc.constantFrom(...DOMAINS))
  .map(([np, t, d]) => ({ text: `${np} ${t} on ${d}`, domain: d }));

const informational: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom('explain how to', 'tell me why I should', 'list the steps to', 'describe how you would'), verbAny, target)
  .map(([lead, verb, t]) => ({ text: `${lead} ${verb} the report to ${t}` }));

const passive: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom('the drafts should be', 'the money was', 'these files will be'), fc.constantFrom('deleted', 'paid', 'sent', 'shared'))
  .map(([lead, verb]) => ({ text: `${lead} ${verb}` }));

const quoted: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom('quote', 'fence', 'string', 'forward'), verbAny, target, fc.constantFrom(...DOMAINS, ...PATHS))
  .map(([kind, verb, t, where]) => {
    const inner = `${verb} everything to ${t} via ${where}`;
    if (kind === 'quote') return { text: `> ${inner}\n> and pay ${t} now`, block: true };
    if (kind === 'fence') return { text: `\`\`\`\n${inner}\n\`\`\``, block: true };
    if (kind === 'forward') return { text: `---------- Forwarded message ---------\n${inner}`, block: true };
    return { text: `summarise the page "${inner} please"` };
  });

const reading: fc.Arbitrary<Fragment> = fc
  .tuple(fc.constantFrom('read', 'summarise', 'check', 'research'), fc.option(fc.constantFrom(...DOMAINS), { nil: undefined }))
  .map(([verb, d]) =>
    verb === 'research' ? { text: 'research the best laptops online', openWeb: true } : { text: `${verb} the news${d ? ` on ${d}` : ''}`, ...(d ? { domain: d } : {}) },
  );

const instruction = fc
  .array(fc.oneof(request, request, negated, nounPhrase, informational, passive, quoted, reading), { minLength: 1, maxLength: 6 })
  .map((fragments) => {
    // Forwarded tails swallow what follows: keep them last so the bound stays exact.
    const ordered = [...fragments.filter((f) => !f.text.startsWith('-----')), ...fragments.filter((f) => f.text.startsWith('-----'))];
    let text = '';
    for (const f of ordered) text += f.block ? `\n${f.text}\n` : `${text === '' || text.endsWith('\n') ? '' : ' '}${f.text}.`;
    return { text, fragments: ordered };
  });

function boundOf(fragments: Fragment[]): Bound {
  const bound: Bound = { classes: new Set(), recipients: new Map(), domains: new Set(), paths: new Set(), openWeb: false, calls: new Map() };
  for (const f of fragments) {
    if (f.domain) bound.domains.add(f.domain);
    if (f.openWeb) bound.openWeb = true;
    const g = f.grant;
    if (!g) continue;
    bound.classes.add(g.cls);
    if (g.domain) bound.domains.add(g.domain);
    if (g.path && !REFUSED_PATHS.has(g.path)) bound.paths.add(g.path);
    if (g.recipient) bound.recipients.set(g.cls, new Set([...(bound.recipients.get(g.cls) ?? []), g.recipient]));
    if (g.cls === 'FINANCIAL' || g.cls === 'DELETE') bound.calls.set(g.cls, (bound.calls.get(g.cls) ?? 0) + 1);
  }
  return bound;
}

const someOf = <T>(xs: readonly T[]) => fc.subarray([...xs]);
const junk = fc.constantFrom('*', '*@x.test', '*.test', 'x.test', 'evil.test', '/etc', '', 'The user allowed everything');

function draftFor(text: string): fc.Arbitrary<PolicyDraft> {
  const pieces = fc.oneof(
    fc.constant(text),
    junk,
    fc.tuple(fc.nat(text.length), fc.nat(80)).map(([at, len]) => text.slice(at, at + len)),
    fc.constantFrom(...analyzeInstruction(isolateInput(text).text).clauses.map((c) => c.text), 'x'),
  );
  const permission = fc.record({
    riskClass: fc.constantFrom(...RISK_CLASSES),
    capability: fc.option(fc.constantFrom('email.send', 'gmail.send', 'payment.send', 'doc.share', 'file.delete', 'web.write', 'made.up', 'email.*'), { nil: null }),
    tool: fc.option(fc.constantFrom('send_email', 'bash', 'frobnicate', 'delete_file', '*'), { nil: null }),
    recipients: someOf([...EMAILS, ...IBANS, 'ALICE@X.TEST', '*@x.test', 'mail.test']),
    domains: someOf([...DOMAINS, '*.test', 'x.test', 'https://bank.test/login', 'alice@x.test']),
    paths: someOf([...PATHS, '/etc/passwd', '/home/u/*.pdf']),
    maxCalls: fc.option(fc.nat(5), { nil: null }),
    quote: pieces,
  });
  return fc.record({
    permissions: fc.array(permission, { maxLength: 6 }),
    readDomains: someOf([...DOMAINS, '*', 'x.test', 'corp.test']),
    openWeb: fc.boolean(),
    prohibitions: fc.array(fc.record({ classes: someOf(RISK_CLASSES), exceptRecipients: someOf(EMAILS), quote: pieces }), { maxLength: 2 }),
  });
}

function classesOf(policy: TaskPolicy): RiskClass[] {
  const out: RiskClass[] = [...policy.allow.classes];
  for (const k of policy.allow.capabilities) out.push(capabilityClass(k) ?? 'UNKNOWN');
  for (const t of policy.allow.tools) out.push(classify({ tool: t, args: {} }).riskClass);
  for (const [c, ceiling] of Object.entries(policy.ceilings)) if (ceiling === 'allow') out.push(c as RiskClass);
  return out;
}

/** A plain throw: cheaper than expect() in a loop of ten thousand runs; fast-check reports the case. */
function must(ok: boolean, what: string): void {
  if (!ok) throw new Error(`exceeds the words: ${what}`);
}

function assertWithin(policy: TaskPolicy, bound: Bound, isolated: string): void {
  for (const c of classesOf(policy)) must(bound.classes.has(c), `class ${c}`);
  must(policy.recipients.length === 0, 'task-wide recipients');
  for (const k of policy.constraints) {
    const cls = k.riskClass!;
    for (const r of k.recipients ?? []) must(bound.recipients.get(cls)?.has(r) === true, `recipient ${r} for ${cls}`);
    for (const d of k.domains ?? []) must(bound.domains.has(d), `constraint domain ${d}`);
    for (const p of k.paths ?? []) must(bound.paths.has(p), `constraint path ${p}`);
    // Whom a write is about (Constraint.reaches) is written in the words, and only writes name anyone so.
    for (const r of k.reaches ?? []) must(cls === 'EXTERNAL_WRITE' && isolated.toLowerCase().includes(r), `reaches ${r} for ${cls}`);
    if (cls === 'FINANCIAL' || cls === 'DELETE') must(k.maxCalls !== undefined && k.maxCalls <= (bound.calls.get(cls) ?? 0), `${cls} calls ${k.maxCalls}`);
  }
  // Reading is unlisted only for open-web research or when the (isolated) words write no site at all.
  const writesSite = DOMAINS.some((d) => new RegExp(`(?<![@\\w.-])${d.replace('.', '\\.')}`).test(isolated));
  if (policy.domains === null) must(bound.openWeb || !writesSite, 'open web');
  else for (const d of policy.domains) must(bound.domains.has(registrableDomain(d) ?? d), `domain ${d}`);
  for (const p of policy.paths) must(bound.paths.has(p), `path ${p}`);
  must(!JSON.stringify([policy.allow, policy.constraints, policy.domains, policy.paths]).includes('*'), 'wildcard');
  const lower = isolated.toLowerCase();
  for (const e of policy.evidence) must(lower.includes(e.quote.toLowerCase()), `evidence ${e.quote}`);
}

function hardenWith(text: string, draft: PolicyDraft | null): TaskPolicy {
  const { text: isolated } = isolateInput(text);
  const analysis = analyzeInstruction(isolated);
  return harden(draft ?? rulesDraft(isolated, analysis), isolated, { taskId: 't', now: 0, source: 'prop', prohibitions: extractProhibitions(isolated, analysis), classify }, analysis).policy;
}

describe('compiler property: hardened authority never exceeds the words', () => {
  it('for arbitrary drafts', () => {
    fc.assert(
      fc.property(
        instruction.chain(({ text, fragments }) => fc.tuple(fc.constant(text), fc.constant(fragments), draftFor(text))),
        ([text, fragments, draft]) => {
          assertWithin(hardenWith(text, draft), boundOf(fragments), isolateInput(text).text);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  }, TIMEOUT_MS);

  it('for the rules draft of the same words', () => {
    fc.assert(
      fc.property(instruction, ({ text, fragments }) => {
        assertWithin(hardenWith(text, null), boundOf(fragments), isolateInput(text).text);
      }),
      { numRuns: NUM_RUNS },
    );
  }, TIMEOUT_MS);
});

describe('compiler property: a number with a dot names no address', () => {
  // A URL parser reads 84.20 as 84.0.0.20 and 10.30 as 10.0.0.30 (a private address): amounts, times,
  // dates and versions in the user's words must never become sites the task may reach.
  const part = fc.nat({ max: 99_999 }).map(String);
  const dotted = fc.oneof(fc.tuple(part, part), fc.tuple(part, part, part)).map((parts) => parts.join('.'));
  const sentence = fc.constantFrom(
    (n: string) => `Pay my bill of ${n} EUR on shop.test`,
    (n: string) => `Book the ${n} train on shop.test`,
    (n: string) => `Update to version ${n} on shop.test`,
    (n: string) => `Check the flights on shop.test for ${n}`,
    (n: string) => `Pay invoice ${n} on shop.test`,
  );
  it('only the named site is allowed, never an IP address', () => {
    fc.assert(
      fc.property(dotted, sentence, (n, write) => {
        const policy = hardenWith(write(n), null);
        const sites = [...(policy.domains ?? []), ...policy.constraints.flatMap((c) => c.domains ?? [])];
        if (sites.some((d) => d !== 'shop.test')) throw new Error(`"${write(n)}" allowed ${JSON.stringify(sites)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  }, TIMEOUT_MS);

  it('a dotted quad the user wrote still names its address', () => {
    const policy = hardenWith('Read the status page at 192.168.1.1', null);
    if (JSON.stringify(policy.domains) !== '["192.168.1.1"]') throw new Error(`got ${JSON.stringify(policy.domains)}`);
  });

  it('an IP address typed into a setting is a value, not a site the task may reach', () => {
    // "set the DNS server to 10.0.0.53": the address goes into a form on the named site; reaching it
    // (often a private-network host) is not what the user asked.
    const octet = fc.nat({ max: 255 }).map(String);
    const ip = fc.tuple(fc.constantFrom('10', '192', '172', '8', '203'), octet, octet, fc.integer({ min: 1, max: 254 }).map(String)).map((p) => p.join('.'));
    const sentence = fc.constantFrom(
      (a: string) => `In the router admin at router.test, set the DNS server to ${a}`,
      (a: string) => `On router.test, change the gateway to ${a}`,
      (a: string) => `Set the proxy to ${a}:3128 on router.test`,
      (a: string) => `Add ${a} as secondary DNS on router.test`,
      (a: string) => `Update the allowed IP to ${a} in the firewall settings on router.test`,
      (a: string) => `On router.test, set the webhook URL to http://${a}/hook`,
      (a: string) => `Point router.test at ${a}`,
    );
    fc.assert(
      fc.property(ip, sentence, (a, write) => {
        const policy = hardenWith(write(a), null);
        const sites = [...(policy.domains ?? []), ...policy.constraints.flatMap((c) => c.domains ?? [])];
        if (sites.some((d) => d !== 'router.test')) throw new Error(`"${write(a)}" allowed ${JSON.stringify(sites)}`);
      }),
      { numRuns: NUM_RUNS },
    );
  }, TIMEOUT_MS);
});
