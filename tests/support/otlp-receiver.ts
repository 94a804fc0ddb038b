import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import protobuf from 'protobufjs';

/**
 * A test OTLP/HTTP logs receiver on 127.0.0.1 that checks every payload against the official
 * opentelemetry-proto definitions (vendored in ./opentelemetry-proto) in OTLP's JSON mapping: known
 * lowerCamelCase fields only, the right JSON type for each protobuf type (64-bit integers as decimal
 * strings or numbers, enums as known integers, one member per oneof), then a protobuf encode/decode
 * round trip. A payload that fails is answered 400 and kept in `errors`.
 */

const PROTO_DIR = join(import.meta.dirname, 'opentelemetry-proto');

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto');
  root.resolveAll();
  return root;
}

export const EXPORT_LOGS_REQUEST = loadRoot().lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64']);
const UINT64 = new Set(['uint64', 'fixed64']);
/** OTLP writes trace and span ids in hex, not base64 (the one exception to the protobuf JSON mapping). */
const HEX_BYTES = new Set(['traceId', 'spanId']);

function checkScalar(field: protobuf.Field, value: unknown, at: string): string[] {
  const t = field.type;
  const bad = (what: string) => [`${at}: ${what} (${t}) expected, got ${JSON.stringify(value)}`];
  if (field.resolvedType instanceof protobuf.Type) return checkMessage(field.resolvedType, value, at);
  if (field.resolvedType instanceof protobuf.Enum) {
    return typeof value === 'number' && Object.values(field.resolvedType.values).includes(value) ? [] : bad('a known enum number');
  }
  if (t === 'string') return typeof value === 'string' ? [] : bad('a string');
  if (t === 'bool') return typeof value === 'boolean' ? [] : bad('a boolean');
  if (t === 'double' || t === 'float') return typeof value === 'number' ? [] : bad('a number');
  const digits = (unsigned: boolean) => (typeof value === 'number' && Number.isInteger(value) && (!unsigned || value >= 0)) || (typeof value === 'string' && (unsigned ? /^\d+$/ : /^-?\d+$/).test(value));
  if (INT32.has(t) || INT64.has(t)) return digits(false) ? [] : bad('an integer');
  if (UINT32.has(t) || UINT64.has(t)) return digits(true) ? [] : bad('an unsigned integer');
  if (t === 'bytes') {
    const ok = typeof value === 'string' && (HEX_BYTES.has(field.name) ? /^(?:[0-9a-fA-F]{2})*$/ : /^[A-Za-z0-9+/_-]*={0,2}$/).test(value);
    return ok ? [] : bad(HEX_BYTES.has(field.name) ? 'hex' : 'base64');
  }
  return bad('a supported type');
}

function checkMessage(type: protobuf.Type, value: unknown, at: string): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at}: an object (${type.name}) expected`];
  const errors: string[] = [];
  const present = Object.keys(value);
  for (const key of present) {
    const field = type.fields[key];
    if (field === undefined) {
      errors.push(`${at}.${key}: no such field in ${type.fullName}`);
      continue;
    }
    const v = (value as Record<string, unknown>)[key];
    if (field.repeated) {
      if (!Array.isArray(v)) errors.push(`${at}.${key}: an array expected`);
      else v.forEach((item, i) => errors.push(...checkScalar(field, item, `${at}.${key}[${i}]`)));
    } else {
      errors.push(...checkScalar(field, v, `${at}.${key}`));
    }
  }
  for (const oneof of type.oneofsArray) {
    const set = oneof.oneof.filter((name) => present.includes(name));
    if (set.length > 1) errors.push(`${at}: more than one of oneof ${oneof.name} (${set.join(', ')})`);
  }
  return errors;
}

/** The problems of one `ExportLogsServiceRequest` in OTLP JSON; empty when it is valid. */
export function otlpLogsErrors(payload: unknown): string[] {
  const errors = checkMessage(EXPORT_LOGS_REQUEST, payload, '$');
  if (errors.length > 0) return errors;
  // The same payload through protobuf's binary form: what a collector decodes.
  const message = EXPORT_LOGS_REQUEST.fromObject(payload as Record<string, unknown>);
  const decoded = EXPORT_LOGS_REQUEST.toObject(EXPORT_LOGS_REQUEST.decode(EXPORT_LOGS_REQUEST.encode(message).finish()), { longs: String, enums: Number });
  const count = (o: unknown) => ((o as { resourceLogs?: { scopeLogs?: { logRecords?: unknown[] }[] }[] }).resourceLogs ?? []).flatMap((r) => r.scopeLogs ?? []).flatMap((s) => s.logRecords ?? []).length;
  return count(decoded) === count(payload) ? [] : ['$: records lost in the protobuf round trip'];
}

export interface ReceivedRecord {
  instanceId: string;
  seq: string;
  eventName: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>/v1/logs` */
  url: string;
  records: ReceivedRecord[];
  /** Every request: status answered and how many records it carried. */
  requests: { status: number; records: number; origin: string | undefined }[];
  errors: string[];
  /** Answer the next `n` requests with `status` (a collector that is down). */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}

function attributeValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return String(v.intValue);
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(attributeValue);
  return v;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let failing = 0;
  let failStatus = 503;
  const receiver: Omit<OtlpReceiver, 'url' | 'close'> & { failNext: OtlpReceiver['failNext'] } = {
    records: [],
    requests: [],
    errors: [],
    failNext(n, status = 503) {
      failing = n;
      failStatus = status;
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const origin = req.headers.origin;
      const answer = (status: number, records: number, body = '{}') => {
        receiver.requests.push({ status, records, origin });
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      };
      if (req.method !== 'POST' || req.url !== '/v1/logs') return answer(404, 0);
      if (failing > 0) {
        failing--;
        return answer(failStatus, 0);
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        receiver.errors.push(`content-type ${req.headers['content-type']}`);
        return answer(415, 0);
      }
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        receiver.errors.push('not JSON');
        return answer(400, 0);
      }
      const errors = otlpLogsErrors(payload);
      if (errors.length > 0) {
        receiver.errors.push(...errors);
        return answer(400, 0);
      }
      const request = payload as { resourceLogs: { resource?: { attributes?: { key: string; value: Record<string, unknown> }[] }; scopeLogs: { logRecords?: { eventName?: string; attributes?: { key: string; value: Record<string, unknown> }[] }[] }[] }[] };
      let n = 0;
      for (const rl of request.resourceLogs) {
        const instanceId = String(attributeValue(rl.resource?.attributes?.find((a) => a.key === 'service.instance.id')?.value ?? {}));
        for (const record of rl.scopeLogs.flatMap((s) => s.logRecords ?? [])) {
          const attributes = Object.fromEntries((record.attributes ?? []).map((a) => [a.key, attributeValue(a.value)]));
          receiver.records.push({ instanceId, seq: String(attributes['agentsfence.audit.seq'] ?? ''), eventName: record.eventName ?? '', attributes });
          n++;
        }
      }
      answer(200, n, '{"partialSuccess":{}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...receiver,
    url: `http://127.0.0.1:${port}/v1/logs`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
