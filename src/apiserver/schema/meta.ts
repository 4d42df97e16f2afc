// ObjectMeta and the other shared meta types (v1).
import { any, arr, bool, int64, map, obj, str, time, type Schema } from './types.js';

export const ownerReference = obj('v1.OwnerReference', {
  apiVersion: str,
  kind: str,
  name: str,
  uid: str,
  controller: bool,
  blockOwnerDeletion: bool,
});

export const managedFieldsEntry = obj('v1.ManagedFieldsEntry', {
  manager: str,
  operation: str,
  apiVersion: str,
  time,
  fieldsType: str,
  fieldsV1: any,
  subresource: str,
});

export const objectMeta = obj('v1.ObjectMeta', {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: str,
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: map(str),
  annotations: map(str),
  ownerReferences: arr(ownerReference),
  finalizers: arr(str),
  managedFields: arr(managedFieldsEntry),
});

export const objectReference = obj('v1.ObjectReference', {
  kind: str,
  namespace: str,
  name: str,
  uid: str,
  apiVersion: str,
  resourceVersion: str,
  fieldPath: str,
});

/** The top of every kind: apiVersion, kind, metadata plus the kind's own fields. */
export function topLevel(name: string, fields: Record<string, Schema>): Schema {
  return obj(name, { apiVersion: str, kind: str, metadata: objectMeta, ...fields });
}
