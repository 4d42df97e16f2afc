// An admission failure with the reference's reason (lifecycle.PodAdmitResult):
// TopologyAffinityError,
// SMTAlignmentError; any other error is UnexpectedAdmissionError, as admission.GetPodAdmitResult.

export class AdmissionError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const TOPOLOGY_AFFINITY_ERROR = 'TopologyAffinityError';
export const TOPOLOGY_AFFINITY_MESSAGE = 'Resources cannot be allocated with Topology locality';

export interface ManagerAdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

export function admitResultOf(err: unknown): ManagerAdmitResult {
  if (err instanceof AdmissionError)
    return { admit: false, reason: err.reason, message: err.message };
  const msg = err instanceof Error ? err.message : String(err);
  return {
    admit: false,
    reason: 'UnexpectedAdmissionError',
    message: `Allocate failed due to ${msg}, which is unexpected`,
  };
}
