import type { z } from '../core/zod';
import type { FormSubmitArgsSchema } from '../core/call';
import { FieldCollector } from './body';

export type FormSubmitArgs = z.infer<typeof FormSubmitArgsSchema>;
export type Submitter = HTMLButtonElement | HTMLInputElement;

// Read through the prototypes: a control named "action", "method" or "elements" shadows the form's own
// property of that name (DOM clobbering), and the page must not steer what the guard sees.
function formGetter<T>(name: string, proto: object = HTMLFormElement.prototype): (form: HTMLFormElement) => T {
  const get = Object.getOwnPropertyDescriptor(proto, name)?.get;
  if (get === undefined) throw new Error(`${name} has no getter`);
  return (form) => Reflect.apply(get, form, []) as T;
}
const formAction = formGetter<string>('action');
const formMethod = formGetter<string>('method');
const formElements = formGetter<HTMLFormControlsCollection>('elements');
const formId = formGetter<string>('id', Element.prototype);

/** A submit button or image input that belongs to the form, or null. */
export function submitterOf(event: SubmitEvent | Event): Submitter | null {
  const submitter = (event as SubmitEvent).submitter;
  return submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement ? submitter : null;
}

/** The method the submission will use: the submitter's `formmethod` overrides the form's. */
export function submissionMethod(form: HTMLFormElement, submitter: Submitter | null): string {
  const method = submitter?.hasAttribute('formmethod') ? submitter.formMethod : formMethod(form);
  return method.toUpperCase();
}

/** The resolved URL the submission goes to: the submitter's `formaction` overrides the form's. */
export function submissionUrl(form: HTMLFormElement, submitter: Submitter | null): string {
  return submitter?.hasAttribute('formaction') ? submitter.formAction : formAction(form);
}

function controlType(control: Element): string {
  if (control instanceof HTMLInputElement) return control.type;
  if (control instanceof HTMLTextAreaElement) return 'textarea';
  if (control instanceof HTMLSelectElement) return control.multiple ? 'select-multiple' : 'select';
  if (control instanceof HTMLButtonElement) return `button-${control.type}`;
  return control.localName;
}

function submitterText(submitter: Submitter | null): string | undefined {
  if (submitter === null) return undefined;
  const text = submitter instanceof HTMLInputElement ? submitter.value : (submitter.textContent ?? '');
  return text.trim().replace(/\s+/g, ' ').slice(0, 512) || undefined;
}

function formDataOf(form: HTMLFormElement, submitter: Submitter | null): FormData {
  try {
    return new FormData(form, submitter);
  } catch {
    // The submitter is not one of this form's submit buttons (any more): the browser submits without it.
    return new FormData(form);
  }
}

type Entry = [string, FormDataEntryValue];

/** The URL a submission goes to: a GET form's entries replace the action's query (the browser drops it). */
function targetUrl(url: string, method: string): string {
  if (method !== 'GET') return url;
  try {
    const parsed = new URL(url);
    parsed.search = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * A submission as `browser.form_submit` arguments. Password values are masked (the policy never needs a
 * secret); files appear by name (the page never knows their path).
 */
function argsOf(url: string, method: string, entries: Iterable<Entry>, form: HTMLFormElement | null, submitter: Submitter | null): FormSubmitArgs {
  const fieldTypes: Record<string, string> = {};
  if (form !== null) {
    for (const control of Array.from(formElements(form))) {
      const name = control.getAttribute('name');
      if (name !== null && name !== '' && !(name in fieldTypes)) fieldTypes[name] = controlType(control);
    }
  }
  const collector = new FieldCollector();
  for (const [name, value] of entries) {
    if (fieldTypes[name] === 'password') collector.add(name, '[masked]');
    else collector.add(name, typeof value === 'string' ? value : value.name);
  }
  const args: FormSubmitArgs = { url: targetUrl(url, method), method, fields: { ...collector.fields }, fieldTypes };
  if (collector.truncated) args.fieldsCut = true;
  const text = submitterText(submitter);
  if (text !== undefined) args.submitText = text;
  const id = form === null ? '' : formId(form);
  if (id !== '') args.formId = id.slice(0, 256);
  return args;
}

/** The form submission a navigation carries, as the browser will send it (see NavigationSubmission). */
export interface Submission {
  form: HTMLFormElement | null;
  submitter: Submitter | null;
  args: FormSubmitArgs;
  /** Exact identity of what is sent (raw values, file sizes): a released submission must match it. */
  fingerprint: string;
}

/** What the Navigation API's `navigate` event tells about a navigation (not in TypeScript's DOM lib yet). */
export interface NavigationFacts {
  url: string;
  /** The entry list of a POST form submission; null for every other navigation. */
  formData: FormData | null;
  /** The form, or the submit button, that started the navigation (null when it is in another document). */
  sourceElement: Element | null;
}

// Elements may come from another realm (a same-origin parent's form submitting into this frame), so
// they are recognised by name and read through this realm's prototype getters, never by instanceof.
const buttonForm = formGetter<HTMLFormElement | null>('form', HTMLButtonElement.prototype);
const inputForm = formGetter<HTMLFormElement | null>('form', HTMLInputElement.prototype);
const buttonType = formGetter<string>('type', HTMLButtonElement.prototype);
const inputType = formGetter<string>('type', HTMLInputElement.prototype);

function sourceOf(element: Element | null): { form: HTMLFormElement; submitter: Submitter | null } | null {
  if (element === null || element.namespaceURI !== 'http://www.w3.org/1999/xhtml') return null;
  if (element.localName === 'form') return { form: element as HTMLFormElement, submitter: null };
  if (element.localName === 'button' && buttonType(element as HTMLFormElement) === 'submit') {
    const form = buttonForm(element as HTMLFormElement);
    return form === null ? null : { form, submitter: element as HTMLButtonElement };
  }
  if (element.localName === 'input') {
    const type = inputType(element as HTMLFormElement);
    const form = type === 'submit' || type === 'image' ? inputForm(element as HTMLFormElement) : null;
    return form === null ? null : { form, submitter: element as HTMLInputElement };
  }
  return null;
}

const normaliseBreaks = (text: string): string => text.replace(/\r\n|\r|\n/g, '\r\n');

function fingerprintOf(url: string, method: string, entries: Iterable<Entry>): string {
  const parts: string[] = [];
  for (const [name, value] of entries) {
    parts.push(normaliseBreaks(name), typeof value === 'string' ? normaliseBreaks(value) : `[file ${value.name} ${value.size} ${value.type}]`);
  }
  return JSON.stringify([targetUrl(url, method), method, parts]);
}

/** The submission the guard decides on when it holds a submit event or a `form.submit()` call. */
export function formSubmission(form: HTMLFormElement, submitter: Submitter | null): Submission & { form: HTMLFormElement } {
  const method = submissionMethod(form, submitter);
  const url = submissionUrl(form, submitter);
  const entries = Array.from(formDataOf(form, submitter));
  return { form, submitter, args: argsOf(url, method, entries, form, submitter), fingerprint: fingerprintOf(url, method, entries) };
}

/**
 * The form submission a navigation carries, or null when it is not one. A POST's entries are the
 * event's own `formData` — the list the browser sends, after every `submit` handler and `formdata`
 * listener ran; a GET's are the destination URL's query. A navigation whose source is no form and that
 * carries no entries (a link, `location`, a GET without a known form) is not a form submission.
 */
export function navigationSubmission(facts: NavigationFacts): Submission | null {
  const source = sourceOf(facts.sourceElement);
  if (facts.formData === null && source === null) return null;
  const method = facts.formData === null ? 'GET' : 'POST';
  let entries: Entry[];
  if (facts.formData !== null) entries = Array.from(facts.formData);
  else {
    try {
      entries = Array.from(new URL(facts.url).searchParams);
    } catch {
      entries = [];
    }
  }
  const form = source?.form ?? null;
  const submitter = source?.submitter ?? null;
  return { form, submitter, args: argsOf(facts.url, method, entries, form, submitter), fingerprint: fingerprintOf(facts.url, method, entries) };
}

/**
 * The page's own line about a held form submission: a live region in the light DOM, which accessibility
 * snapshots (Playwright MCP's browser_snapshot, browser-use's DOM read) and a person's screen reader read,
 * where a closed shadow root would hide it. `role=status` while it waits, `role=alert` once it is blocked.
 * One element per document, at the end of the body (never inside the page's own containers, which a
 * framework may re-render), its text replaced at each change.
 */
export class SubmissionStatus {
  private element: HTMLElement | null = null;

  constructor(private readonly doc: Document) {}

  show(text: string, urgent: boolean): void {
    const parent = this.doc.body ?? this.doc.documentElement;
    if (parent === null) return;
    if (this.element === null || !this.element.isConnected) {
      this.element = this.doc.createElement('div');
      this.element.setAttribute('data-agentsfence', 'status');
      this.element.setAttribute('aria-live', 'polite');
      parent.append(this.element);
    }
    this.element.setAttribute('role', urgent ? 'alert' : 'status');
    this.element.textContent = text;
  }
}
