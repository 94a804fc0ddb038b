import { describe, expect, it } from 'vitest';
import { requestVerbs } from '../../src/compiler/verbs';
import { verbClass } from '../../src/core/classifier/vocabulary';
import type { RiskClass } from '../../src/core/risk';

/**
 * The compiler reads verbs in the user's words (src/compiler/verbs.ts); the classifier reads verbs in
 * tool names (src/core/classifier/vocabulary.ts). Where both know a verb they agree, except for these
 * readings, each chosen so that the mismatch can only make an action ask, never allow more.
 */
const DELIBERATE: Record<string, { words: RiskClass; toolName: RiskClass; why: string }> = {
  save: { words: 'LOCAL_WRITE', toolName: 'EXTERNAL_WRITE', why: '"save the invoice" asks for a copy here; in a tool name the object decides (save_file is local, save_note external)' },
  store: { words: 'LOCAL_WRITE', toolName: 'EXTERNAL_WRITE', why: 'as save' },
  post: { words: 'EXTERNAL_WRITE', toolName: 'COMMUNICATION', why: 'a post_* tool reaches people and asks; a web form is classified by its own fields' },
  publish: { words: 'EXTERNAL_WRITE', toolName: 'COMMUNICATION', why: 'as post' },
  comment: { words: 'EXTERNAL_WRITE', toolName: 'COMMUNICATION', why: 'as post' },
  book: { words: 'EXTERNAL_WRITE', toolName: 'FINANCIAL', why: 'a booking tool may charge money: the words grant the write only, so a paid booking asks' },
  subscribe: { words: 'EXTERNAL_WRITE', toolName: 'FINANCIAL', why: 'as book' },
  tweet: { words: 'EXTERNAL_WRITE', toolName: 'COMMUNICATION', why: 'as post' },
  deploy: { words: 'EXTERNAL_WRITE', toolName: 'EXECUTION', why: '"deploy the branch to staging.test" is a write on the named site; a deploy_* tool runs code and asks' },
};

describe('compiler verbs and classifier vocabulary', () => {
  it('agree on every verb both know, except the deliberate readings listed here', () => {
    const differing: Record<string, { words: RiskClass; toolName: RiskClass }> = {};
    for (const [verb, cls] of requestVerbs()) {
      const toolName = verbClass(verb);
      if (toolName !== undefined && toolName !== cls) differing[verb] = { words: cls, toolName };
    }
    expect(differing).toEqual(Object.fromEntries(Object.entries(DELIBERATE).map(([verb, { words, toolName }]) => [verb, { words, toolName }])));
  });
});

describe('the web action vocabulary is the one table of action verbs (src/core/actions/vocabulary.ts)', () => {
  it('every verb of a web action opens a request in the words, of the action\'s class except these readings', async () => {
    const { ACTIONS, ACTION_IDS } = await import('../../src/core/actions');
    const differing: Record<string, string> = {};
    for (const id of ACTION_IDS) {
      for (const verb of ACTIONS[id].verbs) {
        const words = requestVerbs().get(verb);
        if (words !== ACTIONS[id].riskClass) differing[verb] = `${id}: ${words ?? 'none'}`;
      }
    }
    // "reply to bob@…" sends a message; a reply under a forum post is bound as the comment it is. "close"
    // opens a request only as a phrase ("close the issue"), never alone ("close the tab").
    expect(differing).toEqual({ reply: 'comment: COMMUNICATION', respond: 'comment: COMMUNICATION', answer: 'comment: COMMUNICATION', close: 'close: none' });
  });
});
