import { FORM_SUBMIT_EVENT } from '../bridge';
import type { PageWindow } from './channel';
import { invoke, type Natives } from './natives';

/** form.submit() fires no submit event: hand the form to the ISOLATED guard, which reads and holds it. */
export function hookFormSubmit(win: PageWindow, n: Natives): void {
  win.HTMLFormElement.prototype.submit = function submit(this: HTMLFormElement): void {
    invoke(n.dispatchEvent, this, [new n.CustomEvent(FORM_SUBMIT_EVENT, { bubbles: true, composed: true })]);
  };
}
