// The environment in the pod sync: a container whose ConfigMap is missing is not made; it waits
// with the reference's CreateContainerConfigError and message (`configmap "cfg" not found`, the
// watch-based manager's), the Failed event says `Error: <message>`, the sync is asked again after
// the reference's 10 s pod worker back-off, and once the ConfigMap exists the container is made
// with the resolved environment, command and args.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { PodStatusManager } from '../../../../src/agent/worker/status-manager.js';
import { ProbeManager } from '../../../../src/agent/worker/probes.js';
import { PodSyncer } from '../../../../src/agent/worker/pod-sync.js';
import { ContainerEnvResolver } from '../../../../src/agent/env/resolver.js';
import { derivePodEvents } from '../../../../src/agent/node/events/pod-events.js';
import {
  ObjectNotFoundError,
  toPodObject,
  type PodObjects,
  type RawObject,
} from '../../../../src/agent/objects/types.js';
import type { ContainerConfig } from '../../../../src/agent/runtime/types.js';
import { FakeRuntime } from './fake-runtime.js';
import { pod, scratchRoot } from './harness.js';

test('a missing ConfigMap: CreateContainerConfigError with the reference message, then the container once it exists', async () => {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const runtime = new FakeRuntime(clock);
  const made: ContainerConfig[] = [];
  const create = runtime.createContainer.bind(runtime);
  runtime.createContainer = (cfg: ContainerConfig) => {
    made.push(cfg);
    return create(cfg);
  };
  const store = new Map<string, RawObject>();
  const objects: PodObjects = {
    get: (kind, ns, name) => {
      const raw = store.get(name);
      return raw === undefined
        ? Promise.reject(new ObjectNotFoundError(kind, name, `configmap "${name}" not found`))
        : Promise.resolve(toPodObject(kind, raw, ns, name));
    },
    registerPod: () => undefined,
    unregisterPod: () => undefined,
    stop: () => undefined,
  };
  const env = new ContainerEnvResolver({
    objects,
    services: undefined,
    hostIPs: ['192.0.2.7'],
    allocatable: () => ({ cpu: 2 }),
    isStatic: () => false,
  });
  const statuses = new PodStatusManager();
  const syncer = new PodSyncer({
    runtime,
    images: runtime,
    probes: new ProbeManager({ runtime, clock, logger, onChange: () => undefined }),
    statuses,
    clock,
    logger,
    rootDir: scratchRoot(),
    environment: (p, c, podIP) => env.resolve(p, c, podIP),
  });
  const p = pod('u1', {
    containers: [
      {
        name: 'app',
        command: ['sh', '-c', 'echo $(GREETING) $$(GREETING)'],
        env: [
          { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'greeting' } } },
          { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
        ],
      },
    ],
  });
  const first = await syncer.syncPod(p);
  assert.equal(first.requeueAfterMs, 10_000);
  assert.equal(made.length, 0);
  const waiting = statuses.status('u1');
  assert.deepEqual(waiting?.containerStatuses?.[0]?.state, {
    waiting: { reason: 'CreateContainerConfigError', message: 'configmap "cfg" not found' },
  });
  assert.deepEqual(
    derivePodEvents({ metadata: { name: 'p', uid: 'u1' } }, undefined, waiting!).filter(
      (e) => e.reason === 'Failed',
    ),
    [
      {
        type: 'Warning',
        reason: 'Failed',
        message: 'Error: configmap "cfg" not found',
        fieldPath: 'spec.containers{app}',
      },
    ],
  );
  store.set('cfg', { data: { greeting: 'hello' } });
  await syncer.syncPod(p);
  assert.equal(made.length, 1);
  assert.deepEqual(made[0]?.environment, {
    env: [
      { name: 'GREETING', value: 'hello' },
      { name: 'UID', value: 'u1' },
    ],
    command: ['sh', '-c', 'echo hello $(GREETING)'],
  });
  assert.equal(statuses.status('u1')?.containerStatuses?.[0]?.state?.waiting, undefined);
});
