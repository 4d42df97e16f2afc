// Agents started by tests about something else build no cgroup hierarchy: with the reference's
// default (--cgroups-per-qos on, --cgroup-root /) every such agent on a root CI host would share
// /sys/fs/cgroup/<controller>/platpods, clean up each other's pod cgroups as orphans and leave
// cgroups behind. The cgroup tests (test/integration/agent/cgroups/, the Docker cgroups test) use
// a unique --cgroup-root of their own instead. Enforcement must go too: the reference refuses
// --enforce-node-allocatable without --cgroups-per-qos.
import type { NodeAgentConfiguration } from '../../src/agent/config/schema.js';

export const NO_CGROUPS_ARGS: readonly string[] = [
  '--cgroups-per-qos=false',
  '--enforce-node-allocatable=',
];

export const NO_CGROUPS_CONFIG: Pick<
  NodeAgentConfiguration,
  'cgroupsPerQOS' | 'enforceNodeAllocatable'
> = { cgroupsPerQOS: false, enforceNodeAllocatable: [] };
