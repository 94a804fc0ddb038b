import nlp from 'compromise/three';

/**
 * People's names in a text, by compromise (an English NLP library: a lexicon of first and last names,
 * honorifics and a part-of-speech tagger, so "Dr. Patel" and "Sarah Connor said" are people). Chats defeat
 * its sentence model ("Tom: could you …" reads as an expression), so each line is read without its speaker
 * label, the labels themselves are names, and a capitalised word the lexicon does not know that acts as a
 * subject ("Ravi from the union says", "Priya became") is read as a name too. Loaded with the compile that
 * needs it, never by background.js (src/lazy/scripts.ts).
 */
const SPEAKER = /^\s*([A-Z][\p{L}'.-]{0,20}(?: [A-Z][\p{L}'.-]{0,20}){0,2})\s*:\s+/u;
const NOT_SPEAKERS = new Set(['me', 'you', 'notes', 'note', 'from', 'to', 'subject', 'date', 'sent', 'cc', 're']);

export function personNames(text: string): string[] {
  const lexicon = (nlp.world() as { model: { one: { lexicon: Record<string, unknown> } } }).model.one.lexicon;
  const names: string[] = [];
  for (const raw of text.split('\n')) {
    const label = SPEAKER.exec(raw);
    if (label !== null && !NOT_SPEAKERS.has(label[1]!.toLowerCase())) names.push(label[1]!);
    const line = (label === null ? raw : raw.slice(label[0].length)).replace(/^\s*[-*•]\s*/, '');
    const doc = nlp(line);
    names.push(...(doc.people().out('array') as string[]));
    for (const match of doc.match('@isTitleCase (from|said|says|told|tells|asked|asks|became|becomes|is|was|will|wants|wanted|thinks|mentioned|wrote|called|and)').json() as { terms: { text: string; tags: string[] }[] }[]) {
      const term = match.terms[0];
      if (term === undefined) continue;
      const word = term.text.replace(/[^\p{L}'-]/gu, '');
      if (/^\p{Lu}\p{Ll}{2,}$/u.test(word) && lexicon[word.toLowerCase()] === undefined && !term.tags.some((t) => ['Verb', 'Place', 'Organization', 'Date', 'Value', 'Pronoun', 'Acronym', 'Conjunction', 'Preposition'].includes(t))) names.push(word);
    }
  }
  return names;
}
