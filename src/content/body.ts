/**
 * Bounded views of request bodies and form fields, as proposals carry them: enough for the classifier to
 * see recipients, amounts and destinations, never more than BODY_VIEW_LIMIT characters.
 *
 * This module is also bundled into the MAIN world, so the builtins it uses are captured when the script
 * loads (document_start, before any page script can replace them).
 */

/** Upper bound on the characters of a body or field set that a proposal carries. */
export const BODY_VIEW_LIMIT = 16 * 1024;

export type FieldValues = Record<string, string | string[]>;
export type BodyView = string | FieldValues | Record<string, unknown> | unknown[];

const parseJson = JSON.parse;
const NativeURLSearchParams = URLSearchParams;
const searchParamsForEach = URLSearchParams.prototype.forEach;
const { apply, defineProperty } = Reflect;
const createObject = Object.create;
const isArray = Array.isArray;

/**
 * Collects name/value pairs into a null-prototype object (repeated names become arrays), stopping once
 * the total of names and values reaches the limit. Null prototype: a page cannot have planted setters.
 */
export class FieldCollector {
  readonly fields: FieldValues = createObject(null) as FieldValues;
  private used = 0;
  truncated = false;

  add(name: string, value: string): void {
    const room = BODY_VIEW_LIMIT - this.used;
    if (room <= name.length) {
      this.truncated = true;
      return;
    }
    const kept = value.length > room - name.length ? value.slice(0, room - name.length) : value;
    if (kept.length < value.length) this.truncated = true;
    this.used += name.length + kept.length;
    const previous = this.fields[name];
    const next = previous === undefined ? kept : isArray(previous) ? [...previous, kept] : [previous, kept];
    defineProperty(this.fields, name, { value: next, enumerable: true, writable: true, configurable: true });
  }
}

/** Form-encoded text (`a=1&b=2`) as a field object. */
export function formEncodedView(text: string): FieldValues {
  const collector = new FieldCollector();
  apply(searchParamsForEach, new NativeURLSearchParams(text), [(value: string, name: string) => collector.add(name, value)]);
  return collector.fields;
}

function isJsonType(contentType: string): boolean {
  return contentType.includes('json');
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

/**
 * The bounded view of a body given as text: form-encoded fields when the content type says so (the
 * server reads it that way, even when it looks like JSON: `{"to":"bob@…","x":"&to=eve@…"}` sent as a
 * form names eve), else parsed JSON (object or array) when it parses, otherwise the text cut to the
 * limit. A body longer than the limit is never parsed from its prefix (a cut JSON document is not the
 * document): it stays text.
 */
export function textBodyView(text: string, contentType: string | null): BodyView {
  const type = (contentType ?? '').toLowerCase();
  const whole = text.length <= BODY_VIEW_LIMIT;
  const form = type.includes('application/x-www-form-urlencoded');
  if (whole && !form && (isJsonType(type) || looksLikeJson(text))) {
    try {
      const parsed: unknown = parseJson(text);
      if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown> | unknown[];
    } catch {
      // Not JSON after all: fall through to text.
    }
  }
  if (form) return formEncodedView(whole ? text : text.slice(0, BODY_VIEW_LIMIT));
  return whole ? text : text.slice(0, BODY_VIEW_LIMIT);
}
