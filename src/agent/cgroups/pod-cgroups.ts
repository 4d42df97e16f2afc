// One cgroup per pod under its QoS cgroup, as the reference's podContainerManager: created with
// the pod's limits before its first container, named for the cgroup driver, given to Docker as
// CgroupParent and joined by process:// processes, removed (its processes killed first) when the
// pod goes, and orphaned ones (of pods nobody asks for) cleaned up.
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Pod } from '../pod/types.js';
import { podQosClass, type QosClass } from '../runtime/settings/qos.js';
import type { CgroupFs } from './cgroup-fs.js';
import {
  driverName,
  podCgroupName,
  POD_PREFIX,
  podUidOfDir,
  qosCgroupName,
  type CgroupDriver,
  type CgroupName,
} from './names.js';
import type { QosCgroups } from './qos-cgroups.js';
import { podResourceConfig, type PodLimitSettings } from './resources.js';

export interface PodCgroupsOptions {
  fs: CgroupFs;
  qos: QosCgroups;
  driver: CgroupDriver;
  pods: CgroupName;
  limits: PodLimitSettings;
  logger: Logger;
  /** Sends a signal to a process (tests inject a recorder). Default process.kill. */
  kill?: (pid: number, signal: NodeJS.Signals) => void;
}

/** What the runtimes ask of the pod cgroups. */
export interface PodCgroupPlacement {
  /** Docker's HostConfig.CgroupParent for the pod's containers and sandbox. */
  dockerParent(pod: Pod): string;
  /**
   * The cgroup process:// moves the pod's processes into (kept with the container); undefined:
   * none.
   */
  processCgroup(pod: Pod): string | undefined;
  /** Moves a process into a pod cgroup given by its path. */
  addProcess(path: string, pid: number): Promise<void>;
}

export class PodCgroups implements PodCgroupPlacement {
  private readonly opts: PodCgroupsOptions;
  /** Pods whose cgroup exists, by UID: the active pods the QoS shares are computed from. */
  private readonly active = new Map<string, Pod>();

  constructor(opts: PodCgroupsOptions) {
    this.opts = opts;
  }

  name(pod: Pod): CgroupName {
    return podCgroupName(this.opts.pods, podQosClass(pod), pod.metadata.uid);
  }

  /** The pod cgroup's path within each hierarchy, in the driver's spelling. */
  path(pod: Pod): string {
    return driverName(this.name(pod), this.opts.driver);
  }

  processCgroup(pod: Pod): string {
    return this.path(pod);
  }

  dockerParent(pod: Pod): string {
    const p = this.path(pod);
    // Docker's systemd driver takes the slice's own name; its cgroupfs driver the full path.
    return this.opts.driver === 'systemd' ? (p.split('/').pop() ?? p) : p;
  }

  /**
   * EnsureExists: the QoS shares updated for the new pod first, then its cgroup with its limits.
   */
  async ensure(pod: Pod): Promise<void> {
    const uid = pod.metadata.uid;
    const path = this.path(pod);
    if (this.active.has(uid) && (await this.opts.fs.exists(path))) return;
    this.active.set(uid, pod);
    await this.opts.qos.update([...this.active.values()]);
    if (await this.opts.fs.exists(path)) return;
    await this.opts.fs.create(path, podResourceConfig(pod, this.opts.limits));
    this.opts.logger.info(
      { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, cgroup: path },
      'created the pod cgroup',
    );
  }

  async addProcess(path: string, pid: number): Promise<void> {
    await this.opts.fs.addProcess(path, pid);
  }

  /** Destroy: kills what is left in the pod's cgroup, removes it, and updates the QoS shares. */
  async remove(pod: Pod): Promise<void> {
    const uid = pod.metadata.uid;
    const known = this.active.get(uid);
    // a pod known only from its containers (an orphan) has no spec to tell its QoS class: look it
    // up
    const path = known !== undefined ? this.path(known) : (await this.podCgroups()).get(uid);
    if (path === undefined) return;
    await this.destroy(path);
    this.active.delete(uid);
    await this.opts.qos.update([...this.active.values()]);
  }

  private async destroy(path: string): Promise<void> {
    const kill = this.opts.kill ?? ((pid: number, sig: NodeJS.Signals) => process.kill(pid, sig));
    // tryKillingCgroupProcesses: a few rounds, as processes may fork while being killed
    for (let i = 0; i < 5; i += 1) {
      const pids = await this.opts.fs.pids(path);
      if (pids.length === 0) break;
      for (const pid of pids) {
        try {
          kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await this.opts.fs.destroy(path);
  }

  /** Pod cgroups by UID with their paths (GetAllPodsFromCgroups). */
  async podCgroups(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const qos of ['Guaranteed', 'Burstable', 'BestEffort'] satisfies QosClass[]) {
      const parent = qosCgroupName(this.opts.pods, qos);
      for (const dir of await this.opts.fs.children(driverName(parent, this.opts.driver))) {
        const uid = podUidOfDir(dir, this.opts.driver);
        if (uid !== undefined)
          out.set(uid, driverName([...parent, `${POD_PREFIX}${uid}`], this.opts.driver));
      }
    }
    return out;
  }

  /** cleanupOrphanedPodCgroups: removes the cgroups of pods that are neither wanted nor running. */
  async cleanupOrphans(keep: (uid: string) => boolean): Promise<void> {
    for (const [uid, path] of await this.podCgroups()) {
      if (keep(uid)) continue;
      try {
        await this.destroy(path);
        this.active.delete(uid);
        this.opts.logger.info({ uid, cgroup: path }, 'removed the cgroup of an orphaned pod');
      } catch (err) {
        this.opts.logger.warn(
          { uid, cgroup: path, err: userMessage(err) },
          'could not remove the cgroup of an orphaned pod; will retry',
        );
      }
    }
  }
}
