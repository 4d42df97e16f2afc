// The numeric and required-path checks of the reference's ValidatePodCreate that the schema's
// JSON types do not make: user and group IDs in range (IsValidUserID, IsValidGroupID), a grace
// period that is not negative, a mount path and a hostPath path that are set.
import { invalid, required } from './field-errors.js';
import type { Container, Pod } from './types.js';

const MAX_ID = 2147483647;
const ID_RANGE = `must be between 0 and ${MAX_ID}, inclusive`;

interface Ids {
  runAsUser?: number | undefined;
  runAsGroup?: number | undefined;
}

function idProblems(sc: Ids | undefined, path: string, out: string[]): void {
  for (const f of ['runAsUser', 'runAsGroup'] as const) {
    const v = sc?.[f];
    if (v !== undefined && (v < 0 || v > MAX_ID)) out.push(invalid(`${path}.${f}`, v, ID_RANGE));
  }
}

function containerProblems(c: Container, path: string, out: string[]): void {
  idProblems(c.securityContext, `${path}.securityContext`, out);
  (c.volumeMounts ?? []).forEach((m, j) => {
    if (m.mountPath === '') out.push(required(`${path}.volumeMounts[${j}].mountPath`));
  });
}

export function validateIdsAndPaths(pod: Pod, out: string[]): void {
  const spec = pod.spec;
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && grace < 0)
    out.push(
      invalid('spec.terminationGracePeriodSeconds', grace, 'must be greater than or equal to 0'),
    );
  idProblems(spec.securityContext, 'spec.securityContext', out);
  for (const g of spec.securityContext?.supplementalGroups ?? [])
    if (g < 0 || g > MAX_ID)
      out.push(invalid('spec.securityContext.supplementalGroups', g, ID_RANGE));
  (spec.initContainers ?? []).forEach((c, i) =>
    containerProblems(c, `spec.initContainers[${i}]`, out),
  );
  spec.containers.forEach((c, i) => containerProblems(c, `spec.containers[${i}]`, out));
  (spec.volumes ?? []).forEach((v, i) => {
    if (v.hostPath?.path === '') out.push(required(`spec.volumes[${i}].hostPath.path`));
  });
}
