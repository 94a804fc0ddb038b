import type { ErrorResponse, Options, PendingApproval, Reply, TaskStateResponse, TaskView } from '../../messages/protocol';
import { effectiveOptions, orgLimitsInWords } from '../../org/in-force';
import type { OrgState } from '../../org/managed';
import type { CompileRequestOptions, TaskCompiler } from './compile';
import { error } from '../contracts';
import { maskSecrets } from '../decide/redact';
import type { ActiveTask, StoredApproval } from './store';

/** What a read-only settings view shows instead of a stored API key. */
export const MASKED_KEY = '••••••••';

/**
 * What the toolbar popup and the options page ask of the background and no decision needs: compiling a
 * request into a task, the task's and the approvals' view, testing and showing the settings. In the
 * extension it is a lazy script (control.js, src/lazy/scripts.ts), loaded when one of these
 * requests first arrives after a start; a script that does not load fails that request with its error
 * (router.ts), and nothing is installed. The task session (./session.ts) is the host: every state change
 * (installing a task, saving a follow-up) is its own.
 */
export interface ControlHost {
  readonly task: ActiveTask | null;
  /** The options in force, the user's own and the organisation's state. */
  readonly options: Options;
  readonly ownOptions: Options;
  readonly orgState: OrgState;
  readonly notice: string | null;
  readonly compiler: TaskCompiler;
  now(): number;
  newId(): string;
  pendingApprovals(): StoredApproval[];
  installTask(taskId: string, request: string, policy: ActiveTask['policy'], report: ActiveTask['report']): Promise<void>;
  /** Saves the task as changed and brings the floor in line with it. */
  taskChanged(task: ActiveTask): Promise<void>;
}

function compileOptions(host: ControlHost, options: Options, taskId: string): CompileRequestOptions {
  return { backend: options.backend, baseUrl: options.baseUrl, model: options.model, apiKey: options.apiKey, now: host.now(), taskId };
}

function compileFailed(err: unknown): ErrorResponse {
  return error('compile-failed', maskSecrets(err instanceof Error ? err.message : String(err)));
}

/** Compile the person's request and install it; an error if it did not compile. */
export async function startTask(host: ControlHost, request: string): Promise<ErrorResponse | null> {
  const taskId = host.newId();
  let compiled;
  try {
    compiled = await host.compiler.compileTask(request, compileOptions(host, host.options, taskId));
  } catch (err) {
    return compileFailed(err);
  }
  await host.installTask(taskId, request, compiled.policy, compiled.report);
  return null;
}

/** Compile a follow-up into the running task; an error if there is none or it did not compile. */
export async function followUp(host: ControlHost, text: string): Promise<ErrorResponse | null> {
  const task = host.task;
  if (task === null) return error('no-task', 'No task is running.');
  let compiled;
  try {
    compiled = await host.compiler.compileFollowUp(task.policy, text, compileOptions(host, host.options, task.taskId));
  } catch (err) {
    return compileFailed(err);
  }
  if (host.task !== task) return error('no-task', 'The task ended while the follow-up was compiled.');
  // Approvals the person gave stay: a follow-up never silently revokes or widens a grant.
  const kept = task.policy.grants.filter((g) => !compiled.policy.grants.some((n) => n.id === g.id));
  task.policy = { ...compiled.policy, grants: [...compiled.policy.grants, ...kept] };
  // What earlier turns pasted stays private after a follow-up (the Minimizer reads every turn's details).
  task.report = { ...compiled.report, pasted: [...(task.report.pasted ?? []), ...(compiled.report.pasted ?? [])] };
  task.followUps = [...task.followUps, text];
  await host.taskChanged(task);
  return null;
}

/** Compile a test request with the given options (under the organisation's limits). */
export async function testOptions(host: ControlHost, given: Options): Promise<Reply<'options.test'>> {
  const options = effectiveOptions(given, host.orgState);
  try {
    const { report } = await host.compiler.compileTask('Open example.test and read the front page.', compileOptions(host, options, 'options-test'));
    if (report.fallbackReason !== null) return error('compile-failed', maskSecrets(report.fallbackReason));
    return { ok: true, message: `Compiled a test request with ${report.backend} in ${Math.round(report.durationMs)} ms.` };
  } catch (err) {
    return compileFailed(err);
  }
}

export function stateResponse(host: ControlHost, approvalsAllowed: boolean): TaskStateResponse {
  const task = host.task;
  const view: TaskView | null =
    task === null
      ? null
      : { taskId: task.taskId, startedAt: task.startedAt, policy: task.policy, report: task.report, turns: 1 + task.followUps.length, request: task.request, followUps: task.followUps };
  const notice = host.notice;
  return { ok: true, task: view, pending: host.pendingApprovals().map(toPendingView), approvalsAllowed, org: orgLimitsInWords(host.orgState), ...(notice !== null ? { notice } : {}) };
}

export function maskedOptions(host: ControlHost): { ok: true; options: Options } {
  const own = host.ownOptions;
  return { ok: true, options: { ...own, apiKey: own.apiKey === '' ? '' : MASKED_KEY } };
}

function toPendingView(a: StoredApproval): PendingApproval {
  return {
    id: a.id,
    tool: a.record.tool,
    capability: a.record.capability,
    riskClass: a.record.riskClass,
    targets: a.record.targets,
    destination: a.destination,
    check: a.record.check,
    reason: a.record.reason,
    ...(a.record.ruleRef !== undefined ? { ruleRef: a.record.ruleRef } : {}),
    ...(a.record.classifierLayer !== undefined ? { classifierLayer: a.record.classifierLayer } : {}),
    ...(a.record.basis !== undefined ? { basis: a.record.basis } : {}),
    ...(a.record.action !== undefined ? { action: a.record.action } : {}),
    dataView: a.dataView,
    ...(a.minimizable !== undefined ? { minimizable: a.minimizable } : {}),
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
  };
}
