// The DefaultTolerationSeconds admission plugin, as the reference's: on pod create and update
// (not subresources), a pod that does not already tolerate the profile's not-ready or unreachable
// NoExecute taint (node.kubernetes.io/not-ready and .../unreachable under the kubernetes profile) (a toleration with that key or no key, and
// effect NoExecute or none) gets one that does for --default-not-ready-toleration-seconds or
// --default-unreachable-toleration-seconds (300 s each by default), so that its pods are evicted
// from a node that has gone away only after that long.

import type { Names } from '../../common/names.js';
import { isRecord, listOf } from '../../common/util/json-shape.js';
import type { AdmissionPlugin, AdmissionRequest } from '../interfaces.js';

type Obj = Record<string, unknown>;

/** The reference's --default-not-ready-toleration-seconds and ...-unreachable-... defaults. */
export const DEFAULT_TOLERATION_SECONDS = 300;

/** The tolerationSeconds of the two tolerations the plugin adds. */
export interface TolerationSeconds {
  readonly notReady: number;
  readonly unreachable: number;
}

/** Whether one of the tolerations covers the NoExecute taint with this key. */
function tolerates(tolerations: readonly Obj[], key: string): boolean {
  return tolerations.some(
    (t) =>
      (t['key'] === key || (t['key'] ?? '') === '') &&
      (t['effect'] === 'NoExecute' || (t['effect'] ?? '') === ''),
  );
}

export class DefaultTolerationSeconds implements AdmissionPlugin {
  readonly name = 'DefaultTolerationSeconds';
  readonly mutating = true;
  private readonly taints: readonly (readonly [string, number])[];
  constructor(
    names: Names,
    seconds: TolerationSeconds = {
      notReady: DEFAULT_TOLERATION_SECONDS,
      unreachable: DEFAULT_TOLERATION_SECONDS,
    },
  ) {
    this.taints = [
      [names.taints.notReady, seconds.notReady],
      [names.taints.unreachable, seconds.unreachable],
    ];
  }

  admit(r: AdmissionRequest): Promise<void> {
    if (r.apiGroup !== '' || r.resource !== 'pods' || r.subresource !== '')
      return Promise.resolve();
    if (r.operation !== 'CREATE' && r.operation !== 'UPDATE') return Promise.resolve();
    const spec = r.object?.['spec'];
    if (!isRecord(spec)) return Promise.resolve();
    // A value that is not a list is left for validation to name.
    if (spec['tolerations'] !== undefined && !Array.isArray(spec['tolerations']))
      return Promise.resolve();
    const tolerations = listOf(spec['tolerations']);
    const known = tolerations.filter(isRecord);
    for (const [key, tolerationSeconds] of this.taints)
      if (!tolerates(known, key))
        tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds });
    if (tolerations.length > 0) spec['tolerations'] = tolerations;
    return Promise.resolve();
  }
}
