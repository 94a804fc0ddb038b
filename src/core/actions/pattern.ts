/**
 * The app table's route patterns (URLPattern pathname syntax) as regular expressions: one translation for
 * the reader's matching (named groups) and the network floor's rules (RE2). Pure.
 */

export const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`);

/**
 * A URLPattern pathname (the subset the app table uses: literals, `:name`, `:name(re)`, `+ * ?` after a
 * `/:name`, `{…}?` groups, `(a|b)`, `*`) as a regular expression. Names in `known` are written as
 * literals. `groups`: each other name becomes a named group (the reader matches with it, ./read.ts);
 * without, the expression is RE2 (declarativeNetRequest's `regexFilter`) and takes a trailing slash.
 */
export function patternRegex(pattern: string, known: ReadonlyMap<string, string> = new Map(), options: { groups?: boolean } = {}): string {
  let i = 0;
  const parse = (until: string | null): string => {
    let out = '';
    while (i < pattern.length) {
      const ch = pattern[i]!;
      if (until !== null && ch === until) {
        i++;
        return out;
      }
      if (ch === '{') {
        i++;
        const inner = parse('}');
        const optional = pattern[i] === '?';
        if (optional) i++;
        out += `(?:${inner})${optional ? '?' : ''}`;
        continue;
      }
      if (ch === ':') {
        const name = /^:([A-Za-z_]\w*)/.exec(pattern.slice(i))![1]!;
        i += name.length + 1;
        // (Lazy, as URLPattern's default segment: `/sv/:id{.json}?` leaves `.json` out of the id.)
        let seg = '[^/]+?';
        if (pattern[i] === '(') {
          const close = pattern.indexOf(')', i);
          seg = `(?:${pattern.slice(i + 1, close)})`;
          i = close + 1;
        }
        const mod = '+*?'.includes(pattern[i] ?? '') ? pattern[i++]! : '';
        const prefixed = out.endsWith('/');
        if (prefixed) out = out.slice(0, -1);
        const slash = prefixed ? '/' : '';
        const value = known.get(name);
        if (value !== undefined) {
          // One segment holds a path only percent-encoded (GitLab's `/api/v4/projects/byteblaze%2Fdotfiles/…`);
          // a repeated one holds it as its segments.
          out += `${slash}${mod === '+' || mod === '*' ? escapeRe(value) : value.split('/').map(escapeRe).join('%2[Ff]')}`;
          continue;
        }
        // `+` and `*` repeat the segment with its slash; the group holds them all ("byteblaze/dotfiles").
        const body = mod === '+' || mod === '*' ? `${seg}(?:/${seg})*` : seg;
        const held = options.groups === true ? `(?<${name}>${body})` : `(?:${body})`;
        out += mod === '*' || mod === '?' ? `(?:${slash}${held})?` : `${slash}${held}`;
        continue;
      }
      if (ch === '(') {
        const close = pattern.indexOf(')', i);
        out += `(?:${pattern.slice(i + 1, close)})`;
        i = close + 1;
        continue;
      }
      if (ch === '*') {
        out += '.*';
        i++;
        continue;
      }
      out += escapeRe(ch);
      i++;
    }
    return out;
  };
  return `^${parse(null)}${options.groups === true ? '' : '/?'}$`;
}

