/**
 * Step 1, input isolation: keep the instructions the user gives, drop the content the user shows.
 * Removed: fenced blocks, `>`-quoted lines, forwarded/replied e-mail tails (and a text that opens with
 * e-mail headers), pasted-content tags, quoted strings of more than one word (double, curly or single
 * quotes) and what a colon introduces as content ("Bob wrote: …"). Each removal leaves a short marker so sentences around it do not run together. Linear:
 * line scan plus patterns with bounded repetitions and no nested quantifiers.
 */
export interface Isolated {
  /** The instruction the compiler may read. */
  text: string;
  /** What was removed, by kind (never the content itself). */
  removed: Array<{ kind: 'fenced' | 'quoted-lines' | 'forwarded' | 'pasted' | 'quoted-string'; chars: number }>;
}

/** A fenced block, opened anywhere on a line; an unclosed fence runs to the end. */
const FENCED = /```[\s\S]*?(?:```|$(?![\s\S]))|~~~[\s\S]*?(?:~~~|$(?![\s\S]))/g;
const FORWARD_START = [
  /^\s*-{2,}\s*(?:forwarded|original) message\s*-*\s*$/i,
  /^\s*begin forwarded message:?\s*$/i,
  /^\s*on .{1,200} wrote:\s*$/i,
  /^\s*(?:from|sent|date):\s.*$/i,
  /^\s*_{5,}\s*$/,
];
const PASTED_TAGS = ['pasted', 'paste', 'pasted_text', 'pasted-content', 'document', 'attachment', 'email', 'quote', 'content', 'context', 'clipboard', 'file', 'message'];
const QUOTED_STRING = /"[^"\n]{0,2000}"|“[^”\n]{0,2000}”|‘[^’\n]{0,2000}’|(?<![\p{L}\p{N}])'[^'\n]{1,2000}'(?![\p{L}\p{N}])/gu;
/**
 * A colon after words that introduce content rather than instructions: what someone wrote or said, a
 * message's text, a post's, a note's, what to translate or summarise ("Bob wrote: …", "Email bob@x.com:
 * …", "Translate this to German: …", "Here's the email I got: …"). What follows is content — to the end of
 * the line, or, when the colon ends its line, to the next blank line.
 */
const CONTENT_COLON = /\b(?:wrote|writes|says|said|saying|reads|got|received|(?:translate|summari[sz]e|proofread|rewrite|rephrase|forward|email|e-mail|text|message|dm|reply|respond|answer|post|tweet|comment|note|todo|to-do|reminder|ticket|issue|caption|subject|with)\b[^:\n]{0,60}?):(?!\/\/)[ \t]*/gi;
/** Header lines that start a pasted e-mail (its tail is content). */
const PASTED_HEADER = /^\s*(?:subject|to|cc|bcc):\s/i;
const MARKER = '[…]';

const PASTED = PASTED_TAGS.map((tag) => ({ open: new RegExp(`<${tag}(?:\\s[^>]{0,200})?>`, 'i'), close: new RegExp(`</${tag}\\s*>`, 'i') }));

function stripPastedTags(text: string, removed: Isolated['removed']): string {
  let out = text;
  if (out.includes('<')) {
    for (const { open, close } of PASTED) {
      for (let guard = 0; guard < 100; guard++) {
        const o = open.exec(out);
        if (o === null) break;
        const rest = out.slice(o.index + o[0].length);
        const c = close.exec(rest);
        const endAt = c === null ? out.length : o.index + o[0].length + c.index + c[0].length;
        removed.push({ kind: 'pasted', chars: endAt - o.index });
        out = `${out.slice(0, o.index)}${MARKER}${out.slice(endAt)}`;
      }
    }
  }
  // "[pasted text] … [/pasted text]" style markers from chat front ends.
  return out.replace(/\[pasted[^\]\n]{0,40}\][\s\S]*?(?:\[\/pasted[^\]\n]{0,40}\]|$)/gi, (m) => {
    removed.push({ kind: 'pasted', chars: m.length });
    return MARKER;
  });
}

/**
 * Content a CONTENT_COLON introduces, each replaced by a marker; addresses, links and hosts alone after
 * the colon stay (they are the instruction's recipients and sites).
 */
function withoutIntroducedContent(text: string, removed: Isolated['removed']): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(CONTENT_COLON)) {
    const start = m.index + m[0].length;
    if (start < at) continue;
    const endsLine = text[start] === '\n' || start === text.length;
    const blank = text.indexOf('\n\n', start);
    const newline = text.indexOf('\n', start);
    const end = endsLine ? (blank === -1 ? text.length : blank) : newline === -1 ? text.length : newline;
    const content = text.slice(start, end);
    // Addresses, links and hosts alone are the instruction's targets; content already cut is a marker.
    if (content.trimStart().startsWith(MARKER) || content.replace(/\S*[@.:/]\S*|[,;\s]|\band\b/gi, '').trim() === '') continue;
    removed.push({ kind: 'pasted', chars: content.length });
    out += `${text.slice(at, start)}${MARKER}`;
    at = end;
  }
  return out + text.slice(at);
}

export function isolateInput(request: string): Isolated {
  const removed: Isolated['removed'] = [];
  const withoutTags = stripPastedTags(request.replace(/\r\n?/g, '\n'), removed);
  const withoutFences = withoutTags.replace(FENCED, (m) => {
    removed.push({ kind: 'fenced', chars: m.length });
    return `\n${MARKER}\n`;
  });
  const kept: string[] = [];
  let quotedChars = 0;
  const lines = withoutFences.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*>/.test(line)) {
      quotedChars += line.length + 1;
      if (kept[kept.length - 1] !== MARKER) kept.push(MARKER);
      continue;
    }
    if (FORWARD_START.some((re) => re.test(line)) || (kept.every((k) => k.trim() === '') && PASTED_HEADER.test(line))) {
      const tail = lines.slice(i).join('\n');
      removed.push({ kind: 'forwarded', chars: tail.length });
      kept.push(MARKER);
      break;
    }
    kept.push(line);
  }
  if (quotedChars > 0) removed.push({ kind: 'quoted-lines', chars: quotedChars });
  const text = withoutIntroducedContent(kept.join('\n'), removed)
    .replace(QUOTED_STRING, (m) => {
      // A single quoted token ("Q3", "bob@x.com") is part of the instruction; words in quotes are content.
      if (!/\s/.test(m.slice(1, -1).trim())) return m;
      removed.push({ kind: 'quoted-string', chars: m.length });
      return MARKER;
    })
    .trim();
  // Nothing but removal markers left: the user gave no instruction.
  return { text: text.split(MARKER).join('').trim() === '' ? '' : text, removed };
}
