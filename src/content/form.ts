import type { z } from 'zod';
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

/**
 * What the form is about to send, as `browser.form_submit` arguments. Values come from FormData, i.e.
 * exactly the entries the browser will submit (submitter included). Password values are masked: the
 * policy never needs a secret, and secrets should not travel further than the page. Files appear by
 * name (the page never knows their path).
 */
export function readForm(form: HTMLFormElement, submitter: Submitter | null): FormSubmitArgs {
  const fieldTypes: Record<string, string> = {};
  for (const control of Array.from(formElements(form))) {
    const name = control.getAttribute('name');
    if (name !== null && name !== '' && !(name in fieldTypes)) fieldTypes[name] = controlType(control);
  }
  const collector = new FieldCollector();
  const data = formDataOf(form, submitter);
  for (const [name, value] of data) {
    if (fieldTypes[name] === 'password') collector.add(name, '[masked]');
    else collector.add(name, typeof value === 'string' ? value : value.name);
  }
  const args: FormSubmitArgs = {
    url: submissionUrl(form, submitter),
    method: submissionMethod(form, submitter),
    fields: { ...collector.fields },
    fieldTypes,
  };
  const text = submitterText(submitter);
  if (text !== undefined) args.submitText = text;
  const id = formId(form);
  if (id !== '') args.formId = id.slice(0, 256);
  return args;
}
