import { STYLES_CHANGED_EVENT } from '../bridge';
import type { LoadAttribute } from '../loads';
import type { PageWindow } from './channel';
import type { LoadGate } from './gate';
import { invoke, type Natives } from './natives';

/**
 * CSS that names a cross-origin URL (`url(...)`, `@import`, `image-set(...)`) set from script: inline
 * style properties (`style.backgroundImage = …` through a Proxy, `setProperty`, `cssText`) and constructed or existing
 * style sheets (`insertRule`, `replace`, `replaceSync`). Each goes through the load gate; on BLOCK
 * nothing is applied. `<style>` text is held by the markup hooks; CSS a page writes into the document's
 * own HTML, or through `Attr`/CharacterData setters, is the network floor's.
 */
const CSS_LOAD: LoadAttribute = { kind: 'image', syntax: 'css' };
/** A value that could name a URL (`url(`, `image-set(`, or a CSS escape that might spell one). */
const URL_VALUE = /url\(|image-set\(|\\/i;
/** A rule that matches nothing, holding a rule's place in the sheet while it is decided. */
const PLACEHOLDER_RULE = '@media not all {}';

export function hookStyles(win: PageWindow, n: Natives, gate: LoadGate): void {
  const { getOwnPropertyDescriptor, defineProperty } = Reflect;
  const declaration = win.CSSStyleDeclaration.prototype;
  const nativeSetProperty = declaration.setProperty;
  const sheet = win.CSSStyleSheet.prototype;
  const { insertRule, deleteRule, replace, replaceSync } = sheet;
  const cssRulesOf = getOwnPropertyDescriptor(sheet, 'cssRules')?.get;
  const ignore = (): void => undefined;
  /** Tells the ISOLATED Sanitizer that rules changed with no mutation record (src/content/bridge.ts). */
  const announce = (): void => {
    invoke(n.dispatchEvent, n.document, [new n.CustomEvent(STYLES_CHANGED_EVENT)]);
  };
  for (const owner of [win.Document.prototype, win.ShadowRoot.prototype]) {
    const descriptor = getOwnPropertyDescriptor(owner, 'adoptedStyleSheets');
    const nativeSet = descriptor?.set;
    if (descriptor === undefined || nativeSet === undefined) continue;
    defineProperty(owner, 'adoptedStyleSheets', {
      ...descriptor,
      set(this: Document | ShadowRoot, value: unknown) {
        invoke(nativeSet, this, [value]);
        announce();
      },
    });
  }

  // Maps each Proxy handed out below back to its declaration: natives must be called on the real one.
  const declarations = new n.WeakMap<object, CSSStyleDeclaration>();
  const real = (self: CSSStyleDeclaration): CSSStyleDeclaration => invoke<CSSStyleDeclaration | undefined>(n.weakMapGet, declarations, [self]) ?? self;

  /** Wraps an accessor's setter (cssText). */
  const wrapSetter = (proto: object, name: string): void => {
    const descriptor = getOwnPropertyDescriptor(proto, name);
    const nativeSet = descriptor?.set;
    if (descriptor === undefined || nativeSet === undefined) return;
    defineProperty(proto, name, {
      ...descriptor,
      set(this: CSSStyleDeclaration, value: unknown) {
        const self = real(this);
        gate.hold(self, name, CSS_LOAD, n.String(value), () => invoke(nativeSet, self, [value]), ignore);
      },
    });
  };

  // Blink implements `style.backgroundImage = …` as a named-property interceptor, not an accessor
  // that could be wrapped: the `style` getters hand out one Proxy per declaration whose `set` trap
  // holds values that name a URL. Methods are called on the real declaration.
  const { get: reflectGet, set: reflectSet } = Reflect;
  const proxies = new n.WeakMap<CSSStyleDeclaration, CSSStyleDeclaration>();
  const methods = new n.WeakMap<object, unknown>();
  const handler: ProxyHandler<CSSStyleDeclaration> = {
    get(target, property) {
      const value: unknown = reflectGet(target, property, target);
      if (typeof value !== 'function') return value;
      let bound = invoke<unknown>(n.weakMapGet, methods, [value]);
      if (bound === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        bound = function (this: unknown, ...args: unknown[]) {
          return invoke(method, this === proxyOf(target) ? target : this, args);
        };
        invoke(n.weakMapSet, methods, [value, bound]);
      }
      return bound;
    },
    set(target, property, value: unknown) {
      // cssText has its own (wrapped) setter.
      if (typeof property !== 'string' || property === 'cssText' || typeof value !== 'string' || !invoke<boolean>(n.regExpTest, URL_VALUE, [value])) {
        return reflectSet(target, property, value, target);
      }
      gate.hold(target, property, CSS_LOAD, value, () => reflectSet(target, property, value, target), ignore);
      return true;
    },
  };
  const proxyOf = (declaration: CSSStyleDeclaration): CSSStyleDeclaration => {
    let proxy = invoke<CSSStyleDeclaration | undefined>(n.weakMapGet, proxies, [declaration]);
    if (proxy === undefined) {
      proxy = new Proxy(declaration, handler);
      invoke(n.weakMapSet, proxies, [declaration, proxy]);
      invoke(n.weakMapSet, declarations, [proxy, declaration]);
    }
    return proxy;
  };
  for (const owner of [win.HTMLElement, win.SVGElement, (win as unknown as { MathMLElement?: typeof HTMLElement }).MathMLElement]) {
    const descriptor = owner === undefined ? undefined : getOwnPropertyDescriptor(owner.prototype, 'style');
    const nativeGet = descriptor?.get;
    if (owner === undefined || descriptor === undefined || nativeGet === undefined) continue;
    defineProperty(owner.prototype, 'style', {
      ...descriptor,
      get(this: Element) {
        const declaration = invoke<CSSStyleDeclaration>(nativeGet, this);
        return declaration === null ? declaration : proxyOf(declaration);
      },
      // `element.style = text` forwards to cssText.
      set(this: Element, value: unknown) {
        const declaration = invoke<CSSStyleDeclaration>(nativeGet, this);
        declaration.cssText = n.String(value);
      },
    });
  }
  wrapSetter(declaration, 'cssText');
  declaration.setProperty = function (this: CSSStyleDeclaration, property: string, value: string | null, priority?: string): void {
    const args = priority === undefined ? [property, value] : [property, value, priority];
    const self = real(this);
    gate.hold(self, n.String(property), CSS_LOAD, n.String(value ?? ''), () => invoke(nativeSetProperty, self, args), ignore);
  };

  sheet.insertRule = function (this: CSSStyleSheet, rule: string, index?: number): number {
    const text = n.String(rule);
    const at = index === undefined ? 0 : index;
    if (gate.crossOriginUrls(CSS_LOAD, text).length === 0) {
      const placedAt = invoke<number>(insertRule, this, [rule, at]);
      announce();
      return placedAt;
    }
    // insertRule answers synchronously with the index: a placeholder keeps the place until ALLOW.
    const placed = invoke<number>(insertRule, this, [PLACEHOLDER_RULE, at]);
    const rules = invoke<CSSRuleList>(cssRulesOf, this);
    const placeholder = rules[placed];
    gate.hold(
      placeholder ?? this,
      'rule',
      CSS_LOAD,
      text,
      () => {
        const current = Array.prototype.indexOf.call(invoke<CSSRuleList>(cssRulesOf, this), placeholder);
        if (current < 0) return; // the page removed the placeholder meanwhile
        invoke(deleteRule, this, [current]);
        invoke(insertRule, this, [text, current]);
        announce();
      },
      ignore,
    );
    return placed;
  };
  sheet.replace = function (this: CSSStyleSheet, text: string): Promise<CSSStyleSheet> {
    const css = n.String(text);
    return new n.Promise<CSSStyleSheet>((resolve, reject) => {
      gate.hold(
        this,
        'sheet',
        CSS_LOAD,
        css,
        () => {
          const done = invoke<Promise<CSSStyleSheet>>(replace, this, [css]);
          resolve(done);
          void done.then(announce, ignore);
        },
        () => reject(new n.DOMException('blocked by AgentsFence', 'NetworkError')),
      );
    });
  };
  sheet.replaceSync = function (this: CSSStyleSheet, text: string): void {
    const css = n.String(text);
    gate.hold(
      this,
      'sheet',
      CSS_LOAD,
      css,
      () => {
        invoke(replaceSync, this, [css]);
        announce();
      },
      ignore,
    );
  };
}
