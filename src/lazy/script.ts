import { lazyGlobal } from './address';
import type { LazyModule, LazyName } from './scripts';

/**
 * The body of a lazy script's entrypoint (`export default defineUnlistedScript(lazyScript(name, module))`):
 * it leaves the module on the global object, where the worker's loader takes it off at once
 * (./load-extension.ts). Nothing else runs: a module evaluated here must not add its own install listener.
 */
export function lazyScript<N extends LazyName>(name: N, module: LazyModule<N>): () => void {
  return () => {
    (globalThis as unknown as Record<string, unknown>)[lazyGlobal(name)] = module;
  };
}
