import type { Browser } from '@wxt-dev/browser';
import { reportWithoutCompile } from '../../compiler/report';
import { parsePolicy, type TaskPolicyInput } from '../../core/policy';
import type { BackgroundHandle } from '../index';
import type { MessageSender } from '../contracts';

/**
 * The harness channel: `globalThis.__agentsfence` in the service worker of the harness builds only
 * (`AF_HARNESS=1` → .output/harness, and the test-only `AF_NO_MAIN_HOOKS=1` control). The production
 * build (`npm run build` → .output/chrome-mv3, what users load and `npm pack` ships as the product)
 * never imports this module: entrypoints/background.ts calls it behind the compile-time constant
 * `__AF_HARNESS__`, so the bundler drops it (e2e/no-backdoor.spec.ts checks the bundle and the
 * running worker). The harness (src/harness) reaches it by evaluating in the worker over CDP.
 */

type Chrome = typeof Browser;
const chrome = (globalThis as unknown as { chrome: Chrome }).chrome;

export const HARNESS_GLOBAL = '__agentsfence';

export function openHarnessChannel(handle: BackgroundHandle): void {
  (globalThis as Record<string, unknown>)[HARNESS_GLOBAL] = {
    handle,
    openControlWindow: handle.openControlWindow,
    /** A message as if from the extension's own worker (no tab): the demo's MCP runs and the benchmark. */
    async handleMessage(raw: unknown, sender?: MessageSender) {
      const m = await handle.monitor;
      return m.handleMessage(raw, sender ?? { url: chrome.runtime.getURL('/background.js') });
    },
    /** Installs a precise policy as the active task (tests only; the user path is task.start). */
    async setPolicy(input: TaskPolicyInput) {
      const m = await handle.monitor;
      await m.ready;
      const policy = parsePolicy(input);
      await m.session.installTask(policy.taskId, '(policy set by the test hook)', policy, reportWithoutCompile('test-hook'));
      return m.snapshot();
    },
    async snapshot() {
      const m = await handle.monitor;
      await m.ready;
      return m.snapshot();
    },
    async floorRules() {
      const dnr = chrome.declarativeNetRequest;
      return [...(await dnr.getSessionRules()), ...(await dnr.getDynamicRules())];
    },
  };
}
