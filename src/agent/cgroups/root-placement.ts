// --cgroups-per-qos=false with a --cgroup-root: no hierarchy of the agent's own, but the pods'
// containers still go under that root, as the reference's no-op pod container manager hands
// --cgroup-root to the runtime as each pod's cgroup parent ("handled best-effort by the container
// runtime"). process:// moves nothing then: the reference's runtime, not the kubelet, would.
import type { Pod } from '../pod/types.js';
import { driverName, parseCgroupfs, type CgroupDriver } from './names.js';
import type { PodCgroupPlacement } from './pod-cgroups.js';

export class RootPlacement implements PodCgroupPlacement {
  private readonly parent: string;

  constructor(opts: { cgroupRoot: string; driver: CgroupDriver }) {
    const p = driverName(parseCgroupfs(opts.cgroupRoot), opts.driver);
    this.parent = opts.driver === 'systemd' ? (p.split('/').pop() ?? p) : p;
  }

  dockerParent(_pod: Pod): string {
    return this.parent;
  }

  processCgroup(_pod: Pod): undefined {
    return undefined;
  }

  async addProcess(): Promise<void> {
    // nothing is moved without pod cgroups
  }
}
