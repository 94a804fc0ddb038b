import type { BROWSER_TOOLS, ToolCall } from '../core/call';
import type { ProposalMessage, Reply, Rewrite, Send } from '../messages/protocol';
import { FORM_SUBMIT_EVENT, HANDSHAKE_KEY, WAITING_NOTICE, type BridgeAnswer, type BridgeProposal } from './bridge';
import { formSubmission, navigationSubmission, submissionMethod, submitterOf, SubmissionStatus, type FormSubmitArgs, type Submission, type Submitter } from './form';

/** Sends one proposal to the background and resolves with its answer (the extension runtime's sendMessage). */
/** The MAIN world's calls go out as they came (any tool name): the background parses them strictly. */
export type SendProposal = (message: Omit<ProposalMessage, 'call'> & { call: ToolCall }) => ReturnType<Send<'proposal'>>;

export interface Verdict {
  allow: boolean;
  reason: string;
  /** ALLOW on condition: send these values instead of the page's (the Minimizer removed data). */
  rewrite?: Rewrite;
}

/**
 * Only an answer that names this proposal and says ALLOW releases anything; every other shape, a
 * rejected message (worker gone, no listener) or an error is a BLOCK. The answer comes from the
 * extension's own background, so a structural check is enough here (the background parses what
 * reaches it with the strict schemas).
 */
export function verdictOf(answer: Reply<'proposal'> | undefined, id: string): Verdict {
  if (typeof answer !== 'object' || answer === null) return { allow: false, reason: 'no answer from the background' };
  const { id: answeredId, decision, check, reason, rewrite } = answer as Record<string, unknown>;
  if (answeredId !== id) return { allow: false, reason: 'answer for another proposal' };
  const because = `${typeof check === 'string' ? check : 'unknown check'}: ${typeof reason === 'string' ? reason : 'no reason'}`;
  if (rewrite === undefined) return { allow: decision === 'ALLOW', reason: because };
  if (typeof rewrite !== 'object' || rewrite === null) return { allow: false, reason: 'malformed rewrite' };
  return { allow: decision === 'ALLOW', reason: because, rewrite: rewrite as Rewrite };
}

/** 128 random bits in hex (crypto.randomUUID exists only in secure contexts; plain-http pages need ids too). */
function newProposalId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function decide(send: SendProposal, call: ToolCall, layer: ProposalMessage['layer']): Promise<Verdict> {
  try {
    const id = newProposalId();
    return verdictOf(await send({ type: 'proposal', id, call, layer }), id);
  } catch (error) {
    return { allow: false, reason: `no decision (${error instanceof Error ? error.message : String(error)})` };
  }
}

/**
 * The console line for a waiting notice, or null for anything else. The message can only come from this
 * extension (runtime messages reach content scripts from the extension alone) and is only printed, so a
 * structural check is enough (no zod in content scripts: they load on every page).
 */
export function waitingNotice(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const { type, tool, destination, reason, timeoutSeconds } = message as Record<string, unknown>;
  if (type !== WAITING_NOTICE || typeof tool !== 'string' || typeof destination !== 'string' || typeof reason !== 'string' || typeof timeoutSeconds !== 'number') return null;
  return `AgentsFence: ${tool} → ${destination} is waiting for the user's approval (${reason}); it is blocked if nobody answers within ${timeoutSeconds} s`;
}

/** What a page's console shows for a blocked MAIN-world action: fetch rejects with the same words, XHR only errors. */
export function blockedNotice(call: ToolCall, reason: string): string {
  const { method, url } = call.args as { method?: unknown; url?: unknown };
  const what = [typeof method === 'string' ? method : '', typeof url === 'string' ? url : call.tool].filter(Boolean).join(' ');
  return `AgentsFence: ${what}: blocked by AgentsFence (${reason})`;
}

function sameSubmission(a: FormSubmitArgs, b: FormSubmitArgs): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const FORM_SUBMIT_TOOL: (typeof BROWSER_TOOLS)['formSubmit'] = 'browser.form_submit';

const nativeRequestSubmit = HTMLFormElement.prototype.requestSubmit;
const nativeSubmit = HTMLFormElement.prototype.submit;

/**
 * How many times one form's navigations may be decided before one of them goes through as decided: a
 * form whose entries change after every ALLOW is blocked after that.
 */
export const MAX_NAVIGATION_DECISIONS = 3;
/** How long an ALLOW waits for its submission's navigation (the page may cancel it in a submit handler). */
const PERMIT_MS = 10_000;

/** The Navigation API's `navigate` event, as far as the guard reads it (not in TypeScript's DOM lib yet). */
interface NavigateEvent extends Event {
  readonly destination: { readonly url: string };
  readonly formData: FormData | null;
  readonly sourceElement: Element | null;
  readonly cancelable: boolean;
}

const TYPED_INPUTS = new Set(['text', 'email', 'tel', 'search', 'url', 'number', '']);
const inputValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
const textAreaValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
const formControls = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements')!.get!;

/**
 * "Send without it": writes the Minimizer's values into the form's typed controls (one control per
 * name, text-like inputs and textareas only) and returns the arguments the form must now read as, or
 * null when the rewrite cannot be applied exactly (then nothing is sent).
 */
function applyFieldRewrite(form: HTMLFormElement, args: FormSubmitArgs, rewrite: Rewrite): FormSubmitArgs | null {
  if (rewrite.url !== undefined && rewrite.url !== args.url) return null;
  const fields = rewrite.fields ?? args.fields;
  const controls = Array.from(Reflect.apply(formControls, form, []) as HTMLFormControlsCollection);
  for (const [name, value] of Object.entries(fields)) {
    if (JSON.stringify(value) === JSON.stringify(args.fields[name])) continue;
    const named = controls.filter((c) => c.getAttribute('name') === name);
    const control = named[0];
    if (named.length !== 1 || typeof value !== 'string') return null;
    if (control instanceof HTMLTextAreaElement) Reflect.apply(textAreaValue, control, [value]);
    else if (control instanceof HTMLInputElement && TYPED_INPUTS.has(control.getAttribute('type')?.toLowerCase() ?? '')) Reflect.apply(inputValue, control, [value]);
    else return null;
  }
  return { ...args, fields };
}

/**
 * One-use permits: an ALLOW releases exactly the submission it decided. The released submission's own
 * navigation must carry the same fingerprint (URL, method, exact entries); it consumes the permit.
 */
class Permits {
  private readonly byForm = new WeakMap<HTMLFormElement, { fingerprint: string; until: number }>();

  grant(form: HTMLFormElement, fingerprint: string): void {
    this.byForm.set(form, { fingerprint, until: Date.now() + PERMIT_MS });
  }

  /** True (and the permit is used up) when `fingerprint` is what was decided for `form`. */
  consume(form: HTMLFormElement, fingerprint: string): boolean {
    const permit = this.byForm.get(form);
    this.byForm.delete(form);
    return permit !== undefined && permit.fingerprint === fingerprint && Date.now() <= permit.until;
  }
}

/**
 * Holds every form submission until the background decides, and lets a navigation carry only the exact
 * entry list that was decided.
 *
 * - A trusted `submit` event that reaches window (click, Enter, `requestSubmit()` in the light DOM) is
 *   cancelled and stopped in the capture phase, before any page listener sees it; on ALLOW the guard
 *   re-submits once with `requestSubmit(submitter)` from this world (whose prototypes the page cannot
 *   touch), so page handlers run exactly once, on the released submission.
 * - `form.submit()` (no event) arrives from the MAIN hook as FORM_SUBMIT_EVENT; on ALLOW the guard calls
 *   the native `submit()`.
 * - Every form submission that navigates this window fires the Navigation API's `navigate` event, after
 *   every `submit` handler and `formdata` listener ran, carrying the entry list the browser sends. That
 *   covers forms inside open or closed shadow roots (whose `submit` never reaches window) and
 *   `form.submit()` without the MAIN hooks. A navigation that consumes a one-use permit whose
 *   fingerprint is its own goes; any other form navigation is cancelled and decided on its own entries,
 *   then re-submitted. A form whose entries keep changing after each ALLOW (a listener that turns on
 *   after the check) is decided at most MAX_NAVIGATION_DECISIONS times, then blocked.
 * Known limits (the network floor still bounds where these go): a submission into another window
 * (`target=_blank`, a named window) fires no `navigate` here, and one into a cross-origin frame has no
 * source form there, so a shadow-root form with such a target is checked by the floor alone; a page
 * whose submit handler sends the data itself (fetch) is proposed twice, once as the form and once as
 * the request; a light-DOM form that targets a same-origin frame is decided in both frames.
 */
export function installFormGuard(win: Window, send: SendProposal): { waiting(line: string): void } {
  const held = new WeakSet<HTMLFormElement>();
  // What the page says about a held submission, for agents that read the page rather than its console.
  const status = new SubmissionStatus(win.document);
  let asked = false;
  const refused = (line: string) => {
    console.warn(line);
    status.show(`${line}. The form was not sent.`, true);
    asked = false;
  };
  const permits = new Permits();
  const redecisions = new WeakMap<HTMLFormElement, number>();
  let releasing: HTMLFormElement | null = null;

  const resubmit = (form: HTMLFormElement, submitter: Submitter | null, viaEvent: boolean): void => {
    if (!viaEvent) {
      Reflect.apply(nativeSubmit, form, []);
      return;
    }
    releasing = form;
    try {
      const stillOurs = submitter !== null && submitter.isConnected && submitter.form === form;
      Reflect.apply(nativeRequestSubmit, form, stillOurs ? [submitter] : []);
    } finally {
      releasing = null;
    }
  };

  /**
   * Decides `submission`; on ALLOW grants its permit and re-submits (with `recheck`, only if the form
   * still reads the same: without the Navigation API that re-read is the last look).
   */
  const hold = (submission: Submission & { form: HTMLFormElement }, viaEvent: boolean, recheck = true): void => {
    const { form, submitter, args } = submission;
    if (held.has(form)) return; // a second click while the first submission waits: one decision
    held.add(form);
    void decide(send, { tool: FORM_SUBMIT_TOOL, args }, 'isolated').then((verdict) => {
      held.delete(form);
      if (!verdict.allow) {
        refused(`AgentsFence: form submission to ${args.url}: blocked by AgentsFence (${verdict.reason})`);
        return;
      }
      if (asked) status.show(`AgentsFence: the user allowed the form submission to ${args.url}; it is being sent.`, false);
      asked = false;
      const expected = verdict.rewrite === undefined ? args : applyFieldRewrite(form, args, verdict.rewrite);
      if (expected === null) {
        refused('AgentsFence blocked a form submission: it could not be sent without the flagged data');
        return;
      }
      // A rewritten form must read exactly as rewritten; otherwise a navigation's own entries are checked
      // again when the released submission navigates (`recheck` is for the submit paths).
      const now = recheck || verdict.rewrite !== undefined ? formSubmission(form, submitter) : null;
      if (now !== null && !sameSubmission(expected, now.args)) {
        refused('AgentsFence blocked a form submission: the form changed while it waited for a decision');
        return;
      }
      permits.grant(form, verdict.rewrite === undefined ? submission.fingerprint : (now ?? submission).fingerprint);
      resubmit(form, submitter, viaEvent);
    });
  };

  win.addEventListener(
    'submit',
    (event) => {
      const form = event.target;
      // Script-dispatched submit events submit nothing; only the browser's own ones are held.
      if (!event.isTrusted || !(form instanceof HTMLFormElement) || releasing === form) return;
      const submitter = submitterOf(event);
      if (submissionMethod(form, submitter) === 'DIALOG') return; // closes a dialog, sends nothing
      event.preventDefault();
      event.stopImmediatePropagation();
      hold(formSubmission(form, submitter), true);
    },
    true,
  );

  win.addEventListener(
    FORM_SUBMIT_EVENT,
    (event) => {
      const form = event.composedPath()[0];
      event.stopImmediatePropagation();
      if (!(form instanceof HTMLFormElement) || !form.isConnected) return;
      hold(formSubmission(form, null), false);
    },
    true,
  );

  const guard = {
    /** The background's waiting notice (top frame only): shown in the page while an action of this tab waits. */
    waiting(line: string): void {
      asked = true;
      status.show(line, false);
    },
  };
  const navigation = (win as Window & { navigation?: EventTarget }).navigation;
  if (navigation === undefined) return guard; // no Navigation API (Firefox < 147): the submit paths above remain
  navigation.addEventListener('navigate', (event) => {
    const navigate = event as NavigateEvent;
    const submission = navigationSubmission({ url: navigate.destination.url, formData: navigate.formData, sourceElement: navigate.sourceElement });
    if (submission === null) return;
    const { form } = submission;
    if (form !== null && permits.consume(form, submission.fingerprint)) {
      redecisions.delete(form);
      return;
    }
    if (form === null) return; // a form in another (cross-origin) document: that document's guard held it
    if (!navigate.cancelable) {
      console.warn(`AgentsFence could not hold a form submission to ${submission.args.url} (not cancelable)`);
      return;
    }
    navigate.preventDefault();
    if (held.has(form)) return;
    const count = (redecisions.get(form) ?? 0) + 1;
    redecisions.set(form, count);
    if (count > MAX_NAVIGATION_DECISIONS) {
      redecisions.delete(form);
      refused('AgentsFence blocked a form submission: the form changed after the check');
      return;
    }
    hold({ ...submission, form }, submission.submitter !== null, false);
  });
  return guard;
}

function isBridgeProposal(data: unknown): data is BridgeProposal {
  if (typeof data !== 'object' || data === null) return false;
  const { id, call } = data as Record<string, unknown>;
  return typeof id === 'number' && typeof call === 'object' && call !== null;
}

/**
 * Accepts the MAIN world's port (first handshake only) and relays its proposals to the background.
 * Malformed proposals are still relayed: the background parses them strictly, BLOCKs and audits.
 */
export function installBridge(win: Window, send: SendProposal): void {
  const onHandshake = (event: MessageEvent): void => {
    const port = event.ports[0];
    if (event.source !== win || typeof event.data !== 'object' || event.data === null || !(HANDSHAKE_KEY in event.data) || port === undefined) {
      return;
    }
    event.stopImmediatePropagation();
    win.removeEventListener('message', onHandshake, true);
    port.onmessage = (message: MessageEvent) => {
      const data: unknown = message.data;
      if (!isBridgeProposal(data)) return;
      void decide(send, data.call, 'main').then((verdict) => {
        if (!verdict.allow) console.warn(blockedNotice(data.call, verdict.reason));
        const answer: BridgeAnswer = { id: data.id, allow: verdict.allow, reason: verdict.reason, ...(verdict.rewrite !== undefined ? { rewrite: verdict.rewrite } : {}) };
        port.postMessage(answer);
      });
    };
  };
  win.addEventListener('message', onHandshake, true);
}
