// The node conditions the agent owns: Ready, MemoryPressure, DiskPressure and PIDPressure, with
// the reference's reasons and messages. lastTransitionTime moves only when the status changes;
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

function pressure(
  type: string,
  on: boolean,
  onReason: string,
  onMessage: string,
  offReason: string,
  offMessage: string,
): Spec {
  return on
    ? { type, status: 'True', reason: onReason, message: onMessage }
    : { type, status: 'False', reason: offReason, message: offMessage };
}

function specs(i: ConditionInputs): Spec[] {
  return [
    pressure(
      'MemoryPressure',
      i.memoryPressure,
      'NodeHasInsufficientMemory',
      'node agent has insufficient memory available',
      'NodeHasSufficientMemory',
      'node agent has sufficient memory available',
    ),
    pressure(
      'DiskPressure',
      i.diskPressure,
      'NodeHasDiskPressure',
      'node agent has disk pressure',
      'NodeHasNoDiskPressure',
      'node agent has no disk pressure',
    ),
    pressure(
      'PIDPressure',
      i.pidPressure,
      'NodeHasInsufficientPID',
      'node agent has insufficient PID available',
      'NodeHasSufficientPID',
      'node agent has sufficient PID available',
    ),
    i.notReadyReasons.length === 0
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'NodeAgentReady',
          message: 'node agent is posting ready status',
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'NodeAgentNotReady',
          message: i.notReadyReasons.join(', '),
        },
  ];
}

export function computeConditions(
  previous: readonly NodeCondition[] | undefined,
  inputs: ConditionInputs,
  now: Date,
): NodeCondition[] {
  const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return specs(inputs).map((s) => {
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
