// The streaming endpoints' view of the container runtime: find the pod and its running
// container (the reference's answers: 404 "pod does not exist", 500 `container not found
// ("name")`), start an interactive exec or attach, and reach a pod's ports.

import type { ContainerRuntime, RuntimeContainer } from '../runtime/types.js';
import type { PodLookup } from './runtime-adapters.js';
import {
  StreamTargetError,
  type AttachOptions,
  type ContainerRef,
  type ExecSession,
  type PortForwardTarget,
  type StreamingRuntime,
} from './streaming/types.js';

export class RuntimeStreaming implements StreamingRuntime {
  /** Docker through the engine; process:// through a pseudo-terminal (node-pty). */
  readonly supportsTty = true;

  constructor(private readonly o: { runtime: ContainerRuntime; pods: PodLookup }) {}

  private podUid(ref: { namespace: string; pod: string; uid?: string }): string {
    const pod = this.o.pods
      .pods()
      .find(
        (p) =>
          p.metadata.namespace === ref.namespace &&
          p.metadata.name === ref.pod &&
          (ref.uid === undefined || p.metadata.uid === ref.uid),
      );
    if (pod === undefined) throw new StreamTargetError(404, 'pod does not exist');
    return pod.metadata.uid;
  }

  private async running(ref: ContainerRef): Promise<RuntimeContainer> {
    const uid = this.podUid(ref);
    const containers = (await this.o.runtime.listContainers({ podUid: uid })).filter(
      (c) => c.kind !== 'sandbox' && c.name === ref.container && c.state === 'running',
    );
    const latest = containers.sort((a, b) => b.attempt - a.attempt)[0];
    if (latest === undefined)
      throw new StreamTargetError(500, `container not found ("${ref.container}")`);
    return latest;
  }

  async exec(
    ref: ContainerRef,
    command: readonly string[],
    opts: { tty: boolean },
  ): Promise<ExecSession> {
    const c = await this.running(ref);
    if (this.o.runtime.execStream === undefined)
      throw new StreamTargetError(
        500,
        `the ${this.o.runtime.type} runtime offers no interactive exec`,
      );
    return this.o.runtime.execStream(c.id, command, opts);
  }

  async attach(ref: ContainerRef, opts: AttachOptions): Promise<ExecSession> {
    const c = await this.running(ref);
    if (this.o.runtime.attachStream === undefined)
      throw new StreamTargetError(500, `the ${this.o.runtime.type} runtime offers no attach`);
    return this.o.runtime.attachStream(c.id, opts);
  }

  portForward(ref: { namespace: string; pod: string; uid?: string }): Promise<PortForwardTarget> {
    // a failure is a rejection, as from the other (async) targets
    return new Promise((resolve) => resolve(this.portForwardTarget(ref)));
  }

  private portForwardTarget(ref: {
    namespace: string;
    pod: string;
    uid?: string;
  }): PortForwardTarget {
    const podUid = this.podUid(ref);
    const rt = this.o.runtime;
    const connectPort = rt.connectPort?.bind(rt);
    if (connectPort === undefined)
      throw new StreamTargetError(500, `port forwarding into ${rt.type} pods is not offered`);
    return { podUid, connect: (port) => connectPort(podUid, port) };
  }
}
