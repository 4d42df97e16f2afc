// The ServiceAccount plugin's mountable-secrets rule (an account annotated
// `<labelDomain>/enforce-mountable-secrets: "true"`): a pod may mount, and take environment from,
// only the secrets the account lists, and pull with only its imagePullSecrets. The first breach is
// named in the reference's words.

import { isRecord, listOf, recordOf } from '../../common/util/json-shape.js';

type Obj = Record<string, unknown>;

const objs = (v: unknown): Obj[] => listOf(v).filter(isRecord);
const nameOf = (v: unknown, key = 'name'): string => {
  const n = recordOf(v)[key];
  return typeof n === 'string' ? n : '';
};

function containerProblem(
  c: Obj,
  label: string,
  allowed: Set<string>,
  sa: string,
): string | undefined {
  const cname = nameOf(c);
  for (const e of objs(c['env'])) {
    const secret = nameOf(recordOf(e['valueFrom'])['secretKeyRef']);
    if (recordOf(e['valueFrom'])['secretKeyRef'] !== undefined && !allowed.has(secret))
      return (
        `${label} ${cname} with envVar ${nameOf(e)} referencing ` +
        `secret.secretName="${secret}" is not allowed because service account ${sa} does ` +
        `not reference that secret`
      );
  }
  for (const e of objs(c['envFrom'])) {
    if (e['secretRef'] === undefined || e['secretRef'] === null) continue;
    const secret = nameOf(e['secretRef']);
    if (!allowed.has(secret))
      return (
        `${label} ${cname} with envFrom referencing secret.secretName="${secret}" is not ` +
        `allowed because service account ${sa} does not reference that secret`
      );
  }
  return undefined;
}

/** The reference's limitSecretReferences: undefined when the pod keeps to the account's secrets. */
export function mountableSecretsProblem(account: Obj, spec: Obj): string | undefined {
  const sa = nameOf(account['metadata']);
  const allowed = new Set(objs(account['secrets']).map((s) => nameOf(s)));
  for (const v of objs(spec['volumes'])) {
    if (!isRecord(v['secret'])) continue;
    const secret = nameOf(v['secret'], 'secretName');
    if (!allowed.has(secret))
      return (
        `volume with secret.secretName="${secret}" is not allowed because service account ` +
        `${sa} does not reference that secret`
      );
  }
  for (const [list, label] of [
    ['initContainers', 'init container'],
    ['containers', 'container'],
  ] as const) {
    for (const c of objs(spec[list])) {
      const p = containerProblem(c, label, allowed, sa);
      if (p !== undefined) return p;
    }
  }
  const pulls = new Set(objs(account['imagePullSecrets']).map((s) => nameOf(s)));
  const podPulls = objs(spec['imagePullSecrets']);
  for (let i = 0; i < podPulls.length; i++) {
    const n = nameOf(podPulls[i]);
    if (!pulls.has(n))
      return (
        `imagePullSecrets[${i}].name="${n}" is not allowed because service account ${sa} ` +
        `does not reference that imagePullSecret`
      );
  }
  return undefined;
}
