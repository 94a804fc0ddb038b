import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler/clauses';
import type { PermissionDraft, PolicyDraft } from '../../src/compiler/draft';
import { harden } from '../../src/compiler/harden';
import { extractProhibitions } from '../../src/compiler/prohibitions';
import { rulesDraft } from '../../src/compiler/rules';
import { CONSEQUENTIAL_CLASSES, type RiskClass } from '../../src/core/risk';
import { classify } from '../../src/tools';

/**
 * Negation scope, for generated coordinations of verbs and objects ("Do not send, post or share
 * anything", "Never delete or archive my files", "… without posting or sharing it"): the span the
 * generator knows it negated is never allow-evidence, under the rules draft or a draft that quotes
 * the negated words for every class; and every class the negated verbs name is prohibited.
 */
const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);
const TIMEOUT_MS = 30_000 + NUM_RUNS * 20;

const NEGATED_VERBS: Record<string, RiskClass> = {
  send: 'COMMUNICATION', post: 'EXTERNAL_WRITE', share: 'PERMISSION_CHANGE', delete: 'DELETE', forward: 'COMMUNICATION',
  archive: 'EXTERNAL_WRITE', buy: 'FINANCIAL', pay: 'FINANCIAL', email: 'COMMUNICATION', upload: 'EXTERNAL_WRITE',
  remove: 'DELETE', reply: 'COMMUNICATION', submit: 'EXTERNAL_WRITE', download: 'LOCAL_WRITE', order: 'FINANCIAL',
};
const GERUNDS: Record<string, string> = {
  send: 'sending', post: 'posting', share: 'sharing', delete: 'deleting', forward: 'forwarding', archive: 'archiving',
  buy: 'buying', pay: 'paying', email: 'emailing', upload: 'uploading', remove: 'removing', reply: 'replying',
  submit: 'submitting', download: 'downloading', order: 'ordering',
};
const NEGATORS = ['Do not', "Don't", 'Never', 'Please do not', 'You must not', 'Under no circumstances'];
const OBJECTS = ['', ' anything', ' it', ' my files', ' the report', ' anything to anyone', ' the summary on forum.test'];
const OPENERS = [
  'Open the news site at news.example.test and summarize today\'s top story for me.',
  'Read my inbox on mail.test and list the unread messages.',
  'Reply to bob@x.test on mail.test with the agenda.',
  'Check the balance on bank.test.',
  'Summarize the report.',
];

/** "a", "a or b", "a, b or c", "a, b and c", "a, b, or c". */
function coordination(verbs: string[], joiner: 'or' | 'and', oxford: boolean): string {
  if (verbs.length === 1) return verbs[0]!;
  const head = verbs.slice(0, -1).join(', ');
  return `${head}${oxford && verbs.length > 2 ? ',' : ''} ${joiner} ${verbs.at(-1)}`;
}

const caseArb = fc.record({
  opener: fc.constantFrom(...OPENERS),
  verbs: fc.uniqueArray(fc.constantFrom(...Object.keys(NEGATED_VERBS)), { minLength: 1, maxLength: 4 }),
  joiner: fc.constantFrom<'or' | 'and'>('or', 'and'),
  oxford: fc.boolean(),
  negator: fc.constantFrom(...NEGATORS),
  object: fc.constantFrom(...OBJECTS),
  form: fc.constantFrom<'imperative' | 'without'>('imperative', 'without'),
});

interface Case {
  instruction: string;
  /** Where the generator put the negation: from the negator to the end of its sentence. */
  span: [number, number];
  banned: RiskClass[];
}

type Generated = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function build(c: Generated): Case {
  if (c.form === 'without') {
    const list = coordination(c.verbs.map((v) => GERUNDS[v]!), c.joiner, c.oxford);
    const sentence = c.opener.replace(/\.$/, '');
    const negation = `without ${list}${c.object}`;
    const instruction = `${sentence} ${negation}.`;
    const start = sentence.length + 1;
    return { instruction, span: [start, start + negation.length], banned: c.verbs.map((v) => NEGATED_VERBS[v]!) };
  }
  const negation = `${c.negator} ${coordination(c.verbs, c.joiner, c.oxford)}${c.object}`;
  const start = c.opener.length + 1;
  return { instruction: `${c.opener} ${negation}.`, span: [start, start + negation.length], banned: c.verbs.map((v) => NEGATED_VERBS[v]!) };
}

/** A model that cites pieces of the negated words as evidence for every class (quote-reusing). */
function negationQuotingDraft(instruction: string, span: [number, number]): PolicyDraft {
  const negated = instruction.slice(span[0], span[1]);
  const words = negated.split(' ');
  const quotes = new Set<string>([negated]);
  for (let k = 1; k < words.length; k++) quotes.add(words.slice(k).join(' '));
  const permissions: PermissionDraft[] = [];
  for (const quote of quotes) {
    for (const riskClass of CONSEQUENTIAL_CLASSES) {
      permissions.push({ riskClass, capability: null, tool: null, recipients: ['bob@x.test'], domains: ['forum.test'], paths: [], maxCalls: null, quote });
    }
  }
  return { permissions: permissions.slice(0, 50), readDomains: [], openWeb: false, prohibitions: [] };
}

function compile(instruction: string, draftOf: (text: string) => PolicyDraft) {
  const analysis = analyzeInstruction(instruction);
  return harden(draftOf(instruction), instruction, { taskId: 't', now: 1, source: 'test', prohibitions: extractProhibitions(instruction, analysis), classify }, analysis).policy;
}

/** Every place an evidence quote could have come from lies inside the negated span. */
function onlyInside(instruction: string, quote: string, [s, e]: [number, number]): boolean {
  const hay = instruction.toLowerCase();
  const needle = quote.toLowerCase();
  let any = false;
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) {
    any = true;
    if (at < s || at + needle.length > e) return false;
  }
  return any;
}

describe('negation scope (theorems over generated coordinations)', () => {
  it('no allow-evidence quote lies inside a negated span, and every negated verb is prohibited', { timeout: TIMEOUT_MS }, () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { instruction, span, banned } = build(c);
        for (const draftOf of [rulesDraft, (text: string) => negationQuotingDraft(text, span)]) {
          const policy = compile(instruction, draftOf);
          for (const e of policy.evidence) {
            if (e.ref.startsWith('prohibition:')) continue;
            expect(onlyInside(instruction, e.quote, span), `${e.ref} cites "${e.quote}" in: ${instruction}`).toBe(false);
          }
          const prohibited = new Set(policy.prohibitions.flatMap((p) => (p.exceptRecipients.length === 0 ? p.classes : [])));
          for (const cls of banned) {
            expect(prohibited.has(cls), `${cls} not prohibited in: ${instruction}`).toBe(true);
            expect(policy.ceilings[cls], `${cls} allowed in: ${instruction}`).not.toBe('allow');
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
