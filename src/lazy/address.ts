import type { LazyName } from './scripts';

/**
 * Where a lazy script is served from, and the global it leaves its module under (taken off at once).
 * Apart from ./scripts.ts on purpose: the worker and the scripts import these, never the table, whose
 * imports would bring every lazy module into their bundles.
 */
export const lazyScriptUrl = (name: LazyName): string => `/${name}.js`;
export const lazyGlobal = (name: LazyName): string => `__agentsfence_lazy_${name}`;
