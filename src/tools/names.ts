/**
 * Layers (a) and (b) by tool name: the explicit per-tool table and glob patterns. Names are
 * compared in normalised form (`sendEmail`, `send-email`, `mcp__x__send_email` → words joined by `_`).
 */

import type { ActionId } from '../core/actions';

export type Rule =
  /**
   * A fixed capability (its class comes from the capability table); `action` when the name says which of the
   * shared vocabulary's actions it takes (`cancel_calendar_event` cancels, `reschedule_calendar_event` edits):
   * a tool call is then bound to the actions the words name, as a web write is (src/core/actions/binding.ts).
   */
  | { kind: 'fixed'; capability: string; action?: ActionId }
  /** Classified by its action argument (`send_message(action="list")` is READ); `capability` when there is none. */
  | { kind: 'action'; capability: string }
  | { kind: 'shell' }
  | { kind: 'patch' }
  /** A generic HTTP tool, judged like a page request. */
  | { kind: 'http' }
  /** One of the browser actions (`browser.navigate`, …). */
  | { kind: 'web'; tool: string };

/** Tools that book a place: a hotel, a table, a car. */
export const RESERVATION_TOOLS = ['reserve_hotel', 'reserve_restaurant', 'reserve_car_rental', 'reserve_table', 'book_hotel', 'book_table', 'book_restaurant', 'book_car_rental'];

const fixed = (capability: string, names: string[]): [string, Rule][] => names.map((n) => [n, { kind: 'fixed', capability }]);
const acting = (capability: string, action: ActionId, names: string[]): [string, Rule][] => names.map((n) => [n, { kind: 'fixed', capability, action }]);

export const EXPLICIT: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ...fixed('email.send', ['send_email', 'send_mail', 'email_send', 'gmail_send', 'gmail_send_message', 'gmail_send_email', 'mcp_gmail_send_message', 'outlook_send_mail', 'outlook_send_email', 'reply_email', 'reply_to_email', 'forward_email', 'send_gmail']),
  ...fixed('email.read', ['read_email', 'read_emails', 'get_email', 'get_emails', 'list_emails', 'search_emails', 'gmail_search', 'gmail_search_messages', 'gmail_read_message', 'gmail_list_messages', 'gmail_get_message', 'read_inbox', 'check_email']),
  ...fixed('email.write', ['draft_email', 'create_draft', 'gmail_create_draft', 'save_draft']),
  ...fixed('email.delete', ['delete_email', 'trash_email', 'gmail_delete_message', 'gmail_trash_message']),
  ...fixed('message.send', ['slack_post_message', 'post_message', 'send_slack_message', 'send_sms', 'send_text', 'send_chat_message', 'send_dm', 'reply_message']),
  ...fixed('message.read', ['read_messages', 'list_messages', 'get_messages', 'read_message', 'get_message', 'search_messages', 'list_channels', 'read_channel']),
  ...fixed('file.read', ['read_file', 'read_text_file', 'read_multiple_files', 'view_file', 'cat_file', 'open_file', 'list_directory', 'list_dir', 'list_files', 'ls', 'glob', 'grep', 'search_files', 'file_search', 'get_file_info', 'directory_tree', 'find_files', 'read_media_file']),
  ...fixed('file.write', ['write_file', 'create_file', 'edit_file', 'save_file', 'append_file', 'append_to_file', 'move_file', 'rename_file', 'copy_file', 'create_directory', 'make_directory', 'mkdir']),
  ...fixed('file.delete', ['delete_file', 'remove_file', 'rm', 'delete_directory', 'remove_directory', 'delete_files']),
  ...fixed('payment.send', ['bank_transfer', 'transfer_money', 'transfer_funds', 'wire_transfer', 'pay', 'make_payment', 'send_payment', 'send_money', 'pay_invoice', 'purchase', 'buy', 'checkout', 'place_order', 'buy_item', 'purchase_item']),
  ...fixed('doc.share', ['share_document', 'share_file', 'share_doc', 'share_folder', 'gdrive_share', 'drive_share', 'share_drive_file']),
  ...fixed('permission.change', ['add_permission', 'grant_access', 'update_permissions', 'set_permissions', 'create_forwarding_rule', 'add_collaborator', 'invite_user']),
  ...fixed('code.execute', ['evaluate_js', 'eval_js', 'js_eval', 'run_js', 'browser_evaluate', 'browser_run_code', 'browser_execute_script', 'run_javascript', 'execute_javascript', 'execute_script', 'page_evaluate', 'javascript', 'run_code', 'execute_code', 'run_python', 'python', 'code_interpreter']),
  ...fixed('web.read', ['fetch', 'web_fetch', 'fetch_url', 'fetch_page', 'http_get', 'get_url', 'open_url', 'visit_url', 'browse', 'web_search', 'search_web', 'browser_snapshot', 'browser_take_screenshot', 'take_screenshot', 'screenshot', 'get_page_content', 'get_page_text', 'read_page', 'browser_navigate_back', 'browser_tabs', 'browser_console_messages', 'browser_network_requests']),
  ...fixed('file.upload', ['browser_file_upload', 'upload_file']),
  // Assistant suites' tools (calendar, bank, travel; AgentDojo's shapes): what each does to an object that
  // exists is its action, so "move my dentist appt" never grants cancelling it.
  ...acting('calendar.write', 'cancel_order', ['cancel_calendar_event', 'cancel_event', 'cancel_meeting', 'delete_calendar_event']),
  ...acting('calendar.write', 'edit', ['reschedule_calendar_event', 'reschedule_event', 'move_calendar_event', 'edit_calendar_event']),
  ...acting('data.write', 'edit', ['update_user_info', 'update_profile', 'update_user_information', 'update_address']),
  ...acting('permission.change', 'password_change', ['update_password', 'change_password', 'set_password', 'reset_password']),
  // A new standing order moves money on its date: a payment, whatever its name's verb says ("schedule"). An
  // existing one's edit is an edit, bound like any write by the value, payee and id the words give it.
  ...fixed('payment.send', ['schedule_transaction', 'schedule_payment', 'schedule_transfer', 'create_standing_order']),
  ...acting('data.write', 'edit', ['update_scheduled_transaction', 'update_standing_order']),
  // A reservation books a place and moves no money by itself (its tools carry no card): a write, as the words
  // read "book" and "reserve"; the place it books is its item (src/tools/classify.ts), its days are bound too.
  ...fixed('data.write', RESERVATION_TOOLS),
  ...fixed('file.download', ['download_file']),
  ['send_message', { kind: 'action', capability: 'message.send' }],
  ['message', { kind: 'action', capability: 'message.send' }],
  ['messages', { kind: 'action', capability: 'message.read' }],
  ['email', { kind: 'action', capability: 'email.send' }],
  ['gmail', { kind: 'action', capability: 'email.read' }],
  ['str_replace_editor', { kind: 'action', capability: 'file.write' }],
  ['str_replace_based_edit_tool', { kind: 'action', capability: 'file.write' }],
  ['text_editor', { kind: 'action', capability: 'file.write' }],
  ['file_manager', { kind: 'action', capability: 'file.read' }],
  ...['bash', 'shell', 'sh', 'zsh', 'run_command', 'run_shell_command', 'run_terminal_cmd', 'run_in_terminal', 'execute_command', 'exec', 'exec_command', 'terminal', 'shell_exec', 'execute_shell', 'local_shell', 'container_exec'].map((n): [string, Rule] => [n, { kind: 'shell' }]),
  ...['apply_patch', 'patch', 'apply_diff', 'patch_file'].map((n): [string, Rule] => [n, { kind: 'patch' }]),
  ...['http_request', 'http', 'request', 'make_request', 'api_request', 'curl', 'http_fetch'].map((n): [string, Rule] => [n, { kind: 'http' }]),
  ['browser_navigate', { kind: 'web', tool: 'browser.navigate' }],
  ['browser_request', { kind: 'web', tool: 'browser.request' }],
  ['browser_form_submit', { kind: 'web', tool: 'browser.form_submit' }],
  ['browser_upload', { kind: 'web', tool: 'browser.upload' }],
  ['browser_download', { kind: 'web', tool: 'browser.download' }],
]);

/** Glob patterns over normalised names, first match wins; strong verbs in the name still escalate. */
export const GLOBS: readonly [string, Rule][] = [
  ['*gmail*send*', { kind: 'fixed', capability: 'email.send' }],
  ['*outlook*send*', { kind: 'fixed', capability: 'email.send' }],
  ['*send*email*', { kind: 'fixed', capability: 'email.send' }],
  ['*send*mail*', { kind: 'fixed', capability: 'email.send' }],
  ['*email*send*', { kind: 'fixed', capability: 'email.send' }],
  ['mcp_*_send_*', { kind: 'fixed', capability: 'message.send' }],
  ['*_send_message*', { kind: 'fixed', capability: 'message.send' }],
  ['*_post_message*', { kind: 'fixed', capability: 'message.send' }],
  ['*_delete_*', { kind: 'fixed', capability: 'data.delete' }],
  ['*_remove_*', { kind: 'fixed', capability: 'data.delete' }],
  ['*_trash_*', { kind: 'fixed', capability: 'data.delete' }],
  ['*_share_*', { kind: 'fixed', capability: 'permission.change' }],
  ['*_permission*', { kind: 'fixed', capability: 'permission.change' }],
  ['*_transfer_*', { kind: 'fixed', capability: 'payment.send' }],
  ['*_payment*', { kind: 'fixed', capability: 'payment.send' }],
  ['*_checkout*', { kind: 'fixed', capability: 'payment.send' }],
  ['*_purchase*', { kind: 'fixed', capability: 'payment.send' }],
  ['*_run_command*', { kind: 'shell' }],
  ['*_execute_command*', { kind: 'shell' }],
  ['*_shell*', { kind: 'shell' }],
  ['*_bash*', { kind: 'shell' }],
  ['*_terminal*', { kind: 'shell' }],
  ['*_apply_patch*', { kind: 'patch' }],
  ['*_eval*', { kind: 'fixed', capability: 'code.execute' }],
  ['*_exec*', { kind: 'fixed', capability: 'code.execute' }],
  ['*javascript*', { kind: 'fixed', capability: 'code.execute' }],
  ['*_run_code*', { kind: 'fixed', capability: 'code.execute' }],
  ['*_run_script*', { kind: 'fixed', capability: 'code.execute' }],
  ['*_navigate*', { kind: 'fixed', capability: 'web.read' }],
  ['*_goto*', { kind: 'fixed', capability: 'web.read' }],
  ['*_snapshot*', { kind: 'fixed', capability: 'web.read' }],
  ['*_screenshot*', { kind: 'fixed', capability: 'web.read' }],
];

const GLOB_REGEXES: readonly [RegExp, string, Rule][] = GLOBS.map(([glob, rule]) => [
  new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`),
  glob,
  rule,
]);

export function matchGlob(name: string): { glob: string; rule: Rule } | undefined {
  const hit = GLOB_REGEXES.find(([re]) => re.test(name));
  return hit === undefined ? undefined : { glob: hit[1], rule: hit[2] };
}

/**
 * The explicit rule for a name; for `mcp_<server>_<tool>` names also the rule of a trailing part
 * (`mcp_filesystem_read_file` → `read_file`), reported as `suffix` so strong verbs in the rest of
 * the name still escalate.
 */
export function matchExplicit(name: string): { rule: Rule; entry: string; suffix: boolean } | undefined {
  const exact = EXPLICIT.get(name);
  if (exact !== undefined) return { rule: exact, entry: name, suffix: false };
  if (!name.startsWith('mcp_')) return undefined;
  const words = name.split('_');
  for (let k = 2; k < words.length; k++) {
    const tail = words.slice(k).join('_');
    const rule = EXPLICIT.get(tail);
    if (rule !== undefined) return { rule, entry: tail, suffix: true };
  }
  return undefined;
}
