// CRI messages to and from protobuf bytes, by the descriptor scripts/gen-cri.mjs generated from the
// reference's api.proto. Decoded messages carry only the fields the runtime sent (proto3 leaves
// zero values off the wire); 64-bit integers become numbers (nanosecond times keep their
// microseconds), bytes stay Buffers, enums their numbers.
import protobuf from 'protobufjs';
import { CRI_DESCRIPTOR_JSON } from './api.generated.js';
import type { CriMessages } from './types.generated.js';
import { decodeListItems } from './list-decode.js';

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

function decodeMessage(name: string, t: protobuf.Type, bytes: Uint8Array): protobuf.Message {
  return (name.startsWith('List') ? decodeListItems(name, t, bytes) : undefined) ?? t.decode(bytes);
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
