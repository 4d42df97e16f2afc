// Protobuf message bytes → JSON in one pass, through the reader generated for the message type
// from the reference's definitions (reader-codegen.ts; the values' JSON forms in read-values.ts).
// A list's `items` is always present. (Decoding into protobufjs message objects first and
// converting them after built every object twice; a reader interpreting the field plan per field
// cost twice JSON.parse.)

import protobuf from 'protobufjs';
import { planOf } from './field-plan.js';
import { readerOf } from './reader-codegen.js';
import { FieldPathError, type Plain, type RawReader } from './read-values.js';

export type { RawReader } from './read-values.js';

/**
 * The JSON of message `t` from its bytes. Throws on malformed bytes or values JSON cannot carry,
 * naming the field.
 */
export function readJson(t: protobuf.Type, bytes: Uint8Array, raw: RawReader): Plain {
  const r = protobuf.Reader.create(bytes);
  let out: Plain;
  try {
    out = readerOf(t)(r, r.len, 0, raw, {});
  } catch (err) {
    if (err instanceof FieldPathError) throw new Error(err.describe());
    throw err;
  }
  // A list's `items` has no omitempty: the reference's JSON of an empty list carries "items": [].
  if (t.name.endsWith('List') && planOf(t).byProtoName.has('items') && out['items'] === undefined)
    out['items'] = [];
  return out;
}
