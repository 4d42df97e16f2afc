// The reference's defaults for one container (regular, init or ephemeral): the image pull policy
// from the image's tag, the termination message file and policy, TCP for ports, apiVersion v1
// and a divisor for downward API env, probe timings (1 s timeout, 10 s period, thresholds 1 and
// 3), path "/" and scheme HTTP for HTTP handlers, "" for a gRPC probe's service, and resource
// quantities in their served spelling.

import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { str, type Obj } from '../types.js';
import { canonicalResourceListAt } from './pod-quantities.js';
import { defaultFieldRefs } from './pod-volume-defaults.js';

const records = (v: unknown): Obj[] => listOf(v).filter(isRecord);

/** The probe fields the reference sets when they are unset or 0, and their values. */
const PROBE_DEFAULTS = {
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
} as const;

/**
 * The image's tag as the reference's image-name parser reads it: the text after the last ':' of
 * the last path part, without a digest; "latest" when there is neither tag nor digest.
 */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const lastPart = named.slice(named.lastIndexOf('/') + 1);
  const colon = lastPart.lastIndexOf(':');
  if (colon >= 0) return lastPart.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

function defaultHttpGet(handler: Obj | undefined): void {
  const get = handler?.['httpGet'];
  if (!isRecord(get)) return;
  if ((get['path'] ?? '') === '') get['path'] = '/';
  if ((get['scheme'] ?? '') === '') get['scheme'] = 'HTTP';
}

function defaultProbe(probe: unknown): void {
  if (!isRecord(probe)) return;
  for (const [field, value] of Object.entries(PROBE_DEFAULTS))
    if (probe[field] === undefined || probe[field] === null || probe[field] === 0)
      probe[field] = value;
  defaultHttpGet(probe);
  const grpc = probe['grpc'];
  if (isRecord(grpc)) grpc['service'] ??= '';
}

function defaultLifecycle(lifecycle: unknown): void {
  if (!isRecord(lifecycle)) return;
  for (const hook of [lifecycle['postStart'], lifecycle['preStop']])
    if (isRecord(hook)) defaultHttpGet(hook);
}

/** One container of any list, defaulted in place. */
export function defaultContainer(c: Obj): void {
  if ((c['imagePullPolicy'] ?? '') === '')
    c['imagePullPolicy'] = imageTag(str(c['image']) ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if ((c['terminationMessagePath'] ?? '') === '')
    c['terminationMessagePath'] = '/dev/termination-log';
  if ((c['terminationMessagePolicy'] ?? '') === '') c['terminationMessagePolicy'] = 'File';
  for (const port of records(c['ports']))
    if ((port['protocol'] ?? '') === '') port['protocol'] = 'TCP';
  for (const env of records(c['env'])) {
    const from = env['valueFrom'];
    if (isRecord(from)) defaultFieldRefs(from);
  }
  c['resources'] ??= {};
  const resources = c['resources'];
  if (isRecord(resources)) {
    canonicalResourceListAt(resources, 'limits');
    canonicalResourceListAt(resources, 'requests');
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
  defaultLifecycle(c['lifecycle']);
}
