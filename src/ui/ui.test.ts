import { describe, expect, it } from 'vitest';
import { TaskPolicySchema } from '../core/policy';
import type { AuditEntry, PendingApproval } from '../messages/protocol';
import { describePolicy } from './policyView';
import { answerScopeWords, describeApproval } from './approvalView';
import { dataViewOf } from '../background/decide/redact';
import { auditAction, auditFacts, auditOutcome, auditReason, auditSite, exportAudit, filterAudit, NO_FILTER } from './auditView';
import { validateOptions, fieldsFromOptions, OPENROUTER_BASE_URL, type OptionsFields } from './optionsForm';
import { request } from './client';
import { listWords, targetWords } from './words';

const policy = TaskPolicySchema.parse({
  version: 2,
  taskId: 't1',
  issuedAt: 0,
  expiresAt: null,
  ceilings: { COMMUNICATION: 'allow', FINANCIAL: 'block', DELETE: 'ask' },
  allow: { classes: ['READ', 'COMMUNICATION'], capabilities: [], tools: [] },
  constraints: [{ id: 'c1', capability: 'email.send', recipients: ['bob@x.test'], maxCalls: 1 }],
  recipients: ['bob@x.test'],
  domains: ['mail.test'],
  outboundBudget: { maxCalls: 3, maxBytes: 2048 },
  prohibitions: [{ id: 'p1', classes: ['FINANCIAL'], quote: "don't buy anything" }],
  evidence: [
    { ref: 'allow.classes:COMMUNICATION', quote: 'email bob@x.test the summary' },
    { ref: 'something:else', quote: 'a quote no line shows' },
  ],
  source: 'rules',
});
const report = { backend: 'rules', durationMs: 2, modelCalls: 0, fallbackReason: null, prohibitions: [], removed: [{ ref: 'domain evil.test', why: 'not in the request' }] };

describe('describePolicy', () => {
  const view = describePolicy(policy, report);
  it('shows each permission with its evidence quote', () => {
    const send = view.permissions.find((p) => p.ref === 'allow.classes:COMMUNICATION');
    expect(send).toEqual({ ref: 'allow.classes:COMMUNICATION', text: 'May send messages.', quote: 'email bob@x.test the summary' });
    expect(view.permissions.find((p) => p.ref === 'allow.classes:READ')?.quote).toBeUndefined();
    expect(view.permissions.map((p) => p.text)).toContain('May never pay or buy.');
  });
  it('lists ask-first classes, limits, budgets, prohibitions and what hardening removed', () => {
    expect(view.askFirst.map((l) => l.text)).toEqual([
      'Asks you before it may delete things.',
      'Anything else that changes, sends, pays or deletes asks you first.',
    ]);
    const limits = view.limits.map((l) => l.text);
    expect(limits).toContain('Recipient: bob@x.test.');
    expect(limits).toContain('Site: mail.test.');
    expect(limits).toContain('File: none.');
    expect(limits).toContain('Outbound budget: at most 3 outbound actions, at most 2 KB sent.');
    expect(limits).toContain('email.send: only to bob@x.test, at most 1 time.');
    expect(view.prohibitions).toEqual([{ ref: 'prohibition:p1', text: 'Must not pay or buy.', quote: "don't buy anything" }]);
    expect(view.removed).toEqual([{ what: 'domain evil.test', why: 'not in the request' }]);
    expect(view.source).toBe('rules');
  });
  it('shows each named target with the words that named it, including targets only a constraint names', () => {
    const v = describePolicy(
      {
        ...policy,
        recipients: [],
        constraints: [{ id: 'c-communication', riskClass: 'COMMUNICATION', recipients: ['carol@x.test'] }],
        evidence: [
          { ref: 'recipients:carol@x.test', quote: 'email carol@x.test' },
          { ref: 'domains:mail.test', quote: 'on mail.test' },
          { ref: 'paths:/tmp/a', quote: 'save /tmp/a' },
        ],
      },
      report,
    );
    expect(v.limits).toContainEqual({ ref: 'recipients:carol@x.test', text: 'Recipient: carol@x.test.', quote: 'email carol@x.test' });
    expect(v.limits).toContainEqual({ ref: 'domains:mail.test', text: 'Site: mail.test.', quote: 'on mail.test' });
    expect(v.limits).toContainEqual({ ref: 'constraints:c-communication', text: 'send messages: only to carol@x.test.' });
    expect(v.otherEvidence).toEqual([{ ref: 'paths:/tmp/a', text: 'File /tmp/a', quote: 'save /tmp/a' }]);
  });
  it('shows the items a purchase is bound to, with the words that named them', () => {
    const v = describePolicy(
      {
        ...policy,
        constraints: [{ id: 'c-financial', riskClass: 'FINANCIAL', items: ['USB-C cable'], maxCalls: 1 }],
        evidence: [{ ref: 'items:USB-C cable', quote: 'buy one USB-C cable' }],
      },
      report,
    );
    expect(v.limits).toContainEqual({ ref: 'items:USB-C cable', text: 'Item: USB-C cable.', quote: 'buy one USB-C cable' });
    expect(v.limits.find((l) => l.ref === 'constraints:c-financial')?.text).toContain('only for USB-C cable, at most 1 time');
  });

  it('never hides evidence that no line refers to', () => {
    expect(view.otherEvidence).toEqual([{ ref: 'something:else', text: 'something:else', quote: 'a quote no line shows' }]);
  });
  it('says when reading is not limited to listed sites and when the compiler fell back', () => {
    const open = describePolicy({ ...policy, domains: null }, { ...report, fallbackReason: 'HTTP 401 from the model' });
    expect(open.limits.map((l) => l.text)).toContain('Sites: may read any site; writes only where allowed.');
    expect(open.fallbackReason).toBe('HTTP 401 from the model');
  });
  it('describes grants with their exact targets and scope', () => {
    const withGrants = describePolicy(
      {
        ...policy,
        grants: [
          { id: 'g1', tool: 'browser.form_submit', capability: 'email.send', riskClass: 'COMMUNICATION', recipients: ['a@x.test'], domains: [], paths: [], items: [], maxCalls: 1, issuedAt: 1 },
          { id: 'g2', tool: 'browser.request', capability: 'web.write', riskClass: 'EXTERNAL_WRITE', recipients: [], domains: [], paths: [], items: [], maxCalls: null, issuedAt: 1 },
        ],
      },
      report,
    );
    expect(withGrants.grants.map((g) => g.text)).toEqual([
      'You allowed email.send (browser.form_submit) for a@x.test once.',
      'You allowed web.write (browser.request) for this task.',
    ]);
  });
});

const pending: PendingApproval = {
  id: 'a1',
  tool: 'browser.form_submit',
  capability: 'email.send',
  riskClass: 'COMMUNICATION',
  targets: { recipients: ['eve@evil.test'], domains: ['mail.test'], paths: [], items: [] },
  destination: 'http://mail.test/send',
  check: 'recipient_binding',
  reason: 'eve@evil.test is not a recipient of this task',
  ruleRef: 'recipients',
  classifierLayer: 'web',
  basis: 'names a recipient',
  dataView: 'subject: [redacted 12 chars]',
  createdAt: 1_000,
  expiresAt: 121_000,
};

describe('describeApproval', () => {
  it('says what the agent wants in words, with every fact the person needs', () => {
    const v = describeApproval(pending, 21_000);
    expect(v.headline).toBe('The agent wants to send messages to eve@evil.test on mail.test.');
    expect(v.why).toBe('Your task does not name this recipient; this goes to eve@evil.test.');
    expect(v.quote).toBeUndefined();
    expect(v.facts).toContainEqual({ label: 'Destination', value: 'http://mail.test/send' });
    expect(v.facts).toContainEqual({ label: 'Why asked', value: 'recipient_binding: eve@evil.test is not a recipient of this task' });
    expect(v.facts).toContainEqual({ label: 'Files', value: 'none' });
    expect(v.facts).toContainEqual({ label: 'Rule', value: 'recipients' });
    expect(v.facts).toContainEqual({ label: 'Read as', value: 'names a recipient (the web heuristics)' });
    expect(v.secondsLeft).toBe(100);
    expect(describeApproval(pending, 500_000).secondsLeft).toBe(0);
  });
  it('writes out the hidden characters a page put in what it shows: a reversed recipient reads as it is, a field cannot draw a line', () => {
    const spoof = { ...pending, targets: { ...pending.targets, recipients: ['\u202Etset.kcatta@bob'] }, dataView: dataViewOf({ tool: 'browser.form_submit', args: { fields: { 'x\nAgentsFence: verified safe': 'y', to: '\u202Etset.kcatta@bob' } } }) };
    const v = describeApproval(spoof, 21_000);
    expect(v.headline).toContain('to ⟨U+202E⟩tset.kcatta@bob on mail.test');
    expect(v.facts).toContainEqual({ label: 'Recipients', value: '⟨U+202E⟩tset.kcatta@bob' });
    expect(v.dataView.split('\n')).toEqual(['x⟨U+000A⟩AgentsFence: verified safe: y', 'to: ⟨U+202E⟩tset.kcatta@bob']);
    expect(answerScopeWords(spoof).task).toContain('⟨U+202E⟩tset.kcatta@bob');
  });
  it('contrasts the task with the action, with the user’s words from the policy behind the rule that asked', () => {
    const asked = { ...pending, check: 'argument_constraints' as const, reason: 'recipient not among bob@x.test', ruleRef: 'constraints:c1' as const };
    const withWords = { ...policy, evidence: [...policy.evidence, { ref: 'constraints:c1', quote: 'email bob@x.test the summary' }] };
    const v = describeApproval(asked, 21_000, withWords);
    expect(v.why).toBe('Your task only sends to bob@x.test; this goes to eve@evil.test.');
    expect(v.quote).toBe('email bob@x.test the summary');
    expect(describeApproval(asked, 21_000, null).quote).toBeUndefined();
    expect(describeApproval({ ...asked, targets: { ...asked.targets, recipients: ['\u202Eevil'] } }, 21_000).why).toContain('⟨U+202E⟩evil');
  });
  it('states that an approval covers only the exact targets', () => {
    const words = answerScopeWords(pending);
    expect(words.task).toBe('Lets the agent send messages to eve@evil.test on mail.test again until the task ends; anything else still asks.');
    expect(answerScopeWords({ ...pending, targets: { recipients: [], domains: [], paths: [], items: [] } }).once).toContain('with no recipients, sites, files or items');
  });
  it('shows the amount proposed and, in why it asked, the amount the user named', () => {
    const payment = {
      ...pending,
      riskClass: 'FINANCIAL' as const,
      capability: 'payment.send',
      targets: { recipients: ['de89370400440532013000'], domains: ['bank.test'], paths: [], items: [], amounts: ['4500 EUR'] },
      check: 'argument_constraints' as const,
      reason: 'amount 4,500.00 EUR is above the 45.00 EUR the user named',
    };
    const v = describeApproval(payment, 21_000);
    expect(v.facts).toContainEqual({ label: 'Amount', value: '4,500.00 EUR' });
    expect(v.facts).toContainEqual({ label: 'Why asked', value: 'argument_constraints: amount 4,500.00 EUR is above the 45.00 EUR the user named' });
    expect(answerScopeWords(payment).once).toContain('of 4,500.00 EUR');
  });
  it('offers no "for this task" where an approval covers one action: a payment, an organisation ask', () => {
    const payment = { ...pending, riskClass: 'FINANCIAL' as const, capability: 'payment.send' };
    expect(answerScopeWords(payment).task).toBeNull();
    expect(answerScopeWords(payment).note).toBe('Money moves one approval at a time: this allows it once; the next one asks again.');
    expect(answerScopeWords({ ...pending, check: 'org_floor' }).task).toBeNull();
    expect(answerScopeWords(pending).task).not.toBeNull();
  });
});

describe('describePolicy: amounts and quantities', () => {
  it('shows the bound with the words that named it', () => {
    const bound = TaskPolicySchema.parse({
      ...policy,
      constraints: [{ id: 'c-financial', riskClass: 'FINANCIAL', maxCalls: 1, amount: { value: '45', currency: 'EUR' }, quantity: 2 }],
      evidence: [{ ref: 'amount:45 EUR', quote: 'pay my bill of 45 EUR' }],
    });
    const v = describePolicy(bound, report);
    expect(v.limits).toContainEqual({ ref: 'amount:45 EUR', text: 'Amount: at most 45.00 EUR per payment.', quote: 'pay my bill of 45 EUR' });
    expect(v.limits.map((l) => l.text)).toContain('pay or buy: at most 1 time, at most 45.00 EUR each time, at most 2 items per order.');
  });

  it('shows the amount named for each payee, with its words, and the bound of anyone else', () => {
    const tied = TaskPolicySchema.parse({
      ...policy,
      constraints: [
        {
          id: 'c-financial', riskClass: 'FINANCIAL', maxCalls: 2, amount: { value: '4500', currency: 'EUR' },
          payeeAmounts: { payees: [{ recipient: 'bob@x.test', amount: { value: '45', currency: 'EUR' } }, { recipient: 'alice@x.test', amount: { value: '4500', currency: 'EUR' } }], others: { value: '45', currency: 'EUR' } },
        },
      ],
      evidence: [{ ref: 'amount:bob@x.test:45 EUR', quote: 'Pay bob@x.test 45 EUR' }],
    });
    const v = describePolicy(tied, report);
    expect(v.limits).toContainEqual({ ref: 'amount:bob@x.test:45 EUR', text: 'Amount to bob@x.test: at most 45.00 EUR per payment.', quote: 'Pay bob@x.test 45 EUR' });
    expect(v.limits.map((l) => l.text)).toContain('Amount to anyone else, or to a payee the page does not name: at most 45.00 EUR per payment.');
    expect(v.limits.map((l) => l.text)).toContain('pay or buy: at most 2 times, at most 4,500.00 EUR each time, at most 45.00 EUR to bob@x.test, at most 4,500.00 EUR to alice@x.test, at most 45.00 EUR to anyone else.');
  });
});

const entry = (id: string, at: number, decision: 'ALLOW' | 'BLOCK' | 'ASK_USER', check: AuditEntry['record']['check']): AuditEntry => ({
  id,
  at,
  taskId: 't1',
  record: { decision, check, reason: 'r', tool: 'browser.request', capability: 'web.write', riskClass: 'EXTERNAL_WRITE', targets: { recipients: [], domains: ['a.test'], paths: [], items: [] } },
});

describe('audit view', () => {
  const entries = [entry('1', 10, 'ALLOW', 'allowed'), entry('3', 30, 'BLOCK', 'domain_allowlist'), entry('2', 20, 'BLOCK', 'prohibitions')];
  it('shows newest first and filters by decision', () => {
    expect(filterAudit(entries, NO_FILTER).map((e) => e.id)).toEqual(['3', '2', '1']);
    expect(filterAudit(entries, { decision: 'BLOCK', text: '' }).map((e) => e.id)).toEqual(['3', '2']);
    expect(entries.map((e) => e.id)).toEqual(['1', '3', '2']);
  });
  it('filters by free text over the reason, the site and the action: every word, any case, any order', () => {
    const mail = { ...entry('7', 70, 'ASK_USER', 'argument_constraints'), destination: 'POST http://mail.test/api/send' };
    mail.record = { ...mail.record, reason: 'recipient not among bob@x.test', capability: 'message.send', riskClass: 'COMMUNICATION', targets: { recipients: ['eve@evil.test'], domains: ['mail.test'], paths: [], items: [] } };
    const all = [...entries, mail];
    const ids = (text: string, decision: 'any' | 'BLOCK' = 'any') => filterAudit(all, { decision, text }).map((e) => e.id);
    expect(ids('EVE@evil')).toEqual(['7']); // a recipient
    expect(ids('mail.test')).toEqual(['7']); // a site
    expect(ids('only sends')).toEqual(['7']); // words of the plain reason
    expect(ids('sends eve')).toEqual(['7']); // several words, in any order
    expect(ids('sends nobody@x.test')).toEqual([]); // every word must match
    expect(ids('send messages')).toEqual(['7']); // the action in words
    expect(ids('a.test')).toEqual(['3', '2', '1']);
    expect(ids('a.test', 'BLOCK')).toEqual(['3', '2']);
    expect(ids('  ')).toEqual(['7', '3', '2', '1']);
  });
  it('reads a row as outcome, action and plain reason, with the person’s answer', () => {
    const granted = { ...entry('1', 1, 'ALLOW', 'grants'), answer: 'once' as const };
    expect(auditOutcome(granted)).toBe('Allowed');
    expect(auditAction(granted)).toBe('Change data on websites on a.test');
    expect(auditReason(granted)).toBe('You allowed it once.');
    expect(auditReason({ ...entry('2', 1, 'BLOCK', 'argument_constraints'), answer: 'deny' })).toBe('You denied it.');
    expect(auditReason({ ...entry('2', 1, 'BLOCK', 'argument_constraints'), answer: 'timeout' })).toMatch(/^Nobody answered in time/);
    expect(auditSite(granted)).toBe('a.test');
    const noSite = { ...granted, destination: 'POST http://b.test:8080/x', record: { ...granted.record, targets: { recipients: [], domains: [], paths: [], items: [] } } };
    expect(auditSite(noSite)).toBe('b.test:8080');
  });
  it('explains a refused page message in words, with no "unknown"', () => {
    const refused = entry('9', 1, 'BLOCK', 'guards');
    refused.record = { ...refused.record, tool: 'message:task.get', capability: 'unknown', riskClass: 'UNKNOWN', ruleRef: 'builtin:control-sender', targets: { recipients: [], domains: [], paths: [], items: [] } };
    expect(auditAction(refused)).toBe('Manage the task (task.get)');
    expect(auditReason(refused)).toMatch(/^A page that is not the toolbar popup/);
    expect(`${auditOutcome(refused)} ${auditAction(refused)} ${auditReason(refused)}`).not.toMatch(/unknown|builtin:|\[/i);
  });
  it('opens a row as labelled fields, leaving empty ones out', () => {
    const facts = auditFacts({ ...entry('1', 1, 'ALLOW', 'grants'), answer: 'once', layer: 'main', destination: 'http://a.test/api', record: { ...entry('1', 1, 'ALLOW', 'grants').record, ruleRef: 'grant:g1' } });
    const labels = facts.map((f) => f.label);
    expect(labels).toEqual(['Time', 'Decision', 'Check', 'Reason', 'Answer', 'Action', 'Destination', 'Sites', 'Rule', 'Seen by']);
    expect(facts.find((f) => f.label === 'Rule')?.value).toBe('grant:g1 (an approval the user gave)');
    expect(facts.find((f) => f.label === 'Action')?.value).toBe('browser.request (web.write, EXTERNAL_WRITE)');
    expect(facts.find((f) => f.label === 'Seen by')?.value).toBe('page hooks');
    expect(facts.some((f) => f.value.includes('{'))).toBe(false);
  });
  it('shows the check, the rule and the classifier’s basis in the record', () => {
    const record = { ...entry('4', 1, 'BLOCK', 'domain_allowlist').record, ruleRef: 'domains' as const, classifierLayer: 'web' as const, basis: `button "${'Pay '.repeat(40)}"` };
    const e = { ...entry('4', 1, 'BLOCK', 'domain_allowlist'), record };
    const facts = auditFacts(e);
    expect(facts.find((f) => f.label === 'Check')?.value).toBe('domain_allowlist');
    expect(facts.find((f) => f.label === 'Rule')?.value).toBe('domains (the task’s site list)');
    expect(facts.find((f) => f.label === 'Read as')?.value).toMatch(/^button "Pay Pay .*… \(the web heuristics\)$/);
  });
  it('exports JSON and JSONL that parse back to the same entries', () => {
    const json = exportAudit(entries, 'json');
    expect(JSON.parse(json.text)).toEqual(entries);
    expect(json.filename).toMatch(/\.json$/);
    const jsonl = exportAudit(entries, 'jsonl');
    expect(jsonl.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(entries);
    expect(exportAudit([], 'jsonl').text).toBe('');
  });
});

describe('validateOptions', () => {
  const good: OptionsFields = {
    backend: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'llama3',
    apiKey: '',
    askTimeoutSeconds: '30',
    guardScope: 'task-tabs',
    sanitizer: 'model',
    sanitizerModelBudget: '5',
    minimizer: 'detect',
    minimizeWithoutAsking: 'no',
  };
  it('accepts valid fields and parses the timeout and the model-call budget', () => {
    expect(validateOptions(good)).toEqual({ ok: true, options: { ...good, askTimeoutSeconds: 30, sanitizerModelBudget: 5, minimizeWithoutAsking: false } });
  });
  it('gives every bad field its own clear message', () => {
    const r = validateOptions({ ...good, baseUrl: 'not a url', model: ' ', askTimeoutSeconds: '2', guardScope: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['askTimeoutSeconds', 'baseUrl', 'guardScope', 'model']);
    expect(r.errors.askTimeoutSeconds).toBe('Enter a whole number of seconds from 5 to 3600.');
  });
  it('rejects an unknown Sanitizer mode and a budget that is not a whole number from 0 to 1000', () => {
    expect(validateOptions({ ...good, sanitizer: 'strict' })).toEqual({ ok: false, errors: { sanitizer: 'Choose off, hidden text (deterministic) or model review.' } });
    for (const b of ['', '1.5', '-1', '1001', 'x']) expect(validateOptions({ ...good, sanitizerModelBudget: b }).ok, b).toBe(false);
    const ok = validateOptions({ ...good, sanitizerModelBudget: '0' });
    expect(ok.ok && ok.options.sanitizerModelBudget).toBe(0);
  });
  it('rejects non-integer and non-numeric timeouts', () => {
    for (const t of ['', '1.5', '12abc', '-10', '3601', '1e3']) expect(validateOptions({ ...good, askTimeoutSeconds: t }).ok, t).toBe(false);
  });
  it('pins OpenRouter to its own address and requires a key for it', () => {
    const r = validateOptions({ ...good, backend: 'openrouter', baseUrl: 'http://evil.test' });
    expect(r).toEqual({ ok: false, errors: { apiKey: 'OpenRouter needs an API key.' } });
    const ok = validateOptions({ ...good, backend: 'openrouter', baseUrl: 'http://evil.test', apiKey: 'sk-1' });
    expect(ok.ok && ok.options.baseUrl).toBe(OPENROUTER_BASE_URL);
  });
  it('round-trips stored options through the form', () => {
    const stored = {
      backend: 'rules', baseUrl: OPENROUTER_BASE_URL, model: 'm', apiKey: '', askTimeoutSeconds: 120, guardScope: 'all-tabs',
      sanitizer: 'hidden', sanitizerModelBudget: 20, minimizer: 'detect', minimizeWithoutAsking: false,
    } as const;
    expect(validateOptions(fieldsFromOptions(stored))).toEqual({ ok: true, options: stored });
  });
});

describe('request', () => {
  it('parses a good answer', async () => {
    const r = await request(async () => ({ ok: true, entries: [] }), { type: 'audit.list' });
    expect(r).toEqual({ ok: true, entries: [] });
  });
  it('passes a refusal through with its code', async () => {
    const refusal = { ok: false, code: 'approvals-disabled', error: 'not from a guarded tab' };
    expect(await request(async () => refusal, { type: 'approval.answer', id: 'a', answer: 'once' })).toEqual(refusal);
  });
  it('turns a thrown transport and a malformed answer into errors instead of throwing', async () => {
    const dead = await request(async () => Promise.reject(new Error('Receiving end does not exist')), { type: 'task.get' });
    expect(dead).toEqual({ ok: false, code: 'internal', error: 'The background did not answer: Receiving end does not exist' });
    const odd = await request(async () => ({ ok: true, task: 'x' }), { type: 'task.get' });
    expect(odd.ok).toBe(false);
  });
});

describe('words', () => {
  it('joins lists and targets', () => {
    expect(listWords([])).toBe('none');
    expect(listWords(['a', 'b', 'c'])).toBe('a, b and c');
    expect(targetWords({ recipients: [], domains: [], paths: ['/tmp/a'], items: [] })).toBe('with files /tmp/a');
  });
});
