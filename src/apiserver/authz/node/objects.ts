// What the Node authorizer and NodeRestriction read from the cluster: pods (to relate a pod, and
// the secrets and config maps its spec names, to a node) and nodes. Owned here, implemented over
// the store (store-objects.ts), so tests can hand in plain objects.
import { isRecord } from '../../../common/util/json-shape.js';

export type Obj = Record<string, unknown>;

export interface NodeObjects {
  getPod(namespace: string, name: string): Promise<Obj | undefined>;
  /** Pods in `namespace` whose spec.nodeName is `nodeName`. */
  podsBoundTo(nodeName: string, namespace: string): Promise<Obj[]>;
  getNode(name: string): Promise<Obj | undefined>;
}

function rec(v: unknown): Obj | undefined {
  return isRecord(v) ? v : undefined;
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(rec).filter((x): x is Obj => x !== undefined) : [];
}

function name(v: unknown, key = 'name'): string[] {
  const n = rec(v)?.[key];
  return typeof n === 'string' && n !== '' ? [n] : [];
}

export function podNodeName(pod: Obj): string {
  const n = rec(pod['spec'])?.['nodeName'];
  return typeof n === 'string' ? n : '';
}

function containers(spec: Obj): Obj[] {
  return [
    ...list(spec['containers']),
    ...list(spec['initContainers']),
    ...list(spec['ephemeralContainers']),
  ];
}

/**
 * Names of the secrets a pod refers to (volumes, projected volumes, env, envFrom, image pull
 * secrets).
 */
export function podSecretNames(pod: Obj): Set<string> {
  const spec = rec(pod['spec']) ?? {};
  const out = new Set<string>(list(spec['imagePullSecrets']).flatMap((s) => name(s)));
  for (const v of list(spec['volumes'])) {
    for (const n of name(v['secret'], 'secretName')) out.add(n);
    for (const src of list(rec(v['projected'])?.['sources']))
      for (const n of name(src['secret'])) out.add(n);
  }
  for (const c of containers(spec)) {
    for (const e of list(c['env']))
      for (const n of name(rec(e['valueFrom'])?.['secretKeyRef'])) out.add(n);
    for (const e of list(c['envFrom'])) for (const n of name(e['secretRef'])) out.add(n);
  }
  return out;
}

/** Names of the config maps a pod refers to (volumes, projected volumes, env, envFrom). */
export function podConfigMapNames(pod: Obj): Set<string> {
  const spec = rec(pod['spec']) ?? {};
  const out = new Set<string>();
  for (const v of list(spec['volumes'])) {
    for (const n of name(v['configMap'])) out.add(n);
    for (const src of list(rec(v['projected'])?.['sources']))
      for (const n of name(src['configMap'])) out.add(n);
  }
  for (const c of containers(spec)) {
    for (const e of list(c['env']))
      for (const n of name(rec(e['valueFrom'])?.['configMapKeyRef'])) out.add(n);
    for (const e of list(c['envFrom'])) for (const n of name(e['configMapRef'])) out.add(n);
  }
  return out;
}

/** The service account a pod runs as (admission sets `default` when none is named). */
export function podServiceAccountName(pod: Obj): string {
  const n = rec(pod['spec'])?.['serviceAccountName'];
  return typeof n === 'string' ? n : '';
}

/**
 * Names of the persistent volume claims a pod's volumes use (ephemeral volumes: `<pod>-<volume>`).
 */
export function podClaimNames(pod: Obj): Set<string> {
  const spec = rec(pod['spec']) ?? {};
  const podName = rec(pod['metadata'])?.['name'];
  const out = new Set<string>();
  for (const v of list(spec['volumes'])) {
    for (const n of name(v['persistentVolumeClaim'], 'claimName')) out.add(n);
    if (rec(v['ephemeral']) !== undefined && typeof podName === 'string')
      for (const n of name(v)) out.add(`${podName}-${n}`);
  }
  return out;
}
