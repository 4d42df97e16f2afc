// The ServiceAccount admission plugin, as the reference's (plugin/pkg/admission/serviceaccount,
// upstream's three sources): a pod created without spec.serviceAccountName runs as `default`;
// its service account must exist (`default` is looked for a few times, as the controller may not
// have made it yet); unless the pod or its account says automountServiceAccountToken: false, a
// projected volume `<product>-api-access-<5 random>` (a 3607 s token at `token`, the root CA
// ConfigMap's ca.crt, the namespace) is added and mounted read-only at the service account path in
// every container and init container that has nothing there yet; the account's imagePullSecrets
// are copied when the pod has none. Mirror pods may not name a service account, secrets or token
// projections. With the `<labelDomain>/enforce-mountable-secrets: "true"` annotation, a pod may
// use only the secrets the account lists.

import type { Names } from '../../common/names.js';
import { WIRE_NAMES } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import { isRecord, listOf, recordOf } from '../../common/util/json-shape.js';
import type { AdmissionPlugin, AdmissionRequest } from '../interfaces.js';
import { generateName } from '../registry/meta.js';
import { forbidden } from '../status.js';
import { podSecretNames } from '../authz/node/objects.js';
import { WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS } from '../serviceaccount/claims.js';
import { mountableSecretsProblem } from './service-account-secrets.js';

type Obj = Record<string, unknown>;

export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
/** The reference's ProjectedVolumeSourceDefaultMode (0644). */
const PROJECTED_DEFAULT_MODE = 420;

/** What the plugin reads: a service account, or undefined when there is none. */
export interface ServiceAccountGetter {
  getServiceAccount(namespace: string, name: string): Promise<Obj | undefined>;
}

export interface ServiceAccountAdmissionOptions {
  readonly names: Names;
  readonly accounts: ServiceAccountGetter;
  readonly clock: Clock;
  /** How many times `default` is looked up (the reference: 10, 100-200 ms apart). */
  readonly defaultAttempts?: number;
}

/**
 * The projected volume the reference injects (its TokenVolumeSource), under the profile's names.
 */
export function tokenVolumeSource(names: Names): Obj {
  return {
    sources: [
      {
        serviceAccountToken: {
          expirationSeconds: WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS,
          path: 'token',
        },
      },
      {
        configMap: {
          name: names.serviceAccounts.rootCaConfigMap,
          items: [{ key: 'ca.crt', path: 'ca.crt' }],
        },
      },
      {
        downwardAPI: {
          items: [
            { path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
          ],
        },
      },
    ],
    defaultMode: PROJECTED_DEFAULT_MODE,
  };
}

const objs = (v: unknown): Obj[] => listOf(v).filter(isRecord);

function refuse(r: AdmissionRequest, why: string): Error {
  const name = r.name !== '' ? r.name : (recordOf(recordOf(r.object)['metadata'])['name'] ?? '');
  const shown = typeof name === 'string' ? name : '';
  const message =
    shown === '' ? `pods is forbidden: ${why}` : `pods "${shown}" is forbidden: ${why}`;
  return forbidden(message, { name: shown, group: '', kind: 'pods' });
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = 'ServiceAccount';
  readonly mutating = true;
  private readonly o: ServiceAccountAdmissionOptions;
  constructor(o: ServiceAccountAdmissionOptions) {
    this.o = o;
  }

  async admit(r: AdmissionRequest): Promise<void> {
    if (r.apiGroup !== '' || r.resource !== 'pods' || r.subresource !== '') return;
    if (r.operation !== 'CREATE' || r.object === undefined) return;
    const pod = r.object;
    const spec = recordOf(pod['spec']);
    pod['spec'] = spec;
    const annotations = recordOf(recordOf(pod['metadata'])['annotations']);
    if (this.o.names.annotations.configMirror in annotations) {
      validateMirrorPod(r, pod, spec);
      return;
    }
    if (typeof spec['serviceAccountName'] !== 'string' || spec['serviceAccountName'] === '') {
      spec['serviceAccountName'] = DEFAULT_SERVICE_ACCOUNT_NAME;
      // The v1 form serves the deprecated serviceAccount as the same name.
      spec['serviceAccount'] = DEFAULT_SERVICE_ACCOUNT_NAME;
    }
    const saName = String(spec['serviceAccountName']);
    const sa = await this.lookup(r.namespace, saName);
    if (sa === undefined)
      throw refuse(
        r,
        `error looking up service account ${r.namespace}/${saName}: serviceaccount ` +
          `"${saName}" not found`,
      );
    if (shouldAutomount(sa, spec)) this.mountToken(spec);
    if (objs(spec['imagePullSecrets']).length === 0) {
      const pulls = objs(sa['imagePullSecrets']).map((s) => ({
        name: typeof s['name'] === 'string' ? s['name'] : '',
      }));
      if (pulls.length > 0) spec['imagePullSecrets'] = pulls;
    }
    const problem = this.enforcesMountable(sa) ? mountableSecretsProblem(sa, spec) : undefined;
    if (problem !== undefined) throw refuse(r, problem);
  }

  private enforcesMountable(sa: Obj): boolean {
    const v = recordOf(recordOf(sa['metadata'])['annotations'])[
      `${this.o.names.labelDomain}/enforce-mountable-secrets`
    ];
    return typeof v === 'string' && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
  }

  private async lookup(namespace: string, name: string): Promise<Obj | undefined> {
    const attempts = name === DEFAULT_SERVICE_ACCOUNT_NAME ? (this.o.defaultAttempts ?? 10) : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await this.o.clock.sleep(100 + Math.floor(Math.random() * 100));
      const sa = await this.o.accounts.getServiceAccount(namespace, name);
      if (sa !== undefined) return sa;
    }
    return undefined;
  }

  /** The reference's mountServiceAccountToken. */
  private mountToken(spec: Obj): void {
    const mountPath = WIRE_NAMES.serviceAccountMountPath;
    const prefix = this.o.names.serviceAccounts.apiAccessVolumePrefix;
    const volumes = listOf(spec['volumes']);
    const existing = objs(volumes).find(
      (v) => typeof v['name'] === 'string' && v['name'].startsWith(prefix),
    );
    const volumeName =
      typeof existing?.['name'] === 'string' ? existing['name'] : generateName(prefix);
    let needed = false;
    for (const list of ['initContainers', 'containers'] as const) {
      for (const c of objs(spec[list])) {
        const mounts = objs(c['volumeMounts']);
        if (mounts.some((m) => m['mountPath'] === mountPath)) continue;
        c['volumeMounts'] = [
          ...listOf(c['volumeMounts']),
          { name: volumeName, readOnly: true, mountPath },
        ];
        needed = true;
      }
    }
    if (existing === undefined && needed)
      spec['volumes'] = [
        ...volumes,
        { name: volumeName, projected: tokenVolumeSource(this.o.names) },
      ];
  }
}

function shouldAutomount(sa: Obj, spec: Obj): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean')
    return spec['automountServiceAccountToken'];
  if (typeof sa['automountServiceAccountToken'] === 'boolean')
    return sa['automountServiceAccountToken'];
  return true;
}

function validateMirrorPod(r: AdmissionRequest, pod: Obj, spec: Obj): void {
  if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '')
    throw refuse(r, 'a mirror pod may not reference service accounts');
  if (podSecretNames(pod).size > 0) throw refuse(r, 'a mirror pod may not reference secrets');
  for (const v of objs(spec['volumes']))
    for (const s of objs(recordOf(v['projected'])['sources']))
      if (s['serviceAccountToken'] !== undefined && s['serviceAccountToken'] !== null)
        throw refuse(r, 'a mirror pod may not use ServiceAccountToken volume projections');
}
