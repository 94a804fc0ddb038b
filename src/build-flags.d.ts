/** Replaced at build time by wxt.config.ts (vite `define`): true only in the harness builds (AF_HARNESS=1, AF_NO_MAIN_HOOKS=1). */
declare const __AF_HARNESS__: boolean;
/** Replaced at build time by wxt.config.ts: the names of the lazy scripts (src/lazy/scripts.ts), for the worker's install step. */
declare const __AF_LAZY_SCRIPTS__: readonly import('./lazy/scripts').LazyName[];
