// The seccomp profile of a container: its own securityContext, else the pod's, else
// RuntimeDefault with --seccomp-default and Unconfined without (the reference's rule).
import type { Container, Pod } from '../../pod/types.js';

export type SeccompType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

function profileType(sc: unknown): string | undefined {
  if (sc === null || typeof sc !== 'object') return undefined;
  const p = (sc as Record<string, unknown>)['seccompProfile'];
  if (p === null || typeof p !== 'object') return undefined;
  const t = (p as Record<string, unknown>)['type'];
  return typeof t === 'string' ? t : undefined;
}

export function seccompType(pod: Pod, c: Container, seccompDefault: boolean): SeccompType {
  const t = profileType(c.securityContext) ?? profileType(pod.spec.securityContext);
  if (t === 'RuntimeDefault' || t === 'Unconfined' || t === 'Localhost') return t;
  return seccompDefault ? 'RuntimeDefault' : 'Unconfined';
}

/** Docker SecurityOpt for the profile: Docker's default profile needs no option. */
export function dockerSeccompOpts(type: SeccompType): string[] {
  if (type === 'Unconfined') return ['seccomp=unconfined'];
  if (type === 'Localhost')
    throw new Error(
      'seccompProfile type Localhost is not supported by nodeagent: use RuntimeDefault or Unconfined',
    );
  return [];
}
