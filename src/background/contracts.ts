import type { decideClassified } from '../core/evaluator';
import type { OrgFloor } from '../core/org';
import type { ErrorResponse, Options, Rewrite } from '../messages/protocol';
import type { ModelAction, ModelResult } from '../minimizer/model';
import type { TaskCompiler } from './task/compile';
import type { ActiveTask, StoredApproval, StoredAuditEntry, TaskStore } from './task/store';

/**
 * The background's shared contracts: what its rooms (intake, decide, task, floor, platform) hand each
 * other. They live here, below every room, so no room has to import another's implementation for a type
 * (the shape that tied monitor, router, session, approvals and audit into one import circle).
 * tests/architecture/background-rooms.test.ts keeps src/background free of import circles.
 */

/** What chrome.runtime.onMessage reports about a sender (only the parts the monitor trusts). */
export interface MessageSender {
  id?: string;
  url?: string;
  tab?: { id?: number; windowId?: number };
  frameId?: number;
  /** The sending document (Chromium), so an effect aimed at it misses a document that replaced it. */
  documentId?: string;
}

/** Browser side effects, injected so the monitor runs under unit tests without a browser. */
export interface MonitorEffects {
  now(): number;
  newId(): string;
  /** Bring the network floor in line with the task (null: remove every rule) and the organisation's floor. Resolves once applied. */
  applyFloor(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void>;
  /** applyFloor after a wake: skipped when this browser session already applied the same floor. Absent: applyFloor. */
  repairFloor?(task: ActiveTask | null, options: Options, controlWindows: readonly number[], org: OrgFloor | null): Promise<void>;
  setBadge(pendingCount: number): void;
  notify(approval: StoredApproval): void;
  /** The tab the user is looking at when a task starts: the task's tab for guard scope `task-tabs`. */
  activeTabId(controlWindows: readonly number[]): Promise<number | null>;
  /** Every open tab, when a task starts: the others are outside it for guard scope `task-tabs`. */
  openTabIds(): Promise<number[]>;
  setTimer(fn: () => void, ms: number): () => void;
  /** Open the options page in a window the extension owns, so it may change options. */
  openOptions(): Promise<void>;
  /** Open the audit log's full-page view in a window the extension owns (read only; a tab would be guarded). */
  openAuditLog(): Promise<void>;
  /** The organisation's managed policy as the browser gives it (`storage.managed.get()`); absent: none. */
  readManaged?(): Promise<unknown>;
  /** An audit entry was committed (the collector ships it later, off the decision path). */
  audited?(): void;
  /** Inserts a user-origin stylesheet into one frame's document (the Sanitizer's generated-content rules). */
  insertUserCss?(target: { tabId: number; frameId: number; documentId?: string }, css: string): Promise<void>;
}

export interface MonitorDeps {
  store: TaskStore;
  effects: MonitorEffects;
  /** The core evaluator on a parsed, classified call (src/core/evaluator.ts). */
  evaluate: typeof decideClassified;
  compiler: TaskCompiler;
  /** The Minimizer's model mode (the configured endpoint); absent = the mode falls back to `detect`. */
  minimizerModel?: (task: string, action: ModelAction, options: Options) => Promise<ModelResult>;
  /** `chrome-extension://<id>` */
  extensionOrigin: string;
  /** The Sanitizer's model review (default: the configured OpenAI-compatible endpoint). */
  reviewer?: Reviewer;
}

type Layer = NonNullable<StoredAuditEntry['layer']>;

export interface DecisionContext {
  layer: Layer;
  tabId: number | null;
  origin: string | null;
}

export interface Verdict {
  decision: 'ALLOW' | 'BLOCK';
  check: string;
  reason: string;
  askedUser: boolean;
  /** ALLOW on condition: the page sends these values instead (the Minimizer removed confidential data). */
  rewrite?: Rewrite;
}

/** The Sanitizer's model review of one suspicious block (src/sanitizer/model-review.ts; decide/sanitizer.ts asks it). */
export type Reviewer = (input: { task: string; text: string; options: Options }) => Promise<string[]>;

/** A refusal or failure as the protocol answers it (no schema here: the control desk carries this without the protocol's). */
export function error(code: ErrorResponse['code'], message: string): ErrorResponse {
  return { ok: false, code, error: message };
}
