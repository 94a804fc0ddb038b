import * as control from './control';

export type ControlDesk = typeof control;

/** The control desk in the same bundle (Node: the tests). The extension's build swaps in ./control-load-extension.ts. */
export function loadControl(): Promise<ControlDesk> {
  return Promise.resolve(control);
}
