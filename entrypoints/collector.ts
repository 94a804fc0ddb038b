import * as collector from '../src/org/collector';
import { COLLECTOR_GLOBAL } from '../src/org/collector-script';

// The audit shipper (src/org/collector.ts and its OTLP encoding) as a script of its own, imported by the
// worker only when the organisation names a collector (src/org/collector-on-demand.ts).
export default defineUnlistedScript(() => {
  (globalThis as unknown as Record<string, unknown>)[COLLECTOR_GLOBAL] = collector;
});
