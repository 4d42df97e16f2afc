// The reference's defaults for a pod's volumes: a volume with no source is an emptyDir; secret,
// configMap, downwardAPI and projected sources get file mode 0644 (420); a hostPath has type ""
// (no check); downward API items name apiVersion v1 and a resource divisor ("0" when unset, the
// zero quantity); a projected token lives an hour; the in-tree iSCSI, RBD, Azure Disk and ScaleIO
// sources and generic ephemeral volumes get the reference's fixed values.

import { isRecord, listOf } from '../../../common/util/json-shape.js';
import type { Obj } from '../types.js';
import { canonicalQuantityAt, canonicalResourceListAt } from './pod-quantities.js';

/** The reference's default file mode of secret, configMap, downwardAPI and projected volumes. */
export const VOLUME_DEFAULT_MODE = 420;
/** A projected serviceAccountToken's expirationSeconds when unset: one hour. */
const TOKEN_PROJECTION_SECONDS = 3600;

const records = (v: unknown): Obj[] => listOf(v).filter(isRecord);

/** Fixed defaults of in-tree sources, field by field, applied when the field is unset or "". */
const FIXED: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  iscsi: { iscsiInterface: 'default' },
  rbd: { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' },
  azureDisk: { cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' },
  scaleIO: { storageMode: 'ThinProvisioned', fsType: 'xfs' },
};

/** A fieldRef's apiVersion and a resourceFieldRef's divisor, in a downward API item or env. */
export function defaultFieldRefs(holder: Obj): void {
  const fieldRef = holder['fieldRef'];
  if (isRecord(fieldRef) && (fieldRef['apiVersion'] ?? '') === '') fieldRef['apiVersion'] = 'v1';
  const resourceRef = holder['resourceFieldRef'];
  if (isRecord(resourceRef)) {
    resourceRef['divisor'] ??= '0';
    canonicalQuantityAt(resourceRef, 'divisor');
  }
}

function defaultProjected(projected: Obj): void {
  projected['defaultMode'] ??= VOLUME_DEFAULT_MODE;
  for (const source of records(projected['sources'])) {
    const downward = source['downwardAPI'];
    if (isRecord(downward)) for (const item of records(downward['items'])) defaultFieldRefs(item);
    const token = source['serviceAccountToken'];
    if (isRecord(token)) token['expirationSeconds'] ??= TOKEN_PROJECTION_SECONDS;
  }
}

function defaultFixed(volume: Obj): void {
  for (const [source, fields] of Object.entries(FIXED)) {
    const src = volume[source];
    if (!isRecord(src)) continue;
    for (const [field, value] of Object.entries(fields))
      if (src[field] === undefined || src[field] === null || src[field] === '') src[field] = value;
  }
}

function defaultEphemeral(volume: Obj): void {
  const ephemeral = volume['ephemeral'];
  const claim = isRecord(ephemeral) ? ephemeral['volumeClaimTemplate'] : undefined;
  if (!isRecord(claim)) return;
  // The template's metadata is served even when empty, with creationTimestamp null.
  claim['metadata'] ??= {};
  const meta = claim['metadata'];
  if (isRecord(meta) && meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
  const spec = claim['spec'];
  if (!isRecord(spec)) return;
  spec['volumeMode'] ??= 'Filesystem';
  const resources = spec['resources'];
  if (isRecord(resources)) {
    canonicalResourceListAt(resources, 'limits');
    canonicalResourceListAt(resources, 'requests');
  }
}

const hasSource = (volume: Obj): boolean =>
  Object.entries(volume).some(([k, v]) => k !== 'name' && v !== undefined && v !== null);

/** One volume of spec.volumes, defaulted in place. */
export function defaultVolume(volume: Obj): void {
  if (!hasSource(volume)) volume['emptyDir'] = {};
  const { emptyDir, hostPath, secret, configMap, downwardAPI, projected } = volume;
  if (isRecord(emptyDir)) canonicalQuantityAt(emptyDir, 'sizeLimit');
  if (isRecord(hostPath)) hostPath['type'] ??= '';
  for (const src of [secret, configMap, downwardAPI])
    if (isRecord(src)) src['defaultMode'] ??= VOLUME_DEFAULT_MODE;
  if (isRecord(downwardAPI))
    for (const item of records(downwardAPI['items'])) defaultFieldRefs(item);
  if (isRecord(projected)) defaultProjected(projected);
  defaultFixed(volume);
  defaultEphemeral(volume);
}
