import type { ToolCall } from '../core/call';
import type { Rewrite } from '../messages/protocol';

/**
 * The private channel between the MAIN-world hooks and the ISOLATED-world guard.
 *
 * At document_start, before any page script exists, the MAIN script creates a MessageChannel and posts
 * one port to its own window with HANDSHAKE_KEY. The ISOLATED script's capture listener on window was
 * registered earlier in the same document_start phase (both run before the parser reaches any page
 * script), so it is the first listener to see that message: it takes the port, stops the event from
 * reaching any other listener and removes itself. From then on proposals and answers travel only over
 * that port, which no page script ever holds; page-dispatched window messages and DOM events are
 * never read as answers.
 */
export const HANDSHAKE_KEY = '__agentsfence_bridge_v1';

/**
 * `form.submit()` fires no submit event, so the MAIN hook hands the form element to the ISOLATED guard
 * with this DOM event (element identity crosses worlds; the ISOLATED world reads the form with its own
 * untouched prototypes). A page that dispatches it itself only asks for a checked submission of a form
 * it could submit anyway.
 */
export const FORM_SUBMIT_EVENT = 'agentsfence:form-submit';

/**
 * A shadow root attached to an element already in the document produces no mutation record, so the
 * MAIN hook on `attachShadow` announces the host with this DOM event and the ISOLATED Sanitizer starts
 * watching the new root (closed ones through `chrome.dom`). A page that dispatches it itself only asks
 * the Sanitizer to read an element's shadow root.
 */
export const SHADOW_ATTACHED_EVENT = 'agentsfence:shadow-attached';

/**
 * Rules added through the CSSOM (`insertRule`, `replace`/`replaceSync`, an `adoptedStyleSheets`
 * assignment) produce no mutation record: the MAIN hooks announce each with this DOM event on the
 * document, and the ISOLATED Sanitizer reads the styles again in a microtask (generated text a rule adds,
 * visible imperative text a rule hides). A page that dispatches it itself only makes the Sanitizer re-read.
 */
export const STYLES_CHANGED_EVENT = 'agentsfence:styles-changed';

/** Background → the tab's top frame: an action of this tab waits for the user (src/background/platform/effects.ts, notify). */
export const WAITING_NOTICE = 'approval.waiting';

/** MAIN → ISOLATED. */
export interface BridgeProposal {
  id: number;
  call: ToolCall;
}

/** ISOLATED → MAIN. Anything but `allow: true` is a BLOCK; `rewrite` is an ALLOW on condition of sending these values. */
export interface BridgeAnswer {
  id: number;
  allow: boolean;
  reason: string;
  rewrite?: Rewrite;
}

/** The name of each frame's long-lived port to the background (src/content/worker-port.ts). */
export const WORKER_PORT_NAME = 'agentsfence.frame';

/**
 * Set in the ISOLATED world (invisible to the page) once the guard runs in a document, so an injection
 * into an open tab never installs it twice (src/background/floor/registration.ts reads it first).
 */
export const ISOLATED_INSTALLED_KEY = '__agentsfence_isolated';
