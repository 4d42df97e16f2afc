// Readers generated from the reference's message definitions: for each message type (built from
// the .proto descriptor, root.ts) protobufjs's code generator (util.codegen, what protobufjs's own
// Type.decode is made with) writes one function that walks the wire with a switch on the field
// number and stores each field straight into its JSON form, as the field plan (field-plan.ts)
// says: the JSON name, omitempty, inlined structs, lists and maps, the special types. A reader is
// generated on the first message of its type and kept. The values' mapping (time, base64,
// IntOrString, RawExtension, ...) is in read-values.ts; this file only writes the walk.

import protobuf from 'protobufjs';
import { planOf, specialOf, type FieldPlan } from './field-plan.js';
import {
  at,
  b64,
  end,
  hasKeys,
  MAX_DEPTH,
  notMessage,
  num,
  OMIT,
  optString,
  PACKABLE,
  specialValue,
  str,
  type MessageReader,
  type Plain,
  type RawReader,
} from './read-values.js';
import type { Special } from './field-plan.js';

/** Wire reads of a scalar type (protobufjs Reader methods), as generated expressions. */
const SCALAR_READ: Readonly<Record<string, string>> = {
  string: 'h.str(r)',
  bool: 'r.bool()',
  double: 'r.double()',
  float: 'r.float()',
  int32: 'r.int32()',
  uint32: 'r.uint32()',
  sint32: 'r.sint32()',
  fixed32: 'r.fixed32()',
  sfixed32: 'r.sfixed32()',
  int64: 'h.num(r.int64())',
  uint64: 'h.num(r.uint64())',
  sint64: 'h.num(r.sint64())',
  fixed64: 'h.num(r.fixed64())',
  sfixed64: 'h.num(r.sfixed64())',
};

const readers = new WeakMap<protobuf.Type, MessageReader>();
/** A special type's fields by proto name (scalars only), as protobufjs would decode them. */
type PlainReader = (r: protobuf.Reader, end: number, depth: number) => Plain;
const plainReaders = new WeakMap<protobuf.Type, PlainReader>();

type Reader = protobuf.Reader;

function lengthDelimited(r: Reader, tag: number, depth: number): number {
  if ((tag & 7) !== 2) throw notMessage();
  if (depth >= MAX_DEPTH) throw new Error(`messages nested more than ${String(MAX_DEPTH)} deep`);
  return end(r);
}

/** The helpers the generated code calls (`h`). */
const HELPERS = {
  num,
  str,
  b64,
  optString,
  end,
  notMessage,
  at,
  hasKeys,
  message(r: Reader, tag: number, depth: number, raw: RawReader, read: MessageReader): Plain {
    return read(r, lengthDelimited(r, tag, depth), depth + 1, raw, {});
  },
  special(
    r: Reader,
    tag: number,
    depth: number,
    raw: RawReader,
    t: protobuf.Type,
    k: Special,
  ): unknown {
    const e = lengthDelimited(r, tag, depth);
    return specialValue(k, plainReaderOf(t)(r, e, depth + 1), raw);
  },
  mapEntry(r: Reader, depth: number, raw: RawReader, f: FieldPlan, into: Plain): void {
    mapEntry(r, depth, raw, f, into);
  },
};

/** One value of a map (the entry's field 2). */
function mapValue(f: FieldPlan, tag: number, r: Reader, depth: number, raw: RawReader): unknown {
  const k = f.value;
  if ('scalar' in k) {
    if (k.scalar === 'bytes') return b64(r.bytes(), false);
    const read = SCALAR_FN[k.scalar];
    if (read === undefined) throw new Error(`unsupported protobuf type ${k.scalar}`);
    return read(r);
  }
  const t = f.messageType;
  if (t === undefined) throw notMessage();
  if ('special' in k) return HELPERS.special(r, tag, depth, raw, t, k.special);
  return HELPERS.message(r, tag, depth, raw, readerOf(t));
}

/** A map entry {key = 1, value = 2}; the key is a string in every reference message. */
function mapEntry(r: Reader, depth: number, raw: RawReader, f: FieldPlan, into: Plain): void {
  const e = end(r);
  let key = '';
  let value: unknown = OMIT;
  let seen = false;
  try {
    while (r.pos < e) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) key = r.string();
      else if (tag >>> 3 === 2) {
        value = mapValue(f, tag, r, depth, raw);
        seen = true;
      } else r.skipType(tag & 7, depth);
    }
    if (!seen) {
      // protobufjs's defaults for an entry without a value: '' for strings, empty bytes, else no
      // message.
      if (!('scalar' in f.value)) throw notMessage();
      value = f.value.scalar === 'string' || f.value.scalar === 'bytes' ? '' : 0;
    }
  } catch (err) {
    const x = at(err, undefined, undefined);
    x.segments.push(`[${JSON.stringify(key)}]`);
    throw x;
  }
  into[key] =
    value === OMIT ? ('scalar' in f.value && f.value.scalar === 'string' ? '' : null) : value;
}

const SCALAR_FN: Readonly<Record<string, (r: Reader) => unknown>> = {
  string: (r) => str(r),
  bool: (r) => r.bool(),
  double: (r) => r.double(),
  float: (r) => r.float(),
  int32: (r) => r.int32(),
  uint32: (r) => r.uint32(),
  sint32: (r) => r.sint32(),
  fixed32: (r) => r.fixed32(),
  sfixed32: (r) => r.sfixed32(),
  int64: (r) => num(r.int64()),
  uint64: (r) => num(r.uint64()),
  sint64: (r) => num(r.sint64()),
  fixed64: (r) => num(r.fixed64()),
  sfixed64: (r) => num(r.sfixed64()),
};

/** The generated reader of a special type's scalar fields (Time, IntOrString, FieldsV1, ...). */
function plainReaderOf(t: protobuf.Type): PlainReader {
  let fn = plainReaders.get(t);
  if (fn !== undefined) return fn;
  const gen = protobuf.util.codegen(['r', 'end', 'depth'], `${t.name}$readPlain`);
  gen('var t=0,o={}');
  gen('while(r.pos<end){');
  gen('t=r.uint32()');
  gen('switch(t>>>3){');
  for (const f of planOf(t).fields) {
    if (!('scalar' in f.value)) continue;
    const read =
      f.value.scalar !== 'bytes'
        ? SCALAR_READ[f.value.scalar]
        : specialOf(t) === 'fieldsv1'
          ? 'h.str(r)'
          : 'r.bytes()';
    if (read === undefined) continue;
    const name = JSON.stringify(f.protoName);
    gen('case %i:', f.id);
    gen(f.repeated ? `(o[${name}]??(o[${name}]=[])).push(${read})` : `o[${name}]=${read}`);
    gen('break');
  }
  gen('default:r.skipType(t&7,depth)}}');
  gen('return o');
  fn = gen({ h: HELPERS }) as PlainReader;
  plainReaders.set(t, fn);
  return fn;
}

/** The generated reader of a message type (made on first use). */
export function readerOf(t: protobuf.Type): MessageReader {
  let fn = readers.get(t);
  if (fn === undefined) {
    fn = generate(t);
    readers.set(t, fn);
  }
  return fn;
}

/** The expression of one value of field `f` (index i of the message's fields), `t` the tag read. */
function valueExpr(f: FieldPlan, i: number, omitempty: boolean): string {
  const k = f.value;
  if ('scalar' in k) {
    if (k.scalar === 'bytes') return `h.b64(r.bytes(),${String(omitempty)})`;
    if (k.scalar === 'string' && omitempty) return 'h.optString(r)';
    const read = SCALAR_READ[k.scalar];
    if (read === undefined)
      throw new Error(`${f.protoName}: unsupported protobuf type ${k.scalar}`);
    return read;
  }
  if ('special' in k) return `h.special(r,t,depth,raw,T[${i}],${JSON.stringify(k.special)})`;
  return `h.message(r,t,depth,raw,R(${i}))`;
}

function canOmit(f: FieldPlan): boolean {
  const k = f.value;
  if ('special' in k) return true;
  return 'scalar' in k && (k.scalar === 'string' || k.scalar === 'bytes') && f.omitempty;
}

/** The statements of one `case`: the field's value stored into the object. */
function caseBody(f: FieldPlan, i: number): string[] {
  const name = JSON.stringify(f.jsonName);
  if (f.map) return [`if(a${i}===undefined)a${i}={}`, `h.mapEntry(r,depth,raw,P[${i}],a${i})`];
  if (f.repeated) {
    const out = [`if(a${i}===undefined)a${i}=[]`];
    const k = f.value;
    if ('scalar' in k && PACKABLE.has(k.scalar)) {
      out.push(
        `if((t&7)===2){e=h.end(r);while(r.pos<e)a${i}.push(${valueExpr(f, i, false)})}else ` +
          `a${i}.push(${valueExpr(f, i, false)})`,
      );
    } else if (canOmit({ ...f, omitempty: false })) {
      out.push(`v=${valueExpr(f, i, false)}`, `a${i}.push(v===OMIT?null:v)`);
    } else out.push(`a${i}.push(${valueExpr(f, i, false)})`);
    return out;
  }
  if (f.inline && f.messageType !== undefined)
    return [`if((t&7)!==2)throw h.notMessage()`, `R(${i})(r,h.end(r),depth+1,raw,o)`];
  if (!canOmit(f)) return [`o[${name}]=${valueExpr(f, i, f.omitempty)}`];
  return [
    `v=${valueExpr(f, i, f.omitempty)}`,
    `if(v!==OMIT)o[${name}]=v`,
    `else if(o[${name}]!==undefined)delete o[${name}]`,
  ];
}

function generate(t: protobuf.Type): MessageReader {
  const fields = planOf(t).fields;
  const collections = fields.map((f, i) => (f.map || f.repeated ? i : -1)).filter((i) => i >= 0);
  const gen = protobuf.util.codegen(['r', 'end', 'depth', 'raw', 'o'], `${t.name}$readJson`);
  gen('var f=-1,t=0,e=0,v%s', collections.map((i) => `,a${String(i)}`).join(''));
  gen('try{');
  gen('while(r.pos<end){');
  gen('t=r.uint32()');
  gen('switch(t>>>3){');
  fields.forEach((f, i) => {
    gen('case %i:', f.id);
    gen('f=%i', i);
    for (const line of caseBody(f, i)) gen(line);
    gen('break');
  });
  gen('default:');
  gen('r.skipType(t&7,depth)');
  gen('}}');
  // An error names the field (and the list item) it was read in.
  gen('}catch(err){switch(f){');
  for (const i of collections) gen('case %i:throw h.at(err,P[%i],a%i)', i, i, i);
  gen('default:throw h.at(err,f<0?undefined:P[f],undefined)}}');
  for (const i of collections) {
    const name = JSON.stringify(fields[i]?.jsonName ?? '');
    gen(
      fields[i]?.map === true
        ? `if(a${String(i)}!==undefined&&h.hasKeys(a${String(i)}))o[${name}]=a${String(i)}`
        : `if(a${String(i)}!==undefined&&a${String(i)}.length>0)o[${name}]=a${String(i)}`,
    );
  }
  gen('return o');
  // A nested message's reader is looked up once, on its first field.
  const nested: (MessageReader | undefined)[] = [];
  const R = (i: number): MessageReader => {
    const known = nested[i];
    if (known !== undefined) return known;
    const mt = fields[i]?.messageType;
    if (mt === undefined) throw new Error(`${t.name}: field ${String(i)} is not a message`);
    return (nested[i] = readerOf(mt));
  };
  return gen({
    h: HELPERS,
    OMIT,
    P: fields,
    T: fields.map((f) => f.messageType),
    R,
  }) as MessageReader;
}
