// spec.activeDeadlineSeconds as the reference's active deadline handler reads it: counted from
// status.startTime; once it has passed, the pod is failed (phase Failed, the reason and message
// below, a Normal event of that reason) and its containers are killed.

export const DEADLINE_EXCEEDED = {
  reason: 'DeadlineExceeded',
  message: 'Pod was active on the node longer than the specified deadline',
} as const;

/**
 * Milliseconds left before the deadline (0 or less: passed); undefined when the pod has no
 * deadline or has not started.
 */
export function activeDeadlineLeftMs(
  deadlineSeconds: number | undefined,
  startTime: string | undefined,
  nowMs: number,
): number | undefined {
  if (deadlineSeconds === undefined || startTime === undefined) return undefined;
  const start = Date.parse(startTime);
  if (!Number.isFinite(start)) return undefined;
  return start + deadlineSeconds * 1000 - nowMs;
}
