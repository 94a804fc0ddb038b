import { describe, expect, it } from 'vitest';
import { classify } from '../../src/tools';

/** src/tools/classify.ts and names.ts: what the assistant suites' tools (mail, calendar, drive, bank, chat) are. */
const c = (tool: string, args: Record<string, unknown> = {}) => classify({ tool, args });

describe('tool names that say their action', () => {
  it.each([
    ['cancel_calendar_event', 'cancel_order', 'EXTERNAL_WRITE'],
    ['reschedule_calendar_event', 'edit', 'EXTERNAL_WRITE'],
    ['update_user_info', 'edit', 'EXTERNAL_WRITE'],
    ['update_scheduled_transaction', 'edit', 'EXTERNAL_WRITE'],
    ['update_password', 'password_change', 'PERMISSION_CHANGE'],
  ])('%s takes the action %s (%s)', (tool, action, riskClass) => {
    const got = c(tool, { event_id: '14' });
    expect(got.riskClass).toBe(riskClass);
    expect(got.action?.id).toBe(action);
  });

  it('a tool whose name says no action has none: it is bound by its class, recipients and items', () => {
    expect(c('send_email', { recipients: ['a@x.test'] }).action).toBeUndefined();
    expect(c('create_calendar_event', { title: 't' }).action).toBeUndefined();
  });

  it('a new standing order is a payment; its edit is not', () => {
    expect(c('schedule_transaction', { recipient: 'DE89370400440532013000', amount: 50 }).riskClass).toBe('FINANCIAL');
    expect(c('update_scheduled_transaction', { id: 7, amount: 1250 }).riskClass).toBe('EXTERNAL_WRITE');
  });
});

describe('objects named only by id', () => {
  it('an id argument is the item id:<value>, nested ones (an attachment) too', () => {
    expect(c('delete_file', { file_id: '44' }).targets.items).toEqual(['id:44']);
    expect(c('cancel_calendar_event', { event_id: 31 }).targets.items).toEqual(['id:31']);
    expect(c('send_email', { recipients: ['a@x.test'], attachments: [{ type: 'file', file_id: '19' }] }).targets.items).toEqual(['id:19']);
  });

  it("a reply's or forward's own message is no object of its own; a read binds no id", () => {
    expect(c('forward_email', { to: 'a@x.test', message_id: 'm-77' }).targets.items).toEqual([]);
    expect(c('get_file_by_id', { file_id: '17' }).targets.items).not.toContain('id:17');
  });

  it('an address or a sentence under an id key is no id: it stays an item named as written', () => {
    expect(c('delete_file', { file_id: 'bob@x.test' }).targets.items).toEqual(['bob@x.test']);
    expect(c('delete_file', { file_id: 'the old one' }).targets.items).toEqual(['the old one']);
  });
});

describe("a drive's documents", () => {
  it('a file tool naming its file by a bare name or a drive id writes a drive document (a write, not a local save)', () => {
    expect(c('create_file', { filename: 'groceries.txt', content: 'eggs' })).toMatchObject({ capability: 'doc.write', riskClass: 'EXTERNAL_WRITE', targets: { paths: [], items: ['groceries.txt'] } });
    expect(c('append_to_file', { file_id: '12', content: 'call plumber' })).toMatchObject({ capability: 'doc.write', riskClass: 'EXTERNAL_WRITE', targets: { items: ['id:12'] } });
  });

  it('one with a path, or a name with a folder in it, stays a local file', () => {
    expect(c('create_file', { path: 'notes/groceries.txt', content: 'eggs' })).toMatchObject({ capability: 'file.write', riskClass: 'LOCAL_WRITE' });
    expect(c('create_file', { filename: 'notes/groceries.txt', content: 'eggs' })).toMatchObject({ capability: 'file.write', riskClass: 'LOCAL_WRITE' });
    expect(c('write_file', { file_path: 'a.txt', content: 'x' })).toMatchObject({ riskClass: 'LOCAL_WRITE' });
  });
});

describe('people in chat tools', () => {
  it("a removal's user is the thing removed, not someone it reaches", () => {
    expect(c('remove_user_from_slack', { user: 'Dave' }).targets).toMatchObject({ recipients: [], items: ['Dave'] });
  });

  it("an invitation's display name beside its address is no second person; two addresses stay two", () => {
    expect(c('invite_user_to_slack', { user: 'Leo', user_email: 'leo@northwind.test' }).targets.recipients).toEqual(['leo@northwind.test']);
    expect(c('invite_user_to_slack', { user: 'eve@x.test', user_email: 'leo@northwind.test' }).targets.recipients).toHaveLength(2);
  });
});

describe('URLs without a scheme', () => {
  it('a tool URL written without a scheme is the https URL it names', () => {
    const got = c('get_webpage', { url: 'www.informations.test/a?b=1' });
    expect(got.urls).toEqual(['https://www.informations.test/a?b=1']);
    expect(got.exfiltration).toBeNull();
    expect(got.targets.domains).toEqual(['informations.test']);
  });

  it('a value that is no host is left as it is', () => {
    expect(c('get_webpage', { url: 'not a url' }).exfiltration).not.toBeNull();
  });
});
