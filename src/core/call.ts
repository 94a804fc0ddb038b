import { z } from 'zod';

/**
 * The universal action shape `(t, a)`. Browser actions are tool calls named `browser.*`.
 * `data` carries content the agent read (page text, tool output) for the audit trail only:
 * the classifier and evaluator never look at it, so it can never grant authority.
 * The schema is strict: a proposal that carries its own grant, decision or policy is malformed.
 */
export const ToolCallSchema = z
  .object({
    tool: z.string().min(1).max(256),
    args: z.record(z.string(), z.unknown()),
    data: z.unknown().optional(),
  })
  .strict();
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Names of the browser actions the extension proposes. */
export const BROWSER_TOOLS = {
  navigate: 'browser.navigate',
  formSubmit: 'browser.form_submit',
  request: 'browser.request',
  upload: 'browser.upload',
  download: 'browser.download',
} as const;

export const RequestKindSchema = z.enum(['fetch', 'xhr', 'beacon', 'websocket', 'eventsource', 'image', 'ping', 'frame', 'other']);

/** Argument shapes of the browser tools (parsed by the classifier; a mismatch classifies UNKNOWN). */
export const NavigateArgsSchema = z.object({ url: z.string().min(1), opener: z.string().optional() }).strict();
export const RequestArgsSchema = z
  .object({
    method: z.string().min(1).max(16),
    url: z.string().min(1),
    kind: RequestKindSchema.optional(),
    /** Bounded view of the body: a string, or a parsed JSON/form object. */
    body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
    bodyBytes: z.number().int().nonnegative().optional(),
  })
  .strict();
export const FormSubmitArgsSchema = z
  .object({
    url: z.string().min(1),
    method: z.string().min(1).max(16),
    fields: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    fieldTypes: z.record(z.string(), z.string()).optional(),
    submitText: z.string().max(512).optional(),
    formId: z.string().max(256).optional(),
  })
  .strict();
export const UploadArgsSchema = z.object({ url: z.string().min(1), files: z.array(z.string().min(1)).min(1) }).strict();
export const DownloadArgsSchema = z.object({ url: z.string().min(1), path: z.string().min(1) }).strict();
