import type { BROWSER_TOOLS, RequestKindSchema, ToolCall } from '../../core/call';
import type { z } from '../../core/zod';
import type { Rewrite } from '../../messages/protocol';
import type { BodyView } from '../body';
import { HANDSHAKE_KEY, type BridgeProposal } from '../bridge';
import { invoke, type Natives } from './natives';

/**
 * What every MAIN-world hook family shares: the private decision channel to the ISOLATED guard, URL
 * resolution through captured natives, and the `browser.request` proposal shape.
 */

export type OnDecision = (allow: boolean, reason: string, rewrite?: Rewrite) => void;
/**
 * Proposes a call. `rewritable`: the caller can send the Minimizer's rewrite (fetch and XHR bodies); for
 * every other caller an ALLOW that comes with a rewrite is a BLOCK, never a send of the original data.
 */
export type Propose = (call: ToolCall, onDecision: OnDecision, rewritable?: boolean) => void;
export type RequestKind = z.infer<typeof RequestKindSchema>;
export type PageWindow = Window & typeof globalThis;

const REQUEST_TOOL: (typeof BROWSER_TOOLS)['request'] = 'browser.request';

/**
 * Round-trip exemption (the only one for request APIs): a GET or HEAD fetch/XHR with no body to the
 * document's own origin and a query of at most SAME_ORIGIN_QUERY_LIMIT characters (see hooks.ts).
 */
export const SAME_ORIGIN_QUERY_LIMIT = 256;

/**
 * Built from object literals only: an assignment (`args.body = …`) runs any setter the page defined on
 * Object.prototype, which left the body out of the proposal while the request still sent it.
 */
export function requestCall(method: string, url: string, kind: RequestKind, body?: BodyView, bodyBytes?: number): ToolCall {
  const args = { method, url, kind, ...(body === undefined ? {} : { body }), ...(bodyBytes !== undefined && bodyBytes > 0 ? { bodyBytes } : {}) };
  return { tool: REQUEST_TOOL, args };
}

/**
 * Opens the private port (see bridge.ts). Answers are read only from that port, through the captured
 * MessageEvent.data getter, and matched to a pending callback by id; nothing on the decision path
 * awaits a promise, so a page that replaced Promise.prototype.then cannot step into it either.
 */
export function openBridge(n: Natives): Propose {
  const channel = new n.MessageChannel();
  const port = invoke<MessagePort>(n.channelPort1, channel);
  const pending = n.createObject(null) as Record<number, { onDecision: OnDecision; rewritable: boolean }>;
  let nextId = 1;
  invoke(n.portSetOnMessage, port, [
    (event: MessageEvent) => {
      const data = invoke<unknown>(n.messageEventData, event);
      if (typeof data !== 'object' || data === null) return;
      // Own properties only: a key the answer lacks (`rewrite`) must not be read from a getter the page put on Object.prototype.
      const own = (key: string): unknown => (invoke<boolean>(n.hasOwnProperty, data, [key]) ? (data as Record<string, unknown>)[key] : undefined);
      const id = own('id');
      const allow = own('allow');
      const reason = own('reason');
      const rewrite = own('rewrite');
      if (typeof id !== 'number') return;
      const entry = pending[id];
      if (entry === undefined) return;
      delete pending[id];
      const because = typeof reason === 'string' ? reason : '';
      if (rewrite === undefined) entry.onDecision(allow === true, because);
      else if (entry.rewritable && typeof rewrite === 'object' && rewrite !== null) entry.onDecision(allow === true, because, rewrite as Rewrite);
      else entry.onDecision(false, 'it could not be sent without the flagged data');
    },
  ]);
  invoke(n.windowPostMessage, n.window, [{ [HANDSHAKE_KEY]: true }, '*', [invoke(n.channelPort2, channel)]]);
  return (call, onDecision, rewritable = false) => {
    const id = nextId++;
    pending[id] = { onDecision, rewritable };
    const proposal: BridgeProposal = { id, call };
    invoke(n.portPostMessage, port, [proposal]);
  };
}

export interface UrlTools {
  /** The URL resolved against the document's base, or null when it does not parse. */
  resolve(input: unknown): URL | null;
  href(url: URL): string;
  /** The round-trip exemption described at the top of this file. */
  isSameOriginRead(method: string, href: string): boolean;
  upper(text: unknown): string;
  /** True for an http(s) URL on another origin than the document's: a load that needs a decision. */
  isCrossOrigin(url: URL): boolean;
}

export function urlTools(n: Natives): UrlTools {
  const resolve = (input: unknown): URL | null => {
    try {
      return new n.URL(n.String(input), invoke<string>(n.baseURI, n.document));
    } catch {
      return null;
    }
  };
  return {
    resolve,
    href: (url) => invoke<string>(n.urlHref, url),
    isSameOriginRead(method, href) {
      if (method !== 'GET' && method !== 'HEAD') return false;
      const url = resolve(href);
      return (
        url !== null &&
        invoke<string>(n.urlOrigin, url) === n.origin &&
        invoke<string>(n.urlSearch, url).length <= SAME_ORIGIN_QUERY_LIMIT
      );
    },
    upper: (text) => invoke<string>(n.toUpperCase, n.String(text)),
    isCrossOrigin(url) {
      const protocol = invoke<string>(n.urlProtocol, url);
      return (protocol === 'http:' || protocol === 'https:') && invoke<string>(n.urlOrigin, url) !== n.origin;
    },
  };
}
