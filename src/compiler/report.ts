import { z } from '../core/zod';
import { PASTED_KINDS } from '../minimizer/pasted-kinds';

/**
 * The compile report: one shape from the compiler to the popup (the background adds only the time it
 * took). A leaf module (zod only) so the popup and the protocol can import it without the compiler.
 */

/** Something hardening (or the fallback) removed from the draft, and why. `ref` names the draft entry. */
export const RemovalSchema = z.strictObject({ ref: z.string(), why: z.string() });
export type Removal = z.infer<typeof RemovalSchema>;

export const CompileReportSchema = z.strictObject({
  /** The backend that produced the policy, e.g. `rules`, `openai:openai/gpt-4o-mini`, `fallback:read-only (asked …)`. */
  backend: z.string(),
  modelCalls: z.number().check(z.int(), z.nonnegative()),
  /** Set when the compiler fell back to the read-only policy: the exact failure (no secrets); null otherwise. */
  fallbackReason: z.nullable(z.string()),
  removed: z.array(RemovalSchema),
  /** Each prohibition in words: `COMMUNICATION, EXTERNAL_WRITE: "do not send anything"`. */
  prohibitions: z.array(z.string()),
  /** Wall-clock time of the compile, measured by the caller (the compiler itself reads no clock). */
  durationMs: z.number().check(z.nonnegative()),
  /**
   * Private details found only in what the user pasted, not in what they asked (src/minimizer/pasted.ts),
   * of every turn so far: the Minimizer holds a send that carries one. Added by the caller; absent in a
   * report stored before it (and in one no compiler made), which found none.
   */
  pasted: z.optional(z.array(z.strictObject({ kind: z.enum(PASTED_KINDS), text: z.string() }))),
});
export type CompileReport = z.infer<typeof CompileReportSchema>;
/** What the compiler itself reports: everything but the time and the pasted details, which its caller adds. */
export type CompilerReport = Omit<CompileReport, 'durationMs' | 'pasted'>;

/** The report of a policy no compiler produced (installed by a test or the harness, named by `backend`). */
export function reportWithoutCompile(backend: string): CompileReport {
  return { backend, modelCalls: 0, fallbackReason: null, removed: [], prohibitions: [], durationMs: 0 };
}
