import { describe, expect, it } from 'vitest';
import { classifyWeb } from '../../src/core/classifier';
import { classify } from '../../src/tools';

const nav = (url: string) => classifyWeb({ tool: 'browser.navigate', args: { url } });
const req = (args: Record<string, unknown>) => classifyWeb({ tool: 'browser.request', args: { url: 'https://app.test/api/items', method: 'POST', ...args } });
const form = (args: Record<string, unknown>) => classifyWeb({ tool: 'browser.form_submit', args: { url: 'https://app.test/form', method: 'POST', fields: {}, ...args } });

describe('browser.navigate', () => {
  it('is READ with the domain and the URL to check', () => {
    expect(nav('https://www.bank.test/accounts?id=1')).toMatchObject({
      riskClass: 'READ',
      capability: 'web.read',
      layer: 'web',
      targets: { domains: ['bank.test'], recipients: [], paths: [] },
      urls: ['https://www.bank.test/accounts?id=1'],
    });
  });

  it('leaves other schemes READ for the evaluator, but a javascript: URL runs code', () => {
    expect(nav('data:text/html,hi')).toMatchObject({ riskClass: 'READ', targets: { domains: [] }, urls: ['data:text/html,hi'] });
    expect(nav('javascript:alert(1)')).toMatchObject({ riskClass: 'EXECUTION', capability: 'code.execute' });
    expect(nav(' JavaScript:alert(1)').riskClass).toBe('EXECUTION');
  });

  it('classifies arguments that do not fit the schema as UNKNOWN', () => {
    expect(classifyWeb({ tool: 'browser.navigate', args: { url: 42 } }).riskClass).toBe('UNKNOWN');
    expect(classifyWeb({ tool: 'browser.navigate', args: { url: 'https://x.test', extra: 1 } }).riskClass).toBe('UNKNOWN');
    expect(classifyWeb({ tool: 'browser.navigate', args: {} })).toMatchObject({ riskClass: 'UNKNOWN', capability: 'unknown', layer: 'web' });
  });
});

describe('browser.request', () => {
  it('reads with GET/HEAD/OPTIONS and no body', () => {
    for (const method of ['GET', 'head', 'OPTIONS']) expect(req({ method }).riskClass).toBe('READ');
    expect(req({ method: 'GET', kind: 'eventsource' }).capability).toBe('web.read');
  });

  it('treats a GET with a body, a beacon or a WebSocket as an external write', () => {
    expect(req({ method: 'GET', body: 'x' }).riskClass).toBe('EXTERNAL_WRITE');
    expect(req({ method: 'POST', kind: 'beacon', body: 'x' })).toMatchObject({ riskClass: 'EXTERNAL_WRITE', capability: 'web.write' });
    expect(req({ method: 'GET', url: 'wss://chat.test/s', kind: 'websocket' })).toMatchObject({ riskClass: 'EXTERNAL_WRITE', capability: 'web.socket' });
  });

  it('finds deletes by method or path', () => {
    expect(req({ method: 'DELETE', url: 'https://app.test/api/items/1' })).toMatchObject({ riskClass: 'DELETE', capability: 'data.delete' });
    expect(req({ url: 'https://app.test/api/items/1/trash' }).riskClass).toBe('DELETE');
    expect(req({ url: 'https://app.test/api/removeItem' }).riskClass).toBe('DELETE');
  });

  it('finds payments by path or by amount with a payee, IBAN or card', () => {
    expect(req({ url: 'https://bank.test/api/transfer', body: { x: 1 } })).toMatchObject({ riskClass: 'FINANCIAL', capability: 'payment.send' });
    expect(req({ url: 'https://shop.test/checkout' }).riskClass).toBe('FINANCIAL');
    const iban = req({ url: 'https://bank.test/api/x', body: { amount: 5, iban: 'GB82 WEST 1234 5698 7654 32' } });
    expect(iban).toMatchObject({ riskClass: 'FINANCIAL', targets: { recipients: ['gb82west12345698765432'] } });
    expect(req({ body: { cardNumber: '4111', cvv: '1' } }).riskClass).toBe('FINANCIAL');
    expect(req({ body: { amount: 5 } }).riskClass).toBe('EXTERNAL_WRITE');
  });

  it('finds messages by path or recipient keys, with recipients from nested JSON (string or object bodies)', () => {
    const r = req({ url: 'https://mail.test/api/v1/x', body: '{"message":{"to":["Bob@corp.test"],"cc":"c@corp.test","subject":"mail eve@evil.test"}}' });
    expect(r).toMatchObject({ riskClass: 'COMMUNICATION', capability: 'message.send', targets: { recipients: ['bob@corp.test', 'c@corp.test'] } });
    expect(req({ url: 'https://mail.test/api/send' }).riskClass).toBe('COMMUNICATION');
    expect(req({ url: 'https://mail.test/mail/reply' }).riskClass).toBe('COMMUNICATION');
    expect(req({ body: { bcc: 'x@y.test' } }).riskClass).toBe('COMMUNICATION');
    expect(req({ body: 'to=bob%40corp.test&text=hi' })).toMatchObject({ riskClass: 'COMMUNICATION', targets: { recipients: ['bob@corp.test'] } });
  });

  it('does not take a `to` without an address or message for a recipient', () => {
    // (A search sent as POST is a read: docs/request-quality.md.)
    expect(req({ url: 'https://flights.test/api/search', body: { from: 'LIS', to: 'NYC' } })).toMatchObject({ riskClass: 'READ', targets: { recipients: [] } });
    expect(req({ url: 'https://flights.test/api/book', body: { from: 'LIS', to: 'NYC' } })).toMatchObject({ riskClass: 'EXTERNAL_WRITE', targets: { recipients: [] } });
  });

  it('finds permission changes by path or keys', () => {
    expect(req({ url: 'https://mail.test/settings/filters', body: { forwardTo: 'eve@evil.test' } })).toMatchObject({ riskClass: 'PERMISSION_CHANGE', capability: 'permission.change', targets: { recipients: ['eve@evil.test'] } });
    expect(req({ url: 'https://docs.test/d/1/share' }).riskClass).toBe('PERMISSION_CHANGE');
    expect(req({ url: 'https://docs.test/d/1', body: { role: 'writer', email: 'x@y.test' } }).riskClass).toBe('PERMISSION_CHANGE');
    expect(req({ url: 'https://app.test/account/password' }).riskClass).toBe('PERMISSION_CHANGE');
  });

  it('falls back to an external write for other data-bearing requests', () => {
    expect(req({ body: { title: 'note' } })).toMatchObject({ riskClass: 'EXTERNAL_WRITE', capability: 'web.write' });
    expect(req({ method: 'PUT' }).riskClass).toBe('EXTERNAL_WRITE');
  });

  it('takes the highest class when several heuristics match', () => {
    expect(req({ url: 'https://mail.test/messages/delete', body: { to: 'a@b.test' } }).riskClass).toBe('DELETE');
    expect(req({ url: 'https://x.test/send', body: { amount: 1, payee: 'ACME' } }).riskClass).toBe('FINANCIAL');
  });

  it('counts outbound bytes from bodyBytes or the body', () => {
    expect(req({ body: 'abcd' }).outboundBytes).toBe(4);
    expect(req({ body: 'é' }).outboundBytes).toBe(2);
    expect(req({ body: 'abcd', bodyBytes: 1000 }).outboundBytes).toBe(1000);
    expect(req({ method: 'GET' }).outboundBytes).toBe(0);
  });

  it('is UNKNOWN for malformed arguments', () => {
    expect(classifyWeb({ tool: 'browser.request', args: { url: 'https://x.test' } }).riskClass).toBe('UNKNOWN');
    expect(req({ kind: 'carrier-pigeon' }).riskClass).toBe('UNKNOWN');
  });
});

describe('browser.form_submit', () => {
  it('reads with GET, and builds the URL with the fields for the exfiltration check', () => {
    const r = form({ url: 'https://shop.test/search?lang=en', method: 'GET', fields: { q: 'red shoes', page: '2' } });
    expect(r).toMatchObject({ riskClass: 'READ', capability: 'web.read', basis: 'search form (GET)', targets: { domains: ['shop.test'] } });
    expect(r.urls).toEqual(['https://shop.test/search?lang=en&q=red+shoes&page=2']);
    expect(form({ method: 'get', fields: { from: 'LIS', to: 'NYC' } }).riskClass).toBe('READ');
  });

  it('finds payments from card fields, types, IBAN/amount, submit text', () => {
    expect(form({ fields: { 'cc-number': '4111', cvv: '123' } })).toMatchObject({ riskClass: 'FINANCIAL', capability: 'payment.send' });
    expect(form({ fields: { n: '4111' }, fieldTypes: { n: 'cc-number' } }).riskClass).toBe('FINANCIAL');
    expect(form({ fields: { amount: '10', iban: 'DE89370400440532013000' } })).toMatchObject({ riskClass: 'FINANCIAL', targets: { recipients: ['de89370400440532013000'] } });
    expect(form({ fields: { qty: '1' }, submitText: 'Place order' }).riskClass).toBe('FINANCIAL');
  });

  it('finds messages from recipient fields or a Send button, with recipients', () => {
    const r = form({ fields: { to: 'Bob@corp.test', subject: 's', body: 'forward to eve@evil.test' } });
    expect(r).toMatchObject({ riskClass: 'COMMUNICATION', capability: 'message.send', targets: { recipients: ['bob@corp.test'] } });
    expect(form({ fields: { text: 'hi' }, submitText: 'Send' }).riskClass).toBe('COMMUNICATION');
    expect(form({ fields: { recipients: ['a@x.test', 'b@x.test'] } }).targets.recipients).toEqual(['a@x.test', 'b@x.test']);
  });

  it('finds password changes and sharing/forwarding settings, but not a login', () => {
    expect(form({ fields: { current_password: 'a', new_password: 'b' }, submitText: 'Save' })).toMatchObject({ riskClass: 'PERMISSION_CHANGE', capability: 'permission.change' });
    expect(form({ fields: { forward_to: 'eve@evil.test' } }).riskClass).toBe('PERMISSION_CHANGE');
    expect(form({ fields: { share_with: 'eve@evil.test', role: 'editor' } }).riskClass).toBe('PERMISSION_CHANGE');
    expect(form({ fields: { user: 'bob' }, submitText: 'Share' }).riskClass).toBe('PERMISSION_CHANGE');
    expect(form({ url: 'https://app.test/login', fields: { username: 'me', password: 'p' }, fieldTypes: { password: 'password' }, submitText: 'Sign in' }).riskClass).toBe('EXTERNAL_WRITE');
  });

  it('finds deletes by button text or field', () => {
    expect(form({ fields: { id: '3' }, submitText: 'Delete account' })).toMatchObject({ riskClass: 'DELETE', capability: 'data.delete' });
    expect(form({ fields: { _method: 'delete' }, submitText: 'OK' }).riskClass).toBe('DELETE');
    expect(form({ fields: { remove_item: '3' } }).riskClass).toBe('DELETE');
  });

  it('falls back to an external write for other POSTs, and ignores the values of free-text fields', () => {
    expect(form({ fields: { title: 'note', comment_text: 'please delete everything and send it to eve@evil.test' }, submitText: 'Save' })).toMatchObject({
      riskClass: 'EXTERNAL_WRITE',
      capability: 'web.write',
      targets: { recipients: [] },
    });
    expect(form({ fields: { a: 'b' } }).outboundBytes).toBe(3);
  });

  it('is UNKNOWN for malformed arguments', () => {
    expect(form({ fields: { a: 1 } }).riskClass).toBe('UNKNOWN');
    expect(form({ fields: 'x' }).riskClass).toBe('UNKNOWN');
  });
});

describe('browser.upload and browser.download', () => {
  it('an upload is an external write of its files', () => {
    expect(classifyWeb({ tool: 'browser.upload', args: { url: 'https://drop.test/up', files: ['/home/u/a.pdf', '/home/u/b.pdf'] } })).toMatchObject({
      riskClass: 'EXTERNAL_WRITE',
      capability: 'file.upload',
      targets: { paths: ['/home/u/a.pdf', '/home/u/b.pdf'], domains: ['drop.test'] },
    });
    expect(classifyWeb({ tool: 'browser.upload', args: { url: 'https://drop.test/up', files: [] } }).riskClass).toBe('UNKNOWN');
  });

  it('a download is a local write to its path, with the source domain', () => {
    expect(classifyWeb({ tool: 'browser.download', args: { url: 'https://cdn.files.test/a.pdf', path: '/home/u/Downloads/a.pdf' } })).toMatchObject({
      riskClass: 'LOCAL_WRITE',
      capability: 'file.download',
      targets: { paths: ['/home/u/Downloads/a.pdf'], domains: ['files.test'] },
      urls: ['https://cdn.files.test/a.pdf'],
    });
  });
});

describe('the extension classifies browser actions only', () => {
  const browserCalls = [
    { tool: 'browser.navigate', args: { url: 'https://www.bank.test/accounts?id=1' } },
    { tool: 'browser.request', args: { url: 'https://app.test/api/transfer', method: 'POST', body: { iban: 'DE89370400440532013000', amount: '20' } } },
    { tool: 'browser.form_submit', args: { url: 'https://mail.test/send', method: 'POST', fields: { to: 'bob@x.test', body: 'hi' }, submitText: 'Send' } },
    { tool: 'browser.upload', args: { url: 'https://drop.test/up', files: ['/home/u/a.pdf'] } },
    { tool: 'browser.download', args: { url: 'https://cdn.files.test/a.pdf', path: '/home/u/Downloads/a.pdf' } },
    { tool: 'browser.navigate', args: {} },
  ];

  it('a browser action: exactly what the classifier for any agent\'s tools says', () => {
    for (const call of browserCalls) expect(classifyWeb(call)).toEqual(classify(call));
  });

  it('any other tool is UNKNOWN (never safe), though src/tools knows it', () => {
    for (const call of [{ tool: 'send_email', args: { to: 'eve@evil.test' } }, { tool: 'bash', args: { command: 'rm -rf /' } }, { tool: 'apply_patch', args: { patch: '*** Delete File: a' } }]) {
      expect(classify(call).riskClass).not.toBe('UNKNOWN');
      expect(classifyWeb(call)).toMatchObject({ riskClass: 'UNKNOWN', capability: 'unknown', layer: 'unknown', basis: 'not a browser action' });
    }
  });
});

describe('bounded reading of request bodies', () => {
  it('reads a recipient or an amount after thousands of padding values (anything a 16 KB view can hold)', () => {
    const padded = req({ url: 'https://mail.test/api/send', body: { to: 'bob@corp.test', pad: Array<number>(7000).fill(0), cc: 'eve@attacker.test', text: 'hi' } });
    expect(padded.targets.recipients).toEqual(['bob@corp.test', 'eve@attacker.test']);
    const paid = req({ url: 'https://bank.test/api/pay', body: { payee: 'bob@corp.test', amount: '45 EUR', pad: Array<number>(7000).fill(0), tip: '4000 EUR' } });
    expect(paid.targets.amounts?.length).toBe(2);
  });
});

describe('bodies read beside their parse (repeated JSON keys, GraphQL mutation arguments)', () => {
  const post = (url: string, body: string) => classifyWeb({ tool: 'browser.request', args: { url, method: 'POST', kind: 'fetch', body } });
  it('what is read beside a body adds no signal of its own: a search listing two legs stays a read, not a message', () => {
    expect(post('https://flights.test/api/search', JSON.stringify({ legs: [{ from: 'BER', to: 'LIS' }, { from: 'LIS', to: 'BER' }] })).riskClass).toBe('READ');
    expect(post('https://api.test/graphql', JSON.stringify({ query: 'mutation { addLeg(from: "BER", to: "LIS") { id } }' })).riskClass).toBe('EXTERNAL_WRITE');
  });
  it('a repeated key is read at every value; a mutation at its inline arguments', () => {
    expect(post('https://bank.test/api/t', '{"iban":"DE89370400440532013000","amount":4500,"amount":45,"currency":"EUR"}').targets.amounts).toEqual(['45 EUR', '4500 EUR']);
    const gql = post('https://bank.test/graphql', JSON.stringify({ query: 'mutation { transfer(iban: "DE89370400440532013000", amount: 4500, currency: "EUR") { id } }' }));
    expect(gql).toMatchObject({ riskClass: 'FINANCIAL', targets: { recipients: ['de89370400440532013000'], amounts: ['4500 EUR'] } });
  });
});

describe('after-sale steps on an order', () => {
  it('returning or cancelling an order is a write; buying, or paying on such a path, is still a payment', () => {
    expect(form({ url: 'https://shoes.test/orders/991/return', fields: { item: 'runner-42', reason: 'too small' }, submitText: 'Start return' }).riskClass).toBe('EXTERNAL_WRITE');
    expect(form({ url: 'https://shop.test/orders/123/cancel', fields: { order: '123' }, submitText: 'Cancel order' }).riskClass).toBe('EXTERNAL_WRITE');
    expect(form({ url: 'https://shop.test/orders/new', fields: { sku: 'x' }, submitText: 'Continue' }).riskClass).toBe('FINANCIAL');
    expect(form({ url: 'https://shop.test/orders/123/return/checkout', fields: { sku: 'x' }, submitText: 'Continue' }).riskClass).toBe('FINANCIAL');
    expect(form({ url: 'https://shop.test/orders/123/return', fields: { card: '4111111111111111' }, submitText: 'Continue' }).riskClass).toBe('FINANCIAL');
    expect(form({ url: 'https://shop.test/orders/123/return', fields: { item: 'x' }, submitText: 'Buy now' }).riskClass).toBe('FINANCIAL');
  });
});
