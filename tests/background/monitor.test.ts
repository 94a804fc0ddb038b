import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EXTENSION_ORIGIN, FakeEffects, PAGE, POPUP, fixedCompiler, freshStore, monitorOn, proposal, settle, until } from './fakes';
import { makePolicy } from '../support/policy';
import { AuditListResponseSchema, OptionsSchema, TaskStateResponseSchema, type ProposalAnswer } from '../../src/messages/protocol';
import { MASKED_KEY } from '../../src/background/task/control';
import { reportWithoutCompile } from '../../src/compiler/report';
import { GRANT_FLOOR_WINDOW_MS } from '../../src/background/decide/decider';
import { MAX_PENDING_PER_TAB } from '../../src/background/decide/approvals';

const POST = (url = 'http://api.test/collect', body: Record<string, unknown> = { a: '1' }) => ({
  tool: 'browser.request',
  args: { method: 'POST', url, body, kind: 'fetch' },
});

/** api.test may receive 3 writes; everything else asks. */
const budgetPolicy = (taskId = 'task-1') =>
  makePolicy({
    taskId,
    domains: ['api.test'],
    ceilings: { EXTERNAL_WRITE: 'allow' },
    allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
    constraints: [{ id: 'k1', tool: 'browser.request', maxCalls: 3 }],
  });

/** Writes need approval. */
const askPolicy = (taskId = 'task-1') => makePolicy({ taskId, domains: ['api.test'] });

async function setup(policy = budgetPolicy()) {
  const { store } = await freshStore();
  const effects = new FakeEffects();
  const monitor = await monitorOn(store, effects);
  await monitor.session.installTask(policy.taskId, 'the request', policy, reportWithoutCompile('test'));
  return { store, effects, monitor };
}

describe('Monitor: malformed input', () => {
  it('BLOCKs and audits every malformed message, never throws', async () => {
    const { store, monitor } = await setup();
    const before = await store.countAudit();
    const inputs: unknown[] = [null, undefined, 'x', 42, [], {}, { type: 'proposal' }, { type: 'nope' }, proposal('p', { tool: '', args: {} }), { ...proposal('p', POST()), extra: 1 }];
    for (const raw of inputs) {
      const answer = (await monitor.handleMessage(raw, PAGE())) as Partial<ProposalAnswer> & { ok?: boolean; code?: string };
      // Proposal-shaped input gets a BLOCK answer; a page message of an unknown type gets an error.
      if (answer.ok === false) expect(answer.code).toBe('invalid-message');
      else expect(answer).toMatchObject({ decision: 'BLOCK', check: 'schema' });
    }
    expect(await store.countAudit()).toBe(before + inputs.length);
    // Every entry names the rule that decided: here, that a message must be well-formed.
    expect(new Set((await store.listAudit()).map((e) => e.record.ruleRef))).toEqual(new Set(['builtin:message-schema']));
  });

  it('a proposal names only a browser tool the extension proposes: any other tool is BLOCKed as malformed and audited', async () => {
    const { store, monitor } = await setup(makePolicy({ taskId: 'task-1', domains: ['mail.test'], ceilings: { COMMUNICATION: 'allow' }, allow: { tools: ['send_email'], capabilities: [], classes: ['COMMUNICATION'] } }));
    const proposed = (await monitor.handleMessage(proposal('p-nav', { tool: 'browser.navigate', args: { url: 'https://mail.test/' } }), PAGE())) as ProposalAnswer;
    expect(proposed).toMatchObject({ id: 'p-nav', decision: 'ALLOW' });
    for (const tool of ['send_email', 'bash', 'browser.download', 'browser.upload', 'Browser.navigate']) {
      const answer = (await monitor.handleMessage(proposal(`p-${tool}`, { tool, args: { url: 'https://mail.test/', to: 'bob@mail.test' } }), PAGE())) as ProposalAnswer;
      expect(answer).toMatchObject({ id: `p-${tool}`, decision: 'BLOCK', check: 'schema', askedUser: false });
      expect(answer.reason).toMatch(/malformed message at call\.tool/);
      const [latest] = await store.listAudit({ limit: 1 });
      expect(latest?.record).toMatchObject({ decision: 'BLOCK', check: 'schema' });
    }
  });

  it('survives arbitrary JSON values (property)', async () => {
    const { monitor } = await setup();
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (raw) => {
        const answer = (await monitor.handleMessage(raw, PAGE())) as { decision?: string; ok?: boolean };
        expect(answer.decision === 'BLOCK' || answer.ok === false).toBe(true);
      }),
      { numRuns: Math.min(200, Number(process.env.FC_NUM_RUNS ?? 1000)) },
    );
  });
});

describe('Monitor: proposals', () => {
  it('does not get in the way when no task runs (ALLOW, audited)', async () => {
    const { store } = await freshStore();
    const monitor = await monitorOn(store, new FakeEffects());
    const answer = (await monitor.handleMessage(proposal('p1', POST('http://anywhere.test/x')), PAGE())) as ProposalAnswer;
    expect(answer).toMatchObject({ id: 'p1', decision: 'ALLOW', askedUser: false });
    expect(answer.reason).toMatch(/no task/);
    expect(await store.countAudit()).toBe(1);
  });

  it('50 parallel proposals against max_calls = 3: exactly 3 ALLOW, and σ is durable', async () => {
    const { store, effects, monitor } = await setup();
    const answers = (await Promise.all(Array.from({ length: 50 }, (_, i) => monitor.handleMessage(proposal(`p${i}`, POST()), PAGE())))) as ProposalAnswer[];
    expect(answers.filter((a) => a.decision === 'ALLOW')).toHaveLength(3);
    expect(answers.filter((a) => a.decision === 'BLOCK' && a.check === 'argument_constraints')).toHaveLength(47);
    const woken = await monitorOn(store, effects);
    expect(woken.snapshot().task?.state.constraintCalls.k1).toBe(3);
    const again = (await woken.handleMessage(proposal('late', POST()), PAGE())) as ProposalAnswer;
    expect(again.decision).toBe('BLOCK');
  });

  it("opens the network floor for an approved write before answering ALLOW: the grant's own rule", async () => {
    // The policy names api.test for reading only; the write is allowed once the person approves it.
    const { effects, monitor } = await setup(askPolicy());
    const held = monitor.handleMessage(proposal('p', POST()), PAGE());
    await settle();
    const before = effects.floors.length;
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'once');
    const [grant] = monitor.snapshot().task!.policy.grants;
    expect(effects.floors.slice(before).map((f) => f.grants)).toContainEqual([grant!.id]);
    expect(await held).toMatchObject({ decision: 'ALLOW' });
  });

  it('leaves the floor alone when the written site already was a write site (the policy lists writes there)', async () => {
    const { store, effects, monitor } = await setup();
    const before = effects.floors.length;
    expect(await monitor.handleMessage(proposal('p', POST()), PAGE())).toMatchObject({ decision: 'ALLOW' });
    expect(effects.floors.length).toBe(before);
    expect(await store.getTask()).toMatchObject({ ok: true, value: { floorWriteDomains: ['api.test'] } });
  });

  it('audits names, never values; masks secrets', async () => {
    const { store, monitor } = await setup(askPolicy());
    const call = {
      tool: 'browser.form_submit',
      args: { url: 'http://api.test/login?token=abc123secretvalue', method: 'POST', fields: { username: 'alice-the-user', password: 'hunter2-very-secret' } },
    };
    void monitor.handleMessage(proposal('f1', call, 'isolated'), PAGE());
    await until(async () => (await store.countAudit()) > 0);
    const entries = await store.listAudit();
    const json = JSON.stringify(entries);
    expect(json).toContain('password');
    expect(json).toContain('username');
    expect(json).not.toContain('hunter2');
    expect(json).not.toContain('alice-the-user');
    expect(json).not.toContain('abc123secretvalue');
  });

  it('does not check tabs outside the guard scope (task-tabs)', async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    effects.openTabs = [7, 99];
    const monitor = await monitorOn(store, effects);
    await monitor.handleMessage({ type: 'options.set', options: { ...(await store.getOptions()), guardScope: 'task-tabs' } }, POPUP);
    await monitor.session.installTask('task-1', 'r', askPolicy(), reportWithoutCompile('test'));
    const other = (await monitor.handleMessage(proposal('o', POST()), PAGE(99))) as ProposalAnswer;
    expect(other.decision).toBe('ALLOW');
    expect(other.reason).toMatch(/outside the guard scope/);
    await monitor.session.navigationTargetCreated(12, 7);
    const pending = monitor.handleMessage(proposal('c', POST()), PAGE(12));
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
    await monitor.session.endTask();
    expect(((await pending) as ProposalAnswer).decision).toBe('BLOCK');
  });

  describe('guard scope task-tabs: which tabs are outside the task', () => {
    async function taskTabsMonitor() {
      const { store } = await freshStore();
      const effects = new FakeEffects();
      effects.openTabs = [7, 20, 21];
      const monitor = await monitorOn(store, effects);
      await monitor.handleMessage({ type: 'options.set', options: { ...(await store.getOptions()), guardScope: 'task-tabs' } }, POPUP);
      await monitor.session.installTask('task-1', 'r', askPolicy(), reportWithoutCompile('test'));
      const outside = async () => {
        const stored = await store.getTask();
        return stored?.ok === true ? stored.value.outsideTabIds : null;
      };
      const guarded = async (tabId: number) => monitor.session.isGuarded(tabId, 1);
      return { store, effects, monitor, outside, guarded };
    }

    it('the tabs open when the task starts, but its own, are outside; a tab no event has placed is guarded', async () => {
      const { outside, guarded } = await taskTabsMonitor();
      expect(await outside()).toEqual([20, 21]);
      expect(await guarded(7)).toBe(true);
      expect(await guarded(20)).toBe(false);
      expect(await guarded(55)).toBe(true);
    });

    it('a tab a page opens belongs where the page is, whatever the opener Chromium names (noopener popups)', async () => {
      const { monitor, outside, guarded, effects } = await taskTabsMonitor();
      const floors = effects.floors.length;
      await monitor.session.tabCreated(30, 20, '');
      await monitor.session.navigationTargetCreated(30, 7);
      await monitor.session.tabNavigating(30);
      expect(await guarded(30)).toBe(true);
      await monitor.session.tabCreated(31, 7, '');
      await monitor.session.navigationTargetCreated(31, 20);
      await monitor.session.tabNavigating(31);
      expect(await guarded(31)).toBe(false);
      expect(await outside()).toEqual([20, 21, 31]);
      // Only placing a tab outside changes the floor; a guarded tab is guarded already.
      expect(effects.floors.length).toBe(floors + 1);
    });

    it('a tab the user or a driver opens is outside from its new-tab page or its first navigation; one it cannot place stays guarded', async () => {
      const { monitor, outside, guarded } = await taskTabsMonitor();
      await monitor.session.tabCreated(40, 20, 'chrome://newtab/');
      expect(await guarded(40)).toBe(false);
      await monitor.session.tabCreated(41, 21, 'about:blank');
      expect(await guarded(41)).toBe(true);
      await monitor.session.tabNavigating(41);
      expect(await guarded(41)).toBe(false);
      // A popup of a tab that is neither (an unplaced one) stays guarded, as its source is.
      await monitor.session.tabCreated(42, undefined, '');
      await monitor.session.navigationTargetCreated(43, 42);
      await monitor.session.tabNavigating(43);
      expect(await guarded(43)).toBe(true);
      expect(await outside()).toEqual([20, 21, 40, 41]);
    });

    it('a closed tab leaves the lists; after a browser restart the stored ids name no tab, so every tab is guarded', async () => {
      const { monitor, outside, guarded } = await taskTabsMonitor();
      await monitor.session.tabClosed(21);
      expect(await outside()).toEqual([20]);
      await monitor.session.browserStarted();
      expect(await outside()).toEqual([]);
      expect(await guarded(20)).toBe(true);
    });
  });
});

describe('Monitor: ASK_USER', () => {
  it('the approval prompt and the audit carry the check, the rule that decided and the classifier’s basis', async () => {
    const { store, monitor } = await setup(askPolicy());
    const card = { tool: 'browser.form_submit', args: { url: 'http://api.test/step2', method: 'POST', fields: { 'card-number': '4111 1111 1111 1111', amount: '45' }, submitText: 'Continue' } };
    const held = monitor.handleMessage(proposal('c1', card, 'isolated'), PAGE());
    // (Until the ask is up and its audit line written: a fixed wait failed under load.)
    await until(async () => TaskStateResponseSchema.parse(await monitor.handleMessage({ type: 'task.get' }, POPUP)).pending.length === 1 && (await store.listAudit()).length > 0);
    const diagnostics = { check: 'ceiling', ruleRef: 'ceilings.FINANCIAL', classifierLayer: 'web', basis: 'carries a cardnumber field' };
    const state = TaskStateResponseSchema.parse(await monitor.handleMessage({ type: 'task.get' }, POPUP));
    expect(state.pending[0]).toMatchObject(diagnostics);
    const listed = AuditListResponseSchema.parse(await monitor.handleMessage({ type: 'audit.list', limit: 10 }, POPUP));
    expect(listed.entries[0]?.record).toMatchObject({ decision: 'ASK_USER', ...diagnostics });
    await monitor.handleMessage({ type: 'approval.answer', id: state.pending[0]!.id, answer: 'deny' }, POPUP);
    expect(await held).toMatchObject({ decision: 'BLOCK', askedUser: true });
    expect((await store.listAudit()).find((e) => e.answer === 'deny')?.record).toMatchObject(diagnostics);
  });

  it('a page cannot flood the person with asks: past MAX_PENDING_PER_TAB waiting in one tab, a new ask is blocked without asking (audited); identical asks still join, and other tabs still ask', async () => {
    const { store, effects, monitor } = await setup(askPolicy());
    const read = (i: number) => ({ tool: 'browser.request', args: { method: 'GET', url: `http://s${i}.flood${i}.test/`, kind: 'fetch' } });
    const held = Array.from({ length: MAX_PENDING_PER_TAB + 30 }, (_, i) => monitor.handleMessage(proposal(`f${i}`, read(i)), PAGE()));
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(MAX_PENDING_PER_TAB);
    expect(effects.notified).toHaveLength(MAX_PENDING_PER_TAB);
    const refused = (await Promise.all(held.slice(MAX_PENDING_PER_TAB))) as ProposalAnswer[];
    for (const answer of refused) expect(answer).toMatchObject({ decision: 'BLOCK', askedUser: false, reason: expect.stringMatching(/approvals are already waiting/) });
    const audited = await store.listAudit({ limit: 30 });
    expect(audited.every((e) => e.record.decision === 'BLOCK' && /approvals are already waiting/.test(e.record.reason))).toBe(true);
    // The same call as a waiting one still joins it; another tab's ask still reaches the person.
    void monitor.handleMessage(proposal('again', read(0)), PAGE());
    void monitor.handleMessage(proposal('other-tab', read(999)), PAGE(8));
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(MAX_PENDING_PER_TAB + 1);
  });

  it('holds the call until "Allow once", then asks again for the next identical call', async () => {
    const { effects, monitor } = await setup(askPolicy());
    const first = monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    const [approval] = monitor.snapshot().approvals;
    expect(approval).toBeDefined();
    expect(effects.badge).toBe(1);
    expect(effects.notified).toEqual([approval!.id]);
    expect(await monitor.handleMessage({ type: 'approval.answer', id: approval!.id, answer: 'once' }, POPUP)).toEqual({ ok: true });
    expect(await first).toMatchObject({ id: 'p1', decision: 'ALLOW', askedUser: true });
    expect(effects.badge).toBe(0);
    const grant = monitor.snapshot().task!.policy.grants[0]!;
    expect(grant).toMatchObject({ tool: 'browser.request', domains: ['api.test'], maxCalls: 1 });

    const second = monitor.handleMessage(proposal('p2', POST()), PAGE());
    await settle();
    const [again] = monitor.snapshot().approvals;
    expect(again?.id).not.toBe(approval!.id);
    await monitor.approvals.answer(again!.id, 'once');
    expect(await second).toMatchObject({ decision: 'ALLOW' });
    // The same derived grant, one more use: no second grant was minted.
    expect(monitor.snapshot().task!.policy.grants).toHaveLength(1);
    expect(monitor.snapshot().task!.policy.grants[0]!.maxCalls).toBe(2);
  });

  it('"Allow once" opens the floor for that one request: the site never becomes a write site, and the used-up grant leaves the floor shortly after', async () => {
    const { effects, monitor } = await setup(askPolicy());
    effects.advance(1_000); // the wake's own repair, out of the way
    await settle();
    const first = monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'once');
    expect(await first).toMatchObject({ decision: 'ALLOW' });
    const [grant] = monitor.snapshot().task!.policy.grants;
    expect(effects.floors.at(-1)).toMatchObject({ writes: [], grants: [grant!.id] });
    const applied = effects.floors.length;
    effects.advance(GRANT_FLOOR_WINDOW_MS - 1);
    await settle();
    expect(effects.floors).toHaveLength(applied);
    effects.advance(1);
    await settle();
    expect(effects.floors.at(-1)).toEqual({ taskId: 'task-1', writes: [], grants: [] });
    expect(monitor.snapshot().task!.floorWriteDomains).toEqual([]);
  });

  it('"Allow for this task" covers later identical calls without asking; other targets still ask', async () => {
    const { monitor } = await setup(makePolicy({ domains: ['api.test', 'other.test'] }));
    const first = monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'task');
    expect(await first).toMatchObject({ decision: 'ALLOW' });
    for (let i = 0; i < 3; i++) expect(await monitor.handleMessage(proposal(`n${i}`, POST()), PAGE())).toMatchObject({ decision: 'ALLOW', check: 'grants' });
    void monitor.handleMessage(proposal('o', POST('http://other.test/x')), PAGE());
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
  });

  it('a payment approved "for this task" is approved once: the same payment again asks again', async () => {
    const { monitor } = await setup(askPolicy());
    const card = { tool: 'browser.form_submit', args: { url: 'http://api.test/pay', method: 'POST', fields: { amount: '120' }, submitText: 'Pay' } };
    const first = monitor.handleMessage(proposal('pay1', card, 'isolated'), PAGE());
    await settle();
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'task');
    expect(await first).toMatchObject({ decision: 'ALLOW' });
    expect(monitor.snapshot().task!.policy.grants.map((g) => g.maxCalls)).toEqual([1]);
    void monitor.handleMessage(proposal('pay2', card, 'isolated'), PAGE());
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
  });

  it('identical concurrent asks share one approval', async () => {
    const { monitor } = await setup(askPolicy());
    const held = [1, 2, 3].map((i) => monitor.handleMessage(proposal(`p${i}`, POST()), PAGE()));
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
    await monitor.approvals.answer(monitor.snapshot().approvals[0]!.id, 'deny');
    for (const answer of await Promise.all(held)) expect(answer).toMatchObject({ decision: 'BLOCK', askedUser: true, reason: 'denied by the user' });
  });

  it('times out to BLOCK and audits the timeout', async () => {
    const { store, effects, monitor } = await setup(askPolicy());
    const held = monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    effects.advance(119_000);
    await settle();
    expect(monitor.snapshot().approvals).toHaveLength(1);
    effects.advance(2_000);
    expect(await held).toMatchObject({ decision: 'BLOCK', askedUser: false });
    expect(monitor.snapshot().approvals).toHaveLength(0);
    await until(async () => (await store.listAudit()).some((e) => e.answer === 'timeout'));
  });

  it('pending approvals survive a restart; the answer after the restart mints the grant', async () => {
    const { store, effects, monitor } = await setup(askPolicy());
    void monitor.handleMessage(proposal('p1', POST()), PAGE());
    await until(async () => (await store.listApprovals()).length === 1 && (await store.countAudit()) === 1);
    const auditBefore = await store.countAudit();
    const woken = await monitorOn(store, effects);
    const [approval] = woken.snapshot().approvals;
    expect(approval).toBeDefined();
    expect(await store.countAudit()).toBe(auditBefore);
    expect(await woken.handleMessage({ type: 'approval.answer', id: approval!.id, answer: 'once' }, POPUP)).toEqual({ ok: true });
    expect(await woken.handleMessage(proposal('retry', POST()), PAGE())).toMatchObject({ decision: 'ALLOW', check: 'grants' });
  });

  it('after a restart the badge shows the restored pending count once the wake has repaired, not on the way to the first answer', async () => {
    const { store, effects, monitor } = await setup(askPolicy());
    void monitor.handleMessage(proposal('p1', POST()), PAGE());
    await until(async () => (await store.listApprovals()).length === 1);
    effects.badge = -1; // the browser's badge, as a new worker finds it (untouched until the repairs)
    const woken = await monitorOn(store, effects);
    expect(woken.snapshot().approvals).toHaveLength(1);
    expect(effects.badge).toBe(-1);
    await woken.repairAfterWake();
    expect(effects.badge).toBe(1);
  });

  it('drops approvals that expired while the worker was asleep', async () => {
    const { store, effects, monitor } = await setup(askPolicy());
    void monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    await until(async () => (await store.listApprovals()).length === 1);
    effects.clock += 200_000;
    const woken = await monitorOn(store, effects);
    expect(woken.snapshot().approvals).toHaveLength(0);
    await until(async () => (await store.listApprovals()).length === 0);
  });
});

describe('Monitor: who may manage the task', () => {
  it('accepts task and approval messages only from the popup or a control window', async () => {
    const { store, monitor } = await setup(askPolicy());
    void monitor.handleMessage(proposal('p1', POST()), PAGE());
    await settle();
    const id = monitor.snapshot().approvals[0]!.id;
    const refusedSenders = [
      PAGE(), // a content script
      { url: `${EXTENSION_ORIGIN}/popup.html`, tab: { id: 7, windowId: 1 } }, // our popup opened in a guarded tab
      { url: `${EXTENSION_ORIGIN}/blocked.html?check=x&url=http://a.test/`, tab: { id: 7, windowId: 1 } },
      { url: `${EXTENSION_ORIGIN}/blocked.html` }, // the blocked page, wherever it is
      { url: 'chrome-extension://otherextensionid/popup.html' },
    ];
    for (const sender of refusedSenders) {
      expect(await monitor.handleMessage({ type: 'approval.answer', id, answer: 'task' }, sender)).toMatchObject({ ok: false, code: 'approvals-disabled' });
      expect(await monitor.handleMessage({ type: 'task.end' }, sender)).toMatchObject({ ok: false });
    }
    expect(monitor.snapshot().approvals).toHaveLength(1);
    expect((await store.listAudit({ check: 'guards' })).length).toBe(refusedSenders.length * 2);
    expect(new Set((await store.listAudit({ check: 'guards' })).map((e) => e.record.ruleRef))).toEqual(new Set(['builtin:control-sender']));

    await monitor.session.registerControlWindow(42);
    const control = { url: `${EXTENSION_ORIGIN}/popup.html`, tab: { id: 50, windowId: 42 } };
    expect(await monitor.handleMessage({ type: 'task.get' }, control)).toMatchObject({ ok: true, approvalsAllowed: true });
    expect(await monitor.handleMessage({ type: 'approval.answer', id, answer: 'deny' }, control)).toEqual({ ok: true });
  });

  it("Chrome's own Options entry (options.html in a tab) may view the settings, key masked, and open the settings window; nothing more, and nothing in a guarded tab", async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects, fixedCompiler((taskId, now) => makePolicy({ taskId, issuedAt: now })));
    await monitor.handleMessage({ type: 'options.set', options: { ...OptionsSchema.parse({}), apiKey: 'sk-secret-key' } }, POPUP);
    const optionsTab = { url: `${EXTENSION_ORIGIN}/options.html`, tab: { id: 9, windowId: 3 } };
    expect(await monitor.handleMessage({ type: 'options.open' }, PAGE())).toMatchObject({ ok: false, code: 'approvals-disabled' });
    expect(await monitor.handleMessage({ type: 'options.view' }, PAGE())).toMatchObject({ ok: false, code: 'approvals-disabled' });
    expect(await monitor.handleMessage({ type: 'options.view' }, { url: `${EXTENSION_ORIGIN}/blocked.html?check=x&url=http://a.test/`, tab: { id: 9, windowId: 3 } })).toMatchObject({ ok: false });
    const strangers = (await store.listAudit({ check: 'guards' })).length;
    expect(strangers).toBe(3);
    const view = await monitor.handleMessage({ type: 'options.view' }, optionsTab);
    expect(view).toMatchObject({ ok: true, options: { apiKey: MASKED_KEY } });
    expect(JSON.stringify(view)).not.toContain('sk-secret-key');
    for (const message of [{ type: 'options.get' }, { type: 'options.set', options: OptionsSchema.parse({}) }, { type: 'task.get' }]) {
      expect(await monitor.handleMessage(message, optionsTab), message.type).toMatchObject({ ok: false, code: 'approvals-disabled' });
    }
    expect(await monitor.handleMessage({ type: 'options.open' }, optionsTab)).toEqual({ ok: true });
    expect(effects.optionsOpened).toBe(1);
    // The user's own Options tab is refused, not logged as a stranger's attempt (the unexplained
    // "BLOCK unknown" entries a session showed); a content script asking the same is.
    expect(await store.listAudit({ check: 'guards' })).toHaveLength(strangers);
    // While a task guards every tab, the same tab gets nothing (the browser guard also navigates it away).
    await monitor.handleMessage({ type: 'task.start', request: 'Read news.test' }, POPUP);
    expect(await monitor.handleMessage({ type: 'options.view' }, optionsTab)).toMatchObject({ ok: false, code: 'approvals-disabled' });
    expect(await monitor.handleMessage({ type: 'options.open' }, optionsTab)).toMatchObject({ ok: false });
    expect(effects.optionsOpened).toBe(1);
    expect(await monitor.handleMessage({ type: 'options.open' }, POPUP)).toEqual({ ok: true });
    expect(effects.optionsOpened).toBe(2);
    // In a guarded tab it is no longer the user's: refused and audited.
    expect((await store.listAudit({ check: 'guards' })).length).toBe(strangers + 2);
  });

  it('the audit log opens full page only at the popup’s or a control window’s request', async () => {
    const { store } = await freshStore();
    const effects = new FakeEffects();
    const monitor = await monitorOn(store, effects);
    expect(await monitor.handleMessage({ type: 'audit.open' }, PAGE())).toMatchObject({ ok: false, code: 'approvals-disabled' });
    expect(await monitor.handleMessage({ type: 'audit.open' }, { url: `${EXTENSION_ORIGIN}/audit.html`, tab: { id: 9, windowId: 3 } })).toMatchObject({ ok: false });
    expect(effects.auditLogOpened).toBe(0);
    expect(await monitor.handleMessage({ type: 'audit.open' }, POPUP)).toEqual({ ok: true });
    expect(effects.auditLogOpened).toBe(1);
  });

  it('starts, follows up and ends a task through the compiler; the API key stays out of the audit', async () => {
    const { store } = await freshStore();
    const compiler = fixedCompiler((taskId, now) => makePolicy({ taskId, issuedAt: now, domains: ['news.test'] }));
    const monitor = await monitorOn(store, new FakeEffects(), compiler);
    await monitor.handleMessage({ type: 'options.set', options: { ...(await store.getOptions()), apiKey: 'sk-or-v1-0123456789abcdefSECRET' } }, POPUP);
    const started = (await monitor.handleMessage({ type: 'task.start', request: 'Read the news on news.test' }, POPUP)) as { ok: boolean; task: { taskId: string; policy: { domains: string[] } } };
    expect(started.ok).toBe(true);
    expect(started.task.policy.domains).toEqual(['news.test']);
    const followed = (await monitor.handleMessage({ type: 'task.followup', text: 'also summarise it' }, POPUP)) as { task: { turns: number } };
    expect(followed.task.turns).toBe(2);
    await monitor.handleMessage(proposal('x', { tool: 'browser.navigate', args: { url: 'http://news.test/' } }), PAGE());
    expect(await monitor.handleMessage({ type: 'task.end' }, POPUP)).toMatchObject({ ok: true, task: null });
    expect(JSON.stringify(await store.listAudit())).not.toContain('SECRET');
    expect(await store.getTask()).toBeNull();
  });

  it('reports a compiler failure without starting a task', async () => {
    const { store } = await freshStore();
    const monitor = await monitorOn(store, new FakeEffects());
    expect(await monitor.handleMessage({ type: 'task.start', request: 'x' }, POPUP)).toMatchObject({ ok: false, code: 'compile-failed' });
    expect(monitor.snapshot().task).toBeNull();
  });
});

describe('Monitor: a write opens the host it went to', () => {
  it('a write allowed on news.example.test makes that host a write site, not its registrable domain', async () => {
    const policy = makePolicy({
      taskId: 'task-1',
      domains: ['news.example.test'],
      ceilings: { EXTERNAL_WRITE: 'allow' },
      allow: { tools: [], capabilities: [], classes: ['EXTERNAL_WRITE'] },
      constraints: [{ id: 'k1', tool: 'browser.request', maxCalls: 3 }],
    });
    const { store, monitor } = await setup(policy);
    expect(await monitor.handleMessage(proposal('p', POST('http://news.example.test/collect')), PAGE())).toMatchObject({ decision: 'ALLOW' });
    // Before: `example.test`, which named uploads.example.test to the floor after the first write.
    expect(await store.getTask()).toMatchObject({ ok: true, value: { floorWriteDomains: ['news.example.test'] } });
  });
});
