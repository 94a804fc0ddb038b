import { lazyGlobal, lazyScriptUrl } from './address';
import type { LazyModule, LazyName } from './scripts';

/**
 * A lazy script's module as the extension loads it (wxt.config.ts puts this file in place of ./load.ts):
 * its script (./scripts.ts), evaluated when first asked for after a start. The script leaves its module on
 * the global object; the loader takes it off at once, so the global names nothing of ours for long.
 * A service worker cannot `import()`, and `importScripts` works later only for scripts it imported while
 * installing: so the background's install step imports every lazy script once (`importOnInstall`), and
 * the worker evaluates one again only when it is first asked for after a start. A Firefox background page
 * has no importScripts: the script is added to the page. A script that does not load rejects with the
 * reason; each caller treats that as its own failure (a failed compile, a failed model call, …).
 */
interface WorkerScope {
  importScripts?: (...urls: string[]) => void;
  addEventListener(type: 'install', listener: () => void): void;
}

const scope = globalThis as unknown as WorkerScope & Record<string, unknown>;

/** The modules taken off the global so far, by script. */
const loaded = new Map<LazyName, unknown>();

function take(name: LazyName): unknown {
  const global = lazyGlobal(name);
  const module = scope[global];
  if (module !== undefined) {
    loaded.set(name, module);
    delete scope[global];
  }
  return loaded.get(name);
}

function notAvailable(name: LazyName): Error {
  return new Error(`the ${name} script (${lazyScriptUrl(name)}) is not available`);
}

function loadIntoPage(name: LazyName): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = lazyScriptUrl(name);
    script.onload = () => {
      const module = take(name);
      if (module === undefined) reject(notAvailable(name));
      else resolve(module);
    };
    script.onerror = () => reject(new Error(`the ${name} script (${lazyScriptUrl(name)}) did not load`));
    document.head.append(script);
  });
}

export function lazy<N extends LazyName>(name: N): Promise<LazyModule<N>> {
  return load(name) as Promise<LazyModule<N>>;
}

function load(name: LazyName): Promise<unknown> {
  const ready = take(name);
  if (ready !== undefined) return Promise.resolve(ready);
  if (typeof scope.importScripts !== 'function' && typeof document !== 'undefined') return loadIntoPage(name);
  try {
    scope.importScripts?.(lazyScriptUrl(name));
    const module = take(name);
    return module === undefined ? Promise.reject(notAvailable(name)) : Promise.resolve(module);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * Called once, by the background entry only, during the worker's first evaluation, with every lazy
 * script (the build's list of ./scripts.ts). The modules it evaluates are kept for `lazy`, off the global.
 */
export function importOnInstall(names: readonly LazyName[]): void {
  if (typeof scope.importScripts !== 'function') return;
  scope.addEventListener('install', () => {
    for (const name of names) {
      // Never fail the install over it: a script that does not load fails its caller later, which falls back.
      try {
        scope.importScripts?.(lazyScriptUrl(name));
      } catch {
        // `lazy` reports the failure when the script is asked for.
      }
      take(name);
    }
  });
}
