// A pod's defaults, as the reference's API server applies them on create and update (its
// SetDefaults for Pod, PodSpec, Container, Volume, Probe and their parts, the v1 conversion that
// pairs serviceAccount with serviceAccountName, and the Priority admission plugin's values when no
// PriorityClass is named): restart, DNS and scheduler, grace period, an empty pod security context,
// service links, requests from limits, host ports under host networking; then each container
// (pod-container-defaults.ts) and volume (pod-volume-defaults.ts).

import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { objAt, str, type Obj } from '../types.js';
import { defaultContainer } from './pod-container-defaults.js';
import { canonicalResourceListAt } from './pod-quantities.js';
import { defaultVolume } from './pod-volume-defaults.js';

const records = (v: unknown): Obj[] => listOf(v).filter(isRecord);

/** The reference's built-in PriorityClasses; any other name (or none) is priority 0. */
const SYSTEM_PRIORITIES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

/** Each limit a container (or init container) has no request for becomes its request. */
function requestsFromLimits(c: Obj): void {
  const resources = c['resources'];
  if (!isRecord(resources) || !isRecord(resources['limits'])) return;
  const requests = isRecord(resources['requests']) ? resources['requests'] : {};
  for (const [name, v] of Object.entries(resources['limits'])) requests[name] ??= v;
  resources['requests'] = requests;
}

/** Under host networking a container port's hostPort is its containerPort unless set. */
function hostNetworkPorts(c: Obj): void {
  for (const port of records(c['ports']))
    if (port['hostPort'] === undefined || port['hostPort'] === null || port['hostPort'] === 0)
      port['hostPort'] = port['containerPort'];
}

/** spec.serviceAccountName, or the deprecated spec.serviceAccount when it is unset; both served. */
export function pairServiceAccount(spec: Obj): void {
  const named = str(spec['serviceAccountName']) ?? '';
  const name = named !== '' ? named : (str(spec['serviceAccount']) ?? '');
  if (name === '') return;
  spec['serviceAccountName'] = name;
  spec['serviceAccount'] = name;
}

function defaultSpecScalars(spec: Obj): void {
  if ((spec['restartPolicy'] ?? '') === '') spec['restartPolicy'] = 'Always';
  if ((spec['dnsPolicy'] ?? '') === '') spec['dnsPolicy'] = 'ClusterFirst';
  if ((spec['schedulerName'] ?? '') === '') spec['schedulerName'] = 'default-scheduler';
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['securityContext'] ??= {};
  spec['enableServiceLinks'] ??= true;
  spec['priority'] ??= SYSTEM_PRIORITIES[str(spec['priorityClassName']) ?? ''] ?? 0;
  if ((spec['preemptionPolicy'] ?? '') === '') spec['preemptionPolicy'] = 'PreemptLowerPriority';
  pairServiceAccount(spec);
}

/** The pod's spec defaulted in place (a pod without a spec is left for validation). */
export function defaultPod(obj: Obj): void {
  const spec = objAt(obj, 'spec');
  if (spec === undefined) return;
  defaultSpecScalars(spec);
  const containers = records(spec['containers']);
  const inits = records(spec['initContainers']);
  for (const c of [...containers, ...inits]) requestsFromLimits(c);
  if (spec['hostNetwork'] === true) for (const c of [...containers, ...inits]) hostNetworkPorts(c);
  for (const c of [...containers, ...inits, ...records(spec['ephemeralContainers'])])
    defaultContainer(c);
  for (const v of records(spec['volumes'])) defaultVolume(v);
  canonicalResourceListAt(spec, 'overhead');
  const podResources = spec['resources'];
  if (isRecord(podResources)) {
    canonicalResourceListAt(podResources, 'limits');
    canonicalResourceListAt(podResources, 'requests');
  }
}
