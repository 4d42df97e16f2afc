// What the streaming endpoints (exec, attach, portForward) need from the rest of the agent,
// owned here (the consumer); streaming-adapters.ts implements it over the container runtime.

import type { ExecSession } from '../../runtime/types.js';

export type { ExecSession };

/** Why a target cannot be used, with the reference's status and message. */
export class StreamTargetError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'StreamTargetError';
  }
}

export interface StreamingRuntime {
  /** Starts a command in a running container. Throws StreamTargetError for a missing pod or container. */
  exec(ref: { namespace: string; pod: string; uid?: string; container: string }, command: readonly string[], opts: { tty: boolean }): Promise<ExecSession>;
  /** Where a pod's port is reached from the agent. Throws StreamTargetError for a missing pod. */
  portTarget(ref: { namespace: string; pod: string; uid?: string }): Promise<{ host: string; podUid: string }>;
  /** Whether this runtime offers a terminal (process:// does not). */
  readonly supportsTty: boolean;
}
