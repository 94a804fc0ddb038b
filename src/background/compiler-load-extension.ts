import type { TaskCompiler } from './compile';
import { COMPILER_GLOBAL, COMPILER_SCRIPT } from './compiler-script';
import { onDemandScript } from './on-demand-script';

/**
 * The extension's compiler, kept out of background.js (wxt.config.ts puts this module in place of
 * ./compiler-load.ts): its own script, loaded when a task or a follow-up is first compiled after a start.
 */
export const loadTaskCompiler = onDemandScript<TaskCompiler>(COMPILER_SCRIPT, COMPILER_GLOBAL, 'rules compiler');
