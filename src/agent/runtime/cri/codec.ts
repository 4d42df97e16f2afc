// CRI messages to and from protobuf bytes, by the descriptor scripts/gen-cri.mjs generated from the
// reference's api.proto. Decoded messages carry only the fields the runtime sent (proto3 leaves
// zero values off the wire); 64-bit integers become numbers (nanosecond times keep their
// microseconds), bytes stay Buffers, enums their numbers.
import protobuf from 'protobufjs';
import { CRI_DESCRIPTOR_JSON } from './api.generated.js';
import type { CriMessages } from './types.generated.js';

export type CriMessageName = keyof CriMessages;

const root = protobuf.Root.fromJSON(JSON.parse(CRI_DESCRIPTOR_JSON) as protobuf.INamespace);
const types = new Map<string, protobuf.Type>();

function typeOf(name: string): protobuf.Type {
  let t = types.get(name);
  if (t === undefined) {
    t = root.lookupType(`runtime.v1.${name}`);
    types.set(name, t);
  }
  return t;
}

export function encodeCri<N extends CriMessageName>(name: N, message: CriMessages[N]): Buffer {
  const t = typeOf(name);
  return Buffer.from(t.encode(t.fromObject(message)).finish());
}

/**
 * The last answer of each list call, bytes and decoded message: the agent lists sandboxes and
 * containers every second, and an unchanged node answers the same bytes each time, so the decode
 * (most of a relist's CPU, and its garbage) is done once. Only lists are kept: one message each.
 */
const lastLists = new Map<string, { bytes: Buffer; message: protobuf.Message }>();

function decodeMessage(name: string, t: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  if (!name.startsWith('List')) return t.decode(bytes);
  const last = lastLists.get(name);
  if (last?.bytes.equals(bytes) === true) return last.message;
  const message = t.decode(bytes);
  lastLists.set(name, { bytes: Buffer.from(bytes), message });
  return message;
}

/**
 * The message's fields as sent; the descriptor fixes every field's type, so the shape is known.
 * Each call returns objects of its own (toObject copies), also for a list answered as before.
 */
export function decodeCri<N extends CriMessageName>(name: N, bytes: Uint8Array): CriMessages[N] {
  const t = typeOf(name);
  const message = decodeMessage(name, t, bytes);
  const obj = t.toObject(message, { longs: Number, enums: Number, defaults: false });
  // the generated interface is the descriptor's own shape (both come from the same api.proto)
  return obj as CriMessages[N];
}
