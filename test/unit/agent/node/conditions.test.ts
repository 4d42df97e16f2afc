// The node conditions' words: under the kubernetes profile the reference kubelet's reasons and
// messages, as a kubelet 1.32.13 node on the reference control plane shows them; the node events
// of their changes carry the reference's event reasons under either profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KUBELET_WORDING,
  NODE_AGENT_WORDING,
  computeConditions,
  transitionEventReason,
} from '../../../../src/agent/node/conditions.js';

const quiet = {
  memoryPressure: false,
  diskPressure: false,
  pidPressure: false,
  notReadyReasons: [],
};
const now = new Date(Date.UTC(2026, 11, 1));
const words = (c: ReturnType<typeof computeConditions>): string[] =>
  c.map((x) => `${x.type}=${x.status} ${x.reason}: ${x.message}`);

test('kubernetes profile: the kubelet 1.32.13 reasons and messages of a healthy node', () => {
  assert.deepEqual(words(computeConditions(undefined, quiet, now, KUBELET_WORDING)), [
    'MemoryPressure=False KubeletHasSufficientMemory: kubelet has sufficient memory available',
    'DiskPressure=False KubeletHasNoDiskPressure: kubelet has no disk pressure',
    'PIDPressure=False KubeletHasSufficientPID: kubelet has sufficient PID available',
    'Ready=True KubeletReady: kubelet is posting ready status',
  ]);
});

test('kubernetes profile: pressure and not-ready words', () => {
  const c = computeConditions(
    undefined,
    {
      memoryPressure: true,
      diskPressure: true,
      pidPressure: true,
      notReadyReasons: ['container runtime is down', 'network not ready'],
    },
    now,
    KUBELET_WORDING,
  );
  assert.deepEqual(words(c), [
    'MemoryPressure=True KubeletHasInsufficientMemory: kubelet has insufficient memory available',
    'DiskPressure=True KubeletHasDiskPressure: kubelet has disk pressure',
    'PIDPressure=True KubeletHasInsufficientPID: kubelet has insufficient PID available',
    'Ready=False KubeletNotReady: container runtime is down, network not ready',
  ]);
});

test("platform profile: the agent's own words, the default", () => {
  assert.deepEqual(
    words(computeConditions(undefined, quiet, now)),
    words(computeConditions(undefined, quiet, now, NODE_AGENT_WORDING)),
  );
  assert.equal(computeConditions(undefined, quiet, now)[3]?.reason, 'NodeAgentReady');
});

test("the node events of condition changes: the reference's reasons whatever the wording", () => {
  assert.deepEqual(
    [
      ['MemoryPressure', 'False'],
      ['MemoryPressure', 'True'],
      ['DiskPressure', 'False'],
      ['DiskPressure', 'True'],
      ['PIDPressure', 'False'],
      ['PIDPressure', 'True'],
      ['Ready', 'True'],
      ['Ready', 'False'],
    ].map(([t, s]) => transitionEventReason(t ?? '', s as 'True' | 'False')),
    [
      'NodeHasSufficientMemory',
      'NodeHasInsufficientMemory',
      'NodeHasNoDiskPressure',
      'NodeHasDiskPressure',
      'NodeHasSufficientPID',
      'NodeHasInsufficientPID',
      'NodeReady',
      'NodeNotReady',
    ],
  );
});
