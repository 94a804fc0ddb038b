import { SHADOW_ATTACHED_EVENT } from '../bridge';
import type { PageWindow } from './channel';
import { invoke, type Natives } from './natives';

/** A shadow root attached to a connected element makes no mutation record: announce the host to the ISOLATED Sanitizer. */
export function hookAttachShadow(win: PageWindow, n: Natives): void {
  win.Element.prototype.attachShadow = function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
    const root = invoke<ShadowRoot>(n.attachShadow, this, [init]);
    invoke(n.dispatchEvent, this, [new n.CustomEvent(SHADOW_ATTACHED_EVENT, { bubbles: true, composed: true })]);
    return root;
  };
}
