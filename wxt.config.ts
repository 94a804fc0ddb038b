import { fileURLToPath } from 'node:url';
import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';
import type { Plugin } from 'vite';
import { LAZY_SCRIPTS } from './src/lazy/scripts';

// MV3 extension. Entry points are thin wiring; logic lives in src/.
// Three builds:
//  - production (`npm run build` → .output/chrome-mv3): what users load and `npm pack` ships;
//  - harness (AF_HARNESS=1 → .output/harness/chrome-mv3): production plus the harness channel
//    (src/background/platform/harness-channel.ts), which the harness, e2e suite, demo and benchmark drive;
//  - nohooks (AF_NO_MAIN_HOOKS=1 → .output/nohooks/chrome-mv3): the harness build without the MAIN-world
//    page hooks: the e2e suite proves which protections hold by the network floor alone.
const noMainHooks = process.env.AF_NO_MAIN_HOOKS === '1';
const harness = noMainHooks || process.env.AF_HARNESS === '1';

/**
 * Firefox (`wxt build -b firefox --mv3`): a fixed add-on id, so policies and tests can name the extension
 * (its moz-extension:// UUID is per profile; tests pin it with the `extensions.webextensions.uuids` pref).
 * The extension collects and transmits nothing (the LLM compiler sends the user's task only to the
 * endpoint the user configures). Tested on firefox-esr 153 and 140.12; 140 is the first ESR that reads
 * `data_collection_permissions`.
 */
const FIREFOX_ADDON_ID = 'agentsfence@agentsfence.dev';
const FIREFOX_SETTINGS = {
  gecko: { id: FIREFOX_ADDON_ID, strict_min_version: '140.0', data_collection_permissions: { required: ['none'] } },
};

// The lazy scripts (src/lazy/scripts.ts: the compiler, the control desk, the openai SDK, the model modes,
// the audit shipper) are scripts of their own, evaluated by the worker when first needed. One swap makes
// it so: in the extension, `lazy(name)` is src/lazy/load-extension.ts (the script) in place of
// src/lazy/load.ts (the module itself, as Node has it); the install step gets the table's names.
const LAZY_LOADER = { module: '/src/lazy/load.ts', extension: './src/lazy/load-extension.ts' };
const lazyScriptsInExtension: Plugin = {
  name: 'agentsfence:lazy-scripts',
  enforce: 'pre',
  async resolveId(source, importer, options) {
    if (!source.endsWith('/load')) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    return resolved?.id.replaceAll('\\', '/').endsWith(LAZY_LOADER.module) === true ? fileURLToPath(new URL(LAZY_LOADER.extension, import.meta.url)) : null;
  },
};

export default defineConfig({
  // No webextension-polyfill: `wxt/browser` is the browser's own promise-based API (chrome in Chromium,
  // browser in Firefox); the polyfill's wrapper made every worker start evaluate it (9.6 KB).
  ...(noMainHooks ? { outDir: '.output/nohooks' } : harness ? { outDir: '.output/harness' } : {}),
  hooks: {
    'entrypoints:resolved': (_wxt, entrypoints) => {
      if (!noMainHooks) return;
      const index = entrypoints.findIndex((e) => e.name === 'page-hooks');
      if (index >= 0) entrypoints.splice(index, 1);
    },
  },
  // Popup and options pages are preact. `__AF_HARNESS__` is a literal, so the production bundle drops the
  // harness channel. AF_MAIN_HOOKS tells the background which content scripts to register
  // (src/background/floor/registration.ts). No cross-module constant inlining: rolldown's default copied
  // tldts's 68 KB suffix-list string into each of its three uses (background.js 722 → 582 KB).
  vite: () => ({
    plugins: [preact(), lazyScriptsInExtension],
    define: { __AF_HARNESS__: JSON.stringify(harness), __AF_LAZY_SCRIPTS__: JSON.stringify(Object.keys(LAZY_SCRIPTS)), 'import.meta.env.AF_MAIN_HOOKS': JSON.stringify(!noMainHooks) },
    build: { rolldownOptions: { optimization: { inlineConst: false } } },
  }),
  manifest: ({ browser }) => ({
    name: 'AgentsFence',
    description: 'Task-scoped authority for web-browsing AI agents.',
    permissions: [
      'storage',
      // Content scripts registered only while a task runs, injected into open guarded tabs (src/background/floor/registration.ts).
      'scripting',
      'tabs',
      'webNavigation',
      // Observing only (no blocking): the address a request reached, for the DNS-rebinding audit.
      'webRequest',
      'declarativeNetRequest',
      'declarativeNetRequestFeedback',
      'downloads',
      'notifications',
      'alarms',
      // WebRTC IP handling and network prediction, closed during a task (src/background/floor/floor-sync.ts).
      'privacy',
    ],
    host_permissions: ['<all_urls>'],
    // The organisation's floor and collector, by enterprise policy (src/org/managed.ts).
    storage: { managed_schema: 'managed_schema.json' },
    // No web_accessible_resources: the background opens blocked.html itself (tabs.update), so no web
    // page can navigate to any of this extension's pages, the blocked page included. The blocked page is
    // sandboxed (opaque origin, no extension APIs): it shows in the agent's tab, where a script the agent
    // registered over DevTools runs too, and from an extension origin that script could reach the control
    // window (chrome.extension.getViews) and answer approvals (src/background/floor/guards.ts, ASK_FRAGMENT).
    // Firefox has no `sandbox` key (and no DevTools endpoint for agents: `agentsfence browser` is Chromium's).
    ...(browser === 'firefox' ? { browser_specific_settings: FIREFOX_SETTINGS } : { sandbox: { pages: ['blocked.html'] } }),
  }),
});
