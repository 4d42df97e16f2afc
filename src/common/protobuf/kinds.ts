// Which reference message a (apiVersion, kind) is. Generic per kind: every message of a group's
// package is a candidate (core/v1 Pod, certificates/v1 CertificateSigningRequest, events/v1 Event,
// and their Lists), so a group added to proto/ and PACKAGES plugs in without more code. Under the
// platform profile a group is named `<prefix>.<platform_domain>` (src/common/names.ts) where the
// reference has `<prefix>.k8s.io`: the group is matched by that prefix, the messages are the same.
// The meta kinds (Status, DeleteOptions, ...) exist in every group version, as in the reference.

import type protobuf from 'protobufjs';
import { META, messageType } from './root.js';

/** Reference group prefix (`certificates` of certificates.k8s.io) → proto package. */
const PACKAGES: readonly (readonly [prefix: string, pkg: string])[] = [
  ['rbac.authorization', 'k8s.io.api.rbac'],
  ['certificates', 'k8s.io.api.certificates'],
  ['coordination', 'k8s.io.api.coordination'],
  ['authentication', 'k8s.io.api.authentication'],
  ['authorization', 'k8s.io.api.authorization'],
  ['events', 'k8s.io.api.events'],
  ['meta', 'k8s.io.apimachinery.pkg.apis.meta'],
];

const SHARED_META_KINDS = new Set([
  'Status',
  'DeleteOptions',
  'CreateOptions',
  'UpdateOptions',
  'PatchOptions',
  'GetOptions',
  'ListOptions',
  'WatchEvent',
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
]);

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function packageOf(group: string): string | undefined {
  if (group === '') return 'k8s.io.api.core';
  for (const [prefix, pkg] of PACKAGES) if (group.startsWith(`${prefix}.`)) return pkg;
  return undefined;
}

const VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;

/** Messages of (apiVersion, kind) looked up before; bounded, as both come from bodies too. */
const found = new Map<string, protobuf.Type | undefined>();
const FOUND_LIMIT = 2048;

/** The message of a kind in an API version; undefined when the reference has none (no protobuf). */
export function messageFor(apiVersion: string, kind: string): protobuf.Type | undefined {
  const key = `${apiVersion}\n${kind}`;
  if (found.has(key)) return found.get(key);
  const t = lookupMessage(apiVersion, kind);
  if (found.size >= FOUND_LIMIT) found.clear();
  found.set(key, t);
  return t;
}

function lookupMessage(apiVersion: string, kind: string): protobuf.Type | undefined {
  // Discovery's APIVersions carries no apiVersion in JSON (the reference's /api answer).
  if (apiVersion === '')
    return SHARED_META_KINDS.has(kind) ? messageType(`${META}.${kind}`) : undefined;
  const { group, version } = splitApiVersion(apiVersion);
  if (!VERSION.test(version) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  const pkg = packageOf(group);
  const own = pkg === undefined ? undefined : messageType(`${pkg}.${version}.${kind}`);
  if (own !== undefined) return own;
  return SHARED_META_KINDS.has(kind) ? messageType(`${META}.${kind}`) : undefined;
}
