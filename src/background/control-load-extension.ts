import type { ControlDesk } from './control-load';
import { CONTROL_GLOBAL, CONTROL_SCRIPT } from './control-script';
import { onDemandScript } from './on-demand-script';

/**
 * The extension's control desk (the popup's and options page's requests), kept out of background.js
 * (wxt.config.ts puts this module in place of ./control-load.ts): its own script, loaded when the first
 * such request arrives after a start.
 */
export const loadControl = onDemandScript<ControlDesk>(CONTROL_SCRIPT, CONTROL_GLOBAL, 'task and settings');
