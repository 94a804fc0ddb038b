/**
 * Where the extension keeps the compiler: its own script (entrypoints/compiler.ts), which leaves the
 * background's compiler on the global object under this name.
 */
export const COMPILER_SCRIPT = '/compiler.js';
export const COMPILER_GLOBAL = '__agentsfenceCompiler';
