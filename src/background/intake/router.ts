import type { ToolCall } from '../../core/call';
import {
  parseBackgroundMessage,
  type ErrorResponse,
  type MessageType,
  type PageMessageType,
  type ProposalAnswer,
  type ProposalMessage,
  type Reply,
  type TaintReport,
} from '../../messages/protocol';
import type { ApprovalQueue } from '../decide/approvals';
import { emptyRecord, toAuditEntry, type AuditWriter } from '../task/audit';
import { isBlockedPage } from '../floor/guards';
import { lazy } from '../../lazy/load';
import { answerWith, type Handler, type Handlers } from './handlers';
import { error, type DecisionContext, type MessageSender, type MonitorDeps, type Verdict } from '../contracts';
import { maskSecrets, originOf } from '../decide/redact';
import type { SanitizerDesk } from '../decide/sanitizer';
import type { TaskSession } from '../task/session';
import type { StoredAuditEntry } from '../task/store';

/** What the router hands proposals and taint reports to (the monitor's decisions). */
export interface Decisions {
  decide(call: ToolCall, ctx: DecisionContext): Promise<Verdict>;
  /** A proposal from a tab no task guards: allowed and audited. */
  notGuarding(call: ToolCall, ctx: DecisionContext): Promise<Verdict>;
  taintReport(message: TaintReport, sender: MessageSender): Promise<{ ok: true; kept: number }>;
}

export interface RouterDeps {
  /** Memory rebuilt from IndexedDB: every message waits for it. */
  ready: Promise<void>;
  base: Pick<MonitorDeps, 'store' | 'effects' | 'extensionOrigin'>;
  writer: AuditWriter;
  session: TaskSession;
  approvals: ApprovalQueue;
  sanitizer: SanitizerDesk;
  decisions: Decisions;
}

/**
 * The page-message router. Every message from a content script or an extension page enters through
 * `handleMessage` and is parsed with the protocol's strict schemas; anything malformed is BLOCKed and
 * audited, never a crash. Task, option and approval messages are answered only for the toolbar popup or a
 * window the extension opened (the sender checks below); anyone else is refused and audited.
 */
export class MessageRouter {
  constructor(private readonly deps: RouterDeps) {}

  /** Total: every input gets an answer; nothing here throws. */
  async handleMessage(raw: unknown, sender: MessageSender): Promise<Reply<MessageType>> {
    try {
      // Parsed before memory is back: on a cold start this runs while IndexedDB reads the wake state.
      const parsed = parseBackgroundMessage(raw);
      await this.deps.ready;
      if (!parsed.success) return await this.rejectMalformed(raw, sender, parsed.error.issues[0]);
      return await answerWith(this.handlers, parsed.data, sender);
    } catch (err) {
      const reason = `internal error: ${maskSecrets(err instanceof Error ? err.message : String(err))}`;
      await this.deps.writer.audit({ record: emptyRecord('(internal)', 'BLOCK', 'internal_error', reason, 'builtin:fail-closed'), ...this.where(sender) }).catch(() => undefined);
      const id = idOf(raw);
      return id === null ? error('internal', reason) : answer(id, { decision: 'BLOCK', check: 'internal_error', reason, askedUser: false });
    }
  }

  /** One handler per message type of the protocol map; `answerWith` checks each answer against the map. */
  private readonly handlers: Handlers<MessageSender> = {
    proposal: (message, sender) => this.onProposal(message, sender),
    'taint.report': (message, sender) => this.deps.decisions.taintReport(message, sender),
    // The Sanitizer's content script (any tab; answers depend on whether the tab is guarded).
    'sanitizer.config': (_message, sender) => this.deps.sanitizer.config(sender),
    'sanitizer.removed': (message, sender) => this.deps.sanitizer.removed(message, sender, originOf(sender.url)),
    'sanitizer.review': (message, sender) => this.deps.sanitizer.review(message.text, sender),
    'sanitizer.style': (_message, sender) => this.deps.sanitizer.style(sender),
    'task.start': this.fromControl(async (message, sender) => (await (await lazy('control')).startTask(this.deps.session, message.request)) ?? this.stateResponse(sender)),
    'task.followup': this.fromControl(async (message, sender) => (await (await lazy('control')).followUp(this.deps.session, message.text)) ?? this.stateResponse(sender)),
    'task.end': this.fromControl(async (_message, sender) => {
      await this.deps.session.endTask();
      return this.stateResponse(sender);
    }),
    'task.get': this.fromControl((_message, sender) => this.stateResponse(sender)),
    'approval.answer': this.fromControl((message) => this.deps.approvals.answer(message.id, message.answer)),
    'audit.list': this.fromControl(async (message) => {
      const entries = await this.deps.base.store.listAudit({ decision: message.decision, check: message.check, limit: message.limit });
      return { ok: true, entries: entries.map(toAuditEntry) };
    }),
    'options.get': this.fromControl(() => ({ ok: true, options: this.deps.session.ownOptions })),
    'options.set': this.fromControl(async (message) => {
      await this.deps.session.setOptions(message.options);
      return { ok: true, options: this.deps.session.ownOptions };
    }),
    'options.test': this.fromControl(async (message) => (await lazy('control')).testOptions(this.deps.session, message.options)),
    'options.open': this.fromControl(
      async () => {
        await this.deps.base.effects.openOptions();
        return { ok: true };
      },
      { settingsView: true },
    ),
    'options.view': this.fromControl(async () => (await lazy('control')).maskedOptions(this.deps.session), { settingsView: true }),
    'audit.open': this.fromControl(async () => {
      await this.deps.base.effects.openAuditLog();
      return { ok: true };
    }),
  };

  private async stateResponse(sender: MessageSender) {
    return (await lazy('control')).stateResponse(this.deps.session, this.isControlSender(sender));
  }

  /**
   * A page message's handler, answered only for the toolbar popup or a window the extension opened;
   * anyone else is refused and audited. `settingsView`: Chrome's own Options entry opens options.html in
   * an ordinary tab, which may see the settings (key masked) and open the settings window, never change
   * anything or answer approvals.
   */
  private fromControl<T extends PageMessageType>(handler: Handler<T, MessageSender>, { settingsView = false } = {}): Handler<T, MessageSender> {
    return async (message, sender) => {
      await this.deps.session.controlWindowKnown();
      if (settingsView && this.mayViewSettings(sender)) return handler(message, sender);
      if (!this.isControlSender(sender)) {
        // This extension's own page in a tab no task guards (Chrome's Options entry, a copy of the popup the
        // user opened) is the user's, not an agent's: refused, and not written to the audit log as if it were.
        if (!this.mayViewSettings(sender)) await this.deps.writer.audit({
          record: emptyRecord(`message:${message.type}`, 'BLOCK', 'guards', 'task and approval messages are accepted only from the toolbar popup or a window the extension opened', 'builtin:control-sender'),
          layer: 'page',
          ...this.where(sender),
          });
        return error('approvals-disabled', 'This page may not manage the task or answer approvals. Use the toolbar popup.');
      }
      return handler(message, sender);
    };
  }

  private async rejectMalformed(raw: unknown, sender: MessageSender, issue: { path: PropertyKey[]; message: string } | undefined): Promise<ProposalAnswer | ErrorResponse> {
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    const reason = `malformed message at ${where}: ${issue?.message ?? 'invalid'}`.slice(0, 300);
    await this.deps.writer.audit({ record: emptyRecord('(malformed)', 'BLOCK', 'schema', reason, 'builtin:message-schema'), ...this.where(sender) });
    const id = idOf(raw);
    const isPageMessage = typeof raw === 'object' && raw !== null && typeof (raw as { type?: unknown }).type === 'string' && (raw as { type: string }).type !== 'proposal';
    if (isPageMessage && id === null) return error('invalid-message', reason);
    return answer(id ?? 'invalid', { decision: 'BLOCK', check: 'schema', reason, askedUser: false });
  }

  private async onProposal(message: ProposalMessage, sender: MessageSender): Promise<ProposalAnswer> {
    // The blocked-navigation page's "Ask the user" is an ordinary proposal: off-list reading asks anyway.
    const ctx: DecisionContext = { layer: this.isBlockedPage(sender) ? 'page' : message.layer, tabId: sender.tab?.id ?? null, origin: originOf(sender.url) };
    const { decisions, session } = this.deps;
    if (!session.isGuarded(sender.tab?.id, sender.tab?.windowId)) return answer(message.id, await decisions.notGuarding(message.call, ctx));
    return answer(message.id, await decisions.decide(message.call, ctx));
  }

  // ---- senders -------------------------------------------------------------------------------

  private isOwnPage(sender: MessageSender): boolean {
    return sender.url !== undefined && sender.url.startsWith(`${this.deps.base.extensionOrigin}/`);
  }

  private isBlockedPage(sender: MessageSender): boolean {
    return sender.url !== undefined && isBlockedPage(sender.url, this.deps.base.extensionOrigin);
  }

  /** The toolbar popup (no tab) or a window the extension opened itself; never the page a blocked navigation lands on. */
  private isControlSender(sender: MessageSender): boolean {
    if (!this.isOwnPage(sender) || this.isBlockedPage(sender)) return false;
    if (sender.tab === undefined) return true;
    return sender.tab.windowId !== undefined && this.deps.session.isControlWindow(sender.tab.windowId);
  }

  /**
   * This extension's own pages other than the blocked page, in a tab no task guards: Chrome's Options
   * entry. A guarded tab never shows them (the browser guard navigates it away), so no agent-driven tab
   * gets here; what it may do — read the settings with the key masked, open the settings window — gives
   * no approval power.
   */
  private mayViewSettings(sender: MessageSender): boolean {
    return this.isOwnPage(sender) && !this.isBlockedPage(sender) && !this.deps.session.isGuarded(sender.tab?.id ?? null, sender.tab?.windowId);
  }

  private where(sender: MessageSender): Pick<StoredAuditEntry, 'tabId' | 'origin'> {
    const origin = originOf(sender.url);
    return { ...(sender.tab?.id !== undefined ? { tabId: sender.tab.id } : {}), ...(origin !== null ? { origin } : {}) };
  }
}

function idOf(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as { id?: unknown }).id;
  return typeof id === 'string' && id.length >= 1 && id.length <= 64 ? id : null;
}

function answer(id: string, verdict: Verdict): ProposalAnswer {
  return { id, decision: verdict.decision, check: verdict.check, reason: verdict.reason, askedUser: verdict.askedUser, ...(verdict.rewrite !== undefined ? { rewrite: verdict.rewrite } : {}) };
}
