/** Replaced at build time by wxt.config.ts (vite `define`): true only in the harness builds (AF_HARNESS=1, AF_NO_MAIN_HOOKS=1). */
declare const __AF_HARNESS__: boolean;
