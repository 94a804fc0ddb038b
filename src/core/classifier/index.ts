import type { ToolCall } from '../call';
import { emptyTargets, type ActionFacts, type Classification } from '../classification';
import { exfiltrationShape } from '../exfil';
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
  return { ...facts, exfiltration: firstExfiltrationShaped(facts.urls) };
}

function webFacts(call: ToolCall): ActionFacts {
  const web = WEB_HANDLERS.get(call.tool);
  return web === undefined ? unknownClassification('not a browser action') : { ...web(call.args), layer: 'web' };
}

export function classifyWeb(call: ToolCall): Classification {
  return classifyTotal(webFacts, call);
}

function firstExfiltrationShaped(urls: readonly string[]): Classification['exfiltration'] {
  for (const url of urls) {
    const shape = exfiltrationShape(url);
    if (shape.shaped) return { url, reason: shape.reason };
  }
  return null;
}
