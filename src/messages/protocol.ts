import { z } from 'zod';
import { ToolCallSchema } from '../core/call';

/**
 * The one message protocol map. Every message that crosses a boundary (content script → background,
 * popup/options → background) is parsed at the receiver with these strict schemas. Content scripts and
 * pages are untrusted: anything that does not parse is BLOCKed and audited.
 */

/** Content script → background: an action the page or agent is about to take. */
export const ProposalMessageSchema = z
  .object({
    type: z.literal('proposal'),
    /** Random id chosen by the content script; echoed in the answer. */
    id: z.string().min(1).max(64),
    call: ToolCallSchema,
    /** Which layer saw it: the ISOLATED submit listener or a MAIN-world hook. */
    layer: z.enum(['isolated', 'main']),
  })
  .strict();

/** Popup / options → background. Accepted only from the extension's own pages outside guarded tabs. */
export const TaskStartSchema = z.object({ type: z.literal('task.start'), request: z.string().min(1).max(20_000) }).strict();
export const TaskFollowUpSchema = z.object({ type: z.literal('task.followup'), text: z.string().min(1).max(20_000) }).strict();
export const TaskEndSchema = z.object({ type: z.literal('task.end') }).strict();
export const TaskGetSchema = z.object({ type: z.literal('task.get') }).strict();
export const ApprovalAnswerSchema = z
  .object({ type: z.literal('approval.answer'), id: z.string().min(1).max(64), answer: z.enum(['once', 'task', 'deny']) })
  .strict();
export const AuditListSchema = z
  .object({
    type: z.literal('audit.list'),
    decision: z.enum(['ALLOW', 'BLOCK', 'ASK_USER']).optional(),
    check: z.string().max(64).optional(),
    limit: z.number().int().positive().max(10_000).optional(),
  })
  .strict();
export const OptionsGetSchema = z.object({ type: z.literal('options.get') }).strict();

export const BackendSchema = z.enum(['rules', 'openrouter', 'openai-compatible']);
export const OptionsSchema = z
  .object({
    backend: BackendSchema.default('rules'),
    baseUrl: z.url().default('https://openrouter.ai/api/v1'),
    model: z.string().min(1).max(200).default('openai/gpt-4o-mini'),
    apiKey: z.string().max(500).default(''),
    askTimeoutSeconds: z.number().int().min(5).max(3600).default(120),
    guardScope: z.enum(['all-tabs', 'task-tabs']).default('all-tabs'),
  })
  .strict();
export type Options = z.infer<typeof OptionsSchema>;
export const OptionsSetSchema = z.object({ type: z.literal('options.set'), options: OptionsSchema }).strict();
export const OptionsTestSchema = z.object({ type: z.literal('options.test'), options: OptionsSchema }).strict();

export const BackgroundMessageSchema = z.discriminatedUnion('type', [
  ProposalMessageSchema,
  TaskStartSchema,
  TaskFollowUpSchema,
  TaskEndSchema,
  TaskGetSchema,
  ApprovalAnswerSchema,
  AuditListSchema,
  OptionsGetSchema,
  OptionsSetSchema,
  OptionsTestSchema,
]);
export type BackgroundMessage = z.infer<typeof BackgroundMessageSchema>;
export type ProposalMessage = z.infer<typeof ProposalMessageSchema>;

/** Background → content script: the answer to a proposal. ASK_USER resolves later to ALLOW or BLOCK. */
export const ProposalAnswerSchema = z
  .object({
    id: z.string().min(1).max(64),
    decision: z.enum(['ALLOW', 'BLOCK']),
    check: z.string(),
    reason: z.string(),
    /** True when a person decided (after ASK_USER), false when the policy decided. */
    askedUser: z.boolean(),
  })
  .strict();
export type ProposalAnswer = z.infer<typeof ProposalAnswerSchema>;
