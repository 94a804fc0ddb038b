import type { ToolCall } from '../call';
import { privateHostOf, siteKeyOf } from '../addresses';
import { emptyTargets, type ActionFacts, type Classification, type PrivateReach } from '../classification';
import { exfiltrationShape } from '../exfil';
import { schemeOf } from '../schemes';
import { isConsequential } from '../risk';
import { appOfUrl } from '../actions/read';
import { WEB_HANDLERS } from './web';

/**
 * κ, ρ, τ of a browser action (`browser.navigate`, `browser.request`, …): what it is (capability), how
 * consequential (risk class) and whom or what it reaches (targets), judged by its arguments. This is the
 * classifier the extension runs. Other agents' tool calls (`send_email`, `bash`, `apply_patch`) are
 * classified by src/tools, which the CLI and the compiler use and the extension's bundle never holds;
 * here they are UNKNOWN, which is never safe. `call.data` is never read.
 */

export { CANONICAL_CAPABILITIES, CAPABILITY_CLASSES, canonicalCapability, capabilityClass } from './capabilities';

export type Classifier = (call: ToolCall) => Classification;

export function unknownClassification(basis: string): ActionFacts {
  return { capability: 'unknown', riskClass: 'UNKNOWN', targets: emptyTargets(), layer: 'unknown', basis, urls: [], outboundBytes: 0 };
}

/** Total: a classifier error is UNKNOWN, never an exception and never a guess. */
export function classifyTotal(classifyFacts: (call: ToolCall) => ActionFacts, call: ToolCall): Classification {
  let facts: ActionFacts;
  try {
    facts = classifyFacts(call);
  } catch (err) {
    facts = unknownClassification(`classifier error: ${err instanceof Error ? err.message : 'unknown'}`);
  }
  return { ...facts, exfiltration: firstExfiltrationShaped(facts.urls), privateHosts: privateHostsOf(facts), knownApp: knownAppOf(facts) };
}

function webFacts(call: ToolCall): ActionFacts {
  const web = WEB_HANDLERS.get(call.tool);
  return web === undefined ? unknownClassification('not a browser action') : { ...web(call.args), layer: 'web' };
}

export function classifyWeb(call: ToolCall): Classification {
  return classifyTotal(webFacts, call);
}

/** Classification.knownApp: only a consequential action is bound by its app (actions/binding.ts). */
function knownAppOf(facts: ActionFacts): boolean {
  if (!isConsequential(facts.riskClass)) return false;
  if (facts.action?.app != null) return true;
  for (const url of facts.urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    if (appOfUrl(parsed) !== null) return true;
  }
  return false;
}

function firstExfiltrationShaped(urls: readonly string[]): Classification['exfiltration'] {
  for (const url of urls) {
    const shape = exfiltrationShape(url);
    if (shape.shaped) return { url, reason: shape.reason };
  }
  return null;
}

/**
 * Classification.privateHosts: every network URL's private host, then every domain key's. A domain key
 * is private only in its own right: a single-label name outside a URL (`ssh prod`) is an alias the user
 * configured, not an intranet host (addresses.ts privateHostOf).
 */
function privateHostsOf(facts: ActionFacts): PrivateReach[] {
  const found: PrivateReach[] = [];
  for (const url of facts.urls) {
    if (schemeOf(url).use !== 'network') continue;
    const host = privateHostOf(url);
    if (host !== null) found.push({ key: siteKeyOf(url), shown: originOf(url) ?? url, range: host.range });
  }
  for (const domain of facts.targets.domains) {
    const host = privateHostOf(domain, { singleLabel: false });
    if (host !== null) found.push({ key: domain, shown: originOf(domain) ?? domain, range: host.range });
  }
  return found;
}

/** `http://127.0.0.1:8080/` for a reason: no userinfo, path or query (they may carry data). */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : `${origin}/`;
  } catch {
    return null;
  }
}
