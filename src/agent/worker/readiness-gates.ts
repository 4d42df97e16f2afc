// Pod conditions the agent does not own, and the readiness gates that read them. The agent writes
// PodScheduled, Initialized, ContainersReady, Ready and PodReadyToStartContainers; every other
// condition (a controller's readiness gate, DisruptionTarget) belongs to whoever set it and is kept
// as the API server last sent it. Ready is True only when the containers are ready and every
// readiness gate's condition is True (the reference's GeneratePodReadyCondition, same messages).
import { goQuote } from '../../common/util/go-quote.js';
import { isRecord } from '../../common/util/json-shape.js';
import type { Pod, PodCondition } from '../pod/types.js';

/** The condition types this agent owns in a pod's status. */
export const AGENT_CONDITIONS: ReadonlySet<string> = new Set([
  'PodScheduled',
  'Ready',
  'Initialized',
  'ContainersReady',
  'PodReadyToStartContainers',
]);

const STATUSES: ReadonlySet<string> = new Set(['True', 'False', 'Unknown']);

function statusOf(s: string): PodCondition['status'] {
  return s === 'True' ? 'True' : s === 'False' ? 'False' : 'Unknown';
}

function conditionOf(v: unknown): PodCondition | undefined {
  if (!isRecord(v)) return undefined;
  const { type, status } = v;
  if (typeof type !== 'string' || type === '' || AGENT_CONDITIONS.has(type)) return undefined;
  if (typeof status !== 'string' || !STATUSES.has(status)) return undefined;
  const c: PodCondition = { type, status: statusOf(status) };
  for (const key of ['lastProbeTime', 'lastTransitionTime', 'reason', 'message'] as const) {
    const s = v[key];
    if (typeof s === 'string') c[key] = s;
  }
  return c;
}

/** The conditions of the pod's API status that another party owns, in their order. */
export function foreignConditions(pod: Pod): PodCondition[] {
  const list = pod.status?.['conditions'];
  if (!Array.isArray(list)) return [];
  return list.map(conditionOf).filter((c): c is PodCondition => c !== undefined);
}

/** A condition as a generator makes it, before its transition time is set. */
export type Generated = Omit<PodCondition, 'lastTransitionTime' | 'lastProbeTime'>;

/**
 * Ready from ContainersReady and the readiness gates: ContainersReady's status, reason and
 * message while it is not True; then False with ReadinessGatesNotReady when a gate's condition
 * is missing or not True.
 */
export function readyCondition(
  pod: Pod,
  foreign: PodCondition[],
  containers: Generated,
): Generated {
  if (containers.status !== 'True') return { ...containers, type: 'Ready' };
  const unready: string[] = [];
  for (const gate of pod.spec.readinessGates ?? []) {
    const c = foreign.find((x) => x.type === gate.conditionType);
    if (c === undefined)
      unready.push(
        `corresponding condition of pod readiness gate ${goQuote(gate.conditionType)} ` +
          `does not exist.`,
      );
    else if (c.status !== 'True')
      unready.push(
        `the status of pod readiness gate ${goQuote(gate.conditionType)} is not "True", ` +
          `but ${c.status}`,
      );
  }
  if (unready.length === 0) return { type: 'Ready', status: 'True' };
  return {
    type: 'Ready',
    status: 'False',
    reason: 'ReadinessGatesNotReady',
    message: unready.join(', '),
  };
}

/**
 * Whether a status-only change of the pod (its API status as sent) changes a condition its
 * readiness gates name: only then must Ready be evaluated again (not on the echo of the agent's
 * own status write).
 */
export function gateConditionsChanged(prev: Pod | undefined, next: Pod): boolean {
  const gates = (next.spec.readinessGates ?? []).map((g) => g.conditionType);
  if (gates.length === 0) return false;
  const named = (p: Pod | undefined): string =>
    JSON.stringify(
      gates.map((t) => {
        const c = p === undefined ? undefined : foreignConditions(p).find((x) => x.type === t);
        return c?.status ?? null;
      }),
    );
  return named(prev) !== named(next);
}
