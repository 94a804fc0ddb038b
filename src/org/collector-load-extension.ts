import { onDemandScript } from '../background/on-demand-script';
import type { CollectorModule } from './collector-load';
import { COLLECTOR_GLOBAL, COLLECTOR_SCRIPT } from './collector-script';

/**
 * The extension's audit shipper, kept out of background.js (wxt.config.ts puts this module in place of
 * ./collector-load.ts): its own script, loaded when the organisation first names a collector after a start.
 */
export const loadCollector = onDemandScript<CollectorModule>(COLLECTOR_SCRIPT, COLLECTOR_GLOBAL, 'audit shipper');
