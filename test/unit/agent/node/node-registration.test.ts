import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ApiError } from '../../../../src/common/util/errors.js';
import {
  reconcilePatch,
  registerNode,
  uninitializedTaint,
} from '../../../../src/agent/node/registration.js';
import {
  NodeStatusManager,
  STATUS_REPORT_FREQUENCY_MS,
  type NodeStatusManagerOptions,
} from '../../../../src/agent/node/status-manager.js';
import type { Node, NodeApi } from '../../../../src/agent/node/types.js';
import { fixedNodeSources } from '../../../helpers/node-status-sources.js';

class FakeNodeApi implements NodeApi {
  nodes = new Map<string, Node>();
  failuresLeft = 0;
  down = false;
  statusPatches: unknown[] = [];
  patches: unknown[] = [];
  private fail(): void {
    if (this.down || this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new ApiError('connection refused', { status: 0, reason: 'ServiceUnavailable' });
    }
  }
  get(name: string): Promise<Node> {
    this.fail();
    const n = this.nodes.get(name);
    return n
      ? Promise.resolve(n)
      : Promise.reject(new ApiError('not found', { status: 404, reason: 'NotFound' }));
  }
  create(node: Node): Promise<Node> {
    try {
      this.fail();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.nodes.has(node.metadata.name))
      return Promise.reject(new ApiError('exists', { status: 409, reason: 'AlreadyExists' }));
    this.nodes.set(node.metadata.name, node);
    return Promise.resolve(node);
  }
  patch(name: string, patch: unknown): Promise<Node> {
    this.patches.push(patch);
    return Promise.resolve(this.nodes.get(name)!);
  }
  patchStatus(name: string, patch: unknown): Promise<Node> {
    try {
      this.fail();
    } catch (e) {
      return Promise.reject(e);
    }
    this.statusPatches.push(patch);
    return Promise.resolve(this.nodes.get(name) ?? { metadata: { name } });
  }
}

test('registration backs off from 100 ms doubling to 7 s, then reconciles an existing node', async () => {
  const clock = new ManualClock();
  const api = new FakeNodeApi();
  api.failuresLeft = 9;
  const base: Node = {
    metadata: { name: 'n1', labels: { 'platform.io/hostname': 'n1' } },
    spec: { taints: [uninitializedTaint(namesFor('platform', 'platform.io'))] },
  };
  const done = registerNode(
    {
      api,
      clock,
      logger: silentLogger(),
      node: () => Promise.resolve(base),
      ownedLabels: { 'platform.io/hostname': 'n1' },
    },
    new AbortController().signal,
  );
  for (let i = 0; i < 9; i++) {
    await clock.waitForSleepers(1);
    clock.advance(clock.sleeps.at(-1)!);
  }
  const node = await done;
  assert.equal(node.metadata.name, 'n1');
  assert.deepEqual(clock.sleeps, [100, 200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  assert.equal(
    api.nodes.get('n1')?.spec?.taints?.[0]?.key,
    'node.cloudprovider.platform.io/uninitialized',
  );
  // A restart finds the node and patches the labels it owns.
  api.nodes.set('n1', {
    metadata: { name: 'n1', labels: { 'platform.io/hostname': 'old' } },
    spec: {},
  });
  await registerNode(
    {
      api,
      clock,
      logger: silentLogger(),
      node: () => Promise.resolve(base),
      ownedLabels: { 'platform.io/hostname': 'n1' },
    },
    new AbortController().signal,
  );
  assert.deepEqual(api.patches[0], {
    metadata: { labels: { 'platform.io/hostname': 'n1' } },
    spec: { taints: [uninitializedTaint(namesFor('platform', 'platform.io'))] },
  });
});

/** A status manager for node n1 (10 s updates, daemon port 10250), its events' reasons kept in `events`. */
function statusManager(
  o: Pick<NodeStatusManagerOptions, 'api' | 'clock' | 'maxImages' | 'sources'> & {
    events: string[];
  },
): NodeStatusManager {
  const { events, ...rest } = o;
  return new NodeStatusManager({
    ...rest,
    logger: silentLogger(),
    nodeName: 'n1',
    updateFrequencyMs: 10_000,
    daemonPort: 10250,
    events: { event: (_o, _t, reason) => events.push(reason) },
  });
}

test('status is sent on change or every 5 minutes; while the API server is down only the latest waits and the rest are counted', async () => {
  const clock = new ManualClock();
  const api = new FakeNodeApi();
  let memory = false;
  const events: string[] = [];
  const m = statusManager({
    api,
    clock,
    maxImages: 2,
    events,
    sources: {
      ...fixedNodeSources(),
      images: () =>
        Promise.resolve([
          { names: ['a'], sizeBytes: 1 },
          { names: ['b'], sizeBytes: 3 },
          { names: ['c'], sizeBytes: 2 },
        ]),
      pressure: () => ({ memory, disk: false, pid: false }),
    },
  });
  await m.tick();
  assert.equal(api.statusPatches.length, 1);
  const first = (
    api.statusPatches[0] as {
      status: { images: { names: string[] }[]; conditions: { type: string; status: string }[] };
    }
  ).status;
  assert.deepEqual(
    first.images.map((i) => i.names[0]),
    ['b', 'c'],
  );
  assert.deepEqual(
    first.conditions.map((c) => `${c.type}=${c.status}`),
    ['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=True'],
  );
  assert.ok(events.includes('NodeReady'));
  clock.advance(10_000);
  await m.tick();
  assert.equal(api.statusPatches.length, 1, 'unchanged: not sent');
  memory = true;
  clock.advance(10_000);
  await m.tick();
  assert.equal(api.statusPatches.length, 2, 'changed: sent');
  assert.ok(events.includes('NodeHasInsufficientMemory'));
  clock.advance(STATUS_REPORT_FREQUENCY_MS);
  await m.tick();
  assert.equal(api.statusPatches.length, 3, 'due after 5 minutes');
  api.down = true;
  memory = false;
  clock.advance(10_000);
  await m.tick();
  clock.advance(10_000);
  await m.tick();
  clock.advance(10_000);
  await m.tick();
  assert.equal(m.dropped, 2);
  assert.equal(api.statusPatches.length, 3);
  api.down = false;
  clock.advance(10_000);
  await m.tick();
  assert.equal(
    api.statusPatches.length,
    4,
    'the latest status goes out once the API server is back',
  );
  const last = (
    api.statusPatches[3] as { status: { conditions: { type: string; status: string }[] } }
  ).status;
  assert.equal(last.conditions.find((c) => c.type === 'MemoryPressure')?.status, 'False');
});

test('the node is NotReady (with the reason) while the runtime is down, and Ready again after', async () => {
  const clock = new ManualClock();
  const api = new FakeNodeApi();
  let reasons: string[] = ['container runtime is down: connect ENOENT'];
  const events: string[] = [];
  const m = statusManager({
    api,
    clock,
    maxImages: -1,
    events,
    sources: {
      ...fixedNodeSources(),
      resources: () => Promise.resolve({ capacity: {}, allocatable: {} }),
      addresses: () => [],
      notReadyReasons: () => Promise.resolve(reasons),
    },
  });
  await m.tick();
  const ready = (i: number): { status: string; reason: string; message: string } | undefined =>
    (
      api.statusPatches[i] as {
        status: { conditions: { type: string; status: string; reason: string; message: string }[] };
      }
    ).status.conditions.find((c) => c.type === 'Ready');
  assert.deepEqual(ready(0), {
    ...ready(0),
    status: 'False',
    reason: 'NodeAgentNotReady',
    message: 'container runtime is down: connect ENOENT',
  });
  assert.ok(events.includes('NodeNotReady'));
  reasons = [];
  clock.advance(10_000);
  await m.tick();
  assert.equal(ready(1)?.status, 'True');
  assert.ok(events.includes('NodeReady'));
});

test('reconciling an existing node: the attach/detach annotation is set or removed (null in the merge patch) as the new node has it', () => {
  const key = 'volumes.kubernetes.io/controller-managed-attach-detach';
  const bare: Node = { metadata: { name: 'n1' } };
  const annotated: Node = {
    metadata: { name: 'n1', annotations: { [key]: 'true', other: 'kept' } },
  };
  assert.deepEqual(
    reconcilePatch(bare, { metadata: { name: 'n1', annotations: { [key]: 'true' } } }, {}, [key]),
    { metadata: { annotations: { [key]: 'true' } } },
  );
  assert.deepEqual(reconcilePatch(annotated, bare, {}, [key]), {
    metadata: { annotations: { [key]: null } },
  });
  assert.equal(
    reconcilePatch(annotated, { metadata: { name: 'n1', annotations: { [key]: 'true' } } }, {}, [
      key,
    ]),
    undefined,
    'nothing to do when they agree',
  );
  assert.equal(reconcilePatch(annotated, bare, {}), undefined, 'not owned: left alone');
});
