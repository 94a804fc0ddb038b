import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';

// MV3 extension. Entry points are thin wiring; logic lives in src/.
// Three builds:
//  - production (`npm run build` → .output/chrome-mv3): what users load and `npm pack` ships;
//  - harness (AF_HARNESS=1 → .output/harness/chrome-mv3): production plus the harness channel
//    (src/background/harness-channel.ts), which the harness, e2e suite, demo and benchmark drive;
//  - nohooks (AF_NO_MAIN_HOOKS=1 → .output/nohooks/chrome-mv3): the harness build without the MAIN-world
//    page hooks: the e2e suite proves which protections hold by the network floor alone.
const noMainHooks = process.env.AF_NO_MAIN_HOOKS === '1';
const harness = noMainHooks || process.env.AF_HARNESS === '1';

/**
 * Firefox (`wxt build -b firefox --mv3`): a fixed add-on id, so policies and tests can name the extension
 * (its moz-extension:// UUID is per profile; tests pin it with the `extensions.webextensions.uuids` pref).
 * The extension collects and transmits nothing (the LLM compiler sends the user's task only to the
 * endpoint the user configures). Tested on firefox-esr 153; 140 is the first ESR that reads
 * `data_collection_permissions`.
 */
const FIREFOX_ADDON_ID = 'agentsfence@agentsfence.dev';
const FIREFOX_SETTINGS = {
  gecko: { id: FIREFOX_ADDON_ID, strict_min_version: '140.0', data_collection_permissions: { required: ['none'] } },
};

export default defineConfig({
  modules: ['@wxt-dev/webextension-polyfill'],
  ...(noMainHooks ? { outDir: '.output/nohooks' } : harness ? { outDir: '.output/harness' } : {}),
  hooks: {
    'entrypoints:resolved': (_wxt, entrypoints) => {
      if (!noMainHooks) return;
      const index = entrypoints.findIndex((e) => e.name === 'page-hooks');
      if (index >= 0) entrypoints.splice(index, 1);
    },
  },
  // Popup and options pages are preact. `__AF_HARNESS__` is a literal, so the production bundle drops the harness channel.
  vite: () => ({ plugins: [preact()], define: { __AF_HARNESS__: JSON.stringify(harness) } }),
  manifest: ({ browser }) => ({
    name: 'AgentsFence',
    description: 'Task-scoped authority for web-browsing AI agents.',
    permissions: [
      'storage',
      'tabs',
      'webNavigation',
      // Observing only (no blocking): the address a request reached, for the DNS-rebinding audit.
      'webRequest',
      'declarativeNetRequest',
      'declarativeNetRequestFeedback',
      'downloads',
      'notifications',
      'alarms',
      // WebRTC IP handling and network prediction, closed during a task (src/background/floor-sync.ts).
      'privacy',
    ],
    host_permissions: ['<all_urls>'],
    // The organisation's floor and collector, by enterprise policy (src/org/managed.ts).
    storage: { managed_schema: 'managed_schema.json' },
    // No web_accessible_resources: the background opens blocked.html itself (tabs.update), so no web
    // page can navigate to any of this extension's pages, the blocked page included.
    ...(browser === 'firefox' ? { browser_specific_settings: FIREFOX_SETTINGS } : {}),
  }),
});
