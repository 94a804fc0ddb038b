import { loadAttribute, type LoadAttribute } from '../loads';
import type { PageWindow } from './channel';
import type { LoadGate } from './gate';
import { invoke, type Natives } from './natives';

/**
 * Element-initiated loads set from script: the URL properties of loading elements (`img.src`,
 * `srcset`, `script.src`, `link.href`, `iframe.src`, media `src`/`poster`, `object.data`, `embed.src`,
 * `input.src`) and `setAttribute`/`setAttributeNS` of the same attributes (SVG `href`/`xlink:href`
 * and `style` included) go through the load gate: a cross-origin URL is set only on ALLOW; on BLOCK the
 * attribute stays as it was and the element gets an `error` event, as a failed load fires.
 * Not hooked (the network floor covers them): `Attr.value`/`setAttributeNode`, elements the parser
 * creates from the page's own HTML, `import()`, and `document.write`.
 */

const XLINK = 'http://www.w3.org/1999/xlink';
const OTHER: LoadAttribute = { kind: 'other', syntax: 'url' };

/** [constructor, property, attribute]: the URL properties that start a load when set. */
const URL_PROPERTIES: readonly (readonly [string, string, string])[] = [
  ['HTMLImageElement', 'src', 'src'],
  ['HTMLImageElement', 'srcset', 'srcset'],
  ['HTMLSourceElement', 'src', 'src'],
  ['HTMLSourceElement', 'srcset', 'srcset'],
  ['HTMLScriptElement', 'src', 'src'],
  ['HTMLLinkElement', 'href', 'href'],
  ['HTMLLinkElement', 'imageSrcset', 'imagesrcset'],
  ['HTMLIFrameElement', 'src', 'src'],
  ['HTMLFrameElement', 'src', 'src'],
  ['HTMLMediaElement', 'src', 'src'],
  ['HTMLVideoElement', 'poster', 'poster'],
  ['HTMLTrackElement', 'src', 'src'],
  ['HTMLObjectElement', 'data', 'data'],
  ['HTMLEmbedElement', 'src', 'src'],
  ['HTMLInputElement', 'src', 'src'],
  ['HTMLBodyElement', 'background', 'background'],
];

export interface ElementLoads {
  /** Sets an attribute through the gate with the native setAttribute(NS), as the hooks do. */
  setAttribute(element: Element, name: string, value: string): void;
}

export function hookElementLoads(win: PageWindow, n: Natives, gate: LoadGate): ElementLoads {
  const { getOwnPropertyDescriptor, defineProperty } = Reflect;
  const proto = win.Element.prototype;
  const nativeSetAttribute = proto.setAttribute;
  const nativeSetAttributeNS = proto.setAttributeNS;
  const localNameOf = getOwnPropertyDescriptor(proto, 'localName')?.get;
  const localName = (element: Element): string => invoke<string>(localNameOf, element);
  const failed = (element: Element) => () => {
    if (localName(element) !== 'iframe') invoke(n.dispatchEvent, element, [new n.Event('error')]);
  };

  for (const [constructor, property, attribute] of URL_PROPERTIES) {
    const target = (win as unknown as Record<string, { prototype: object } | undefined>)[constructor]?.prototype;
    const descriptor = target === undefined ? undefined : getOwnPropertyDescriptor(target, property);
    const nativeSet = descriptor?.set;
    if (target === undefined || descriptor === undefined || nativeSet === undefined) continue;
    defineProperty(target, property, {
      ...descriptor,
      // The value is read once and the string checked is the string set: an object whose toString
      // answers differently the second time must not load what was never checked.
      set(this: Element, value: unknown) {
        const load = loadAttribute(localName(this), attribute) ?? OTHER;
        const url = n.String(value);
        gate.hold(this, attribute, load, url, () => invoke(nativeSet, this, [url]), failed(this));
      },
    });
  }

  const setAttribute = (element: Element, name: string, value: string): void => {
    const apply = name === 'xlink:href' ? () => invoke(nativeSetAttributeNS, element, [XLINK, name, value]) : () => invoke(nativeSetAttribute, element, [name, value]);
    const load = loadAttribute(localName(element), name);
    if (load === undefined) apply();
    else gate.hold(element, name, load, value, apply, failed(element));
  };

  proto.setAttribute = function (this: Element, name: string, value: string): void {
    const attributeName = n.String(name);
    const load = loadAttribute(localName(this), attributeName);
    if (load === undefined) {
      invoke(nativeSetAttribute, this, [name, value]);
      return;
    }
    const url = n.String(value);
    gate.hold(this, attributeName.toLowerCase(), load, url, () => invoke(nativeSetAttribute, this, [attributeName, url]), failed(this));
  };
  proto.setAttributeNS = function (this: Element, namespace: string | null, name: string, value: string): void {
    const attributeName = n.String(name);
    const load = loadAttribute(localName(this), attributeName);
    if (load === undefined) {
      invoke(nativeSetAttributeNS, this, [namespace, name, value]);
      return;
    }
    const url = n.String(value);
    gate.hold(this, attributeName.toLowerCase(), load, url, () => invoke(nativeSetAttributeNS, this, [namespace, attributeName, url]), failed(this));
  };
  return { setAttribute };
}
