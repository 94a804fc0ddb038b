import { z } from './zod';

/**
 * The universal action shape `(t, a)`. Browser actions are tool calls named `browser.*`.
 * `data` carries content the agent read (page text, tool output) for the audit trail only:
 * the classifier and evaluator never look at it, so it can never grant authority.
 * The schema is strict: a proposal that carries its own grant, decision or policy is malformed.
 */
export const ToolCallSchema = z.strictObject({
  tool: z.string().check(z.minLength(1), z.maxLength(256)),
  args: z.record(z.string(), z.unknown()),
  data: z.optional(z.unknown()),
});
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
export type RequestKind = z.infer<typeof RequestKindSchema>;

/** Argument shapes of the browser tools (parsed by the classifier; a mismatch classifies UNKNOWN), each built on its first parse. */
export const NavigateArgsSchema = z.lazy(() => z.strictObject({ url: z.string().check(z.minLength(1)), opener: z.optional(z.string()) }));
export const RequestArgsSchema = z.lazy(() =>
  z.strictObject({
    method: z.string().check(z.minLength(1), z.maxLength(16)),
    url: z.string().check(z.minLength(1)),
    kind: z.optional(RequestKindSchema),
    /** Bounded view of the body: a string, or a parsed JSON/form object. */
    body: z.optional(z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])),
    bodyBytes: z.optional(z.number().check(z.int(), z.nonnegative())),
  }),
);
export const FormSubmitArgsSchema = z.lazy(() =>
  z.strictObject({
    url: z.string().check(z.minLength(1)),
    method: z.string().check(z.minLength(1), z.maxLength(16)),
    fields: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    fieldTypes: z.optional(z.record(z.string(), z.string())),
    submitText: z.optional(z.string().check(z.maxLength(512))),
    formId: z.optional(z.string().check(z.maxLength(256))),
    /** The fields were cut at the view limit: a recipient or an amount may sit in the part not read. */
    fieldsCut: z.optional(z.literal(true)),
  }),
);
export const UploadArgsSchema = z.lazy(() => z.strictObject({ url: z.string().check(z.minLength(1)), files: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)) }));
export const DownloadArgsSchema = z.lazy(() => z.strictObject({ url: z.string().check(z.minLength(1)), path: z.string().check(z.minLength(1)) }));
