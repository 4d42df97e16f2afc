// The reference's protobuf wire format for API objects (`application/vnd.kubernetes.protobuf`):
// the 4 magic bytes `k8s\0`, then a runtime.Unknown {typeMeta {apiVersion, kind}, raw (the
// object's message), contentEncoding, contentType}; and watch streams
// (`application/vnd.kubernetes.protobuf;stream=watch`): frames of a 4-byte big-endian length
// followed by a meta/v1 WatchEvent {type, object: RawExtension whose raw is an enveloped object}.
// Encoding and decoding are protobufjs over the reference's generated.proto (see root.ts);
// this file maps the JSON shape onto it (to-proto.ts, read-json.ts).

import protobuf from 'protobufjs';
import { messageFor } from './kinds.js';
import { readJson } from './read-json.js';
import { toProtoValue } from './to-proto.js';
import { META, RUNTIME, requiredType } from './root.js';
import { parseRawJson } from './special-values.js';
import { recordOf } from '../util/json-shape.js';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
/** Objects embedded in objects (a watch event's object): deeper than this is refused. */
const MAX_EMBEDDING = 4;

type Obj = Record<string, unknown>;

/** A body that is not a well-formed protobuf object of the expected kind. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/**
 * True when the reference defines a protobuf message for this kind (so it can be sent as protobuf).
 */
export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined;
}

/**
 * The message bytes of one object (no envelope); throws when the kind has no message or a field
 * does not fit.
 */
export function encodeMessage(obj: Obj, apiVersion: string, kind: string): Uint8Array {
  const t = messageFor(apiVersion, kind);
  if (t === undefined)
    throw new Error(`${apiVersion} ${kind} has no protobuf message in the reference`);
  return t.encode(toProtoValue(t, obj, '', true)).finish();
}

/** `k8s\0` + runtime.Unknown around the object, with the reference's field layout. */
export function encodeEnvelope(obj: Obj, apiVersion: string, kind: string): Buffer {
  return envelope(encodeMessage(obj, apiVersion, kind), apiVersion, kind);
}

function envelope(raw: Uint8Array, apiVersion: string, kind: string): Buffer {
  const unknown = requiredType(`${RUNTIME}.Unknown`)
    .encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })
    .finish();
  return Buffer.concat([PROTOBUF_MAGIC, unknown]);
}

/**
 * The enveloped list `listKind` of items whose messages are already encoded (encodeMessage of
 * each item, made once and shared by every list that returns it): the same bytes as
 * encodeEnvelope of the whole list, since a repeated message field is each item's bytes behind
 * its tag and length. The items are copied once, into the one buffer sent.
 */
export function encodeListEnvelope(
  apiVersion: string,
  listKind: string,
  metadata: Obj,
  items: readonly Uint8Array[],
): Buffer {
  const t = messageFor(apiVersion, listKind);
  const metaField = t?.fields['metadata'];
  const metaType = metaField?.resolvedType;
  const itemsField = t?.fields['items'];
  if (metaField === undefined || !(metaType instanceof protobuf.Type) || itemsField === undefined)
    throw new Error(`${apiVersion} ${listKind} has no protobuf list message in the reference`);
  // Fields in number order, as the reference's marshaller writes them: metadata (1), items (2).
  const meta = protobuf.Writer.create();
  meta
    .uint32((metaField.id << 3) | 2)
    .bytes(metaType.encode(toProtoValue(metaType, metadata, 'metadata')).finish());
  const metaBytes = meta.finish();
  const itemTag = (itemsField.id << 3) | 2;
  let listLen = metaBytes.length;
  for (const item of items) listLen += varintSize(itemTag) + varintSize(item.length) + item.length;
  const [head, tail] = envelopeAround(listLen, apiVersion, listKind);
  const out = Buffer.allocUnsafe(PROTOBUF_MAGIC.length + head.length + listLen + tail.length);
  let pos = PROTOBUF_MAGIC.copy(out, 0);
  pos += Buffer.from(head.buffer, head.byteOffset, head.length).copy(out, pos);
  pos += Buffer.from(metaBytes.buffer, metaBytes.byteOffset, metaBytes.length).copy(out, pos);
  for (const item of items) {
    pos = writeVarint(out, pos, itemTag);
    pos = writeVarint(out, pos, item.length);
    out.set(item, pos);
    pos += item.length;
  }
  out.set(tail, pos);
  return out;
}

/**
 * The runtime.Unknown bytes before and after a raw message of `rawLength` bytes (the reference's
 * layout).
 */
function envelopeAround(
  rawLength: number,
  apiVersion: string,
  kind: string,
): [Uint8Array, Uint8Array] {
  const unknown = requiredType(`${RUNTIME}.Unknown`);
  const typeMeta = unknown.fields['typeMeta'];
  const raw = unknown.fields['raw'];
  const typeMetaType = typeMeta?.resolvedType;
  if (typeMeta === undefined || raw === undefined || !(typeMetaType instanceof protobuf.Type))
    throw new Error('runtime.Unknown has no typeMeta or raw field');
  const head = protobuf.Writer.create();
  head.uint32((typeMeta.id << 3) | 2).bytes(typeMetaType.encode({ apiVersion, kind }).finish());
  head.uint32((raw.id << 3) | 2).uint32(rawLength);
  const tail = unknown.encode({ contentEncoding: '', contentType: '' }).finish();
  return [head.finish(), tail];
}

function varintSize(n: number): number {
  let size = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 128)) size++;
  return size;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  let pos = at;
  let v = n;
  while (v >= 0x80) {
    out[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
}

function fail(what: string, err: unknown): never {
  throw new ProtobufDecodeError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
}

export interface DecodedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly object: Obj;
}

/** The typeMeta and raw message of an envelope. */
function openEnvelope(body: Uint8Array): {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
} {
  if (body.length < 4 || !PROTOBUF_MAGIC.equals(Buffer.from(body.buffer, body.byteOffset, 4))) {
    // The reference's protobuf serializer's words.
    throw new ProtobufDecodeError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  let u: Obj;
  try {
    u = recordOf(requiredType(`${RUNTIME}.Unknown`).decode(body.subarray(4)));
  } catch (err) {
    fail('the runtime.Unknown envelope cannot be read', err);
  }
  const tm = recordOf(u['typeMeta']);
  return {
    apiVersion: typeof tm['apiVersion'] === 'string' ? tm['apiVersion'] : '',
    kind: typeof tm['kind'] === 'string' ? tm['kind'] : '',
    raw: u['raw'] instanceof Uint8Array ? u['raw'] : new Uint8Array(0),
    contentEncoding: typeof u['contentEncoding'] === 'string' ? u['contentEncoding'] : '',
  };
}

function decodeAt(
  body: Uint8Array,
  expected: { apiVersion: string; kind: string } | undefined,
  depth: number,
): DecodedObject {
  if (depth > MAX_EMBEDDING)
    throw new ProtobufDecodeError(`objects are embedded more than ${MAX_EMBEDDING} deep`);
  const env = openEnvelope(body);
  if (env.contentEncoding !== '')
    throw new ProtobufDecodeError(
      `contentEncoding ${JSON.stringify(env.contentEncoding.slice(0, 64))} is not ` +
        `supported (only none)`,
    );
  const kind = env.kind === '' ? (expected?.kind ?? '') : env.kind;
  const apiVersion = env.apiVersion === '' ? (expected?.apiVersion ?? '') : env.apiVersion;
  if (expected !== undefined && kind !== expected.kind)
    throw new ProtobufDecodeError(
      `the object is a ${JSON.stringify(kind.slice(0, 64))}, not a ${expected.kind}`,
    );
  const t = messageFor(expected?.apiVersion ?? apiVersion, kind);
  if (t === undefined)
    throw new ProtobufDecodeError(
      `${JSON.stringify(`${apiVersion} ${kind}`.slice(0, 128))} has no protobuf message`,
    );
  let object: Obj;
  try {
    // Straight from the wire into JSON (read-json.ts), one pass.
    object = readJson(t, env.raw, (raw, path) => rawValue(raw, path, depth + 1));
  } catch (err) {
    fail(`the ${kind} message cannot be read`, err);
  }
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}

function rawValue(raw: Uint8Array, path: string, depth: number): unknown {
  if (raw.length >= 4 && PROTOBUF_MAGIC.equals(Buffer.from(raw.buffer, raw.byteOffset, 4)))
    return decodeAt(raw, undefined, depth).object;
  return parseRawJson(raw, path);
}

/**
 * Decodes an enveloped object. With `expected`, the body must be that kind (or carry no kind)
 * and is read as that group version's message; the result carries the body's apiVersion and
 * kind when it has them. Throws ProtobufDecodeError for anything malformed.
 */
export function decodeEnvelope(
  body: Uint8Array,
  expected?: { apiVersion: string; kind: string },
): DecodedObject {
  return decodeAt(body, expected, 0);
}

/** One frame of a protobuf watch stream. */
export function encodeWatchFrame(
  type: string,
  object: Obj,
  apiVersion: string,
  kind: string,
): Buffer {
  return encodeWatchFrameOf(type, encodeMessage(object, apiVersion, kind), apiVersion, kind);
}

/**
 * One frame of a protobuf watch stream around an object's message already encoded (the list
 * cache's, encodeMessage): the same bytes as encodeWatchFrame of the object.
 */
export function encodeWatchFrameOf(
  type: string,
  message: Uint8Array,
  apiVersion: string,
  kind: string,
): Buffer {
  const ev = requiredType(`${META}.WatchEvent`)
    .encode({ type, object: { raw: envelope(message, apiVersion, kind) } })
    .finish();
  const len = Buffer.alloc(4);
  len.writeUInt32BE(ev.length, 0);
  return Buffer.concat([len, ev]);
}

/** The event of one frame's message bytes (without its length prefix). */
export function decodeWatchEvent(message: Uint8Array): { type: string; object: Obj } {
  let ev: Obj;
  try {
    ev = recordOf(requiredType(`${META}.WatchEvent`).decode(message));
  } catch (err) {
    fail('the watch event cannot be read', err);
  }
  const type = typeof ev['type'] === 'string' ? ev['type'] : '';
  const raw = recordOf(ev['object'])['raw'];
  if (!(raw instanceof Uint8Array) || raw.length === 0)
    throw new ProtobufDecodeError('the watch event has no object');
  return { type, object: decodeAt(raw, undefined, 1).object };
}
