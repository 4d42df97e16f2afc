// Request bodies in the reference's protobuf encoding (`application/vnd.kubernetes.protobuf`):
// standard clients send typed writes this way (kubectl certificate approve, kubectl create
// namespace). A body is the magic `k8s\0` followed by a runtime.Unknown whose `raw` field holds
// the object; this decodes the object types those clients send into the JSON shape. Responses
// are always JSON, which those clients accept.

import { unsupportedMediaType, badRequest } from '../status.js';
import { parseJsonBody } from '../body-limits.js';

type FieldType = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'rawjson' | Schema | { readonly map: FieldType };
type Schema = Readonly<Record<number, readonly [name: string, type: FieldType, repeated?: boolean]>>;

const time: FieldType = 'time';
const fieldsV1: Schema = { 1: ['Raw', 'rawjson'] };
const managedFields: Schema = {
  1: ['manager', 'string'],
  2: ['operation', 'string'],
  3: ['apiVersion', 'string'],
  4: ['time', time],
  6: ['fieldsType', 'string'],
  7: ['fieldsV1', fieldsV1],
  8: ['subresource', 'string'],
};
const ownerReference: Schema = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};
const objectMeta: Schema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  4: ['selfLink', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', time],
  9: ['deletionTimestamp', time],
  10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', { map: 'string' }],
  12: ['annotations', { map: 'string' }],
  13: ['ownerReferences', ownerReference, true],
  14: ['finalizers', 'string', true],
  17: ['managedFields', managedFields, true],
};
const extraValue: Schema = { 1: ['items', 'string', true] };
const csrCondition: Schema = {
  1: ['type', 'string'],
  2: ['reason', 'string'],
  3: ['message', 'string'],
  4: ['lastUpdateTime', time],
  5: ['lastTransitionTime', time],
  6: ['status', 'string'],
};
const csr: Schema = {
  1: ['metadata', objectMeta],
  2: [
    'spec',
    {
      1: ['request', 'bytes'],
      2: ['username', 'string'],
      3: ['uid', 'string'],
      4: ['groups', 'string', true],
      5: ['usages', 'string', true],
      6: ['extra', { map: extraValue }],
      7: ['signerName', 'string'],
      8: ['expirationSeconds', 'int'],
    },
  ],
  3: ['status', { 1: ['conditions', csrCondition, true], 2: ['certificate', 'bytes'] }],
};
const namespace: Schema = {
  1: ['metadata', objectMeta],
  2: ['spec', { 1: ['finalizers', 'string', true] }],
  3: ['status', { 1: ['phase', 'string'] }],
};
const unknown: Schema = {
  1: ['typeMeta', { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] }],
  2: ['raw', 'bytes'],
  3: ['contentEncoding', 'string'],
  4: ['contentType', 'string'],
};

// rbac/v1 and the review kinds kubectl sends typed (create role/rolebinding, auth can-i, whoami).
const policyRule: Schema = { 1: ['verbs', 'string', true], 2: ['apiGroups', 'string', true], 3: ['resources', 'string', true], 4: ['resourceNames', 'string', true], 5: ['nonResourceURLs', 'string', true] };
const labelSelector: Schema = {
  1: ['matchLabels', { map: 'string' }],
  2: ['matchExpressions', { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'string', true] }, true],
};
const role: Schema = { 1: ['metadata', objectMeta], 2: ['rules', policyRule, true] };
const clusterRole: Schema = { ...role, 3: ['aggregationRule', { 1: ['clusterRoleSelectors', labelSelector, true] }] };
const binding: Schema = {
  1: ['metadata', objectMeta],
  2: ['subjects', { 1: ['kind', 'string'], 2: ['apiGroup', 'string'], 3: ['name', 'string'], 4: ['namespace', 'string'] }, true],
  3: ['roleRef', { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] }],
};
const resourceAttributes: Schema = { 1: ['namespace', 'string'], 2: ['verb', 'string'], 3: ['group', 'string'], 4: ['version', 'string'], 5: ['resource', 'string'], 6: ['subresource', 'string'], 7: ['name', 'string'] };
const selfSubjectAccessReview: Schema = { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['resourceAttributes', resourceAttributes], 2: ['nonResourceAttributes', { 1: ['path', 'string'], 2: ['verb', 'string'] }] }] };
const selfSubjectRulesReview: Schema = { 1: ['metadata', objectMeta], 2: ['spec', { 1: ['namespace', 'string'] }] };
const selfSubjectReview: Schema = { 1: ['metadata', objectMeta] };

const SCHEMAS: Readonly<Record<string, Schema>> = {
  CertificateSigningRequest: csr,
  Namespace: namespace,
  Role: role,
  ClusterRole: clusterRole,
  RoleBinding: binding,
  ClusterRoleBinding: binding,
  SelfSubjectAccessReview: selfSubjectAccessReview,
  SelfSubjectRulesReview: selfSubjectRulesReview,
  SelfSubjectReview: selfSubjectReview,
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++] ?? 0;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function timeValue(buf: Buffer): string {
  const m = decodeMessage(buf, { 1: ['seconds', 'int'], 2: ['nanos', 'int'] });
  const seconds = typeof m['seconds'] === 'number' ? m['seconds'] : 0;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function signed(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}

function decodeValue(r: Reader, wire: number, type: FieldType): unknown {
  if (type === 'int') return signed(r.varint());
  if (type === 'bool') return r.varint() !== 0n;
  if (wire !== 2) throw new Error('unexpected wire type');
  const b = r.bytes();
  if (type === 'string') return b.toString('utf8');
  if (type === 'bytes') return b.toString('base64');
  if (type === 'time') return timeValue(b);
  if (type === 'rawjson') return parseJsonBody(b.toString('utf8'));
  if ('map' in type) {
    const entry = decodeMessage(b, { 1: ['key', 'string'], 2: ['value', type.map as FieldType] });
    return [String(entry['key'] ?? ''), entry['value'] ?? (type.map === 'string' ? '' : {})];
  }
  return decodeMessage(b, type as Schema);
}

function decodeMessage(buf: Buffer, schema: Schema): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (r.pos < buf.length) {
    const tag = Number(r.varint());
    const field = tag >> 3;
    const wire = tag & 7;
    const def = schema[field];
    if (def === undefined) {
      r.skip(wire);
      continue;
    }
    const [name, type, repeated] = def;
    const value = decodeValue(r, wire, type);
    if (typeof type === 'object' && 'map' in type) {
      const [k, v] = value as [string, unknown];
      const m = (out[name] ?? {}) as Record<string, unknown>;
      m[k] = type.map === extraValue ? ((v as Record<string, unknown>)['items'] ?? []) : v;
      out[name] = m;
    } else if (repeated === true) {
      const list = (out[name] ?? []) as unknown[];
      list.push(value);
      out[name] = list;
    } else out[name] = value;
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a protobuf request body of one of the supported kinds into its JSON object. */
export function decodeProtobufObject(body: Buffer, kind: string, apiVersion: string): Record<string, unknown> {
  const schema = SCHEMAS[kind];
  if (schema === undefined) throw unsupportedMediaType('application/vnd.kubernetes.protobuf', ['application/json', 'application/yaml']);
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('the protobuf body does not start with the k8s magic prefix');
  try {
    const env = decodeMessage(body.subarray(4), unknown);
    const tm = (env['typeMeta'] ?? {}) as Record<string, unknown>;
    const raw = Buffer.from(typeof env['raw'] === 'string' ? env['raw'] : '', 'base64');
    const obj = decodeMessage(raw, schema);
    return { apiVersion: typeof tm['apiVersion'] === 'string' ? tm['apiVersion'] : apiVersion, kind: typeof tm['kind'] === 'string' ? tm['kind'] : kind, ...obj };
  } catch (err) {
    throw badRequest(`unable to decode the protobuf body as a ${kind}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
