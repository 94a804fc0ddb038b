import { z } from '../../core/zod';
import { DecisionRecordSchema } from '../../core/decision';
import { approvalKeyOf } from '../../core/grants';
import { migratePolicy } from '../../core/policy';
import { ActiveTaskSchema, AuditEntrySchema, OptionsSchema, type ActiveTask } from '../../messages/protocol';

/**
 * Every record the background keeps in IndexedDB: its schema, the version it is written with, and the
 * migrations that lift a record an older build wrote. Records are parsed on every read (after
 * migrating), never cast: what an update cannot read is reported as unreadable, and the monitor fails
 * closed on it (an unreadable task ends with an audit entry and a popup notice).
 *
 * Versions:
 *  1 — records without `stateVersion` (every build before this one). Grants may lack `items`, the
 *      compile report has `{what, why}` removals and an optional fallback reason, the control windows
 *      are a bare array.
 *  2 — `stateVersion: 2` in each record; policy version 2 (grants carry `items`); the compile report of
 *      src/compiler/report.ts; control windows as `{ windowIds }`.
 * A change that makes a stored record read differently bumps STATE_VERSION and adds a migration to every
 * kind below, with a fixture of the old record in tests/background/fixtures.
 */
export const STATE_VERSION = 2;

export type { ActiveTask };

/** An ASK_USER waiting for the person. Holds the decision record and a masked view, never the raw call. */
const Count = z.number().check(z.int(), z.nonnegative());

export const StoredApprovalSchema = z.lazy(() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    taskId: z.string().check(z.minLength(1)),
    /** Tool + capability + sorted targets: identical asks share one approval (core/grants.ts approvalKeyOf). */
    deltaKey: z.string(),
    record: DecisionRecordSchema,
    /** Where the action goes (redacted URL or host). */
    destination: z.string(),
    /** What the person needs to see to decide: field names and masked values, bounded. */
    dataView: z.string(),
    /** Set when the Minimizer asked: whether "Send without it" can rebuild the action exactly. */
    minimizable: z.optional(z.boolean()),
    createdAt: Count,
    expiresAt: Count,
    tabId: z.nullable(z.number().check(z.int())),
  }),
);
export type StoredApproval = z.infer<typeof StoredApprovalSchema>;

/**
 * One audit line: the protocol's AuditEntry (without its display id) plus the local extras — the
 * IndexedDB key, the action's field NAMES (never values), the tab and the proposing page's origin.
 */
export const StoredAuditEntrySchema = z.lazy(() => z.extend(z.omit(AuditEntrySchema, { id: true }), {
  seq: z.optional(z.number().check(z.int(), z.positive())),
  fields: z.optional(z.array(z.string())),
  tabId: z.optional(z.number().check(z.int())),
  origin: z.optional(z.string()),
}));
export type StoredAuditEntry = z.infer<typeof StoredAuditEntrySchema>;

export const ControlWindowsSchema = z.strictObject({ windowIds: z.array(z.number().check(z.int())) });

/** A message the popup shows until the next task starts (why the background ended a task on its own). */
export const NoticeSchema = z.strictObject({ text: z.string().check(z.minLength(1)), at: Count });
export type Notice = z.infer<typeof NoticeSchema>;

/** One kind of record: its current schema and, at index n, the step that lifts a version-n record to n + 1. */
export interface RecordKind<T> {
  name: string;
  schema: z.ZodMiniType<T>;
  migrations: Readonly<Record<number, (old: unknown) => unknown>>;
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const identity = (old: unknown): unknown => old;

/** v1 → v2 compile report: `{what, why}` removals, an optional fallback reason; no model calls or prohibitions recorded. */
function migrateReportV1(report: unknown): unknown {
  if (!isObject(report)) return report;
  const removed = Array.isArray(report.removed) ? report.removed.map((r: unknown) => (isObject(r) && 'what' in r ? { ref: r.what, why: r.why } : r)) : report.removed;
  return { modelCalls: 0, prohibitions: [], ...report, removed, fallbackReason: report.fallbackReason ?? null };
}

export const TASK: RecordKind<ActiveTask> = {
  name: 'task',
  schema: ActiveTaskSchema,
  migrations: {
    1: (old) => (isObject(old) ? { ...old, policy: migratePolicy(old.policy), report: migrateReportV1(old.report) } : old),
  },
};

export const APPROVAL: RecordKind<StoredApproval> = {
  name: 'approval',
  schema: StoredApprovalSchema,
  // v1 keys listed empty amounts and quantities; v2 keys are core/grants.ts deltas (as grant ids are).
  migrations: { 1: (old) => (isObject(old) ? { ...old, deltaKey: approvalKeyOf(DecisionRecordSchema.parse(old.record)) } : old) },
};

export const AUDIT_ENTRY: RecordKind<StoredAuditEntry> = { name: 'audit entry', schema: StoredAuditEntrySchema, migrations: { 1: identity } };

export const OPTIONS: RecordKind<z.infer<typeof OptionsSchema>> = { name: 'options', schema: OptionsSchema, migrations: { 1: identity } };

export const CONTROL_WINDOWS: RecordKind<z.infer<typeof ControlWindowsSchema>> = {
  name: 'control windows',
  schema: ControlWindowsSchema,
  migrations: { 1: (old) => (Array.isArray(old) ? { windowIds: old.filter((v) => typeof v === 'number') } : old) },
};

export const NOTICE: RecordKind<Notice> = { name: 'notice', schema: NoticeSchema, migrations: {} };

/** The audit entries up to `shippedSeq` reached the organisation's collector (a 2xx); `instanceId` names this profile there. */
export const CollectorCursorSchema = z.lazy(() => z.strictObject({ shippedSeq: Count, instanceId: z.string().check(z.minLength(1)) }));
export type CollectorCursor = z.infer<typeof CollectorCursorSchema>;
export const COLLECTOR_CURSOR: RecordKind<CollectorCursor> = { name: 'collector cursor', schema: CollectorCursorSchema, migrations: {} };

/** The version a stored value was written with: its `stateVersion`, or 1 for a record from before versions. */
function versionOf(raw: unknown): number {
  return isObject(raw) && typeof raw.stateVersion === 'number' ? raw.stateVersion : 1;
}

/** Read one stored value: migrate it to the current version, then parse it. Never throws. */
export function readRecord<T>(kind: RecordKind<T>, raw: unknown): ReadResult<T> {
  const from = versionOf(raw);
  if (!Number.isInteger(from) || from < 1 || from > STATE_VERSION) return { ok: false, error: `${kind.name} has state version ${String(from)}; this build reads 1 to ${STATE_VERSION}` };
  let value: unknown = raw;
  if (isObject(value)) {
    const { stateVersion: _version, ...rest } = value;
    value = rest;
  }
  try {
    for (let v = from; v < STATE_VERSION; v++) {
      const step = kind.migrations[v];
      if (step === undefined) return { ok: false, error: `${kind.name}: no migration from state version ${v}` };
      value = step(value);
    }
  } catch (err) {
    return { ok: false, error: `${kind.name}: migration failed (${err instanceof Error ? err.message : String(err)})` };
  }
  const parsed = kind.schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue !== undefined && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return { ok: false, error: `${kind.name} does not parse at ${where}: ${issue?.message ?? 'invalid'}`.slice(0, 300) };
}

/**
 * The stored form of a value: tagged with the current version. Not parsed again: the value's type is the
 * schema's, and this is on the path of every decision (σ' and its audit entry).
 */
export function writeRecord<T extends object>(value: T): T & { stateVersion: number } {
  return { ...value, stateVersion: STATE_VERSION };
}
