import { LAZY_SCRIPTS, type LazyModule, type LazyName } from './scripts';

/**
 * A lazy script's module, as Node loads it (the tests, the CLI): the module itself. The extension's build
 * puts ./load-extension.ts in place of this file (wxt.config.ts), which evaluates the script on first use.
 */
export function lazy<N extends LazyName>(name: N): Promise<LazyModule<N>> {
  return LAZY_SCRIPTS[name]() as Promise<LazyModule<N>>;
}
