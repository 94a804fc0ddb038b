import type { Options } from '../messages/protocol';
import type { OrgState } from './managed';

/**
 * What the organisation's managed policy (./managed.ts) does to the user's options, and how the popup and
 * the options page say it. Pure and free of schemas, so the control desk (src/background/task/control.ts)
 * carries it without the managed policy's parser.
 */

/** The options in force: the user's, with what the organisation forces (modes, compiler) and caps (ask timeout). */
export function effectiveOptions(options: Options, org: OrgState): Options {
  if (org.status !== 'active') return options;
  const p = org.policy;
  return {
    ...options,
    ...(p.maxAskTimeoutSeconds !== undefined ? { askTimeoutSeconds: Math.min(options.askTimeoutSeconds, p.maxAskTimeoutSeconds) } : {}),
    ...(p.sanitizerMode !== undefined ? { sanitizer: p.sanitizerMode } : {}),
    ...(p.minimizerMode !== undefined ? { minimizer: p.minimizerMode } : {}),
    ...(p.compiler !== undefined ? { backend: p.compiler.backend, ...(p.compiler.baseUrl !== undefined ? { baseUrl: p.compiler.baseUrl } : {}), ...(p.compiler.model !== undefined ? { model: p.compiler.model } : {}) } : {}),
  };
}

/** The organisation's limits in words, for the popup and the options page ("Set by your organisation"). */
export function orgLimitsInWords(org: OrgState): string[] {
  if (org.status === 'none') return [];
  if (org.status === 'malformed') return [`The organisation's policy could not be read (${org.reason}): every action in a task is blocked until it is fixed.`];
  const p = org.policy;
  const out: string[] = [];
  if (p.blockedSites?.length) out.push(`Blocked sites: ${p.blockedSites.join(', ')}`);
  if (p.askSites?.length) out.push(`Always ask on: ${p.askSites.join(', ')}`);
  if (p.neverAllowClasses?.length) out.push(`Never allowed: ${p.neverAllowClasses.join(', ')}`);
  if (p.maxAskTimeoutSeconds !== undefined) out.push(`Approvals wait at most ${p.maxAskTimeoutSeconds} s`);
  if (p.sanitizerMode !== undefined) out.push(`Sanitizer: ${p.sanitizerMode}`);
  if (p.minimizerMode !== undefined) out.push(`Minimizer: ${p.minimizerMode}`);
  if (p.compiler !== undefined) out.push(`Compiler: ${[p.compiler.backend, p.compiler.baseUrl, p.compiler.model].filter((x) => x !== undefined).join(', ')}`);
  if (p.collectorUrl !== undefined) out.push(`Audit is sent to ${p.collectorUrl}`);
  return out;
}
