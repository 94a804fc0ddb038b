/**
 * Where the extension keeps the model modes (./model-modes.ts): their own script
 * (entrypoints/model-modes.ts), which leaves the module on the worker's global object under this name.
 */
export const MODEL_MODES_SCRIPT = '/model-modes.js';
export const MODEL_MODES_GLOBAL = '__agentsfenceModelModes';
