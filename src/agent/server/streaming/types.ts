// What the streaming endpoints (exec, attach, portForward) need from the rest of the agent,
// owned here (the consumer); streaming-adapters.ts implements it over the container runtime.

import type { Duplex } from 'node:stream';
import type { AttachOptions, ExecSession } from '../../runtime/types.js';

export type { AttachOptions, ExecSession };

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

export interface ContainerRef {
  namespace: string;
  pod: string;
  uid?: string;
  container: string;
}

/** A pod's ports, reachable from the agent. */
export interface PortForwardTarget {
  readonly podUid: string;
  /**
   * Connects to `port` in the pod's network; rejects with the reason the port cannot be reached.
   */
  connect(port: number): Promise<Duplex>;
}

export interface StreamingRuntime {
  /**
   * Starts a command in a running container. Throws StreamTargetError for a missing pod or
   * container.
   */
  exec(ref: ContainerRef, command: readonly string[], opts: { tty: boolean }): Promise<ExecSession>;
  /**
   * Attaches to a running container's process. Throws StreamTargetError for a missing pod or
   * container.
   */
  attach(ref: ContainerRef, opts: AttachOptions): Promise<ExecSession>;
  /** Where a pod's ports are reached from the agent. Throws StreamTargetError for a missing pod. */
  portForward(ref: { namespace: string; pod: string; uid?: string }): Promise<PortForwardTarget>;
  /** Whether exec can give the command a terminal (tty=1). */
  readonly supportsTty: boolean;
}
