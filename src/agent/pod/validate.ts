// A pod as the reference's ValidatePodCreate judges it, for the fields this agent knows: metadata
// (validate-meta.ts), volumes, containers (names, ports, env, resources, volume mounts, probes).
// Messages are the reference's field errors (field-errors.ts). The shape (types) is zod's.
import { isDns1123Label } from '../../common/util/names.js';
import { duplicate, forbidden, invalid, notFound, notSupported, required } from './field-errors.js';
import { validateContainerPorts, validateProbe } from './validate-ports-probes.js';
import { validateLifecycle } from './validate-lifecycle.js';
import { validatePodMeta } from './validate-meta.js';
import { validateResources } from './validate-resources.js';
import { validateIdsAndPaths } from './validate-ids.js';
import { envProblems } from './validate-env.js';
import type { Pod, Container, Volume } from './types.js';
import { REFERENCE_NAMES, inLabelNamespace } from '../../common/names.js';
import { driverPaths } from '../volume/flexvolume.js';
import {
  mountProblems,
  processMountProblems,
  validateManagedVolume,
} from '../volume/validate-volumes.js';

export interface ValidatePodOptions {
  /** Docker needs an image for every container; process:// needs a command instead. */
  requireImage: boolean;
  requireCommand: boolean;
  /** The UID came from a manifest (file or URL): only the two real UID forms are accepted. */
  staticPod?: boolean;
  /** process://: volume mounts a host process cannot have are refused. */
  processRuntime?: boolean;
}

/** The reference's validatePathNoBacksteps / validateLocalDescendingPath. */
function pathProblems(path: string, value: string, mustBeRelative: boolean, out: string[]): void {
  if (mustBeRelative && value.startsWith('/'))
    out.push(invalid(path, value, 'must be a relative path'));
  if (value.split(/[\\/]/).includes('..')) out.push(invalid(path, value, "must not contain '..'"));
}

/** The reference's validateFlexVolumeSource, plus a driver name that is a plugin path. */
function flexVolumeProblems(
  path: string,
  f: NonNullable<Volume['flexVolume']>,
  out: string[],
): void {
  if (f.driver === '') out.push(required(`${path}.driver`));
  else {
    const p = driverPaths(f.driver);
    if (typeof p === 'string') out.push(invalid(`${path}.driver`, f.driver, p));
  }
  const reserved = [REFERENCE_NAMES.labelDomain, REFERENCE_NAMES.groupDomain];
  for (const k of Object.keys(f.options ?? {})) {
    if (reserved.some((ns) => inLabelNamespace(k, ns)))
      out.push(invalid(`${path}.options`, k, `${reserved.join(' and ')} namespaces are reserved`));
  }
  if (f.secretRef !== undefined)
    out.push(forbidden(`${path}.secretRef`, 'this agent reads no Secrets'));
}

function validateVolume(v: Volume, i: number, names: Set<string>, out: string[]): void {
  const path = `spec.volumes[${i}]`;
  if (v.name === '') out.push(required(`${path}.name`));
  else for (const m of isDns1123Label(v.name)) out.push(invalid(`${path}.name`, v.name, m));
  if (names.has(v.name)) out.push(duplicate(`${path}.name`, v.name));
  names.add(v.name);
  // the reference's validateVolumeSource: exactly one source (support.ts says which this agent
  // runs)
  const kinds = Object.keys(v).filter((k) => k !== 'name');
  if (kinds.length === 0) out.push(required(path, 'must specify a volume type'));
  else if (kinds.length > 1)
    out.push(forbidden(`${path}.${kinds[1] ?? ''}`, 'may not specify more than 1 volume type'));
  if (v.hostPath) pathProblems(`${path}.hostPath.path`, v.hostPath.path, false, out);
  if (v.flexVolume) flexVolumeProblems(`${path}.flexVolume`, v.flexVolume, out);
  validateManagedVolume(v, path, out);
}

interface ContainerContext {
  pod?: Pod;
  volumeNames: Set<string>;
  containerNames: Set<string>;
  hostPorts: Set<string>;
  opts: ValidatePodOptions;
  out: string[];
}

function validateContainer(
  c: Container,
  path: string,
  isInit: boolean,
  ctx: ContainerContext,
): void {
  const { out, opts } = ctx;
  if (c.name === '') out.push(required(`${path}.name`));
  else for (const m of isDns1123Label(c.name)) out.push(invalid(`${path}.name`, c.name, m));
  if (ctx.containerNames.has(c.name)) out.push(duplicate(`${path}.name`, c.name));
  ctx.containerNames.add(c.name);
  if (opts.requireImage && (c.image === undefined || c.image === ''))
    out.push(required(`${path}.image`));
  if (opts.requireCommand && (c.command === undefined || c.command.length === 0)) {
    out.push(required(`${path}.command`, 'the process:// runtime runs the command on the host'));
  }
  validateContainerPorts(c.ports ?? [], `${path}.ports`, ctx.hostPorts, out);
  validateResources(c.resources, `${path}.resources`, out);
  for (const [kind, probe] of [
    ['livenessProbe', c.livenessProbe],
    ['readinessProbe', c.readinessProbe],
    ['startupProbe', c.startupProbe],
  ] as const) {
    if (probe === undefined) continue;
    if (isInit && c.restartPolicy !== 'Always')
      out.push(
        forbidden(
          `${path}.${kind}`,
          'may not be set for init containers without restartPolicy=Always',
        ),
      );
    else validateProbe(probe, `${path}.${kind}`, kind !== 'readinessProbe', out);
  }
  const grace = ctx.pod?.spec.terminationGracePeriodSeconds ?? 30;
  validateLifecycle(c, { isInit, grace }, `${path}.lifecycle`, out);
  (c.volumeMounts ?? []).forEach((m, j) => {
    if (!ctx.volumeNames.has(m.name)) out.push(notFound(`${path}.volumeMounts[${j}].name`, m.name));
    if (m.subPath !== undefined && m.subPath !== '')
      pathProblems(`${path}.volumeMounts[${j}].subPath`, m.subPath, true, out);
  });
  mountProblems(c, path, out);
  if (opts.processRuntime === true && ctx.pod !== undefined)
    processMountProblems(ctx.pod, c, path, out);
  out.push(...envProblems(c, path));
}

/** Every problem of the pod at once, each naming its field path; empty when valid. */
export function validatePod(pod: Pod, opts: ValidatePodOptions): string[] {
  const out: string[] = [];
  validatePodMeta(pod, opts.staticPod === true, out);
  if (pod.spec.containers.length === 0) out.push(required('spec.containers'));
  validateIdsAndPaths(pod, out);
  const volumeNames = new Set<string>();
  (pod.spec.volumes ?? []).forEach((v, i) => validateVolume(v, i, volumeNames, out));
  const ctx: ContainerContext = {
    pod,
    volumeNames,
    containerNames: new Set(),
    hostPorts: new Set(),
    opts,
    out,
  };
  (pod.spec.initContainers ?? []).forEach((c, i) =>
    validateContainer(c, `spec.initContainers[${i}]`, true, ctx),
  );
  pod.spec.containers.forEach((c, i) => validateContainer(c, `spec.containers[${i}]`, false, ctx));
  const policy = pod.spec.restartPolicy;
  if (policy !== undefined && !['Always', 'OnFailure', 'Never'].includes(policy)) {
    out.push(notSupported('spec.restartPolicy', policy, ['Always', 'OnFailure', 'Never']));
  }
  return out;
}
