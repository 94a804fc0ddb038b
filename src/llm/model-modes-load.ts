import * as modelModes from './model-modes';

export type ModelModes = typeof modelModes;

/** The model modes in the same bundle (Node: the tests). The extension's build swaps in ./model-modes-load-extension.ts. */
export function loadModelModes(): Promise<ModelModes> {
  return Promise.resolve(modelModes);
}
