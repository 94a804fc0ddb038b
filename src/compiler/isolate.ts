/**
 * Step 1, input isolation: keep the instructions the user gives, drop the content the user shows.
 * Removed: fenced blocks, `>`-quoted lines, forwarded/replied e-mail tails (and a text that opens with
 * e-mail headers), pasted-content tags, quoted strings of more than one word (double, curly or single
 * quotes), what a colon introduces as content ("Bob wrote: …"), the paragraphs a reference points at ("the chat
 * below": what follows the paragraph that says it) and chat transcripts (lines labelled by two or more
 * speakers, "Anna: …" / "Me: …"). Each removal leaves a short marker so sentences around it do not run together. Linear:
 * line scan plus patterns with bounded repetitions and no nested quantifiers.
 */
export interface Isolated {
  /** The instruction the compiler may read. */
  text: string;
  /** What was removed, by kind (never the content itself). */
  removed: Array<{ kind: 'fenced' | 'quoted-lines' | 'forwarded' | 'pasted' | 'quoted-string'; chars: number }>;
  /**
   * The quoted strings of the user's own instruction that were removed (not those of pasted, fenced or
   * forwarded content), in order, without their quotes: values a write may be bound to carry (carries.ts),
   * never evidence for a permission.
   */
  quoted: string[];
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
/**
 * A reference to content the user shows ("the conversation below", "the following e-mail", "this chat
 * above"): the named things are content people paste, never instructions ("the steps below" is not one).
 */
const CONTENT_NOUNS = String.raw`(?:conversation|chat|messages?|thread|e-?mails?|notes?|transcript|memo|letter|exchange|discussion|texts?|dms?)`;
const CONTENT_REFERENCE = new RegExp(String.raw`\b(?:(?:the|this|these|my|our)\s+(?:[\w'-]+\s+){0,2}?${CONTENT_NOUNS}\s+(below|above)|the\s+following\s+(?:[\w'-]+\s+){0,2}?${CONTENT_NOUNS})\b`, 'i');
/** A chat line: a speaker's name (or Me/You), a colon, what they said. */
const SPEAKER_LINE = /^\s*((?:[A-Z][\p{L}'.-]{0,20})(?: [A-Z][\p{L}'.-]{0,20}){0,2}|me|you)\s*(?:\[[^\]\n]{0,20}\])?:\s+\S/iu;
/** Labels that start instructions, not chat lines. */
const NOT_A_SPEAKER = /^(?:step|task|goal|note|notes|todo|subject|to|cc|bcc|from|sent|date|re|fwd|ps|p\.s\.|tip|warning|important|context|instructions?|example|answer|question|q|a)$/i;

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

/** The paragraphs a reference points at: after the paragraph that says "below"/"the following", before it for "above". */
function withoutReferencedParagraphs(text: string, removed: Isolated['removed']): string {
  const paragraphs = text.split(/\n[ \t]*\n/);
  const at = paragraphs.findIndex((p) => CONTENT_REFERENCE.test(p));
  if (at < 0) return text;
  const above = CONTENT_REFERENCE.exec(paragraphs[at]!)?.[1]?.toLowerCase() === 'above';
  const cut = (p: string) => {
    removed.push({ kind: 'pasted', chars: p.length });
    return MARKER;
  };
  const kept = paragraphs.map((p, i) => {
    if (i !== at) return (above ? i > at : i < at) ? p : cut(p);
    if (above) return p;
    // "… using the notes below.\nNotes:\n- …": the lines after the one that says it are the content.
    const lines = p.split('\n');
    const line = lines.findIndex((l) => CONTENT_REFERENCE.test(l));
    return line < 0 || line === lines.length - 1 ? p : `${lines.slice(0, line + 1).join('\n')}\n${cut(lines.slice(line + 1).join('\n'))}`;
  });
  return kept.filter((p, i) => p !== MARKER || kept[i - 1] !== MARKER).join('\n\n');
}

/** Runs of chat lines from two or more speakers: a pasted conversation, each line with what wraps under it. */
function withoutChatTranscripts(text: string, removed: Isolated['removed']): string {
  const lines = text.split('\n');
  const speakerOf = (line: string) => {
    const name = SPEAKER_LINE.exec(line)?.[1];
    return name === undefined || NOT_A_SPEAKER.test(name) || /[/@]/.test(line.slice(0, line.indexOf(':'))) ? null : name.toLowerCase();
  };
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (speakerOf(lines[i]!) === null) {
      out.push(lines[i++]!);
      continue;
    }
    let end = i;
    const speakers = new Set<string>();
    for (let j = i; j < lines.length && lines[j]!.trim() !== ''; j++) {
      const speaker = speakerOf(lines[j]!);
      if (speaker !== null) speakers.add(speaker);
      end = j + 1;
    }
    if (speakers.size < 2) {
      out.push(...lines.slice(i, end));
    } else {
      removed.push({ kind: 'pasted', chars: lines.slice(i, end).join('\n').length });
      out.push(MARKER);
    }
    i = end;
  }
  return out.join('\n');
}

export function isolateInput(request: string): Isolated {
  const removed: Isolated['removed'] = [];
  const tagged = stripPastedTags(request.replace(/\r\n?/g, '\n'), removed);
  const withoutTags = withoutChatTranscripts(withoutReferencedParagraphs(tagged, removed), removed);
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
  const quoted: string[] = [];
  const text = withoutIntroducedContent(kept.join('\n'), removed)
    .replace(QUOTED_STRING, (m) => {
      // A single quoted token ("Q3", "bob@x.com") is part of the instruction; words in quotes are content.
      if (!/\s/.test(m.slice(1, -1).trim())) return m;
      removed.push({ kind: 'quoted-string', chars: m.length });
      quoted.push(m.slice(1, -1).trim());
      return MARKER;
    })
    .trim();
  // Nothing but removal markers left: the user gave no instruction.
  return { text: text.split(MARKER).join('').trim() === '' ? '' : text, removed, quoted };
}
