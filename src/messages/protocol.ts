import { z } from '../core/zod';
import { BROWSER_TOOLS, ToolCallSchema } from '../core/call';
import { CLASSIFIER_LAYERS } from '../core/classification';
import { CHECKS, DecisionRecordSchema, RecordActionSchema } from '../core/decision';
import { RuleRefSchema } from '../core/ruleRef';
import { EvalStateSchema, TaskPolicySchema } from '../core/policy';
import { RiskClassSchema } from '../core/risk';
import { CompileReportSchema } from '../compiler/report';
import { DEFAULT_BASE_URL, DEFAULT_MODEL } from '../llm/defaults';
import { MAX_TOKEN_LENGTH, MIN_TOKEN_LENGTH, TaintKindSchema, TaintTokenSchema } from '../taint/tokens';

/** The decision record and the compile report have one definition each (core, compiler); the protocol carries them as they are. */
export { DecisionRecordSchema, CompileReportSchema };
export type { DecisionRecord } from '../core/decision';
export type { CompileReport } from '../compiler/report';

/**
 * The one message protocol map. Every message that crosses a boundary (content script → background,
 * popup/options → background) is parsed at the receiver with these strict schemas. Content scripts and
 * pages are untrusted: anything that does not parse is BLOCKed and audited.
 */

/** An id chosen by a content script or the background (echoed in answers), and a count or timestamp. */
const Id = z.string().check(z.minLength(1), z.maxLength(64));
const Count = z.number().check(z.int(), z.nonnegative());

/** Content script → background: an action the page or agent is about to take. */
export const ProposalMessageSchema = z.strictObject({
  type: z.literal('proposal'),
  /** Random id chosen by the content script; echoed in the answer. */
  id: Id,
  /** Only the browser tools the extension proposes (downloads it classifies itself): any other name is malformed. */
  call: z.extend(ToolCallSchema, { tool: z.enum([BROWSER_TOOLS.navigate, BROWSER_TOOLS.formSubmit, BROWSER_TOOLS.request]) }),
  /** Which layer saw it: the ISOLATED submit listener or a MAIN-world hook. */
  layer: z.enum(['isolated', 'main']),
});

/**
 * ISOLATED content script → background: session data the page showed or the agent typed (the data-lane
 * taint). The site is the sender's, never the message's. Bounded: a report is a batch.
 */
export const MAX_TAINT_REPORT = 100;
export const TaintReportSchema = z.lazy(() => z.strictObject({
  type: z.literal('taint.report'),
  tokens: z
    .array(z.strictObject({ value: z.string().check(z.minLength(MIN_TOKEN_LENGTH), z.maxLength(MAX_TOKEN_LENGTH)), kind: TaintKindSchema }))
    .check(z.minLength(1), z.maxLength(MAX_TAINT_REPORT)),
}));
export type TaintReport = z.infer<typeof TaintReportSchema>;
/** Answer to taint.report. */
export const TaintReportResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), kept: Count }));

/**
 * Sanitizer content script → background. `sanitizer.config` asks whether this tab is sanitised and how;
 * `sanitizer.removed` reports what was removed (rule and character counts, never the text);
 * `sanitizer.review` (model mode) asks for the removals a model proposes in one suspicious text block.
 */
export const SanitizerModeSchema = z.enum(['off', 'hidden', 'model']);
export const SanitizerRuleSchema = z.enum(['invisible-chars', 'addressed-to-agent', 'hidden-instruction', 'braille', 'comment', 'attribute', 'generated-content', 'model', 'unreadable-text']);
export const SanitizerConfigSchema = z.lazy(() => z.strictObject({ type: z.literal('sanitizer.config') }));
/** The frame's stylesheets may generate text: the background inserts the user-origin sheet of src/sanitizer/generated-style.ts (fixed text; the message carries none). */
export const SanitizerStyleSchema = z.lazy(() => z.strictObject({ type: z.literal('sanitizer.style') }));
export const SanitizerRemovedSchema = z.lazy(() => z.strictObject({
  type: z.literal('sanitizer.removed'),
  removals: z
    .array(
      z.strictObject({
        rule: SanitizerRuleSchema,
        count: z.number().check(z.int(), z.positive(), z.lte(100_000)),
        chars: z.number().check(z.int(), z.nonnegative(), z.lte(100_000_000)),
      }),
    )
    .check(z.minLength(1), z.maxLength(SanitizerRuleSchema.options.length)),
}));
export const SANITIZER_REVIEW_MAX_CHARS = 4_000;
export const SanitizerReviewSchema = z.lazy(() => z.strictObject({ type: z.literal('sanitizer.review'), text: z.string().check(z.minLength(1), z.maxLength(SANITIZER_REVIEW_MAX_CHARS)) }));
export type SanitizerMode = z.infer<typeof SanitizerModeSchema>;
export type SanitizerRemovedMessage = z.infer<typeof SanitizerRemovedSchema>;
/** Answers: the mode for this tab (`off` outside guarded tabs or with no task), and a review's removals (null: no review, keep the deterministic result). */
export const SanitizerConfigResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), mode: SanitizerModeSchema }));
export const SanitizerReviewResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), removals: z.nullable(z.array(z.string())), reason: z.optional(z.string()) }));

/** Popup / options → background. Accepted only from the extension's own pages outside guarded tabs. */
export const TaskStartSchema = z.lazy(() => z.strictObject({ type: z.literal('task.start'), request: z.string().check(z.minLength(1), z.maxLength(20_000)) }));
export const TaskFollowUpSchema = z.lazy(() => z.strictObject({ type: z.literal('task.followup'), text: z.string().check(z.minLength(1), z.maxLength(20_000)) }));
export const TaskEndSchema = z.lazy(() => z.strictObject({ type: z.literal('task.end') }));
export const TaskGetSchema = z.lazy(() => z.strictObject({ type: z.literal('task.get') }));
/**
 * A person's answer. `once`/`task` grant the exact action; for an action the Minimizer held,
 * `send-without` sends it minus the flagged data and `send-as-is` sends it unchanged (neither grants).
 */
export const ApprovalAnswerKindSchema = z.enum(['once', 'task', 'deny', 'send-without', 'send-as-is']);
export type ApprovalAnswerKind = z.infer<typeof ApprovalAnswerKindSchema>;
export const ApprovalAnswerSchema = z.lazy(() => z.strictObject({ type: z.literal('approval.answer'), id: Id, answer: ApprovalAnswerKindSchema }));
export const AuditListSchema = z.lazy(() => z.strictObject({
  type: z.literal('audit.list'),
  decision: z.optional(z.enum(['ALLOW', 'BLOCK', 'ASK_USER'])),
  check: z.optional(z.string().check(z.maxLength(64))),
  limit: z.optional(z.number().check(z.int(), z.positive(), z.lte(10_000))),
}));
export const OptionsGetSchema = z.lazy(() => z.strictObject({ type: z.literal('options.get') }));

export const BackendSchema = z.enum(['rules', 'openrouter', 'openai-compatible']);
export const OptionsSchema = z.strictObject({
  backend: z._default(BackendSchema, 'rules'),
  baseUrl: z._default(z.url(), DEFAULT_BASE_URL),
  model: z._default(z.string().check(z.minLength(1), z.maxLength(200)), DEFAULT_MODEL),
  apiKey: z._default(z.string().check(z.maxLength(500)), ''),
  askTimeoutSeconds: z._default(z.number().check(z.int(), z.gte(5), z.lte(3600)), 120),
  guardScope: z._default(z.enum(['all-tabs', 'task-tabs']), 'all-tabs'),
  /** What the agent reads in guarded tabs during a task: `hidden` (deterministic, default), `model`, or `off`. */
  sanitizer: z._default(SanitizerModeSchema, 'hidden'),
  /** Model mode: at most this many model calls per task (then the deterministic result stands). */
  sanitizerModelBudget: z._default(z.number().check(z.int(), z.gte(0), z.lte(1000)), 20),
  /**
   * The Minimizer: `detect` holds an allowed action that carries confidential data the task does not call
   * for; `model` also asks the configured endpoint (falling back to `detect` on any failure).
   */
  minimizer: z._default(z.enum(['off', 'detect', 'model']), 'detect'),
  /** Send such actions without the flagged data instead of asking (only when an exact rewrite exists). */
  minimizeWithoutAsking: z._default(z.boolean(), false),
});
export type Options = z.infer<typeof OptionsSchema>;
export const OptionsSetSchema = z.lazy(() => z.strictObject({ type: z.literal('options.set'), options: OptionsSchema }));
export const OptionsTestSchema = z.lazy(() => z.strictObject({ type: z.literal('options.test'), options: OptionsSchema }));
/** Opens the options page in a window the extension owns (an options tab would be a guarded tab). */
export const OptionsOpenSchema = z.lazy(() => z.strictObject({ type: z.literal('options.open') }));
/** The settings read-only, API key masked: for an extension page that is not a control window (Chrome's own Options entry). */
export const OptionsViewSchema = z.lazy(() => z.strictObject({ type: z.literal('options.view') }));

export type ProposalMessage = z.infer<typeof ProposalMessageSchema>;

/** Opens the audit log's full-page view (read only) in a window the extension owns: a tab would be a guarded tab. */
export const AuditOpenSchema = z.lazy(() => z.strictObject({ type: z.literal('audit.open') }));

/** Values to send instead of the page's own, in the action's shape (see src/minimizer/carried.ts). */
export const RewriteSchema = z.strictObject({
  url: z.optional(z.string()),
  fields: z.optional(z.record(z.string(), z.union([z.string(), z.array(z.string())]))),
  body: z.optional(z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])),
});
export type Rewrite = z.infer<typeof RewriteSchema>;

/** Background → content script: the answer to a proposal. ASK_USER resolves later to ALLOW or BLOCK. */
export const ProposalAnswerSchema = z.strictObject({
  id: Id,
  decision: z.enum(['ALLOW', 'BLOCK']),
  check: z.string(),
  reason: z.string(),
  /** True when a person decided (after ASK_USER), false when the policy decided. */
  askedUser: z.boolean(),
  /** ALLOW on condition: send these values instead (the Minimizer removed confidential data). */
  rewrite: z.optional(RewriteSchema),
});
export type ProposalAnswer = z.infer<typeof ProposalAnswerSchema>;

/**
 * ISOLATED content script ⇄ background on the frame's long-lived port (src/content/worker-port.ts,
 * src/background/intake/port.ts): each message above travels in an envelope numbered by the frame, and its
 * answer comes back under the same number. The envelope is parsed here; the message inside is parsed
 * by BackgroundMessageSchema like any other.
 */
export const WorkerPortRequestSchema = z.strictObject({ rid: Count, message: z.unknown() });
export type WorkerPortRequest = z.infer<typeof WorkerPortRequestSchema>;
export interface WorkerPortAnswer {
  rid: number;
  answer: unknown;
}

/*
 * Background → popup / options: response shapes. The background is trusted, but the pages still parse
 * what they get so a mismatch between the two shows as a clear error rather than a blank screen.
 * Every handler answers `{ ok: true, ... }` or an ErrorResponse.
 */

/** Why a page request failed. `approvals-disabled`: the sender is not the toolbar popup or a window the extension opened. */
export const ErrorCodeSchema = z.enum(['approvals-disabled', 'invalid-message', 'no-task', 'not-found', 'compile-failed', 'internal']);
export const ErrorResponseSchema = z.strictObject({ ok: z.literal(false), code: ErrorCodeSchema, error: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

export const TargetsSchema = DecisionRecordSchema.shape.targets;

/**
 * The active task: the one shape the background keeps in IndexedDB (src/background/task/records.ts) and
 * rebuilds its memory from; the popup sees the part `TaskViewSchema` picks.
 */
export const ActiveTaskSchema = z.strictObject({
  taskId: z.string().check(z.minLength(1)),
  /** The user's own words (shown in the popup; never written to the audit log). */
  request: z.string(),
  /** Follow-up instructions, in order. */
  followUps: z.array(z.string()),
  /** The policy, grants included (grants are part of TaskPolicy). */
  policy: TaskPolicySchema,
  state: EvalStateSchema,
  /** Report of the latest compile (the start, or the latest follow-up that changed the policy). */
  report: CompileReportSchema,
  startedAt: Count,
  /** For guard scope `task-tabs`: the task's tab and the tabs and popups it opened. */
  taskTabIds: z.array(z.number().check(z.int())),
  /**
   * For guard scope `task-tabs`: the tabs known to be outside the task (open when it started, opened by
   * the user or from such a tab since). Every other tab is guarded, so a tab a task page opens is guarded
   * from its first request, before the worker has heard of it. A task stored without it guards every tab.
   */
  outsideTabIds: z._default(z.array(z.number().check(z.int())), []),
  /**
   * Domains the evaluator allowed a consequential action to this task. The network floor lets
   * data-bearing requests through to these (and only these, plus the policy's own write targets).
   */
  floorWriteDomains: z.array(z.string()),
  /**
   * The data-lane taint: session data the guarded pages showed or the agent typed (bounded and ordered
   * by `mergeTaint`). Stored with the task so a worker restart loses none of it.
   */
  taint: z.optional(z.array(TaintTokenSchema)),
  /** What the taint's bound left out: one network-floor filter each, nothing else (src/taint/tokens.ts, spillOver). */
  taintOverflow: z.optional(z.array(TaintTokenSchema)),
  /**
   * The dependency ledger's outcomes (src/background/floor/dependency-floor.ts): sites it refused, whether the
   * task's budget is spent, and the ports the guarded tabs reached named sites on. The floor reads them.
   * `counts`: what the ledger has counted (src/taint/ledger.ts, LedgerCounts), so a worker restart keeps
   * every budget and stream; a task stored without them starts counting again.
   */
  ledger: z.optional(
    z.strictObject({
      refusedSites: z.array(z.string()),
      refusesAll: z.boolean(),
      namedPorts: z.array(z.number().check(z.int(), z.positive())),
      counts: z.optional(
        z.strictObject({
          total: Count,
          sites: z.array(
            z.strictObject({
              site: z.string(),
              spent: Count,
              urls: z.array(z.string()),
              seen: z.array(z.string()),
              stream: z.string(),
              slots: z.array(z.tuple([z.string(), z.string()])),
              runs: z.optional(z.array(z.tuple([z.string(), z.array(z.string())]))),
            }),
          ),
          across: z.optional(
            z.strictObject({ seen: z.array(z.string()), stream: z.string(), slots: z.array(z.tuple([z.string(), z.string()])), runs: z.optional(z.array(z.tuple([z.string(), z.array(z.string())]))) }),
          ),
        }),
      ),
    }),
  ),
});
export type ActiveTask = z.infer<typeof ActiveTaskSchema>;

/** What the popup shows of the active task; `turns` = how many user turns were compiled (1 = the start only). */
export const TaskViewSchema = z.lazy(() => z.extend(z.pick(ActiveTaskSchema, { taskId: true, startedAt: true, policy: true, report: true, request: true, followUps: true }), {
  turns: z.number().check(z.int(), z.positive()),
}));
export type TaskView = z.infer<typeof TaskViewSchema>;

/** An ASK_USER waiting for a person. `dataView` is redacted and bounded by the background. */
export const PendingApprovalSchema = z.lazy(() => z.strictObject({
  id: Id,
  tool: z.string(),
  capability: z.string(),
  riskClass: RiskClassSchema,
  targets: TargetsSchema,
  /** Where the action goes: the URL (or host) of the request, form action or navigation. */
  destination: z.string(),
  /** The check that asked and its reason in words, the rule behind it, and what the classifier read. */
  check: z.enum(CHECKS),
  reason: z.string(),
  ruleRef: z.optional(RuleRefSchema),
  classifierLayer: z.optional(z.enum(CLASSIFIER_LAYERS)),
  basis: z.optional(z.string()),
  /** The web action and object the call was read as, so the person (and a test's simulated user) sees what it does. */
  action: z.optional(RecordActionSchema),
  dataView: z.string().check(z.maxLength(4_000)),
  /** Set when the Minimizer asked: whether "Send without it" can rebuild the action exactly. */
  minimizable: z.optional(z.boolean()),
  createdAt: Count,
  /** When the ask times out to BLOCK (ms since epoch). */
  expiresAt: Count,
}));
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

/** Answer to task.start, task.followup, task.end and task.get: the whole state the popup shows. */
export const TaskStateResponseSchema = z.lazy(() => z.strictObject({
  ok: z.literal(true),
  task: z.nullable(TaskViewSchema),
  /** Set when the background had to end a task on its own (e.g. its stored state could not be read after an update). */
  notice: z.optional(z.string()),
  pending: z.array(PendingApprovalSchema),
  /** False when this sender may not answer approvals (e.g. a copy of the popup inside a guarded tab). */
  approvalsAllowed: z.boolean(),
  /** The limits the organisation set by enterprise policy, in words (empty: none). */
  org: z._default(z.array(z.string()), []),
}));
export type TaskStateResponse = z.infer<typeof TaskStateResponseSchema>;

export const AuditEntrySchema = z.strictObject({
  id: z.string(),
  at: Count,
  taskId: z.nullable(z.string()),
  record: DecisionRecordSchema,
  /** Set when a person (or the timeout) settled an ASK_USER. */
  answer: z.optional(z.enum(['once', 'task', 'deny', 'timeout', 'send-without', 'send-as-is', 'minimized'])),
  layer: z.optional(z.enum(['isolated', 'main', 'network', 'guard', 'page'])),
  /** Redacted destination (URL without query values) when the action had one. */
  destination: z.optional(z.string()),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
/** Answer to audit.list: newest first. */
export const AuditListResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), entries: z.array(AuditEntrySchema) }));

/** Answer to options.get and options.set (the stored options; the API key only ever goes to extension pages). */
export const OptionsResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), options: OptionsSchema }));
/** Answer to options.test: success with a short description (e.g. the model answered), or an ErrorResponse with the exact failure. */
export const OptionsTestResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true), message: z.string() }));

/** Answer to the messages that only report or act (approval.answer, options.open, sanitizer.removed). */
export const OkResponseSchema = z.lazy(() => z.strictObject({ ok: z.literal(true) }));

/**
 * The protocol map: each message type, the request the receiver parses and the response it answers
 * (or an ErrorResponse). The background's handler helper (src/background/intake/handlers.ts) checks every
 * answer against it; extension pages parse what they get with it (src/ui/client.ts).
 */
export const MESSAGES = {
  proposal: { request: ProposalMessageSchema, response: ProposalAnswerSchema },
  'taint.report': { request: TaintReportSchema, response: TaintReportResponseSchema },
  'sanitizer.config': { request: SanitizerConfigSchema, response: SanitizerConfigResponseSchema },
  'sanitizer.removed': { request: SanitizerRemovedSchema, response: OkResponseSchema },
  'sanitizer.review': { request: SanitizerReviewSchema, response: SanitizerReviewResponseSchema },
  'sanitizer.style': { request: SanitizerStyleSchema, response: OkResponseSchema },
  'task.start': { request: TaskStartSchema, response: TaskStateResponseSchema },
  'task.followup': { request: TaskFollowUpSchema, response: TaskStateResponseSchema },
  'task.end': { request: TaskEndSchema, response: TaskStateResponseSchema },
  'task.get': { request: TaskGetSchema, response: TaskStateResponseSchema },
  'approval.answer': { request: ApprovalAnswerSchema, response: OkResponseSchema },
  'audit.list': { request: AuditListSchema, response: AuditListResponseSchema },
  'options.get': { request: OptionsGetSchema, response: OptionsResponseSchema },
  'options.set': { request: OptionsSetSchema, response: OptionsResponseSchema },
  'options.test': { request: OptionsTestSchema, response: OptionsTestResponseSchema },
  'options.open': { request: OptionsOpenSchema, response: OkResponseSchema },
  'options.view': { request: OptionsViewSchema, response: OptionsResponseSchema },
  'audit.open': { request: AuditOpenSchema, response: OkResponseSchema },
} as const;
export type MessageType = keyof typeof MESSAGES;
export type Request<T extends MessageType> = z.infer<(typeof MESSAGES)[T]['request']>;
/** What the background answers a message of type T: its response, or why it could not. */
export type Reply<T extends MessageType> = z.infer<(typeof MESSAGES)[T]['response']> | ErrorResponse;

/** Every request the background accepts: one of the map's requests, told apart by `type`. */
export type BackgroundMessage = { [T in MessageType]: Request<T> }[MessageType];

const MessageTypeSchema = z.looseObject({ type: z.enum(Object.keys(MESSAGES) as [MessageType, ...MessageType[]]) });

/**
 * The receiver's one parse: the type the request names, then the whole request by that type's own strict
 * schema (as a discriminated union over the map would, without building every type's schema to parse one).
 */
export function parseBackgroundMessage(raw: unknown): { success: true; data: BackgroundMessage } | { success: false; error: z.core.$ZodError } {
  const typed = MessageTypeSchema.safeParse(raw);
  if (!typed.success) return typed;
  const parsed = MESSAGES[typed.data.type].request.safeParse(raw);
  return parsed.success ? { success: true, data: parsed.data as BackgroundMessage } : parsed;
}

/**
 * How a content script sends a message of type T: the request as the map types it; the answer is what
 * the background's handler returned (checked there against the map), or undefined when no background
 * answered. Content scripts load on every page and carry no zod: they read answers structurally.
 */
export type Send<T extends MessageType> = (message: Request<T>) => Promise<Reply<T> | undefined>;

/** Messages from the extension's own pages (popup, options, control windows); the rest come from content scripts. */
export type PageMessageType = Exclude<MessageType, 'proposal' | 'taint.report' | `sanitizer.${string}`>;
