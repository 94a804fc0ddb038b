import type { RiskClass } from './risk';

/** What an action is, who or what it reaches. Produced by the classifier, consumed by the evaluator. */
export interface Targets {
  /** E-mail addresses and account identifiers (IBANs, account numbers), lower-cased. */
  recipients: string[];
  /** Registrable domains (or IP literals) the action reaches. */
  domains: string[];
  /** Local file paths read or written. */
  paths: string[];
}

export interface Classification {
  /** Canonical capability, e.g. `email.send`, `web.read`, `payment.send`. */
  capability: string;
  riskClass: RiskClass;
  targets: Targets;
  /** Which classifier layer decided: explicit mapping, glob, verb inference, web heuristics, or none. */
  layer: 'explicit' | 'glob' | 'verb' | 'web' | 'shell' | 'unknown';
  /** Short reason in words, e.g. `form has a card-number field`. */
  basis: string;
  /** URLs the action carries (navigation target, request URL), checked for exfiltration shape. */
  urls: string[];
  /** Bytes the action sends out, when known (request body, form fields). */
  outboundBytes: number;
}

export function emptyTargets(): Targets {
  return { recipients: [], domains: [], paths: [] };
}
