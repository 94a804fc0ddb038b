import * as collector from '../src/org/collector';
import { lazyScript } from '../src/lazy/script';

// The audit shipper and its OTLP encoding: a lazy script (src/lazy/scripts.ts).
export default defineUnlistedScript(lazyScript('collector', collector));
