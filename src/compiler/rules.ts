import { analyzeInstruction, openWebClause, type Analysis, type Clause } from './clauses';
import type { PermissionDraft, PolicyDraft } from './draft';

/**
 * The offline rules compiler: one permission per request clause, with the clause as its quote and
 * the literal targets written in it. Deterministic, no network. Hardening still bounds its output.
 */

/** A write that comes with a text posted beside it ("… with a comment", "… and a short note"). */
const WITH_A_TEXT = /\b(?:with|and|plus) an? (?:(?:short|quick|brief) )?(?:comment|note|reply|review)\b/i;

/** Calls a clause asks for: payments and deletions are bounded (default once); others only if said. */
export function callsAskedFor(clause: Clause): number | null {
  // "buy a cable and two chargers": at least one call per named item, whatever the first count says.
  // "pay bob 45 EUR and alice 4,500 EUR": one payment per payee the clause ties an amount to (not per payee
  // named: "send 20 USD to my sister, her email is amy@…" is one payment).
  if (clause.request === 'FINANCIAL') return Math.max(clause.count ?? 1, clause.items.length, clause.payees?.filter((p) => p.amounts.length > 0).length ?? 0);
  if (clause.request === 'DELETE') return Math.max(clause.count ?? 1, clause.items.length, clause.targets.filter((t) => t.kind === 'path').length);
  // "close issue #88 with a comment that …": the comment is a write of its own.
  if (clause.request === 'EXTERNAL_WRITE' && clause.count !== null && WITH_A_TEXT.test(clause.text.slice(0, (clause.dictated?.[0] ?? clause.end) - clause.start))) return clause.count + 1;
  return clause.count;
}

function permissionOf(clause: Clause): PermissionDraft | null {
  if (clause.request === null || clause.request === 'READ') return null;
  const usable = clause.targets.filter((t) => !clause.refused.includes(t));
  return {
    riskClass: clause.request,
    capability: null,
    tool: null,
    recipients: clause.request === 'EXTERNAL_WRITE' ? [] : clause.objects.flatMap((t) => (t.kind === 'handle' ? [t.value, `@${t.value}`] : [t.value])),
    domains: usable.filter((t) => t.kind === 'domain').map((t) => t.value),
    paths: usable.filter((t) => t.kind === 'path').map((t) => t.value),
    maxCalls: callsAskedFor(clause),
    quote: clause.text,
  };
}

export function rulesDraft(instruction: string, analysis: Analysis = analyzeInstruction(instruction)): PolicyDraft {
  const permissions = analysis.clauses.map(permissionOf).filter((p): p is PermissionDraft => p !== null);
  const readDomains = analysis.clauses
    .filter((c) => !c.negated)
    .flatMap((c) => c.targets.filter((t) => t.kind === 'domain' && !c.refused.includes(t)).map((t) => t.value));
  return {
    permissions,
    readDomains: [...new Set(readDomains)],
    openWeb: openWebClause(analysis) !== null,
    prohibitions: [],
  };
}
