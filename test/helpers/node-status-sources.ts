// A node whose status sources never change (one CPU, one InternalIP, a Linux amd64 nodeInfo, no
// pressure): the NodeStatusManager tests that are about when status is sent, not what it says.
import type { NodeStatusSources } from '../../src/agent/node/status-manager.js';

export function fixedNodeSources(): NodeStatusSources {
  return {
    resources: () => Promise.resolve({ capacity: { cpu: '1' }, allocatable: { cpu: '1' } }),
    addresses: () => [{ type: 'InternalIP', address: '10.0.0.1' }],
    nodeInfo: () =>
      Promise.resolve({
        machineID: 'm',
        systemUUID: '',
        bootID: '',
        kernelVersion: '',
        osImage: '',
        containerRuntimeVersion: '',
        kubeletVersion: '',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      }),
    pressure: () => ({ memory: false, disk: false, pid: false }),
  };
}
