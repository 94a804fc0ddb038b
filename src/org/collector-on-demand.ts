import type { CollectorShipper, ShipperDeps } from './collector';
import { lazy } from '../lazy/load';
import type { LazyModule } from '../lazy/scripts';

/** What the background asks of the shipper. */
export type Shipper = Pick<CollectorShipper, 'kick' | 'flush'>;

/** How long a shipper that did not load waits before the next try (the alarm wakes a stopped worker). */
export const LOAD_RETRY_MS = 60_000;

/**
 * The audit shipper (./collector.ts), loaded only once the organisation names a collector: a browser
 * without one never evaluates it. Nothing is shipped before it loads, and nothing is lost if it does not:
 * the queue is the audit log after the cursor, so the entries wait, the failure is reported on the
 * console and the load is tried again on the next kick or alarm.
 */
export function onDemandShipper(deps: ShipperDeps, load: () => Promise<LazyModule<'collector'>> = () => lazy('collector')): Shipper {
  let shipper: Promise<CollectorShipper> | null = null;
  async function named(): Promise<CollectorShipper | null> {
    if ((await deps.collectorUrl()) === null) return null;
    shipper ??= load().then((module) => new module.CollectorShipper(deps));
    try {
      return await shipper;
    } catch (err) {
      shipper = null;
      console.error(`AgentsFence: audit shipping unavailable (${err instanceof Error ? err.message : String(err)}); the entries stay queued, retrying in ${LOAD_RETRY_MS} ms`);
      deps.wakeLater(LOAD_RETRY_MS);
      return null;
    }
  }
  return {
    kick() {
      void named().then((s) => s?.kick());
    },
    async flush() {
      await (await named())?.flush();
    },
  };
}
