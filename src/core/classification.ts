import type { RiskClass } from './risk';
import type { ActionReading } from './actions/read';

/** The classifier layers (see classifier/index.ts): which one read the action; `unknown` when none did. */
export const CLASSIFIER_LAYERS = ['web', 'explicit', 'shell', 'glob', 'verb', 'unknown'] as const;
export type ClassifierLayer = (typeof CLASSIFIER_LAYERS)[number];

/** What an action is, who or what it reaches. Produced by the classifier, consumed by the evaluator. */
export interface Targets {
  /** E-mail addresses and account identifiers (IBANs, account numbers), lower-cased. */
  recipients: string[];
  /**
   * Registrable domains (or IP literals) the action reaches; a private host as its exact endpoint,
   * `localhost:3000` (see addresses.ts, siteKeyOf).
   */
  domains: string[];
  /** Local file paths read or written. */
  paths: string[];
  /** The named things a web action acts on (a product id, a file name), as the page states them. See items.ts. */
  items: string[];
  /**
   * Money amounts the action carries, exactly (`"4500 EUR"`, `"45"` when no currency is given, or
   * `(unreadable amount)`); absent when it carries none. See amounts.ts.
   */
  amounts?: string[];
  /** Counts the action carries (`"2"`, or `(unreadable quantity)`); absent when it carries none. */
  quantities?: string[];
}

/** The facts the classifier layers establish about an action. */
export interface ActionFacts {
  /** Canonical capability, e.g. `email.send`, `web.read`, `payment.send`. */
  capability: string;
  riskClass: RiskClass;
  targets: Targets;
  /** Which classifier layer decided: explicit mapping, glob, verb inference, web heuristics, or none. */
  layer: ClassifierLayer;
  /** Short reason in words, e.g. `form has a card-number field`. */
  basis: string;
  /** URLs the action carries (navigation target, request URL), checked for exfiltration shape. */
  urls: string[];
  /** Bytes the action sends out, when known (request body, form fields). */
  outboundBytes: number;
  /** The web action and object a write was read as (docs/actions.md); absent when none was read. */
  action?: ActionReading;
}

/** A classified action: the facts, plus the URL-shape verdict computed once so every check shares it. */
export interface Classification extends ActionFacts {
  /** The first URL that is exfiltration-shaped, and why; null when none is. */
  exfiltration: { url: string; reason: string } | null;
  /**
   * The private-network hosts the action reaches (addresses.ts), read once with the rest of the
   * classification: each network URL's, then each domain key's (a single-label name counts only inside
   * a URL). Empty for the public hosts nearly every action reaches, so the evaluator's check costs nothing
   * there.
   */
  privateHosts: readonly PrivateReach[];
  /**
   * Whether a consequential action is a known app's (actions/apps.ts): its reading names the app, or one of
   * its URLs is served by one. Read once with the rest of the classification, where the URLs are parsed
   * anyway, so the action binding parses nothing per decision; false for READ, which the binding never
   * looks at.
   */
  knownApp: boolean;
}

/** A private host an action reaches, as the private-network check names it. */
export interface PrivateReach {
  /** The target key the task would name it by (`localhost:3000`, see addresses.ts siteKeyOf); null when none. */
  key: string | null;
  /** How a reason shows it: the origin (`http://127.0.0.1:8080/`), never a path or query, or the key. */
  shown: string;
  /** Which private range or name, in words (addresses.ts PrivateHost.range). */
  range: string;
}

export function emptyTargets(): Targets {
  return { recipients: [], domains: [], paths: [], items: [] };
}
