// How each field of a reference message maps to its JSON form, computed once per message type
// from the protobufjs reflection: the JSON name, the special types whose JSON form is not a
// message (Time, MicroTime, Quantity, IntOrString, RawExtension, FieldsV1, the string-list
// wrappers), the inlined embedded structs, and the `+optional` (omitempty) marker.

import protobuf from 'protobufjs';

const APIM = '.k8s.io.apimachinery.pkg';

export type Special =
  | 'time'
  | 'microtime'
  | 'quantity'
  | 'intorstring'
  | 'rawextension'
  | 'fieldsv1'
  | 'stringlist'
  | 'duration';

const SPECIAL_TYPES: Readonly<Record<string, Special>> = {
  [`${APIM}.apis.meta.v1.Time`]: 'time',
  [`${APIM}.apis.meta.v1.MicroTime`]: 'microtime',
  [`${APIM}.apis.meta.v1.Duration`]: 'duration',
  [`${APIM}.apis.meta.v1.FieldsV1`]: 'fieldsv1',
  [`${APIM}.apis.meta.v1.Verbs`]: 'stringlist',
  [`${APIM}.api.resource.Quantity`]: 'quantity',
  [`${APIM}.util.intstr.IntOrString`]: 'intorstring',
  [`${APIM}.runtime.RawExtension`]: 'rawextension',
};

/**
 * Embedded Go structs with `json:",inline"` (their fields sit in the parent's JSON object) that
 * go-to-protobuf turns into a nested message field. From the reference's types.go (v1.32): every
 * `LocalObjectReference localObjectReference` plus these.
 */
const INLINE_FIELDS: ReadonlySet<string> = new Set([
  '.k8s.io.api.core.v1.Volume.volumeSource',
  '.k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource',
  '.k8s.io.api.core.v1.Probe.handler',
  '.k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
]);

/** Proto field names that differ from the JSON name (types.go: json:"uid" protobuf:"name=uID"). */
const JSON_NAMES: Readonly<Record<string, string>> = {
  '.k8s.io.api.authentication.v1.BoundObjectReference.uID': 'uid',
};

export type ValueKind =
  { readonly scalar: string } | { readonly special: Special } | { readonly message: protobuf.Type };

export interface FieldPlan {
  /** The field number on the wire. */
  readonly id: number;
  /** The field's message type (also for the special types); undefined for scalars. */
  readonly messageType: protobuf.Type | undefined;
  readonly protoName: string;
  readonly jsonName: string;
  readonly value: ValueKind;
  readonly repeated: boolean;
  /** The key type of a map field (always string in the reference's messages). */
  readonly map: boolean;
  readonly omitempty: boolean;
  /** The field's message is an inlined embedded struct. */
  readonly inline: boolean;
}

export interface MessagePlan {
  readonly type: protobuf.Type;
  readonly fields: readonly FieldPlan[];
  /** Every JSON key this message reads (its own and those of inlined messages). */
  readonly jsonKeys: ReadonlySet<string>;
  readonly byProtoName: ReadonlyMap<string, FieldPlan>;
  /** The own (not inlined) fields by JSON name, and the inlined message fields. */
  readonly byJsonName: ReadonlyMap<string, FieldPlan>;
  readonly inlined: readonly FieldPlan[];
}

const plans = new WeakMap<protobuf.Type, MessagePlan>();

/** A message of the form `message X { repeated string items = 1; }` that is a JSON string list. */
function isStringList(t: protobuf.Type): boolean {
  const f = t.fieldsArray;
  return (
    (t.name === 'ExtraValue' || t.name === 'Verbs') &&
    f.length === 1 &&
    f[0]?.name === 'items' &&
    f[0].repeated &&
    f[0].type === 'string'
  );
}

export function specialOf(t: protobuf.Type): Special | undefined {
  return SPECIAL_TYPES[t.fullName] ?? (isStringList(t) ? 'stringlist' : undefined);
}

function valueKind(f: protobuf.Field): ValueKind {
  const rt = f.resolvedType;
  if (rt instanceof protobuf.Type) {
    const special = specialOf(rt);
    return special === undefined ? { message: rt } : { special };
  }
  if (rt !== null) throw new Error(`${f.fullName}: enums are not used by the reference's messages`);
  return { scalar: f.type };
}

function fieldPlan(t: protobuf.Type, f: protobuf.Field): FieldPlan {
  const key = `${t.fullName}.${f.name}`;
  const inline =
    INLINE_FIELDS.has(key) ||
    (f.name === 'localObjectReference' && f.resolvedType?.name === 'LocalObjectReference');
  const rt = f.resolvedType;
  return {
    id: f.id,
    messageType: rt instanceof protobuf.Type ? rt : undefined,
    protoName: f.name,
    jsonName: JSON_NAMES[key] ?? f.name,
    value: valueKind(f),
    repeated: f.repeated,
    map: f.map,
    omitempty: f.getOption('omitempty') === true,
    inline,
  };
}

export function planOf(t: protobuf.Type): MessagePlan {
  let p = plans.get(t);
  if (p === undefined) {
    const fields = t.fieldsArray
      .slice()
      .sort((a, b) => a.id - b.id)
      .map((f) => fieldPlan(t, f));
    const jsonKeys = new Set<string>();
    for (const f of fields) {
      if (f.inline && 'message' in f.value)
        for (const k of planOf(f.value.message).jsonKeys) jsonKeys.add(k);
      else jsonKeys.add(f.jsonName);
    }
    const inlined = fields.filter((f) => f.inline && 'message' in f.value);
    p = {
      type: t,
      fields,
      jsonKeys,
      byProtoName: new Map(fields.map((f) => [f.protoName, f])),
      byJsonName: new Map(fields.filter((f) => !inlined.includes(f)).map((f) => [f.jsonName, f])),
      inlined,
    };
    plans.set(t, p);
  }
  return p;
}
