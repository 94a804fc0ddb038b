import { describe, expect, it } from 'vitest';
import { forbiddenStringIn, isHiddenTarget, refusal, rewrite, type CommandContext } from '../../src/cdp-proxy/rules';

const EXT = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const TARGETS: Record<string, { type: string; url: string }> = {
  page: { type: 'page', url: 'http://news.test/' },
  sw: { type: 'service_worker', url: `${EXT}/background.js` },
  popup: { type: 'page', url: `${EXT}/popup.html` },
  blocked: { type: 'page', url: `${EXT}/blocked.html?check=domain_allowlist&url=http://evil.test/` },
  settings: { type: 'page', url: 'chrome://extensions/' },
  siteWorker: { type: 'service_worker', url: 'https://app.test/sw.js' },
};
const ctx = (onHiddenTarget = false): CommandContext => ({ onHiddenTarget, target: (id) => TARGETS[id] });

describe('which targets an agent sees', () => {
  it('hides every extension page and worker and every browser-internal page', () => {
    for (const id of ['sw', 'popup', 'blocked', 'settings']) expect(isHiddenTarget(TARGETS[id]!), id).toBe(true);
    expect(isHiddenTarget({ type: 'page', url: 'devtools://devtools/bundled/inspector.html' })).toBe(true);
    expect(isHiddenTarget({ type: 'background_page', url: 'http://a.test/' })).toBe(true);
    expect(isHiddenTarget({ type: 'other', url: '' })).toBe(true);
  });

  it("shows the agent's pages, blank pages and web pages' own workers", () => {
    for (const info of [TARGETS.page!, TARGETS.siteWorker!, { type: 'page', url: 'about:blank' }, { type: 'tab', url: 'http://news.test/' }, { type: 'iframe', url: 'http://ads.test/' }]) {
      expect(isHiddenTarget(info), info.url).toBe(false);
    }
  });
});

describe('which commands an agent may send', () => {
  it('refuses the Extensions and ServiceWorker domains outright', () => {
    expect(refusal('Extensions.loadUnpacked', { path: '/tmp/evil' }, ctx())).toMatch(/Extensions domain/);
    expect(refusal('Extensions.uninstall', { id: 'x' }, ctx())).toMatch(/Extensions domain/);
    expect(refusal('ServiceWorker.stopAllWorkers', {}, ctx())).toMatch(/ServiceWorker domain/);
  });

  it('refuses attaching to, inspecting, activating or closing a hidden target, allows the agent’s own', () => {
    for (const method of ['Target.attachToTarget', 'Target.getTargetInfo', 'Target.activateTarget', 'Target.closeTarget']) {
      expect(refusal(method, { targetId: 'sw', flatten: true }, ctx()), method).toMatch(/no such target/);
      expect(refusal(method, { targetId: 'popup' }, ctx()), method).toMatch(/no such target/);
      expect(refusal(method, { targetId: 'unknown' }, ctx()), method).toMatch(/no such target/);
      expect(refusal(method, { targetId: 'page', flatten: true }, ctx()), method).toBeNull();
    }
  });

  it('refuses opening or navigating to extension and internal pages, allows web pages', () => {
    expect(refusal('Target.createTarget', { url: `${EXT}/popup.html` }, ctx())).toMatch(/may not open/);
    expect(refusal('Target.createTarget', { url: 'chrome://settings' }, ctx())).toMatch(/may not open/);
    expect(refusal('Page.navigate', { url: `${EXT}/options.html` }, ctx())).toMatch(/may not open/);
    expect(refusal('Page.navigate', { url: ' CHROME://extensions' }, ctx())).toMatch(/may not open/);
    expect(refusal('Target.createTarget', { url: 'about:blank' }, ctx())).toBeNull();
    expect(refusal('Page.navigate', { url: 'http://news.test/' }, ctx())).toBeNull();
  });

  it("refuses any command that names the extension's origin (storage, IndexedDB, cache)", () => {
    expect(refusal('Storage.clearDataForOrigin', { origin: 'http://news.test', storageTypes: 'all' }, ctx())).toMatch(/clears/);
    expect(refusal('IndexedDB.requestData', { securityOrigin: EXT, databaseName: 'agentsfence' }, ctx())).toMatch(/names chrome-extension/);
    expect(refusal('DOMStorage.getDOMStorageItems', { storageId: { storageKey: `${EXT}/`, isLocalStorage: true } }, ctx())).toMatch(/names chrome-extension/);
    expect(forbiddenStringIn({ a: [{ b: 'chrome://flags' }] })).toBe('chrome://flags');
    expect(forbiddenStringIn({ expression: "fetch('chrome-extension://x/')" })).toBeNull();
  });

  it('refuses browser-wide changes: permissions, downloads, new (unguarded) browser contexts', () => {
    expect(refusal('Browser.grantPermissions', { permissions: ['geolocation'] }, ctx())).not.toBeNull();
    expect(refusal('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'granted' }, ctx())).not.toBeNull();
    // Downloads stay the browser's own (checked by the extension's download guard), whatever the agent asks.
    expect(rewrite('Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: '/home/user', eventsEnabled: true })).toEqual({ behavior: 'default', downloadPath: undefined, eventsEnabled: false });
    expect(rewrite('Browser.setDownloadBehavior', { behavior: 'deny' })).toEqual({ behavior: 'deny' });
    expect(rewrite('Page.navigate', { url: 'http://a.test/' })).toEqual({ url: 'http://a.test/' });
    expect(refusal('Target.createBrowserContext', {}, ctx())).toMatch(/without the extension/);
    expect(refusal('Target.exposeDevToolsProtocol', { targetId: 'page' }, ctx())).not.toBeNull();
    expect(refusal('Target.sendMessageToTarget', { message: '{}', targetId: 'page' }, ctx())).not.toBeNull();
  });

  it('in a session whose page shows an extension page, allows only leaving or closing it', () => {
    for (const method of ['Runtime.evaluate', 'Runtime.callFunctionOn', 'Page.createIsolatedWorld', 'DOM.getDocument', 'Input.dispatchMouseEvent', 'Page.addScriptToEvaluateOnNewDocument', 'IndexedDB.requestDatabaseNames']) {
      expect(refusal(method, { expression: '1' }, ctx(true)), method).toMatch(/navigate away first/);
    }
    expect(refusal('Page.navigate', { url: 'http://news.test/' }, ctx(true))).toBeNull();
    expect(refusal('Page.close', {}, ctx(true))).toBeNull();
    expect(refusal('Runtime.evaluate', { expression: '1' }, ctx(false))).toBeNull();
  });
});
