import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { compileTask } from '../../src/compiler';
import { classify, evaluate } from '../../src/tools';
import { initialState } from '../../src/core/policy';
it('debug', async () => {
  const half = process.env.H ?? 'typed3';
  const ids = (process.env.IDS ?? '').split(',');
  const d = JSON.parse(readFileSync(new URL(`./requests.${half}.json`, import.meta.url), 'utf8'));
  for (const r of d.requests) {
    if (!ids.includes(r.id)) continue;
    const { policy } = await compileTask(r.request, { backend: 'rules', now: 1_800_000_000_000, taskId: 'q', classify });
    console.log('=====', r.id, r.request, '\n', JSON.stringify(policy.constraints ?? policy, null, 0).slice(0, 3000));
    let state = initialState();
    for (const a of r.actions) {
      const res = evaluate(policy, state, a.call, 1_800_000_000_001);
      state = res.state;
      console.log(' ->', a.kind, a.expect, res.record.decision, res.record.check, JSON.stringify(res.record).slice(0, 800));
    }
  }
});
