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

  it('reads a URL the way Chromium does: tabs, line breaks and leading controls do not hide an extension page', () => {
    for (const url of [`chrome-ext\tension://abcdefghijklmnopabcdefghijklmnop/options.html`, `\u0001${EXT}/popup.html`, 'chrome\n://version', `blob:${EXT}/uuid`, ` \t${EXT}/popup.html\r`]) {
      expect(refusal('Page.navigate', { url }, ctx()), JSON.stringify(url)).toMatch(/may not open/);
      expect(refusal('Target.createTarget', { url }, ctx()), JSON.stringify(url)).toMatch(/may not open/);
    }
    expect(refusal('Page.navigate', { url: 'http://news.test/chrome-extension' }, ctx())).toBeNull();
  });

  it('refuses what sends or changes requests behind the extension (adaptive review of the proxy)', () => {
    expect(refusal('Fetch.continueRequest', { requestId: 'r1', url: 'http://evil.test/?code=1' }, ctx())).toMatch(/may not change a request's url/);
    expect(refusal('Fetch.continueRequest', { requestId: 'r1', method: 'POST', postData: 'YQ==' }, ctx())).toMatch(/method, postData/);
    expect(refusal('Fetch.continueRequest', { requestId: 'r1', headers: [{ name: 'x', value: 'y' }] }, ctx())).toMatch(/headers/);
    expect(refusal('Network.continueInterceptedRequest', { interceptionId: 'i', url: 'http://evil.test/' }, ctx())).toMatch(/may not change/);
    expect(refusal('Network.loadNetworkResource', { frameId: 'f', url: 'http://evil.test/', options: {} }, ctx())).toMatch(/browser side/);
    expect(refusal('Network.replayXHR', { requestId: 'r' }, ctx())).toMatch(/without a new decision/);
    expect(refusal('Network.setExtraHTTPHeaders', { headers: { 'x-leak': 'code-482913' } }, ctx())).toMatch(/adds headers/);
    expect(refusal('Network.setUserAgentOverride', { userAgent: 'Mozilla/5.0 code482913' }, ctx())).toMatch(/agent-chosen text/);
    expect(refusal('Emulation.setUserAgentOverride', { userAgent: 'x' }, ctx())).toMatch(/agent-chosen text/);
    expect(refusal('DOM.setFileInputFiles', { files: ['/etc/passwd'], backendNodeId: 1 }, ctx())).toMatch(/local files/);
    expect(refusal('Input.dispatchDragEvent', { type: 'drop', x: 1, y: 1, data: { items: [], files: ['/etc/passwd'], dragOperationsMask: 1 } }, ctx())).toMatch(/local files/);
    // Interception that stops or answers a request, an empty header set and a drag without files stay the agent's.
    for (const [method, params] of [
      ['Fetch.enable', { patterns: [{ urlPattern: '*' }] }],
      ['Fetch.continueRequest', { requestId: 'r1' }],
      ['Fetch.failRequest', { requestId: 'r1', errorReason: 'Aborted' }],
      ['Fetch.fulfillRequest', { requestId: 'r1', responseCode: 200 }],
      ['Network.setExtraHTTPHeaders', { headers: {} }],
      ['Input.dispatchDragEvent', { type: 'dragEnter', x: 1, y: 1, data: { items: [], dragOperationsMask: 1 } }],
    ] as const) {
      expect(refusal(method, params, ctx()), method).toBeNull();
    }
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
