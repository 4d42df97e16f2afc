// The JSON forms of the reference's special protobuf messages:
// - Time: RFC 3339 in UTC to the second (`2006-01-02T15:04:05Z`); on the wire {seconds, nanos}
//   where the reference writes nanos 0 (time_proto.go: JSON only carries seconds);
// - MicroTime: RFC 3339 with six fraction digits (`2006-01-02T15:04:05.000000Z`), {seconds, nanos};
// - Quantity: its string; IntOrString: a number or a string ({type 0|1, intVal, strVal}, all three
//   written as the reference's marshaller writes them);
// - RawExtension and FieldsV1: the raw bytes are the JSON text of the embedded value.
// Go's zero time (-62135596800 s) is JSON null: the field is left out.

import { API_BODY_LIMITS } from '../util/parse-limits.js';
import { parseJsonBounded } from '../util/bounded-json.js';

export const GO_ZERO_TIME_SECONDS = -62135596800;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
/** 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z: what Go's RFC 3339 marshaller writes. */
const MAX_SECONDS = 253402300799;

export interface Timestamp {
  readonly seconds: number;
  readonly nanos: number;
}

/** Lists repeat the same few timestamps: parsed and formatted ones are kept (bounded). */
const CACHE_LIMIT = 4096;
const parsed = new Map<string, Timestamp>();
const formatted = new Map<number, string>();

function remember<K, V>(m: Map<K, V>, k: K, v: V): V {
  if (m.size >= CACHE_LIMIT) m.clear();
  m.set(k, v);
  return v;
}

export function parseTime(value: unknown, what: string): Timestamp {
  if (typeof value !== 'string') throw new Error(`${what}: expected an RFC 3339 time string`);
  return parsed.get(value) ?? remember(parsed, value, parseTimeText(value, what));
}

function parseTimeText(value: string, what: string): Timestamp {
  const m = RFC3339.exec(value);
  const ms =
    m === null
      ? NaN
      : Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8]?.toUpperCase() ?? 'Z'}`);
  if (m === null || Number.isNaN(ms))
    throw new Error(`${what}: ${JSON.stringify(value.slice(0, 64))} is not an RFC 3339 time`);
  const nanos = Number((m[7] ?? '').padEnd(9, '0'));
  return { seconds: Math.floor(ms / 1000), nanos };
}

function checkRange(t: Timestamp, what: string): void {
  if (
    !Number.isSafeInteger(t.seconds) ||
    t.seconds < GO_ZERO_TIME_SECONDS ||
    t.seconds > MAX_SECONDS
  ) {
    throw new Error(`${what}: ${t.seconds} seconds is outside the years 1 to 9999`);
  }
  if (!Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos > 999_999_999)
    throw new Error(`${what}: nanos ${t.nanos} is outside 0 to 999999999`);
}

/** `YYYY-MM-DDTHH:MM:SS` (toISOString pads years 1 to 9999 to four digits). */
function isoSeconds(seconds: number): string {
  return (
    formatted.get(seconds) ??
    remember(formatted, seconds, new Date(seconds * 1000).toISOString().slice(0, 19))
  );
}

/** The JSON of a Time; undefined for Go's zero time. */
export function formatTime(t: Timestamp, what: string): string | undefined {
  checkRange(t, what);
  if (t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0) return undefined;
  return `${isoSeconds(t.seconds)}Z`;
}

/** The JSON of a MicroTime; undefined for Go's zero time. */
export function formatMicroTime(t: Timestamp, what: string): string | undefined {
  checkRange(t, what);
  if (t.seconds === GO_ZERO_TIME_SECONDS && t.nanos === 0) return undefined;
  return `${isoSeconds(t.seconds)}.${String(Math.floor(t.nanos / 1000)).padStart(6, '0')}Z`;
}

/**
 * Raw JSON texts read lately, with their value: objects repeat the same managedFields (FieldsV1)
 * texts, and a text within API_BODY_LIMITS once is within them again, so a repeated text is a
 * copy of the value read before (copying a small tree costs a quarter of JSON.parse). Each
 * caller gets its own copy: decoded objects are the caller's to change.
 */
const readBefore = new Map<string, unknown>();

function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = copyJson((v as Record<string, unknown>)[k]);
    // JSON.parse makes `__proto__` an own key; an assignment would set the prototype instead.
    if (k === '__proto__')
      Object.defineProperty(out, k, {
        value: x,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[k] = x;
  }
  return out;
}

export function parseRawJson(bytes: Uint8Array, what: string): unknown {
  return parseRawJsonText(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    what,
  );
}

/** parseRawJson of bytes already decoded as UTF-8. */
export function parseRawJsonText(text: string, what: string): unknown {
  const known = readBefore.get(text);
  if (known !== undefined) return copyJson(known);
  let value: unknown;
  try {
    value = parseJsonBounded(text, { limits: API_BODY_LIMITS, source: what });
  } catch (err) {
    throw new Error(
      `${what}: the raw bytes are not JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (text.length <= 4096) remember(readBefore, text, copyJson(value));
  return value;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Go's encoding/json reads []byte as standard base64 with padding. */
export function parseBase64(value: unknown, what: string): Buffer {
  if (typeof value !== 'string' || !BASE64.test(value))
    throw new Error(`${what}: expected a base64 string (standard alphabet, padded)`);
  return Buffer.from(value, 'base64');
}
