import { hookBeacon } from './beacon';
import { openBridge, urlTools, type PageWindow } from './channel';
import { hookElementLoads } from './elements';
import { hookEventSource } from './eventsource';
import { hookFetch } from './fetch';
import { hookFormSubmit } from './form-submit';
import { loadGate } from './gate';
import { hookMarkup } from './markup';
import { captureNatives } from './natives';
import { hookPeerConnections } from './rtc';
import { hookAttachShadow } from './shadow';
import { hookStyles } from './styles';
import { hookWebSocket } from './websocket';
import { hookWindowOpen } from './window-open';
import { hookWorkers } from './workers';
import { hookXhr } from './xhr';

/**
 * MAIN-world hooks: every page-initiated request API reports an action proposal (method, URL, kind and
 * a bounded view of the body) to the ISOLATED guard over the private port, and the call proceeds only on
 * ALLOW. This layer carries the semantics the network cannot see (recipients and amounts in bodies);
 * it is never the only line: the network floor holds every destination claim without it.
 *
 * Round-trip exemption (the only one): a GET or HEAD fetch/XHR with no body to the document's own
 * origin and a query of at most SAME_ORIGIN_QUERY_LIMIT characters goes straight to the network.
 * Safe because it carries no body, reaches only the site the tab is already on (a site the policy let
 * the tab reach; if a follow-up narrows the policy, the network floor's rules apply to it like to every
 * request), is READ class with no recipients, and the floor still checks it, exfiltration-shaped URLs
 * included. Such reads are not counted against READ call budgets.
 *
 * One file per hook family: request APIs (fetch, xhr, beacon, websocket, eventsource, window-open,
 * form-submit), the Sanitizer's shadow-root notice (shadow), element-initiated loads through one gate (elements, markup, styles), dedicated workers
 * (workers, worker-scope) and WebRTC (rtc).
 *
 * Not wrapped here: `requestSubmit()` (it fires a trusted submit event, which the ISOLATED guard holds;
 * wrapping it as well would propose one submission twice), navigations by location/links/meta refresh
 * and everything page code reaches without these globals (SharedWorker and service workers, `import()`,
 * natives restored from a fresh iframe before its content scripts run): the network floor covers those
 * (see e2e/FLOOR.md).
 * Against a page that replaces builtins to falsify the body view itself (Array/String prototypes), the
 * view is best effort; the decision channel and the URL/method snapshot use captured natives only.
 */

export function installPageHooks(win: PageWindow): void {
  const n = captureNatives(win);
  const propose = openBridge(n);
  const urls = urlTools(n);
  hookFetch(win, n, propose, urls);
  hookXhr(win, n, propose, urls);
  hookBeacon(win, n, propose, urls);
  hookWebSocket(win, n, propose, urls);
  hookEventSource(win, n, propose, urls);
  hookWindowOpen(win, n, propose, urls);
  hookFormSubmit(win, n);
  hookAttachShadow(win, n);
  const gate = loadGate(n, propose, urls);
  const elements = hookElementLoads(win, n, gate);
  hookMarkup(win, n, gate, elements);
  hookStyles(win, n, gate);
  hookWorkers(win, n, propose, urls);
  hookPeerConnections(win, n, propose);
}
