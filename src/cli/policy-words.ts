import type { TaskPolicy } from '../core/policy';
import type { CompilerReport } from '../compiler/report';
import { describePolicy, type PolicyLine } from '../ui/policyView';

/**
 * A compiled policy in plain words for the terminal (the popup's own view of it, src/ui/policyView.ts):
 * what the agent may do, what asks first, the limits, what it must never do, and what hardening removed.
 * Each line keeps the user's words it came from.
 */
export function policyWords(policy: TaskPolicy, report: CompilerReport): string[] {
  const view = describePolicy(policy, { ...report, durationMs: 0 });
  const out: string[] = [];
  const section = (title: string, lines: readonly PolicyLine[]) => {
    if (lines.length === 0) return;
    out.push(`${title}:`);
    for (const l of lines) out.push(`  - ${l.text}${l.quote === undefined ? '' : `  ("${l.quote}")`}`);
  };
  out.push(`Policy (compiler: ${view.source}${view.fallbackReason === undefined ? '' : `, fell back to read-only: ${view.fallbackReason}`}):`);
  section('Permissions', view.permissions);
  section('Asks you first', view.askFirst);
  section('Limits', view.limits);
  section('Never', view.prohibitions);
  section('You allowed', view.grants);
  section('Other words the policy rests on', view.otherEvidence);
  if (view.removed.length > 0) {
    out.push('Hardening removed:');
    for (const r of view.removed) out.push(`  - ${r.what}: ${r.why}`);
  }
  return out;
}
