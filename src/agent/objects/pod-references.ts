// The ConfigMaps and Secrets a pod refers to, as the reference's VisitPodSecretNames and
// VisitPodConfigmapNames find them: volumes (configMap, secret, projected sources), env valueFrom,
// envFrom of every container kind, image pull secrets.
import { isRecord, listOf, recordOf } from '../../common/util/json-shape.js';
import type { Pod } from '../pod/types.js';
import type { ObjectKind } from './types.js';

function nameAt(v: unknown, field = 'name'): string[] {
  const n = isRecord(v) ? v[field] : undefined;
  return typeof n === 'string' && n !== '' ? [n] : [];
}

function containerRefs(c: unknown, out: Set<string>): void {
  const rec = recordOf(c);
  for (const e of listOf(rec['env'])) {
    const from = recordOf(recordOf(e)['valueFrom']);
    for (const n of nameAt(from['configMapKeyRef'])) out.add(`ConfigMap/${n}`);
    for (const n of nameAt(from['secretKeyRef'])) out.add(`Secret/${n}`);
  }
  for (const e of listOf(rec['envFrom'])) {
    for (const n of nameAt(recordOf(e)['configMapRef'])) out.add(`ConfigMap/${n}`);
    for (const n of nameAt(recordOf(e)['secretRef'])) out.add(`Secret/${n}`);
  }
}

/** `Kind/name` of every object the pod refers to (its namespace is the pod's). */
export function podObjectRefs(pod: Pod): { kind: ObjectKind; name: string }[] {
  const out = new Set<string>();
  const spec = recordOf(pod.spec);
  for (const s of listOf(spec['imagePullSecrets']))
    for (const n of nameAt(s)) out.add(`Secret/${n}`);
  for (const v of pod.spec.volumes ?? []) {
    for (const n of nameAt(v.configMap)) out.add(`ConfigMap/${n}`);
    for (const n of nameAt(v.secret, 'secretName')) out.add(`Secret/${n}`);
    for (const src of v.projected?.sources ?? []) {
      for (const n of nameAt(src.configMap)) out.add(`ConfigMap/${n}`);
      for (const n of nameAt(src.secret)) out.add(`Secret/${n}`);
    }
  }
  for (const field of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const c of listOf(spec[field])) containerRefs(c, out);
  return [...out].map((ref) => {
    const slash = ref.indexOf('/');
    return {
      kind: ref.slice(0, slash) === 'Secret' ? 'Secret' : 'ConfigMap',
      name: ref.slice(slash + 1),
    };
  });
}
