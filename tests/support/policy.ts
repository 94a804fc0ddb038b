import { POLICY_VERSION, parsePolicy, type TaskPolicy, type TaskPolicyInput } from '../../src/core/policy';

/** A policy with the boilerplate filled in, for tests and the conformance corpus. */
export function makePolicy(overrides: Partial<TaskPolicyInput> = {}): TaskPolicy {
  return parsePolicy({ version: POLICY_VERSION, taskId: 'task-1', issuedAt: 0, expiresAt: null, ...overrides });
}

/** A typical "reply to bob on mail.test" policy. */
export function sendPolicy(overrides: Partial<TaskPolicyInput> = {}): TaskPolicy {
  return makePolicy({
    ceilings: { COMMUNICATION: 'allow' },
    allow: { tools: [], capabilities: [], classes: ['COMMUNICATION'] },
    recipients: ['bob@corp.test'],
    domains: ['mail.test'],
    evidence: [
      { ref: 'allow.classes:COMMUNICATION', quote: 'reply to bob@corp.test' },
      { ref: 'recipients:bob@corp.test', quote: 'reply to bob@corp.test' },
    ],
    ...overrides,
  });
}
