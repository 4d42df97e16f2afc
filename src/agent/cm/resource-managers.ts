// The resource managers as the rest of the agent sees them: one admission handler, the cpuset
// fields of each container (Docker CpusetCpus/CpusetMems), and the reconcile loop that releases
// the CPUs and memory of pods that are gone and moves shared-pool containers to the current pool.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { runEvery } from '../../common/util/every.js';
import { userMessage } from '../../common/util/errors.js';
import type { Container, Pod } from '../pod/types.js';
import type { HostNote } from '../runtime/settings/from-config.js';
import type { ManagerAdmitResult } from './admission-error.js';
import type { CpuManager } from './cpu-manager.js';
import type { MemoryManager } from './memory-manager.js';
import type { TopologyManager } from './topology-manager.js';

export interface CpusetFields {
  CpusetCpus?: string;
  CpusetMems?: string;
}

/** What the reconcile loop needs of the container runtime. */
export interface CpusetRuntime {
  listContainers(): Promise<readonly { id: string; podUid: string; name: string; state: string }[]>;
  /** Docker: POST /containers/{id}/update; absent on runtimes that cannot pin. */
  updateCpuset?(id: string, cpus: string): Promise<void>;
}

export interface ReconcileOptions {
  /** Pods admitted and not finished (the reference's activePods). */
  activePods: () => readonly Pod[];
  /** Whether every pod source has been seen (stale state is released only then). */
  sourcesReady: () => boolean;
  runtime: CpusetRuntime;
  periodMs: number;
  clock: Clock;
  signal: AbortSignal;
}

export class ResourceManagers {
  /** cpuset each running container was last given, by container id */
  private readonly applied = new Map<string, string>();

  constructor(
    private readonly o: {
      cpu: CpuManager;
      memory: MemoryManager;
      topology: TopologyManager;
      notes: HostNote[];
      runtimeType: 'docker' | 'process';
      logger: Logger;
    },
  ) {}

  get cpu(): CpuManager {
    return this.o.cpu;
  }

  get memory(): MemoryManager {
    return this.o.memory;
  }

  get notes(): readonly HostNote[] {
    return this.o.notes;
  }

  /**
   * Set by startReconcile: what admission needs to release stale state first, as the reference's
   * Allocate.
   */
  private pods: Pick<ReconcileOptions, 'activePods' | 'sourcesReady'> | undefined;

  /** The topology manager's admit handler (the reference's lifecycle.PodAdmitHandler). */
  readonly admit = (pod: Pod): ManagerAdmitResult => {
    if (this.pods?.sourcesReady() === true) this.removeStale([...this.pods.activePods(), pod]);
    return this.o.topology.admit(pod);
  };

  /** The container's cpuset fields at creation (the reference's PreCreateContainer). */
  readonly cpuset = (pod: Pod, c: Container): CpusetFields => {
    const cpus = this.o.cpu.cpusetFor(pod, c);
    const mems = this.o.memory.numaNodesFor(pod, c);
    return {
      ...(cpus !== undefined && cpus.size > 0 ? { CpusetCpus: cpus.toString() } : {}),
      ...(mems !== undefined ? { CpusetMems: mems.join(',') } : {}),
    };
  };

  /** Releases what pods no longer active hold (removeStaleState of both managers). */
  removeStale(active: readonly Pod[]): void {
    const uids = new Set(active.map((p) => p.metadata.uid));
    this.o.topology.removeStale(uids);
    this.o.cpu.removeStale(uids);
    this.o.memory.removeStale(uids);
  }

  /**
   * One reconcileState pass: stale state released, shared-pool containers moved to the current
   * pool.
   */
  async reconcile(r: Omit<ReconcileOptions, 'clock' | 'signal' | 'periodMs'>): Promise<void> {
    const pods = r.activePods();
    if (r.sourcesReady()) this.removeStale(pods);
    if (this.o.cpu.policy !== 'static' || r.runtime.updateCpuset === undefined) return;
    const byUid = new Map(pods.map((p) => [p.metadata.uid, p]));
    const live = new Set<string>();
    for (const rc of await r.runtime.listContainers()) {
      const pod = byUid.get(rc.podUid);
      const c =
        pod === undefined || rc.name === ''
          ? undefined
          : [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find(
              (x) => x.name === rc.name,
            );
      if (pod === undefined || c === undefined || rc.state !== 'running') continue;
      live.add(rc.id);
      const want = this.o.cpu.cpusetFor(pod, c)?.toString() ?? '';
      if (want === '' || this.applied.get(rc.id) === want) continue;
      await r.runtime.updateCpuset(rc.id, want);
      this.applied.set(rc.id, want);
      this.o.logger.info(
        { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, container: c.name, cpus: want },
        'container cpuset reconciled',
      );
    }
    for (const id of [...this.applied.keys()]) if (!live.has(id)) this.applied.delete(id);
  }

  /**
   * Runs reconcile every period until the signal aborts (only under the static policy, as the
   * reference).
   */
  startReconcile(r: ReconcileOptions): Promise<void> {
    this.pods = { activePods: r.activePods, sourcesReady: r.sourcesReady };
    if (this.o.cpu.policy !== 'static' && this.o.memory.machineState().size === 0)
      return Promise.resolve();
    return runEvery({
      clock: r.clock,
      ms: r.periodMs,
      signal: r.signal,
      run: () => this.reconcile(r),
      onError: (err) =>
        this.o.logger.warn(
          { err: userMessage(err) },
          'CPU manager reconcile failed; will retry at the next period',
        ),
    });
  }

  async flush(): Promise<void> {
    await Promise.all([this.o.cpu.flush(), this.o.memory.flush()]);
  }
}
