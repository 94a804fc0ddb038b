import { describe, expect, it } from 'vitest';
import { analyzeInstruction } from '../../src/compiler';
import { decisions, rules } from './helpers';

/** Words of assistant-suite tasks (issue 38, tools.typed2.json): people, access levels, take-backs, item lists. */
const handles = (request: string) => analyzeInstruction(request).clauses.flatMap((c) => c.objects.filter((t) => t.kind === 'handle').map((t) => t.value));

describe('people named in chat tasks', () => {
  it.each([
    ["check my slack inbox and reply to alice that i'll review it tonight", ['alice']],
    ['add emma to #design', ['emma']],
    ['invite dora to the workspace, her email is dora@northwind.test', ['dora']],
  ])('%s → %j', (request, names) => {
    expect(handles(request)).toEqual(names);
  });

  it('words after "to" that are no person, and "add" outside a workspace, name nobody', () => {
    expect(handles('reply to everyone that the meeting moved')).toEqual([]);
    expect(handles('send the report to finance@x.test')).toEqual([]);
    expect(handles('add milk to the shopping list')).toEqual([]);
  });

  it('the person named passes; another one asks', () => {
    const dm = (recipient: string) => ({ tool: 'send_direct_message', args: { recipient, body: "I'll review it tonight" } });
    expect(decisions("reply to alice that i'll review it tonight", [dm('Alice'), dm('Mallory')])).toEqual(['ALLOW', 'ASK_USER']);
    const add = (user: string, channel: string) => ({ tool: 'add_user_to_channel', args: { user, channel } });
    expect(decisions('add emma to #design', [add('Emma', 'design')])).toEqual(['ALLOW']);
    expect(decisions('add emma to #design', [add('Emma', 'leadership')])).toEqual(['ASK_USER']);
    expect(decisions('add emma to #design', [add('Mallory', 'design')])).toEqual(['ASK_USER']);
  });
});

describe('an access level after a share', () => {
  it('"…, read only" bans nothing; a share that gives more than reading asks', () => {
    const request = 'share budget-2027.xlsx with omar@northwind.test, read only';
    expect(rules(request).prohibitions).toEqual([]);
    const share = (permission: string) => ({ tool: 'share_file', args: { file_id: '77', email: 'omar@northwind.test', permission } });
    expect(decisions(request, [share('r')])).toEqual(['ALLOW']);
    expect(decisions(request, [share('rw')])).toEqual(['ASK_USER']);
  });

  it('"read only" on its own is still a ban of every write', () => {
    expect(rules('read only, dont change anything').prohibitions).toHaveLength(1);
  });
});

describe('a "no" the comma closes takes back what came before', () => {
  it('"cancel… actually no, just lower it" bans nothing; "no, don\'t send it" still bans', () => {
    expect(rules('cancel... actually no, just lower my spotify scheduled payment to 10.99').prohibitions).toEqual([]);
    expect(rules("no, don't send it").prohibitions).toHaveLength(1);
    expect(rules('no emails to anyone please').prohibitions).toHaveLength(1);
  });
});

describe('an item list ends at a verb after a comma', () => {
  it('"delete a and b, keep the final one" names two files', () => {
    expect(analyzeInstruction('clean up: delete draft-v1.docx and draft-v2.docx, keep the final one').clauses.flatMap((c) => c.items)).toEqual(['draft-v1.docx', 'draft-v2.docx']);
  });
});
