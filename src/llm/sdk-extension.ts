import type { OpenAISdk } from './sdk';
import { OPENAI_SDK_GLOBAL, OPENAI_SDK_SCRIPT } from './sdk-script';

/**
 * The extension's openai SDK, kept out of background.js (wxt.config.ts puts this module in place of
 * ./sdk.ts). A service worker cannot `import()`, and `importScripts` works later only for scripts it
 * imported while installing: so the install step imports the SDK's script once, and the worker evaluates
 * it again only when a model mode or the model compiler first runs after a start. A failure here is a
 * failure of that model call (the callers fall back to their deterministic result).
 */
interface WorkerScope {
  importScripts?: (...urls: string[]) => void;
  addEventListener(type: 'install', listener: () => void): void;
}

const scope = globalThis as unknown as WorkerScope & Record<string, OpenAISdk | undefined>;

/** The SDK once evaluated; taken off the global at once, so the worker's global names nothing of ours. */
let loaded: OpenAISdk | undefined;
function take(): OpenAISdk | undefined {
  const sdk = scope[OPENAI_SDK_GLOBAL];
  if (sdk !== undefined) {
    loaded = sdk;
    delete scope[OPENAI_SDK_GLOBAL];
  }
  return loaded;
}

if (typeof scope.importScripts === 'function') {
  scope.addEventListener('install', () => {
    // Never fail the install over it: without the SDK, model calls fail and their callers fall back.
    try {
      scope.importScripts?.(OPENAI_SDK_SCRIPT);
      take();
    } catch {
      // loadOpenAI reports the failure when a model is asked.
    }
  });
}

/** A background page (Firefox) has no importScripts: the same script, added to the page. */
function loadIntoPage(): Promise<OpenAISdk> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = OPENAI_SDK_SCRIPT;
    script.onload = () => {
      const sdk = take();
      if (sdk === undefined) reject(new Error('the model client script is not available'));
      else resolve(sdk);
    };
    script.onerror = () => reject(new Error('the model client script did not load'));
    document.head.append(script);
  });
}

export function loadOpenAI(): Promise<OpenAISdk> {
  if (loaded !== undefined) return Promise.resolve(loaded);
  if (typeof scope.importScripts !== 'function' && typeof document !== 'undefined') return loadIntoPage();
  try {
    scope.importScripts?.(OPENAI_SDK_SCRIPT);
    const sdk = take();
    return sdk === undefined ? Promise.reject(new Error('the model client script is not available')) : Promise.resolve(sdk);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
