// The CPU manager (--cpu-manager-policy): with `static`, containers of Guaranteed pods with whole
// CPU requests get CPUs of their own; every other container runs on the shared pool (all CPUs
// minus the exclusive ones, the reserved ones included). State lives in cpu_manager_state, as
// the reference's static policy keeps it; `none` writes the file and pins nothing.
import { join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import type { Container, Pod } from '../pod/types.js';
import { takeByTopology } from './cpu-assignment.js';
import { CpuSet } from './cpuset.js';
import { CheckpointWriter, readCheckpoint } from './checkpoint-file.js';
import {
  CPU_MANAGER_STATE_FILE,
  decodeCpuState,
  encodeCpuState,
  restoreError,
  type CpuState,
} from './cpu-state.js';
import { allCpus, cpusPerCore, socketCount, type HostTopology } from './host-topology.js';
import { allMasks, type NumaMask, type TopologyHint } from './numa-mask.js';
import type { StaticPolicyOptions } from './policy-options.js';
import { guaranteedCpus, isInitContainer, podGuaranteedCpus } from './requests.js';
import { AdmissionError } from './admission-error.js';

export interface CpuManagerOptions {
  policy: 'none' | 'static';
  topology: HostTopology;
  /** The reserved CPUs (--reserved-cpus, or picked for system + plat reserved). */
  reserved: CpuSet;
  options: StaticPolicyOptions;
  rootDir: string;
  logger: Logger;
}

export class CpuManager {
  private state: CpuState;
  private readonly reuse = new Map<string, CpuSet>();
  private readonly writer: CheckpointWriter;
  readonly statePath: string;

  constructor(private readonly o: CpuManagerOptions) {
    this.statePath = join(o.rootDir, CPU_MANAGER_STATE_FILE);
    this.writer = new CheckpointWriter({ path: this.statePath, logger: o.logger });
    this.state = { policyName: o.policy, defaultCpuSet: new CpuSet(), entries: new Map() };
  }

  get policy(): 'none' | 'static' {
    return this.o.policy;
  }

  /** Restores (or creates) the checkpoint; throws the reference's start error. */
  start(): void {
    let value: unknown;
    try {
      value = readCheckpoint(this.statePath);
      if (value !== undefined)
        this.state = decodeCpuState(
          value,
          this.o.policy,
          Math.max(0, ...allCpus(this.o.topology).list()),
        );
    } catch (err) {
      throw new Error(
        restoreError(err instanceof Error ? err.message : String(err), this.statePath),
      );
    }
    if (this.o.policy === 'static') this.validateState();
    this.save();
  }

  private allCpus(): CpuSet {
    const all = allCpus(this.o.topology);
    return this.o.options.strictCpuReservation ? all.difference(this.o.reserved) : all;
  }

  /** The static policy's validateState: the checkpoint must match this host and reservation. */
  private validateState(): void {
    const s = this.state;
    const all = this.allCpus();
    if (s.defaultCpuSet.size === 0) {
      if (s.entries.size > 0) throw new Error('default cpuset cannot be empty');
      s.defaultCpuSet = all;
      return;
    }
    const reserved = this.o.reserved;
    if (this.o.options.strictCpuReservation) {
      if (reserved.intersection(s.defaultCpuSet).size > 0)
        throw new Error(
          `some of strictly reserved cpus: "${reserved.toString()}" are present in ` +
            `defaultCpuSet: "${s.defaultCpuSet.toString()}"`,
        );
    } else if (!reserved.intersection(s.defaultCpuSet).equals(reserved)) {
      throw new Error(
        `not all reserved cpus: "${reserved.toString()}" are present in defaultCpuSet: "` +
          `${s.defaultCpuSet.toString()}"`,
      );
    }
    let known = s.defaultCpuSet;
    for (const [pod, row] of s.entries) {
      for (const [name, cset] of row) {
        if (s.defaultCpuSet.intersection(cset).size > 0)
          throw new Error(
            `pod: ${pod}, container: ${name} cpuset: "${cset.toString()}" overlaps with ` +
              `default cpuset "${s.defaultCpuSet.toString()}"`,
          );
        known = known.union(cset);
      }
    }
    if (!known.equals(all))
      throw new Error(
        `current set of available CPUs "${all.toString()}" doesn't match with CPUs in ` +
          `state "${known.toString()}"`,
      );
  }

  private save(): void {
    this.writer.write(encodeCpuState(this.state));
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** The shared pool. */
  defaultCpuSet(): CpuSet {
    return this.state.defaultCpuSet;
  }

  assigned(podUid: string, name: string): CpuSet | undefined {
    return this.state.entries.get(podUid)?.get(name);
  }

  /** The CPUs a container may run on: its own, else the shared pool; undefined under `none`. */
  cpusetFor(pod: Pod, c: Container): CpuSet | undefined {
    if (this.o.policy !== 'static') return undefined;
    return this.assigned(pod.metadata.uid, c.name) ?? this.state.defaultCpuSet;
  }

  private assignable(): CpuSet {
    return this.state.defaultCpuSet.difference(this.o.reserved);
  }

  private cpusOn(mask: NumaMask): CpuSet {
    return new CpuSet(this.o.topology.cpus.filter((c) => mask.includes(c.numa)).map((c) => c.id));
  }

  /**
   * generateCPUTopologyHints: every mask with enough free CPUs; the narrowest possible ones
   * preferred.
   */
  private hintsFor(available: CpuSet, reusable: CpuSet, request: number): TopologyHint[] {
    const nodes = this.o.topology.numaNodes.map((n) => n.id);
    let minSize = nodes.length;
    const found: NumaMask[] = [];
    for (const mask of allMasks(nodes)) {
      const onMask = this.cpusOn(mask);
      if (onMask.size >= request && mask.length < minSize) minSize = mask.length;
      if (onMask.intersection(available.union(reusable)).size < request) continue;
      found.push(mask);
    }
    return found.map((affinity) => ({
      affinity,
      preferred:
        affinity.length === minSize ||
        (this.o.options.alignBySocket && this.socketAligned(affinity, minSize)),
    }));
  }

  /** align-by-socket: a hint spanning no more sockets than the narrowest possible one needs. */
  private socketAligned(mask: NumaMask, minSize: number): boolean {
    const perSocket = Math.floor(this.o.topology.numaNodes.length / socketCount(this.o.topology));
    if (perSocket === 0) return false;
    const sockets = new Set(
      this.o.topology.cpus.filter((c) => mask.includes(c.numa)).map((c) => c.socket),
    );
    return sockets.size === Math.ceil(minSize / perSocket);
  }

  /** The CPUs a hint aligns to: its NUMA nodes, or with align-by-socket their whole sockets. */
  private alignedCpus(mask: NumaMask): CpuSet {
    if (!this.o.options.alignBySocket) return this.cpusOn(mask);
    const sockets = new Set(
      this.o.topology.cpus.filter((c) => mask.includes(c.numa)).map((c) => c.socket),
    );
    return new CpuSet(this.o.topology.cpus.filter((c) => sockets.has(c.socket)).map((c) => c.id));
  }

  /** Hints for one container: null when it has no preference. */
  containerHints(pod: Pod, c: Container): Record<string, TopologyHint[] | null> | null {
    if (this.o.policy !== 'static') return null;
    const request = guaranteedCpus(pod, c);
    if (request === 0) return null;
    const have = this.assigned(pod.metadata.uid, c.name);
    if (have !== undefined)
      return { cpu: have.size === request ? this.hintsFor(have, new CpuSet(), request) : [] };
    return {
      cpu: this.hintsFor(
        this.assignable(),
        this.reuse.get(pod.metadata.uid) ?? new CpuSet(),
        request,
      ),
    };
  }

  podHints(pod: Pod): Record<string, TopologyHint[] | null> | null {
    if (this.o.policy !== 'static') return null;
    const request = podGuaranteedCpus(pod);
    if (request === 0) return null;
    let have = new CpuSet();
    for (const cset of this.state.entries.get(pod.metadata.uid)?.values() ?? [])
      have = have.union(cset);
    if (have.size > 0)
      return { cpu: have.size === request ? this.hintsFor(have, new CpuSet(), request) : [] };
    return { cpu: this.hintsFor(this.assignable(), new CpuSet(), request) };
  }

  /**
   * The static policy's Allocate; throws AdmissionError (SMT alignment) or Error (not enough CPUs).
   */
  allocate(pod: Pod, c: Container, hint: TopologyHint): void {
    if (this.o.policy !== 'static') return;
    const request = guaranteedCpus(pod, c);
    if (request === 0) return;
    const uid = pod.metadata.uid;
    if (this.o.options.fullPhysicalCpusOnly) this.checkSmt(request);
    const have = this.assigned(uid, c.name);
    if (have !== undefined) {
      this.updateReuse(pod, c, have);
      return;
    }
    const cpus = this.pick(request, hint.affinity, this.reuse.get(uid) ?? new CpuSet());
    this.state.defaultCpuSet = this.state.defaultCpuSet.difference(cpus);
    const row = this.state.entries.get(uid) ?? new Map<string, CpuSet>();
    row.set(c.name, cpus);
    this.state.entries.set(uid, row);
    this.updateReuse(pod, c, cpus);
    this.o.logger.info(
      {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        container: c.name,
        cpus: cpus.toString(),
      },
      'exclusive CPUs assigned',
    );
    this.save();
  }

  private checkSmt(request: number): void {
    const perCore = cpusPerCore(this.o.topology);
    if (request % perCore !== 0)
      throw new AdmissionError(
        'SMTAlignmentError',
        `SMT Alignment Error: requested ${request} cpus not multiple cpus per core = ${perCore}`,
      );
    const free = this.assignable();
    const blocked = new Set(
      this.o.topology.cpus.filter((x) => this.o.reserved.has(x.id)).map((x) => x.core),
    );
    const physical = this.o.topology.cpus.filter(
      (x) => free.has(x.id) && !blocked.has(x.core),
    ).length;
    if (request > physical)
      throw new AdmissionError(
        'SMTAlignmentError',
        `SMT Alignment Error: not enough free physical CPUs: available physical CPUs = ` +
          `${physical}, requested CPUs = ${request}, CPUs per core = ${perCore}`,
      );
  }

  private pick(request: number, affinity: NumaMask | null, reusable: CpuSet): CpuSet {
    const available = this.assignable().union(reusable);
    const take = { wholeCoresOnly: this.o.options.fullPhysicalCpusOnly };
    const cpus = this.o.topology.cpus;
    if (this.o.options.distributeCpusAcrossNuma && affinity !== null && affinity.length > 1)
      return this.distribute(request, affinity, available);
    let result = new CpuSet();
    if (affinity !== null) {
      const aligned = available.intersection(this.alignedCpus(affinity));
      result = takeByTopology(cpus, aligned, Math.min(request, aligned.size), take);
    }
    return result.union(
      takeByTopology(cpus, available.difference(result), request - result.size, take),
    );
  }

  /**
   * distribute-cpus-across-numa: as even a split over the hint's NUMA nodes as their free CPUs
   * allow.
   */
  private distribute(request: number, affinity: NumaMask, available: CpuSet): CpuSet {
    let result = new CpuSet();
    affinity.forEach((node, i) => {
      const share = Math.floor(request / affinity.length) + (i < request % affinity.length ? 1 : 0);
      const here = available.intersection(this.cpusOn([node])).difference(result);
      result = result.union(takeByTopology(this.o.topology.cpus, here, Math.min(share, here.size)));
    });
    return result.union(
      takeByTopology(this.o.topology.cpus, available.difference(result), request - result.size),
    );
  }

  private updateReuse(pod: Pod, c: Container, cpus: CpuSet): void {
    const uid = pod.metadata.uid;
    const cur = this.reuse.get(uid) ?? new CpuSet();
    this.reuse.set(uid, isInitContainer(pod, c) ? cur.union(cpus) : cur.difference(cpus));
  }

  /** RemoveContainer for every container of a pod: its CPUs go back to the shared pool. */
  removePod(podUid: string): void {
    const row = this.state.entries.get(podUid);
    this.reuse.delete(podUid);
    if (row === undefined) return;
    let released = new CpuSet();
    for (const cset of row.values()) released = released.union(cset);
    this.state.entries.delete(podUid);
    this.state.defaultCpuSet = this.state.defaultCpuSet.union(released);
    this.o.logger.info(
      { podUid, cpus: released.toString() },
      'exclusive CPUs released to the shared pool',
    );
    this.save();
  }

  /** removeStaleState: releases the CPUs of pods that are no longer active. */
  removeStale(activeUids: ReadonlySet<string>): void {
    for (const uid of [...this.state.entries.keys()]) if (!activeUids.has(uid)) this.removePod(uid);
  }
}
