import type { StoredAuditEntry } from '../background/task/store';

/**
 * Audit entries as OTLP/HTTP JSON log records (an `ExportLogsServiceRequest` for `POST /v1/logs`), in
 * the protobuf JSON mapping OTLP specifies: lowerCamelCase field names, 64-bit integers as decimal
 * strings, enums as numbers. The entries are the audit log's own (already redacted: no field values,
 * no query values, secrets masked). The test receiver checks every payload against the official
 * opentelemetry-proto definitions (tests/support/otlp-receiver.ts).
 */

export interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string;
  arrayValue?: { values: OtlpAnyValue[] };
}
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
export interface OtlpLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  eventName: string;
  body: OtlpAnyValue;
  attributes: OtlpKeyValue[];
}
export interface OtlpLogsRequest {
  resourceLogs: { resource: { attributes: OtlpKeyValue[] }; scopeLogs: { scope: { name: string; version: string }; logRecords: OtlpLogRecord[] }[] }[];
}

/** Who is sending: `service.instance.id` is a random id kept with this profile's audit log. */
export interface OtlpSource {
  instanceId: string;
  version: string;
}

/** The attribute naming an entry: with `service.instance.id`, an entry's identity at the collector. */
export const SEQ_ATTRIBUTE = 'agentsfence.audit.seq';

// SeverityNumber (logs.proto): INFO = 9, INFO2 = 10, WARN = 13.
const SEVERITY: Record<StoredAuditEntry['record']['decision'], { number: number; text: string }> = {
  ALLOW: { number: 9, text: 'ALLOW' },
  ASK_USER: { number: 10, text: 'ASK_USER' },
  BLOCK: { number: 13, text: 'BLOCK' },
};

const str = (key: string, value: string): OtlpKeyValue => ({ key, value: { stringValue: value } });
const list = (key: string, values: readonly string[]): OtlpKeyValue => ({ key, value: { arrayValue: { values: values.map((v) => ({ stringValue: v })) } } });
const nanos = (ms: number) => `${Math.max(0, Math.trunc(ms))}000000`;

export function otlpLogRecord(entry: StoredAuditEntry, observedAt: number): OtlpLogRecord {
  const r = entry.record;
  const severity = SEVERITY[r.decision];
  const attributes: OtlpKeyValue[] = [
    { key: SEQ_ATTRIBUTE, value: { intValue: String(entry.seq ?? 0) } },
    str('agentsfence.decision', r.decision),
    str('agentsfence.check', r.check),
    str('agentsfence.reason', r.reason),
    str('agentsfence.tool', r.tool),
    str('agentsfence.capability', r.capability),
    str('agentsfence.risk_class', r.riskClass),
    list('agentsfence.targets.domains', r.targets.domains),
    list('agentsfence.targets.recipients', r.targets.recipients),
  ];
  if (r.ruleRef !== undefined) attributes.push(str('agentsfence.rule_ref', r.ruleRef));
  if (entry.taskId !== null) attributes.push(str('agentsfence.task_id', entry.taskId));
  if (entry.answer !== undefined) attributes.push(str('agentsfence.answer', entry.answer));
  if (entry.layer !== undefined) attributes.push(str('agentsfence.layer', entry.layer));
  if (entry.destination !== undefined) attributes.push(str('agentsfence.destination', entry.destination));
  return {
    timeUnixNano: nanos(entry.at),
    observedTimeUnixNano: nanos(observedAt),
    severityNumber: severity.number,
    severityText: severity.text,
    eventName: 'agentsfence.decision',
    body: { stringValue: `${r.decision} ${r.tool} (${r.check}): ${r.reason}` },
    attributes,
  };
}

/**
 * One request for a batch. `rotatedOut`: entries the audit log's bound dropped before they could be
 * shipped (the collector was unreachable for that long) — sent as a WARN record of its own, so a gap
 * at the collector is stated, never silent.
 */
export function otlpLogsRequest(entries: readonly StoredAuditEntry[], source: OtlpSource, observedAt: number, rotatedOut = 0): OtlpLogsRequest {
  const logRecords = entries.map((e) => otlpLogRecord(e, observedAt));
  if (rotatedOut > 0) {
    logRecords.unshift({
      timeUnixNano: nanos(observedAt),
      observedTimeUnixNano: nanos(observedAt),
      severityNumber: 13,
      severityText: 'WARN',
      eventName: 'agentsfence.audit_gap',
      body: { stringValue: `${rotatedOut} audit entries were rotated out of the local log before they could be shipped` },
      attributes: [{ key: 'agentsfence.audit.rotated_out', value: { intValue: String(rotatedOut) } }],
    });
  }
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'agentsfence'), str('service.version', source.version), str('service.instance.id', source.instanceId)] },
        scopeLogs: [{ scope: { name: 'agentsfence.audit', version: source.version }, logRecords }],
      },
    ],
  };
}
