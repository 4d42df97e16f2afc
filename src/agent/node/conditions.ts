// The node conditions the agent owns: Ready, MemoryPressure, DiskPressure and PIDPressure, with
// the reference kubelet's reasons and messages under the kubernetes profile and the agent's own
// under the platform profile; the node events of their changes carry the reference's reasons
// under both. lastTransitionTime moves only when the status changes;
// lastHeartbeatTime is the time of the computation.

import type { ConditionStatus, NodeCondition } from './types.js';

export interface ConditionInputs {
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
  /** Problems that make the node not ready (runtime down, network not ready ...); empty: ready. */
  notReadyReasons: readonly string[];
}

interface Spec {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** A pressure condition's reason and message when on, then when off. */
type Pressure = readonly [string, string, string, string];

/** The reasons and messages of the four conditions. */
export interface ConditionWording {
  readonly memory: Pressure;
  readonly disk: Pressure;
  readonly pid: Pressure;
  readonly ready: readonly [string, string];
  readonly notReadyReason: string;
}

/** The kubernetes profile's: the reference kubelet's words exactly. */
export const KUBELET_WORDING: ConditionWording = {
  memory: [
    'KubeletHasInsufficientMemory',
    'kubelet has insufficient memory available',
    'KubeletHasSufficientMemory',
    'kubelet has sufficient memory available',
  ],
  disk: [
    'KubeletHasDiskPressure',
    'kubelet has disk pressure',
    'KubeletHasNoDiskPressure',
    'kubelet has no disk pressure',
  ],
  pid: [
    'KubeletHasInsufficientPID',
    'kubelet has insufficient PID available',
    'KubeletHasSufficientPID',
    'kubelet has sufficient PID available',
  ],
  ready: ['KubeletReady', 'kubelet is posting ready status'],
  notReadyReason: 'KubeletNotReady',
};

/** The platform profile's. */
export const NODE_AGENT_WORDING: ConditionWording = {
  memory: [
    'NodeHasInsufficientMemory',
    'node agent has insufficient memory available',
    'NodeHasSufficientMemory',
    'node agent has sufficient memory available',
  ],
  disk: [
    'NodeHasDiskPressure',
    'node agent has disk pressure',
    'NodeHasNoDiskPressure',
    'node agent has no disk pressure',
  ],
  pid: [
    'NodeHasInsufficientPID',
    'node agent has insufficient PID available',
    'NodeHasSufficientPID',
    'node agent has sufficient PID available',
  ],
  ready: ['NodeAgentReady', 'node agent is posting ready status'],
  notReadyReason: 'NodeAgentNotReady',
};

/** The reference's node event reasons for a pressure condition's status, under every profile. */
const PRESSURE_EVENTS: Readonly<Record<string, readonly [string, string]>> = {
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
};

/** The node event's reason when a condition changes to `status` (NodeReady, NodeHasDiskPressure...). */
export function transitionEventReason(type: string, status: ConditionStatus): string {
  if (type === 'Ready') return status === 'True' ? 'NodeReady' : 'NodeNotReady';
  const pair = PRESSURE_EVENTS[type];
  return pair === undefined ? type : status === 'True' ? pair[0] : pair[1];
}

function pressure(type: string, on: boolean, words: Pressure): Spec {
  return on
    ? { type, status: 'True', reason: words[0], message: words[1] }
    : { type, status: 'False', reason: words[2], message: words[3] };
}

function specs(i: ConditionInputs, w: ConditionWording): Spec[] {
  return [
    pressure('MemoryPressure', i.memoryPressure, w.memory),
    pressure('DiskPressure', i.diskPressure, w.disk),
    pressure('PIDPressure', i.pidPressure, w.pid),
    i.notReadyReasons.length === 0
      ? { type: 'Ready', status: 'True', reason: w.ready[0], message: w.ready[1] }
      : {
          type: 'Ready',
          status: 'False',
          reason: w.notReadyReason,
          message: i.notReadyReasons.join(', '),
        },
  ];
}

export function computeConditions(
  previous: readonly NodeCondition[] | undefined,
  inputs: ConditionInputs,
  now: Date,
  wording: ConditionWording = NODE_AGENT_WORDING,
): NodeCondition[] {
  const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return specs(inputs, wording).map((s) => {
    const prev = previous?.find((c) => c.type === s.type);
    return {
      type: s.type,
      status: s.status,
      reason: s.reason,
      message: s.message,
      lastHeartbeatTime: ts,
      lastTransitionTime: prev?.status === s.status ? prev.lastTransitionTime : ts,
    };
  });
}

/** True when the two condition lists differ other than in heartbeat times. */
export function conditionsChanged(
  a: readonly NodeCondition[] | undefined,
  b: readonly NodeCondition[],
): boolean {
  if (a?.length !== b.length) return true;
  return b.some((c) => {
    const o = a.find((x) => x.type === c.type);
    return (
      o?.status !== c.status ||
      o.reason !== c.reason ||
      o.message !== c.message ||
      o.lastTransitionTime !== c.lastTransitionTime
    );
  });
}
