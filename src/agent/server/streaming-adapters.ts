// The streaming endpoints' view of the container runtime: find the pod and its running
// container (the reference's answers: 404 "pod does not exist", 500 `container not found
// ("name")`), start an interactive exec, and say where a pod's ports are reached.

import type { ContainerRuntime } from '../runtime/types.js';
import type { PodLookup } from './runtime-adapters.js';
import { StreamTargetError, type ExecSession, type StreamingRuntime } from './streaming/types.js';

export class RuntimeStreaming implements StreamingRuntime {
  readonly supportsTty: boolean;

  constructor(private readonly o: { runtime: ContainerRuntime; pods: PodLookup }) {
    this.supportsTty = o.runtime.type === 'docker';
  }

  private podUid(ref: { namespace: string; pod: string; uid?: string }): string {
    const pod = this.o.pods.pods().find((p) => p.metadata.namespace === ref.namespace && p.metadata.name === ref.pod && (ref.uid === undefined || p.metadata.uid === ref.uid));
    if (pod === undefined) throw new StreamTargetError(404, 'pod does not exist');
    return pod.metadata.uid;
  }

  async exec(ref: { namespace: string; pod: string; uid?: string; container: string }, command: readonly string[], opts: { tty: boolean }): Promise<ExecSession> {
    const uid = this.podUid(ref);
    const containers = (await this.o.runtime.listContainers({ podUid: uid })).filter((c) => c.kind !== 'sandbox' && c.name === ref.container && c.state === 'running');
    const latest = containers.sort((a, b) => b.attempt - a.attempt)[0];
    if (latest === undefined) throw new StreamTargetError(500, `container not found ("${ref.container}")`);
    if (this.o.runtime.execStream === undefined) throw new StreamTargetError(500, `the ${this.o.runtime.type} runtime offers no interactive exec`);
    return this.o.runtime.execStream(latest.id, command, opts);
  }

  async portTarget(ref: { namespace: string; pod: string; uid?: string }): Promise<{ host: string; podUid: string }> {
    const podUid = this.podUid(ref);
    if (this.o.runtime.type !== 'process') throw new StreamTargetError(500, `port forwarding into ${this.o.runtime.type} pods is not offered yet`);
    return { host: '127.0.0.1', podUid };
  }
}
