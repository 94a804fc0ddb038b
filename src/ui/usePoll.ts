import { useEffect, useRef } from 'preact/hooks';

/**
 * Run `tick` now and then every `ms` while mounted (and while `enabled`). The popup polls rather than
 * holding a port open so it never keeps the service worker awake on its own; ticks never overlap.
 */
export function usePoll(tick: () => Promise<void>, ms: number, enabled = true): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      await latest.current();
      if (!stopped) timer = setTimeout(() => void run(), ms);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [ms, enabled]);
}
