// Ephemeral containers (kubectl debug, added through pods/ephemeralcontainers): each is started
// once into the running pod, as soon as its sandbox runs (init containers need not have
// finished), and never restarted: one that exists in any state, in any sandbox, is left alone,
// as the reference's computePodActions starts only those without a status. With
// targetContainerName it joins that container's PID namespace; a target that never ran fails the
// start as the reference's getTargetID does (`unable to find target container <name>`).
import type { Container, EphemeralContainer, Pod } from '../pod/types.js';
import type { RuntimeContainer } from '../runtime/types.js';
import { latestInstances } from './pod-status.js';
import {
  EPHEMERAL_FORBIDDEN,
  forbiddenEphemeralFields,
} from '../../common/pod/ephemeral-fields.js';

/** The container part of an ephemeral container (everything but targetContainerName). */
export function ephemeralCommon(ec: EphemeralContainer): Container {
  const { targetContainerName: _target, ...common } = ec;
  return common;
}

export interface EphemeralStart {
  container: Container;
  /** The target's runtime id; undefined without targetContainerName. */
  targetContainerId?: string;
  /** Set when the target cannot be found: the start fails with CreateContainerConfigError. */
  error?: string;
}

/** The latest instance of an init or app container of that name, as FindContainerStatusByName. */
function targetInstance(all: RuntimeContainer[], name: string): RuntimeContainer | undefined {
  return [...latestInstances(all, name, 'app'), ...latestInstances(all, name, 'init')][0];
}

/** The ephemeral containers of the pod that never had an instance: the ones to start now. */
export function ephemeralToStart(
  pod: Pod,
  all: RuntimeContainer[],
  refused: (c: Container, path: string) => string[],
): EphemeralStart[] {
  const out: EphemeralStart[] = [];
  (pod.spec.ephemeralContainers ?? []).forEach((ec, i) => {
    if (latestInstances(all, ec.name, 'ephemeral').length > 0) return;
    out.push(startOf(ec, `spec.ephemeralContainers[${i}]`, all, refused));
  });
  return out;
}

/** How one ephemeral container starts: its target, or why it cannot. */
function startOf(
  ec: EphemeralContainer,
  path: string,
  all: RuntimeContainer[],
  refused: (c: Container, path: string) => string[],
): EphemeralStart {
  const container = ephemeralCommon(ec);
  // the API server refuses these; a pod from a laxer one still never runs them
  const problems = [
    ...forbiddenEphemeralFields(ec).map((f) => `${path}.${f}: Forbidden: ${EPHEMERAL_FORBIDDEN}`),
    ...refused(container, path),
  ];
  if (problems.length > 0)
    return { container, error: `the container cannot run on this node: ${problems.join('; ')}` };
  const target = ec.targetContainerName;
  if (target === undefined || target === '') return { container };
  const instance = targetInstance(all, target);
  return instance === undefined
    ? { container, error: `unable to find target container ${target}` }
    : { container, targetContainerId: instance.id };
}
