import * as collector from './collector';

export type CollectorModule = typeof collector;

/** The shipper in the same bundle (Node: the tests). The extension's build swaps in ./collector-load-extension.ts. */
export function loadCollector(): Promise<CollectorModule> {
  return Promise.resolve(collector);
}
