import * as names from './names';

export type Names = typeof names;

/** The name finder in the same bundle (Node: the tests). The extension's build swaps in ./names-load-extension.ts. */
export function loadNames(): Promise<Names> {
  return Promise.resolve(names);
}
