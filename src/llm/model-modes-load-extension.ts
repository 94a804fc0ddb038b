import { onDemandScript } from '../background/on-demand-script';
import type { ModelModes } from './model-modes-load';
import { MODEL_MODES_GLOBAL, MODEL_MODES_SCRIPT } from './model-modes-script';

/**
 * The extension's model modes, kept out of background.js (wxt.config.ts puts this module in place of
 * ./model-modes-load.ts): their own script, loaded when a model mode is first asked after a start.
 */
export const loadModelModes = onDemandScript<ModelModes>(MODEL_MODES_SCRIPT, MODEL_MODES_GLOBAL, 'model modes');
