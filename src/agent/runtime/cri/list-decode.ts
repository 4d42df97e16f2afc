// The CRI list answers, decoded item by item with the items of the call's last answer kept: the
// agent lists sandboxes and containers every second, and on a quiet node the runtime answers the
// same items each time, though not in the same order (containerd walks a map), so an answer's
// bytes rarely repeat while its items do. Each item is decoded once and kept while the answers
// carry it (a list's decode was most of a relist's CPU, and its garbage).
import protobuf from 'protobufjs';

/** Per list call: its last answer's items, decoded, by their bytes (latin1, one char a byte). */
const lastItems = new Map<string, Map<string, protobuf.Message>>();

/** A list message: its one field, a repeated message, by name, wire tag and item type. */
interface ListShape {
  readonly field: string;
  readonly tag: number;
  readonly item: protobuf.Type;
}

/** Each type's list shape, null when the type is not a list of messages and nothing else. */
const shapes = new WeakMap<protobuf.Type, ListShape | null>();

function listShapeOf(t: protobuf.Type): ListShape | undefined {
  let shape = shapes.get(t);
  if (shape === undefined) {
    const only = t.fieldsArray.length === 1 ? t.fieldsArray[0]?.resolve() : undefined;
    const item = only?.repeated === true ? only.resolvedType : null;
    shape =
      only !== undefined && item instanceof protobuf.Type
        ? { field: only.name, tag: (only.id << 3) | 2, item }
        : null;
    shapes.set(t, shape);
  }
  return shape ?? undefined;
}

/**
 * The items' bytes, in order, when the message holds its list field alone, each entry whole;
 * undefined otherwise (another field, a malformed length), for the caller to decode it as a whole.
 */
function itemSlices(tag: number, bytes: Uint8Array): Uint8Array[] | undefined {
  const reader = protobuf.Reader.create(bytes);
  const slices: Uint8Array[] = [];
  try {
    while (reader.pos < reader.len) {
      if (reader.uint32() !== tag) return undefined;
      const len = reader.uint32();
      const start = reader.pos;
      reader.skip(len);
      slices.push(bytes.subarray(start, start + len));
    }
  } catch {
    return undefined;
  }
  return slices;
}

function keyOf(slice: Uint8Array): string {
  return Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength).toString('latin1');
}

/**
 * The list message `bytes` holds, its items decoded once while they last (`name` is the call's
 * answer); undefined when `t` is not a plain list or the bytes are not one, to be decoded whole.
 */
export function decodeListItems(
  name: string,
  t: protobuf.Type,
  bytes: Uint8Array,
): protobuf.Message | undefined {
  const shape = listShapeOf(t);
  const slices = shape === undefined ? undefined : itemSlices(shape.tag, bytes);
  if (shape === undefined || slices === undefined) return undefined;
  const last = lastItems.get(name);
  const kept = new Map<string, protobuf.Message>();
  const items = slices.map((slice) => {
    const key = keyOf(slice);
    const item = kept.get(key) ?? last?.get(key) ?? shape.item.decode(slice);
    kept.set(key, item);
    return item;
  });
  lastItems.set(name, kept);
  return t.create({ [shape.field]: items });
}
