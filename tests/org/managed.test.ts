import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeBackground, type Background } from '../../src/background';
import { decideClassified as evaluate } from '../../src/core/evaluator';
import { OptionsSchema, type ProposalAnswer, type TaskStateResponse } from '../../src/messages/protocol';
import { effectiveOptions, orgLimitsInWords } from '../../src/org/in-force';
import { ManagedPolicySchema, readManaged } from '../../src/org/managed';
import { EXTENSION_ORIGIN, FakeEffects, PAGE, POPUP, fixedCompiler, freshStore, proposal, until } from '../background/fakes';
import { makePolicy } from '../support/policy';
import { reportWithoutCompile } from '../../src/compiler/report';

const PAY = { tool: 'browser.request', args: { method: 'POST', url: 'http://bank.test/transfer', body: { amount: '10' }, kind: 'fetch' } };
const WRITE = (host: string) => ({ tool: 'browser.request', args: { method: 'POST', url: `http://${host}/w`, body: { a: '1' }, kind: 'fetch' } });

/** A task that allows payments and writes on bank.test and api.test. */
const generous = makePolicy({
  taskId: 't-org',
  domains: ['bank.test', 'api.test'],
  ceilings: { FINANCIAL: 'allow', EXTERNAL_WRITE: 'allow' },
  allow: { tools: [], capabilities: [], classes: ['FINANCIAL', 'EXTERNAL_WRITE'] },
});

async function monitorWith(managed: unknown) {
  const { store } = await freshStore();
  const effects = new FakeEffects();
  let current = managed;
  const org = Object.assign(effects, { readManaged: async () => current });
  const monitor = composeBackground({ store, effects: org, evaluate, compiler: fixedCompiler(() => generous), extensionOrigin: EXTENSION_ORIGIN });
  await monitor.ready;
  await monitor.session.installTask('t-org', 'pay the bill', generous, reportWithoutCompile('test'));
  return { store, effects, monitor, setManaged: (m: unknown) => (current = m) };
}

const ask = (monitor: Background, call: unknown, id = 'p1') => monitor.handleMessage(proposal(id, call), PAGE()) as Promise<ProposalAnswer>;

describe('the managed policy at the ingest boundary', () => {
  it('absent or empty: no organisation', () => {
    expect(readManaged(undefined)).toEqual({ status: 'none' });
    expect(readManaged({})).toEqual({ status: 'none' });
  });

  it('well formed: the floor and the rest of the policy', () => {
    const org = readManaged({ blockedSites: ['shop.test'], neverAllowClasses: ['FINANCIAL'], maxAskTimeoutSeconds: 30, collectorUrl: 'http://127.0.0.1:4318/v1/logs' });
    expect(org).toMatchObject({ status: 'active', floor: { blockedSites: ['shop.test'], askSites: [], neverAllow: ['FINANCIAL'] } });
  });

  it('malformed (a wrong type, an unknown key, a collector that is no http URL): a floor that blocks everything, saying where', () => {
    for (const raw of [{ blockedSites: 'shop.test' }, { blokedSites: ['x'] }, { collectorUrl: 'file:///etc/passwd' }, { neverAllowClasses: ['PAYING'] }, 'text']) {
      const org = readManaged(raw);
      expect(org.status).toBe('malformed');
      if (org.status === 'malformed') expect(org.floor.unreadable).toMatch(/^malformed at /);
    }
  });

  it('public/managed_schema.json (what the browser validates) declares exactly the keys the extension reads', () => {
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../../public/managed_schema.json'), 'utf8')) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(ManagedPolicySchema._zod.innerType.shape).sort());
  });

  it('the options in force: modes and compiler forced, the ask timeout capped (never raised)', () => {
    const user = OptionsSchema.parse({ askTimeoutSeconds: 120, sanitizer: 'off', minimizer: 'off', backend: 'openrouter' });
    const org = readManaged({ maxAskTimeoutSeconds: 30, sanitizerMode: 'hidden', minimizerMode: 'detect', compiler: { backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } });
    expect(effectiveOptions(user, org)).toMatchObject({ askTimeoutSeconds: 30, sanitizer: 'hidden', minimizer: 'detect', backend: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    expect(effectiveOptions({ ...user, askTimeoutSeconds: 10 }, org).askTimeoutSeconds).toBe(10);
    expect(orgLimitsInWords(org)).toContain('Approvals wait at most 30 s');
  });
});

describe('the monitor under the organisation floor', () => {
  it('a payment the task allows is blocked by the floor, audited with the check and the rule', async () => {
    const { monitor, store } = await monitorWith({ neverAllowClasses: ['FINANCIAL'] });
    expect(await ask(monitor, PAY)).toMatchObject({ decision: 'BLOCK', check: 'org_floor', reason: 'your organisation never allows FINANCIAL actions' });
    const [latest] = await store.listAudit({ limit: 1 });
    expect(latest?.record).toMatchObject({ check: 'org_floor', ruleRef: 'org.neverAllow:FINANCIAL' });
  });

  it('malformed managed policy: audited, shown in the popup, and every action blocked', async () => {
    const { monitor, store } = await monitorWith({ blockedSites: 42 });
    expect((await store.listAudit({ check: 'org_floor' }))[0]?.record.reason).toMatch(/managed policy is malformed at blockedSites/);
    expect(await ask(monitor, WRITE('api.test'))).toMatchObject({ decision: 'BLOCK', check: 'org_floor' });
    const state = (await monitor.handleMessage({ type: 'task.get' }, POPUP)) as TaskStateResponse;
    expect(state.org[0]).toMatch(/could not be read/);
  });

  it('a change in managed storage applies at once (storage.onChanged, area managed)', async () => {
    const { monitor, setManaged, effects } = await monitorWith({});
    expect(await ask(monitor, WRITE('api.test'), 'a')).toMatchObject({ decision: 'ALLOW' });
    setManaged({ blockedSites: ['api.test'] });
    await monitor.repairAfterWake(); // the wake's own floor repair, which follows the first answer
    const floors = effects.floors.length;
    await monitor.session.orgChanged();
    expect(effects.floors.length).toBe(floors + 1);
    expect(await ask(monitor, WRITE('api.test'), 'b')).toMatchObject({ decision: 'BLOCK', check: 'org_floor', reason: 'your organisation blocks api.test' });
  });

  it('an always-ask site: "Allow for this task" covers this one action only, the next one asks again', async () => {
    const { monitor } = await monitorWith({ askSites: ['api.test'] });
    const first = ask(monitor, WRITE('api.test'), 'a');
    let pending: TaskStateResponse['pending'] = [];
    await until(async () => (pending = ((await monitor.handleMessage({ type: 'task.get' }, POPUP)) as TaskStateResponse).pending).length === 1);
    expect(pending[0]).toMatchObject({ check: 'org_floor' });
    await monitor.handleMessage({ type: 'approval.answer', id: pending[0]!.id, answer: 'task' }, POPUP);
    expect(await first).toMatchObject({ decision: 'ALLOW', check: 'grants' });
    void ask(monitor, WRITE('api.test'), 'b');
    await until(async () => ((await monitor.handleMessage({ type: 'task.get' }, POPUP)) as TaskStateResponse).pending.length === 1);
  });
});
