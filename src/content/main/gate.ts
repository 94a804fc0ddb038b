import { urlsIn, type LoadAttribute } from '../loads';
import { requestCall, type Propose, type UrlTools } from './channel';
import { invoke, type Natives } from './natives';

/**
 * The hold shared by every element-initiated load hook (element properties and attributes, markup,
 * CSSOM): a value that names a cross-origin http(s) URL is not applied until each such URL is decided
 * as `browser.request` GET (kind image/frame/other); a value naming none is applied at once (the site
 * the tab is on, `data:`, `blob:`). Only the latest value for one slot of one target is ever applied,
 * so a later same-origin value is not overwritten by an earlier value's late ALLOW.
 */
export interface LoadGate {
  /**
   * Applies `value` to `slot` of `target` through `apply` now, or after ALLOW; on BLOCK calls `fail`.
   * Returns true when the value was applied synchronously.
   */
  hold(target: object, slot: string, load: LoadAttribute, value: string, apply: () => void, fail: () => void): boolean;
  /** The cross-origin URLs (resolved) a value names: empty when it needs no decision. */
  crossOriginUrls(load: LoadAttribute, value: string): string[];
}

export function loadGate(n: Natives, propose: Propose, urls: UrlTools): LoadGate {
  const pending = new n.WeakMap<object, Record<string, object>>();
  const crossOriginUrls = (load: LoadAttribute, value: string): string[] => {
    const found: string[] = [];
    for (const text of urlsIn(load.syntax, value)) {
      const url = urls.resolve(text);
      if (url !== null && urls.isCrossOrigin(url)) found.push(urls.href(url));
    }
    return found;
  };
  return {
    crossOriginUrls,
    hold(target, slot, load, value, apply, fail) {
      const decide = crossOriginUrls(load, value);
      let own = invoke<Record<string, object> | undefined>(n.weakMapGet, pending, [target]);
      if (decide.length === 0) {
        if (own !== undefined) delete own[slot];
        apply();
        return true;
      }
      if (own === undefined) {
        own = n.createObject(null) as Record<string, object>;
        invoke(n.weakMapSet, pending, [target, own]);
      }
      const slots = own;
      const token = n.createObject(null) as object;
      slots[slot] = token;
      let remaining = decide.length;
      let allowed = true;
      for (const href of decide) {
        propose(requestCall('GET', href, load.kind), (allow) => {
          allowed = allowed && allow;
          if (--remaining > 0 || slots[slot] !== token) return;
          delete slots[slot];
          if (allowed) apply();
          else fail();
        });
      }
      return false;
    },
  };
}
