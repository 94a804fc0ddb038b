import type { DecisionRecord } from '../../core/decision';
import { registrableDomain } from '../../core/domains';
import type { Options, SanitizerMode, SanitizerRemovedMessage } from '../../messages/protocol';
import { removalReason } from '../../sanitizer/report';
import { GENERATED_USER_CSS } from '../../sanitizer/generated-style';
import { reviewerOnDemand } from '../../llm/model-modes-on-demand';
import type { Reviewer } from '../contracts';
import { maskSecrets } from './redact';

/**
 * The background's side of the Sanitizer: tells a content script whether its tab is sanitised and how,
 * audits what it removed (rule, count, characters, site — never the text), and in model mode asks the
 * configured OpenAI-compatible endpoint which parts of one suspicious block are instructions, given the
 * user's own words. One call per block per task (cached by content hash), at most the options' budget
 * per task; on any failure the answer is `null` and the content script keeps the deterministic result.
 */

export interface SanitizerDeskHost {
  /** The Sanitizer's mode for this sender: `off` when no task runs or the tab is not guarded. */
  modeFor(sender: { tab?: { id?: number; windowId?: number } }): SanitizerMode;
  task(): { taskId: string; request: string; followUps: readonly string[] } | null;
  options(): Options;
  audit(record: DecisionRecord, where: { tabId?: number; origin?: string; destination?: string }): Promise<void>;
  /** Inserts a user-origin stylesheet into the sender's document. */
  insertUserCss?(target: { tabId: number; frameId: number; documentId?: string }, css: string): Promise<void>;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export class SanitizerDesk {
  /** Per task: the answer per block hash (a pending call is shared), and the calls spent. */
  private taskId: string | null = null;
  private readonly answers = new Map<string, Promise<string[] | null>>();
  private calls = 0;

  constructor(
    private readonly host: SanitizerDeskHost,
    private readonly reviewer: Reviewer = reviewerOnDemand,
  ) {}

  config(sender: { tab?: { id?: number; windowId?: number } }): { ok: true; mode: SanitizerMode } {
    return { ok: true, mode: this.host.modeFor(sender) };
  }

  /**
   * The frame's stylesheets may generate text: the user-origin sheet that puts the marker in flagged
   * generated content goes into the sender's document, where no page rule outranks it
   * (src/sanitizer/generated-style.ts). Only in guarded tabs with the Sanitizer on; the text is ours.
   */
  async style(sender: { tab?: { id?: number; windowId?: number }; frameId?: number; documentId?: string }): Promise<{ ok: true }> {
    const tabId = sender.tab?.id;
    if (this.host.modeFor(sender) === 'off' || tabId === undefined || sender.frameId === undefined || this.host.insertUserCss === undefined) return { ok: true };
    await this.host
      .insertUserCss({ tabId, frameId: sender.frameId, ...(sender.documentId !== undefined ? { documentId: sender.documentId } : {}) }, GENERATED_USER_CSS)
      .catch((err: unknown) => console.info('AgentsFence sanitizer: the user-origin sheet was not inserted (the adopted one stands):', err));
    return { ok: true };
  }

  async removed(message: SanitizerRemovedMessage, sender: { tab?: { id?: number; windowId?: number }; url?: string }, origin: string | null): Promise<{ ok: true }> {
    if (this.host.modeFor(sender) === 'off') return { ok: true };
    const domain = sender.url === undefined ? null : registrableDomain(sender.url);
    for (const { rule, count, chars } of message.removals) {
      const record: DecisionRecord = {
        decision: 'BLOCK',
        check: 'sanitizer',
        reason: removalReason(rule, count, chars),
        tool: 'page.read',
        capability: 'page.sanitize',
        riskClass: 'READ',
        targets: { recipients: [], domains: domain === null ? [] : [domain], paths: [], items: [] },
        ruleRef: `sanitizer:${rule}`,
      };
      await this.host.audit(record, {
        ...(sender.tab?.id !== undefined ? { tabId: sender.tab.id } : {}),
        ...(origin !== null ? { origin, destination: origin } : {}),
      });
    }
    return { ok: true };
  }

  async review(text: string, sender: { tab?: { id?: number; windowId?: number } }): Promise<{ ok: true; removals: string[] | null; reason?: string }> {
    const task = this.host.task();
    const options = this.host.options();
    if (task === null || this.host.modeFor(sender) !== 'model') return { ok: true, removals: null, reason: 'model mode is off here' };
    if (options.backend === 'rules') return { ok: true, removals: null, reason: 'no model endpoint configured (offline rules backend)' };
    if (this.taskId !== task.taskId) {
      this.taskId = task.taskId;
      this.answers.clear();
      this.calls = 0;
    }
    const key = await sha256(text);
    let answer = this.answers.get(key);
    if (answer === undefined) {
      if (this.calls >= options.sanitizerModelBudget) return { ok: true, removals: null, reason: 'the task’s model-call budget is spent' };
      this.calls++;
      const words = [task.request, ...task.followUps].join('\n');
      answer = this.reviewer({ task: words, text, options }).catch((err: unknown) => {
        console.warn('AgentsFence sanitizer: model review failed:', maskSecrets(err instanceof Error ? err.message : String(err)));
        return null;
      });
      this.answers.set(key, answer);
    }
    const removals = await answer;
    return removals === null ? { ok: true, removals: null, reason: 'the model call failed' } : { ok: true, removals };
  }
}
