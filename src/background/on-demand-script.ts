/**
 * A script of the extension's own (entrypoints/openai-sdk.ts, entrypoints/compiler.ts) kept out of
 * background.js and evaluated only when first needed. The script leaves its module on the global object
 * under a name; the loader takes it off at once, so the global names nothing of ours for long.
 * A service worker cannot `import()`, and `importScripts` works later only for scripts it imported while
 * installing: so the background's install step imports every such script once (`importOnInstall`), and
 * the worker evaluates one again only when it is first asked for after a start. A Firefox background page
 * has no importScripts: the script is added to the page.
 */
interface WorkerScope {
  importScripts?: (...urls: string[]) => void;
  addEventListener(type: 'install', listener: () => void): void;
}

const scope = globalThis as unknown as WorkerScope & Record<string, unknown>;

/**
 * Called once, by the background entry only, during the worker's first evaluation. A module evaluated
 * inside one of these scripts must not add its own install listener: it would be added after the first
 * evaluation (the browser ignores it and warns).
 */
export interface OnDemandScript {
  url: string;
  /** The global the script leaves its module under. */
  globalName: string;
}

/** Each loader's `take`, by script: the install step hands it the module it just evaluated. */
const takers = new Map<string, () => unknown>();

export function importOnInstall(scripts: readonly OnDemandScript[]): void {
  if (typeof scope.importScripts !== 'function') return;
  scope.addEventListener('install', () => {
    for (const { url, globalName } of scripts) {
      // Never fail the install over it: a script that does not load fails its caller later, which falls back.
      try {
        scope.importScripts?.(url);
      } catch {
        // The loader reports the failure when the script is asked for.
      }
      // Off the global at once (kept by its loader when there is one): the worker's global names nothing of ours.
      takers.get(url)?.();
      delete scope[globalName];
    }
  });
}

export function onDemandScript<T>(url: string, globalName: string, what: string): () => Promise<T> {
  let loaded: T | undefined;
  function take(): T | undefined {
    const module = scope[globalName] as T | undefined;
    if (module !== undefined) {
      loaded = module;
      delete scope[globalName];
    }
    return loaded;
  }
  takers.set(url, take);
  function loadIntoPage(): Promise<T> {
    return new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = url;
      script.onload = () => {
        const module = take();
        if (module === undefined) reject(new Error(`the ${what} script is not available`));
        else resolve(module);
      };
      script.onerror = () => reject(new Error(`the ${what} script did not load`));
      document.head.append(script);
    });
  }
  return () => {
    const ready = take();
    if (ready !== undefined) return Promise.resolve(ready);
    if (typeof scope.importScripts !== 'function' && typeof document !== 'undefined') return loadIntoPage();
    try {
      scope.importScripts?.(url);
      const module = take();
      return module === undefined ? Promise.reject(new Error(`the ${what} script is not available`)) : Promise.resolve(module);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
}
