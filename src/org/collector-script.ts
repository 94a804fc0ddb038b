/**
 * Where the extension keeps the audit shipper (./collector.ts, with ./otlp.ts): its own script
 * (entrypoints/collector.ts), which leaves the module on the worker's global object under this name.
 */
export const COLLECTOR_SCRIPT = '/collector.js';
export const COLLECTOR_GLOBAL = '__agentsfenceCollector';
