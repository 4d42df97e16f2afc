// The one status change the API server refuses for a pod whose containers may not restart: a
// container that terminated (any exit under restartPolicy Never, exit 0 under OnFailure) going
// back to waiting or running. The reference's status manager checks this before it caches or
// sends a status, and drops such an update with "Status update on pod aborted"; so does ours.
import { isRecord, listOf, recordOf } from '../../common/util/json-shape.js';
import { restartPolicyOf, type Pod, type PodStatus } from '../pod/types.js';

/** A container's name and whether (and how) it terminated, from a typed or an API status. */
interface Ended {
  name: string;
  terminated: boolean;
  exitCode: number;
}

function endedOf(list: unknown): Ended[] {
  return listOf(list).map((s) => {
    const r = recordOf(s);
    const terminated = recordOf(r['state'])['terminated'];
    const exit = isRecord(terminated) ? terminated['exitCode'] : undefined;
    return {
      name: typeof r['name'] === 'string' ? r['name'] : '',
      terminated: isRecord(terminated),
      exitCode: typeof exit === 'number' ? exit : 0,
    };
  });
}

/** Whether a terminated container of this kind is final (may not leave the terminated state). */
function finalFor(pod: Pod): (e: Ended) => boolean {
  const policy = restartPolicyOf(pod);
  return (e) =>
    e.terminated && (policy === 'Never' || (policy === 'OnFailure' && e.exitCode === 0));
}

function firstRegression(old: unknown, next: unknown, final: (e: Ended) => boolean) {
  const now = new Map(endedOf(next).map((e) => [e.name, e]));
  return endedOf(old).find((e) => final(e) && now.get(e.name)?.terminated === false)?.name;
}

/**
 * Why `next` may not follow `old` (the reference's message), or undefined. `old` is the status
 * the agent holds for the pod, else the pod's status as the API server has it.
 */
export function illegalTransition(
  pod: Pod,
  old: PodStatus | Record<string, unknown> | undefined,
  next: PodStatus,
): string | undefined {
  if (old === undefined || restartPolicyOf(pod) === 'Always') return undefined;
  const final = finalFor(pod);
  const app = firstRegression(old.containerStatuses, next.containerStatuses, final);
  if (app !== undefined)
    return `terminated container ${app} attempted illegal transition to non-terminated state`;
  const sidecars = new Set(
    (pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
  const init = firstRegression(
    old.initContainerStatuses,
    next.initContainerStatuses,
    (e) => final(e) && !sidecars.has(e.name),
  );
  return init === undefined
    ? undefined
    : `terminated init container ${init} attempted illegal transition to non-terminated state`;
}
