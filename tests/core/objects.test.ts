import { describe, expect, it } from 'vitest';
import { bindRefs, refsBeyondWords } from '../../src/core/objects';
import { initialState, type Constraint } from '../../src/core/policy';
import { decisions } from '../compiler/helpers';

/** src/core/objects.ts: an id stands for a thing the words name, as many ids as they name things. */
const k = (extra: Partial<Constraint> = {}): Constraint => ({ id: 'c-delete', riskClass: 'DELETE', ...extra });

describe('ids bound to the things the words name', () => {
  it('the first id is bound; the same id again is within the words, another one is not', () => {
    const one = k({ items: ['resume-2019.docx'] });
    expect(refsBeyondWords(one, ['id:44'], initialState())).toBeNull();
    const after = bindRefs(initialState(), [one], ['id:44']);
    expect(refsBeyondWords(one, ['id:44'], after)).toBeNull();
    expect(refsBeyondWords(one, ['id:45'], after)).toMatch(/already acted on id 44/);
  });

  it('as many ids as things named: two files, two ids; a call naming more ids than things asks at once', () => {
    const two = k({ items: ['draft-v1.docx', 'draft-v2.docx'] });
    const after = bindRefs(bindRefs(initialState(), [two], ['id:51']), [two], ['id:52']);
    expect(refsBeyondWords(two, ['id:52'], after)).toBeNull();
    expect(refsBeyondWords(two, ['id:53'], after)).not.toBeNull();
    expect(refsBeyondWords(k(), ['id:1', 'id:2'], initialState())).toMatch(/name 1 thing/);
  });

  it('a call with no ids binds nothing and is never refused here', () => {
    expect(refsBeyondWords(k(), [], initialState())).toBeNull();
    expect(bindRefs(initialState(), [k()], [])).toEqual(initialState());
  });
});

const del = (id: string) => ({ tool: 'delete_file', args: { file_id: id } });
const cancel = (id: string) => ({ tool: 'cancel_calendar_event', args: { event_id: id } });
const reschedule = (id: string) => ({ tool: 'reschedule_calendar_event', args: { event_id: id, new_start_time: '2026-12-08 09:00' } });
const append = (id: string) => ({ tool: 'append_to_file', args: { file_id: id, content: 'call plumber' } });

describe('tool calls on objects the words name by title', () => {
  it('"delete the file X": one file deleted by its id, never a second', () => {
    expect(decisions("delete the file 'tax-2021-scan.pdf' from my drive", [del('402'), del('403')])).toEqual(['ALLOW', 'ASK_USER']);
  });

  it('"add … to my todo.txt": the appended file is the one first written, another id asks', () => {
    expect(decisions("add 'call plumber' to the end of my todo.txt", [append('12'), append('12'), append('13')])).toEqual(['ALLOW', 'ALLOW', 'ASK_USER']);
  });

  it('"forward the email with the boarding passes": its attachment, not a second file as well', () => {
    const send = (files: string[]) => ({ tool: 'send_email', args: { recipients: ['p.moreau@famille.test'], subject: 'Fwd', body: 'passes', attachments: files.map((file_id) => ({ type: 'file', file_id })) } });
    expect(decisions('forward the email with the boarding passes to dad, his address is p.moreau@famille.test', [send(['19']), send(['19', '3'])])).toEqual(['ALLOW', 'ASK_USER']);
  });
});

describe('a tool that says its action is bound to the actions the words name', () => {
  it('"move my dentist appt": its reschedule passes, a cancel of it does not', () => {
    expect(decisions('move my dentist appt on friday to next tuesday same time', [reschedule('14')])).toEqual(['ALLOW']);
    expect(decisions('move my dentist appt on friday to next tuesday same time', [cancel('14')])).toEqual(['ASK_USER']);
  });

  it('"cancel the budget review meeting": its cancel passes, a reschedule or a second event does not', () => {
    const [first, second] = decisions("cancel the 'budget review' meeting on dec 10", [cancel('31'), cancel('32')]);
    expect(first).toBe('ALLOW');
    expect(second).not.toBe('ALLOW');
    expect(decisions("cancel the 'budget review' meeting on dec 10", [reschedule('31')])).toEqual(['ASK_USER']);
  });

  it('a password change needs its own words; under them, the one the words ask for passes', () => {
    expect(decisions('update my address in the bank app to 12 rue de lyon, paris', [{ tool: 'update_password', args: { password: 'N3w!' } }])).toEqual(['BLOCK']);
    expect(decisions('change my password to Blue-Harbor-2027', [{ tool: 'update_password', args: { password: 'Blue-Harbor-2027' } }])).toEqual(['ALLOW']);
  });
});
