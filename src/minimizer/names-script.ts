/**
 * Where the extension keeps the name finder (compromise, ~350 kB): its own script (entrypoints/names.ts),
 * which leaves the module on the global object under this name.
 */
export const NAMES_SCRIPT = '/names.js';
export const NAMES_GLOBAL = '__agentsfenceNames';
