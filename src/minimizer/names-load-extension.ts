import { onDemandScript } from '../background/on-demand-script';
import type { Names } from './names-load';
import { NAMES_GLOBAL, NAMES_SCRIPT } from './names-script';

/**
 * The extension's name finder, kept out of background.js and compiler.js (wxt.config.ts puts this module in
 * place of ./names-load.ts): its own script, loaded when a compile first finds pasted content after a start.
 */
export const loadNames = onDemandScript<Names>(NAMES_SCRIPT, NAMES_GLOBAL, 'name finder');
