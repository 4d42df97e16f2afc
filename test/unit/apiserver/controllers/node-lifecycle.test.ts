// The node lifecycle controller on an in-memory registry and the manual clock: a node whose
// lease and status stay unchanged for the grace period is marked Unknown with the reference's
// reason and message and tainted unreachable (NoSchedule, NoExecute); a lease renewal alone keeps
// it healthy; a Ready status posted again removes the taints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namesFor } from '../../../../src/common/names.js';
import { NodeLifecycleController } from '../../../../src/apiserver/controllers/node-lifecycle.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { trackedManagedFields } from '../../../../src/apiserver/registry/managed-fields.js';
import { leaseDef } from '../../../../src/apiserver/registry/resources/lease.js';
import { namespaceDef } from '../../../../src/apiserver/registry/resources/namespace.js';
import { nodeDef } from '../../../../src/apiserver/registry/resources/node.js';
import { identityTransformers } from '../../../../src/apiserver/storage/identity.js';
import { Store } from '../../../../src/apiserver/storage/store.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const names = namesFor('kubernetes');
const admin = {
  user: { username: 'admin', groups: ['system:masters'] },
  dryRun: false,
  fieldManager: 'test',
  subresource: '',
};
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function setup(t: { after(fn: () => unknown): void }): Promise<{
  clock: ManualClock;
  registry: Registry;
  ctl: NodeLifecycleController;
  lease: ReturnType<typeof leaseDef>;
}> {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const store = new Store({
    transformers: identityTransformers(),
    logger,
    clock,
    compactionIntervalMs: 0,
  });
  t.after(() => store.close());
  const registry = new Registry({
    store,
    platformDomain: names.groupDomain,
    names,
    clock,
    logger,
    admission: [],
    managedFields: trackedManagedFields(),
  });
  const lease = leaseDef(names.groups.coordination);
  await registry.create(namespaceDef, '', { metadata: { name: 'kube-node-lease' } }, admin);
  await registry.create(
    nodeDef,
    '',
    {
      metadata: { name: 'n1' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            lastHeartbeatTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    },
    admin,
  );
  await registry.create(
    lease,
    'kube-node-lease',
    {
      metadata: { name: 'n1' },
      spec: {
        holderIdentity: 'n1',
        leaseDurationSeconds: 40,
        renewTime: '2026-01-01T00:00:00.000000Z',
      },
    },
    admin,
  );
  const ctl = new NodeLifecycleController({
    registry,
    nodeDef,
    leaseDef: lease,
    names,
    gracePeriodMs: 40_000,
    monitorPeriodMs: 5_000,
    clock,
    logger,
  });
  return { clock, registry, ctl, lease };
}

const node = async (r: Registry): Promise<Obj> => (await r.get(nodeDef, '', 'n1')) as Obj;

test('stale for the grace period: Unknown with the reference reason and message, tainted unreachable', async (t) => {
  const { clock, registry, ctl } = await setup(t);
  await ctl.monitor();
  clock.advance(39_999);
  await ctl.monitor();
  assert.equal((await node(registry))['status']['conditions'][0]['status'], 'True');
  clock.advance(1);
  await ctl.monitor();
  const n = await node(registry);
  const ready = n['status']['conditions'].find((c: Obj) => c['type'] === 'Ready');
  assert.equal(ready['status'], 'Unknown');
  assert.equal(ready['reason'], 'NodeStatusUnknown');
  assert.equal(ready['message'], 'Kubelet stopped posting node status.');
  assert.deepEqual(
    n['status']['conditions'].map((c: Obj) => `${c['type']}=${c['status']}`),
    ['Ready=Unknown', 'MemoryPressure=Unknown', 'DiskPressure=Unknown', 'PIDPressure=Unknown'],
  );
  assert.deepEqual(n['spec']['taints'], [
    { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
    {
      key: 'node.kubernetes.io/unreachable',
      effect: 'NoExecute',
      timeAdded: '2026-01-01T00:00:40Z',
    },
  ]);
});

test('a lease renewal alone keeps the node healthy; a Ready status posted again clears the taints', async (t) => {
  const { clock, registry, ctl, lease } = await setup(t);
  await ctl.monitor();
  clock.advance(30_000);
  await registry.update(lease, 'kube-node-lease', 'n1', admin, (cur) => ({
    ...cur,
    spec: { ...(cur?.['spec'] as Obj), renewTime: '2026-01-01T00:00:30.000000Z' },
  }));
  await ctl.monitor();
  clock.advance(30_000);
  await ctl.monitor();
  assert.equal((await node(registry))['spec']['taints'], undefined, 'renewed 30 s ago: healthy');
  clock.advance(10_000);
  await ctl.monitor();
  assert.equal((await node(registry))['spec']['taints'].length, 2);
  await registry.update(nodeDef, '', 'n1', { ...admin, subresource: 'status' }, (cur) => ({
    ...cur,
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          lastHeartbeatTime: '2026-01-01T00:01:10Z',
        },
      ],
    },
  }));
  await ctl.monitor();
  assert.equal((await node(registry))['spec']['taints'], undefined);
});
