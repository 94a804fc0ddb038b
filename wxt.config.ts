import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';

// MV3 extension. Entry points are thin wiring; logic lives in src/.
export default defineConfig({
  modules: ['@wxt-dev/webextension-polyfill'],
  // Popup and options pages are preact.
  vite: () => ({ plugins: [preact()] }),
  manifest: {
    name: 'AgentsFence',
    description: 'Task-scoped authority for web-browsing AI agents.',
    permissions: [
      'storage',
      'tabs',
      'webNavigation',
      'declarativeNetRequest',
      'declarativeNetRequestFeedback',
      'downloads',
      'notifications',
      'alarms',
    ],
    host_permissions: ['<all_urls>'],
  },
});
