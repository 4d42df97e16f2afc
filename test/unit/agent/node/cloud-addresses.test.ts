// The node's addresses and the provided-node-ip annotation under --cloud-provider=external, as the
// reference's NodeAddress setter decides them, and the strategic merge patch that carries the
// status (addresses replaced whole, absent when a cloud provider owns them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addressesToSend,
  providedNodeIp,
  type AddressPolicy,
} from '../../../../src/agent/node/cloud-addresses.js';
import { NodeStatusManager } from '../../../../src/agent/node/status-manager.js';
import { nodeStatusPatch } from '../../../../src/agent/node/status-patch.js';
import type { ApiNode } from '../../../../src/agent/node/api-node.js';
import type { NodeAddress, NodeApi, NodeStatus } from '../../../../src/agent/node/types.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { fixedNodeSources } from '../../../helpers/node-status-sources.js';

const own: NodeAddress[] = [
  { type: 'InternalIP', address: '192.0.2.10' },
  { type: 'Hostname', address: 'n1' },
];
const policy = (external: boolean, nodeIp: string): AddressPolicy => ({
  external,
  nodeIp,
  host: 'n1',
  own: () => own,
});
const cloud = [{ type: 'ExternalIP', address: '203.0.113.9' }];

test('without an external cloud provider the agent always sends its own addresses', () => {
  assert.deepEqual(addressesToSend(policy(false, ''), cloud), own);
  assert.deepEqual(addressesToSend(policy(false, '192.0.2.10'), undefined), own);
});

test("with --cloud-provider=external: nothing once the Node has addresses; before, --node-ip's, or only the Hostname address without --node-ip", () => {
  assert.equal(addressesToSend(policy(true, '192.0.2.10'), cloud), undefined);
  assert.equal(addressesToSend(policy(true, ''), cloud), undefined);
  assert.deepEqual(addressesToSend(policy(true, '192.0.2.10'), []), own);
  assert.deepEqual(addressesToSend(policy(true, '192.0.2.10'), undefined), own);
  assert.deepEqual(addressesToSend(policy(true, ''), undefined), [
    { type: 'Hostname', address: 'n1' },
  ]);
  // 0.0.0.0 is a --node-ip given: the default route's address, as without a cloud provider.
  assert.deepEqual(addressesToSend(policy(true, '0.0.0.0'), []), own);
});

test('provided-node-ip: the --node-ip IPs with an external provider only, never an unspecified one', () => {
  assert.equal(providedNodeIp(true, '192.0.2.10'), '192.0.2.10');
  assert.equal(providedNodeIp(true, '192.0.2.10,2001:db8::10'), '192.0.2.10,2001:db8::10');
  assert.equal(providedNodeIp(true, '192.0.2.10,::'), '192.0.2.10');
  assert.equal(providedNodeIp(true, '0.0.0.0'), undefined);
  assert.equal(providedNodeIp(true, '::,192.0.2.10'), undefined);
  assert.equal(providedNodeIp(true, ''), undefined);
  assert.equal(providedNodeIp(false, '192.0.2.10'), undefined);
});

const status = async (addresses?: NodeAddress[]): Promise<NodeStatus> => ({
  capacity: { cpu: '1' },
  allocatable: { cpu: '1' },
  conditions: [],
  ...(addresses !== undefined ? { addresses } : {}),
  daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
  nodeInfo: await fixedNodeSources().nodeInfo(),
  images: [],
});

test('the status patch replaces the addresses whole ($patch: replace first), and leaves them out when there are none to send', async () => {
  const patch = nodeStatusPatch(await status(own)).status;
  assert.deepEqual(patch['addresses'], [{ $patch: 'replace' }, ...own]);
  assert.deepEqual(patch['conditions'], []);
  assert.equal('addresses' in nodeStatusPatch(await status()).status, false);
});

test("the status manager sends no addresses once the Node it last saw carries a cloud provider's", async () => {
  const sent: { status: Record<string, unknown> }[] = [];
  let answer: ApiNode = { metadata: { name: 'n1' } };
  const api: NodeApi = {
    get: () => Promise.resolve(answer),
    create: (n) => Promise.resolve(n),
    patch: () => Promise.resolve(answer),
    patchStatus: (_n, p) => {
      sent.push(p as { status: Record<string, unknown> });
      return Promise.resolve(answer);
    },
  };
  const clock = new ManualClock();
  const m = new NodeStatusManager({
    api,
    clock,
    logger: silentLogger(),
    nodeName: 'n1',
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 10_000,
    maxImages: -1,
    daemonPort: 10250,
    sources: {
      ...fixedNodeSources(),
      addresses: (onServer) => addressesToSend(policy(true, '192.0.2.10'), onServer),
    },
  });
  m.observe({ metadata: { name: 'n1' } });
  await m.tick();
  assert.deepEqual(sent[0]?.status['addresses'], [{ $patch: 'replace' }, ...own]);
  answer = { metadata: { name: 'n1' }, status: { addresses: cloud } };
  clock.advance(10_000);
  await m.tick();
  assert.deepEqual(sent[1]?.status['addresses'], [{ $patch: 'replace' }, ...own]);
  clock.advance(10_000);
  await m.tick();
  assert.equal(sent.length, 3);
  assert.equal('addresses' in (sent[2]?.status ?? {}), false, 'the cloud provider owns them now');
});
