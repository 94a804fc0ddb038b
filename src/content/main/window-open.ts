import type { BROWSER_TOOLS } from '../../core/call';
import type { PageWindow, Propose, UrlTools } from './channel';
import { invoke, type Natives } from './natives';

const NAVIGATE_TOOL: (typeof BROWSER_TOOLS)['navigate'] = 'browser.navigate';

const NO_OPENER = /(^|[\s,])(noopener|noreferrer)([\s,=]|$)/i;

/**
 * window.open must return a window at once: it opens an about:blank placeholder (no network) with the
 * same target and features, and navigates it to the URL on ALLOW or closes it on BLOCK. With noopener
 * the caller gets null, as natively, and the placeholder's opener is cut before it navigates.
 */
export function hookWindowOpen(win: PageWindow, n: Natives, propose: Propose, urls: UrlTools): void {
  win.open = function open(...args: unknown[]): WindowProxy | null {
    const [url, target, features] = args;
    const text = url === undefined ? '' : n.String(url);
    const resolved = text === '' || text === 'about:blank' ? null : urls.resolve(text);
    if (resolved === null) return invoke<WindowProxy | null>(n.open, n.window, args); // nothing to load, or the native throws
    const href = urls.href(resolved);
    const featureText = features === undefined ? '' : n.String(features);
    const noOpener = invoke<boolean>(n.regExpTest, NO_OPENER, [featureText]);
    const targetName = target === undefined ? '_blank' : n.String(target);
    const popup = invoke<WindowProxy | null>(n.open, n.window, ['about:blank', targetName, noOpener ? '' : featureText]);
    propose({ tool: NAVIGATE_TOOL, args: { url: href, opener: n.location.href } }, (allow) => {
      if (popup === null) return; // the browser refused the popup: nothing to navigate
      try {
        if (!allow) {
          popup.close();
          return;
        }
        if (noOpener) popup.opener = null;
        popup.location.href = href;
      } catch {
        // The page closed or navigated the placeholder itself meanwhile.
      }
    });
    return noOpener ? null : popup;
  };
}
