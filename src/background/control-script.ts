/**
 * Where the extension keeps the control desk (./control.ts): its own script (entrypoints/control.ts),
 * which leaves the module on the worker's global object under this name.
 */
export const CONTROL_SCRIPT = '/control.js';
export const CONTROL_GLOBAL = '__agentsfenceControl';
