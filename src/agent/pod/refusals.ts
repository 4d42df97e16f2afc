// The fields of a pod this agent cannot make take effect on its runtime (support.ts says which),
// each as the reference's field-error line: "spec.containers[0].lifecycle: not yet supported by
// this agent", "spec.volumes[0].hostPath: not supported by the process:// runtime: ...". The pod
// manager refuses a pod with any of them, as the reference refuses a pod at admission.
import {
  CONTAINER,
  CONTAINER_SECURITY,
  EMPTY_DIR_MEMORY,
  ENV_SOURCE,
  EPHEMERAL_CONTAINERS,
  NOT_YET,
  POD_SECURITY,
  POD_SPEC,
  PROBE,
  VOLUME,
  VOLUME_MOUNT,
  type RuntimeKind,
  type Support,
} from './support.js';
import type { Container, Pod } from './types.js';

const RUNTIME_NAME: Record<RuntimeKind, string> = {
  docker: 'the Docker runtime',
  process: 'the process:// runtime',
};

function asks(s: Support, v: unknown): boolean {
  if (s.asks !== undefined) return v !== undefined && s.asks(v);
  if (v === undefined || v === false || v === '') return false;
  return !(Array.isArray(v) && v.length === 0);
}

/** Checks each field of `obj` that its table lists; `table` covers every field the type has. */
function checkFields(
  obj: object | undefined,
  table: Readonly<Record<string, Support>>,
  path: string,
  rt: RuntimeKind,
  out: string[],
): void {
  if (obj === undefined) return;
  for (const [k, v] of Object.entries(obj)) {
    const s = table[k];
    if (s === undefined || !asks(s, v)) continue;
    const e = s[rt];
    if (e === true) continue;
    out.push(
      e === NOT_YET
        ? `${path}.${k}: ${e}`
        : `${path}.${k}: not supported by ${RUNTIME_NAME[rt]}: ${e}`,
    );
  }
}

function checkContainer(c: Container, path: string, rt: RuntimeKind, out: string[]): void {
  checkFields(c, CONTAINER, path, rt, out);
  checkFields(c.securityContext, CONTAINER_SECURITY, `${path}.securityContext`, rt, out);
  for (const p of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
    checkFields(c[p], PROBE, `${path}.${p}`, rt, out);
  (c.env ?? []).forEach((e, i) =>
    checkFields(e.valueFrom, ENV_SOURCE, `${path}.env[${i}].valueFrom`, rt, out),
  );
  (c.volumeMounts ?? []).forEach((m, i) =>
    checkFields(m, VOLUME_MOUNT, `${path}.volumeMounts[${i}]`, rt, out),
  );
}

/** The fields of one container (at `path`) that cannot take effect on runtime `rt`. */
export function refusedContainerFields(c: Container, path: string, rt: RuntimeKind): string[] {
  const out: string[] = [];
  checkContainer(c, path, rt, out);
  return out;
}

/**
 * Every field of `pod` that cannot take effect on runtime `rt`, as field-error lines. Ephemeral
 * containers are checked one by one when they start (they arrive in running pods).
 */
export function refusedFields(pod: Pod, rt: RuntimeKind): string[] {
  const out: string[] = [];
  const spec = pod.spec;
  checkFields(spec, POD_SPEC, 'spec', rt, out);
  checkFields(spec.securityContext, POD_SECURITY, 'spec.securityContext', rt, out);
  checkFields(spec, { ephemeralContainers: EPHEMERAL_CONTAINERS }, 'spec', rt, out);
  (spec.initContainers ?? []).forEach((c, i) =>
    checkContainer(c, `spec.initContainers[${i}]`, rt, out),
  );
  spec.containers.forEach((c, i) => checkContainer(c, `spec.containers[${i}]`, rt, out));
  (spec.volumes ?? []).forEach((v, i) => {
    checkFields(v, VOLUME, `spec.volumes[${i}]`, rt, out);
    if (v.emptyDir?.medium === 'Memory')
      checkFields(v.emptyDir, { medium: EMPTY_DIR_MEMORY }, `spec.volumes[${i}].emptyDir`, rt, out);
  });
  return out;
}
