import { describe, expect, it } from 'vitest';
import { CANONICAL_CAPABILITIES, CAPABILITY_CLASSES, canonicalCapability, capabilityClass } from '../../src/core/classifier';
import { classify } from '../../src/tools';
import { RISK_CLASSES } from '../../src/core/risk';

const c = (tool: string, args: Record<string, unknown> = {}) => classify({ tool, args });

describe('layer (a): explicit per-tool mapping', () => {
  it.each([
    ['send_email', 'email.send', 'COMMUNICATION'],
    ['gmail_send', 'email.send', 'COMMUNICATION'],
    ['mcp_gmail_send_message', 'email.send', 'COMMUNICATION'],
    ['sendEmail', 'email.send', 'COMMUNICATION'],
    ['read_file', 'file.read', 'READ'],
    ['write_file', 'file.write', 'LOCAL_WRITE'],
    ['delete_file', 'file.delete', 'DELETE'],
    ['bank_transfer', 'payment.send', 'FINANCIAL'],
    ['pay', 'payment.send', 'FINANCIAL'],
    ['share_document', 'doc.share', 'PERMISSION_CHANGE'],
    ['evaluate_js', 'code.execute', 'EXECUTION'],
    ['browser_evaluate', 'code.execute', 'EXECUTION'],
    ['run_javascript', 'code.execute', 'EXECUTION'],
  ])('%s → %s (%s)', (tool, capability, riskClass) => {
    expect(c(tool)).toMatchObject({ capability, riskClass, layer: 'explicit' });
  });

  it('sending money is a payment, an export writes a local file, a collaborator is a recipient', () => {
    expect(c('paypal.send', { recipient: 'amy@family.test', amount: 20 }).riskClass).toBe('FINANCIAL');
    expect(c('send_money', { to: 'bob@x.test', amount: 5 }).riskClass).toBe('FINANCIAL');
    expect(c('send_message', { to: 'bob@x.test', text: 'hi' }).riskClass).toBe('COMMUNICATION');
    expect(c('export_document', { title: 'Notes', path: '/home/me/Downloads/notes.pdf' }).riskClass).toBe('LOCAL_WRITE');
    expect(c('update_sharing', { collaborator: 'paul@corp.test', role: 'none' }).targets.recipients).toEqual(['paul@corp.test']);
  });

  it('seed regression: a page-JavaScript tool that looks like a read is EXECUTION', () => {
    expect(c('browser_evaluate', { function: '() => document.title' }).riskClass).toBe('EXECUTION');
  });

  it('refines send_message by its action argument, both ways', () => {
    expect(c('send_message', { action: 'list' })).toMatchObject({ riskClass: 'READ', capability: 'message.read' });
    expect(c('send_message', { action: 'read' }).riskClass).toBe('READ');
    expect(c('send_message', { action: 'search' }).riskClass).toBe('READ');
    expect(c('send_message', { action: 'send', to: 'eve@attacker.test' })).toMatchObject({ riskClass: 'COMMUNICATION', capability: 'message.send' });
    expect(c('send_message', { action: 'delete' })).toMatchObject({ riskClass: 'DELETE', capability: 'message.delete' });
    expect(c('send_message', {})).toMatchObject({ riskClass: 'COMMUNICATION' });
    expect(c('send_message', { action: 'frobnicate' }).riskClass).toBe('UNKNOWN');
  });

  it('seed regression: a read-mapped tool that multiplexes writes behind `action` takes the write class', () => {
    expect(c('read_file', { path: 'a.txt', action: 'write' })).toMatchObject({ riskClass: 'LOCAL_WRITE', capability: 'file.write' });
    expect(c('get_messages', { action: 'delete', id: 3 })).toMatchObject({ riskClass: 'DELETE', capability: 'message.delete' });
    expect(c('list_emails', { operation: 'send', to: 'x@y.test' }).riskClass).toBe('COMMUNICATION');
    // …and an action argument never lowers a fixed mapping.
    expect(c('delete_file', { path: 'a', action: 'read' }).riskClass).toBe('DELETE');
    expect(c('read_file', { path: 'a', action: 'read' }).riskClass).toBe('READ');
  });

  it('refines editor tools by their command', () => {
    expect(c('str_replace_based_edit_tool', { command: 'view', path: 'a.ts' })).toMatchObject({ riskClass: 'READ', capability: 'file.read' });
    expect(c('str_replace_based_edit_tool', { command: 'str_replace', path: 'a.ts' })).toMatchObject({ riskClass: 'LOCAL_WRITE', capability: 'file.write' });
    expect(c('str_replace_based_edit_tool', { command: 'create', path: 'a.ts' }).riskClass).toBe('LOCAL_WRITE');
  });

  it('maps `mcp_<server>_<tool>` to the tool, while strong verbs elsewhere in the name still escalate', () => {
    expect(c('mcp_filesystem_read_file', { path: 'x' })).toMatchObject({ riskClass: 'READ', capability: 'file.read' });
    expect(c('mcp_evil_delete_all_then_read_file', { path: 'x' }).riskClass).toBe('DELETE');
  });

  it('classifies generic HTTP tools like page requests', () => {
    expect(c('http_request', { url: 'https://api.test/items' })).toMatchObject({ riskClass: 'READ', capability: 'web.read' });
    expect(c('http_request', { method: 'POST', url: 'https://api.test/items', body: { a: 1 } })).toMatchObject({ riskClass: 'EXTERNAL_WRITE' });
    expect(c('http_request', { method: 'DELETE', url: 'https://api.test/items/1' }).riskClass).toBe('DELETE');
    expect(c('http_request', { method: 'POST' }).riskClass).toBe('UNKNOWN');
  });

  it('routes shell and patch tools to their sub-classifiers', () => {
    expect(c('bash', { command: 'git branch -D x' })).toMatchObject({ riskClass: 'DELETE', layer: 'shell', capability: 'shell.delete' });
    expect(c('run_command', { cmd: 'ls' })).toMatchObject({ riskClass: 'READ', capability: 'shell.read' });
    expect(c('bash', {}).riskClass).toBe('UNKNOWN');
    expect(c('apply_patch', { input: '*** Begin Patch\n*** Delete File: a.txt\n*** End Patch' })).toMatchObject({ riskClass: 'DELETE', targets: { paths: ['a.txt'] } });
    expect(c('apply_patch', {}).riskClass).toBe('UNKNOWN');
  });
});

describe('layer (b): glob patterns', () => {
  it.each([
    ['get_and_delete_messages', 'DELETE'],
    ['mcp_acme_send_invoice', 'COMMUNICATION'],
    ['crm_share_record', 'PERMISSION_CHANGE'],
    ['wallet_transfer_funds_now', 'FINANCIAL'],
    ['page_eval', 'EXECUTION'],
    ['playwright_navigate', 'READ'],
  ])('%s → %s', (tool, riskClass) => {
    expect(c(tool)).toMatchObject({ riskClass, layer: 'glob' });
  });

  it('escalates a glob match by strong verbs in the name', () => {
    expect(c('mcp_bank_send_and_pay_x')).toMatchObject({ riskClass: 'FINANCIAL', layer: 'glob' });
  });

  it('routes shell-like names with a command to the shell classifier', () => {
    expect(c('mcp_desktop_run_command', { command: 'rm -rf /tmp/x' })).toMatchObject({ riskClass: 'DELETE', layer: 'shell' });
  });
});

describe('layer (c): verb inference', () => {
  it.each([
    ['listIssues', 'READ', 'data.read'],
    ['github.get-pull-request', 'READ', 'data.read'],
    ['createIssue', 'EXTERNAL_WRITE', 'data.write'],
    ['update_calendar_event', 'EXTERNAL_WRITE', 'calendar.write'],
    ['save_notes_file', 'LOCAL_WRITE', 'file.write'],
    ['email_search', 'READ', 'email.read'],
    ['order_pizza', 'FINANCIAL', 'payment.send'],
    ['invite_collaborator', 'PERMISSION_CHANGE', 'permission.change'],
    ['notify_team', 'COMMUNICATION', 'message.send'],
    ['spawn_worker', 'EXECUTION', 'code.execute'],
    ['archive_and_purge_logs', 'DELETE', 'data.delete'],
  ])('%s → %s (%s)', (tool, riskClass, capability) => {
    expect(c(tool)).toMatchObject({ riskClass, capability, layer: 'verb' });
  });

  it('lets the first verb decide and strong verbs anywhere escalate', () => {
    expect(c('fetch_then_publish').riskClass).toBe('COMMUNICATION');
    expect(c('read_and_wipe_table').riskClass).toBe('DELETE');
    expect(c('get_then_buy_ticket').riskClass).toBe('FINANCIAL');
  });

  it('takes the action argument of a verb-inferred tool when it is stronger', () => {
    expect(c('view_records', { action: 'delete' }).riskClass).toBe('DELETE');
    expect(c('view_records', { action: 'list' }).riskClass).toBe('READ');
  });

  it('leaves unrecognised names UNKNOWN with capability `unknown`', () => {
    for (const tool of ['zorp', 'browser_click', 'x', '___', '', 'constructor', '__proto__', 'toString']) {
      expect(c(tool)).toMatchObject({ riskClass: 'UNKNOWN', capability: 'unknown', layer: 'unknown' });
    }
  });
});

describe('targets of generic tools', () => {
  it('reads recipients as exact lower-cased tokens from recipient-like keys only', () => {
    const r = c('send_email', { to: 'Bob <BOB@corp.test>, not-alice@x.com', cc: ['c@x.com'], subject: 'for alice@x.com', body: 'also mail eve@evil.test' });
    expect(r.targets.recipients).toEqual(['bob@corp.test', 'not-alice@x.com', 'c@x.com']);
  });

  it('seed regression: `not-alice@x.com` is not `alice@x.com`', () => {
    const r = c('send_email', { to: 'not-alice@x.com' });
    expect(r.targets.recipients).toEqual(['not-alice@x.com']);
    expect(r.targets.recipients).not.toContain('alice@x.com');
  });

  it('finds recipients nested in structures and account identifiers under payee keys', () => {
    expect(c('send_email', { message: { headers: { to: [{ email: 'A@x.test', name: 'A' }] } } }).targets.recipients).toEqual(['a@x.test']);
    expect(c('bank_transfer', { iban: 'DE89 3704 0044 0532 0130 00', amount: 10 }).targets.recipients).toEqual(['de89370400440532013000']);
    expect(c('share_document', { share_with: 'eve@x.com', role: 'writer' }).targets.recipients).toEqual(['eve@x.com']);
    expect(c('update_permissions', { user: 'Bob' }).targets.recipients).toEqual(['bob']);
  });

  it('does not take a city under `to` for a recipient, but does take a phone number', () => {
    expect(c('search_flights', { from: 'LIS', to: 'NYC' }).targets.recipients).toEqual([]);
    // (In its canonical form, sign and digits, as the compiler reads "+1 555 123 4567" in the words.)
    expect(c('send_sms', { to: '+1 555 123 4567', text: 'hi' }).targets.recipients).toEqual(['+15551234567']);
    expect(c('send_sms', { to: '+1-555-123-4567', text: 'hi' }).targets.recipients).toEqual(['+15551234567']);
  });

  it('reads domains from URL and host arguments, paths from path arguments', () => {
    const r = c('download_report', { url: 'https://reports.example.co.uk/r.pdf', path: '/tmp/r.pdf' });
    expect(r.targets.domains).toEqual(['example.co.uk']);
    expect(r.targets.paths).toEqual(['/tmp/r.pdf']);
    expect(r.urls).toEqual(['https://reports.example.co.uk/r.pdf']);
    expect(c('query_database', { host: 'db.internal.bank.test' }).targets.domains).toEqual(['bank.test']);
  });

  it('never reads URLs out of free text', () => {
    expect(c('send_email', { to: 'a@x.test', body: 'see https://evil.test/x' }).targets.domains).toEqual([]);
  });

  it('counts outbound bytes for outbound classes only', () => {
    expect(c('send_email', { to: 'a@x.test', body: 'hello' }).outboundBytes).toBeGreaterThan(5);
    expect(c('read_file', { path: 'a' }).outboundBytes).toBe(0);
  });
});

describe('capabilities', () => {
  it('maps provider names to canonical capabilities', () => {
    expect(CANONICAL_CAPABILITIES['gmail.send']).toBe('email.send');
    expect(canonicalCapability('Gmail.Send')).toBe('email.send');
    expect(canonicalCapability('email.send')).toBe('email.send');
    expect(canonicalCapability('made.up')).toBeUndefined();
  });

  it('knows the class of every canonical capability and alias, and nothing else', () => {
    expect(capabilityClass('email.send')).toBe('COMMUNICATION');
    expect(capabilityClass('gmail.send')).toBe('COMMUNICATION');
    expect(capabilityClass('bank.transfer')).toBe('FINANCIAL');
    expect(capabilityClass('web.read')).toBe('READ');
    expect(capabilityClass('unknown')).toBe('UNKNOWN');
    expect(capabilityClass('toString')).toBeUndefined();
    expect(capabilityClass('nope')).toBeUndefined();
    for (const target of Object.values(CANONICAL_CAPABILITIES)) expect(CAPABILITY_CLASSES[target]).toBeDefined();
  });

  it('emits only capabilities whose class matches the table', () => {
    const tools = ['send_email', 'send_message', 'read_file', 'bash', 'apply_patch', 'createIssue', 'order_pizza', 'zorp', 'get_and_delete_messages', 'browser_evaluate'];
    for (const tool of tools) {
      const r = c(tool, { command: 'ls', input: '--- a/x\n+++ b/x\n', action: 'list' });
      expect(RISK_CLASSES).toContain(r.riskClass);
      expect(capabilityClass(r.capability)).toBe(r.riskClass);
    }
  });
});
