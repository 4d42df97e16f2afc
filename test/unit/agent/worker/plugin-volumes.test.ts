// Plugin volumes (FlexVolume) in the pod lifecycle: set up before the sandbox starts, their host
// dirs given to the containers, torn down after the containers and before the sandbox (and with
// it the pod dir) is removed; a failed unmount keeps the sandbox, so nothing under a mount is deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { PodStatusManager } from '../../../../src/agent/worker/status-manager.js';
import { ProbeManager } from '../../../../src/agent/worker/probes.js';
import { PodSyncer, type PodVolumePlugins } from '../../../../src/agent/worker/pod-sync.js';
import type { ContainerConfig } from '../../../../src/agent/runtime/types.js';
import { FakeRuntime } from './fake-runtime.js';
import { pod, scratchRoot } from './harness.js';

test('plugin volumes: set up before the sandbox, their dirs given to the containers, torn down before the sandbox is removed; a failed unmount keeps it', async () => {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const runtime = new FakeRuntime(clock);
  const order: string[] = [];
  const paths: Record<string, string>[] = [];
  const runSandbox = runtime.runPodSandbox.bind(runtime);
  runtime.runPodSandbox = (cfg) => {
    order.push('runPodSandbox');
    return runSandbox(cfg);
  };
  const removeSandbox = runtime.removePodSandbox.bind(runtime);
  runtime.removePodSandbox = (id) => {
    order.push('removePodSandbox');
    return removeSandbox(id);
  };
  const create = runtime.createContainer.bind(runtime);
  runtime.createContainer = (cfg: ContainerConfig) => {
    paths.push(cfg.volumePaths);
    return create(cfg);
  };
  let unmountFails = true;
  const volumes: PodVolumePlugins = {
    path: (_p, v) =>
      v.flexVolume !== undefined
        ? `/var/lib/nodeagent/pods/u1/volumes/example.com~fake/${v.name}`
        : undefined,
    setUp: () => {
      order.push('setUp');
      return Promise.resolve();
    },
    tearDown: () => {
      order.push('tearDown');
      return unmountFails
        ? Promise.reject(new Error('UnmountVolume.TearDown failed for volume "share" : busy'))
        : Promise.resolve();
    },
  };
  const statuses = new PodStatusManager();
  const probes = new ProbeManager({ runtime, clock, logger, onChange: () => undefined });
  const syncer = new PodSyncer({
    runtime,
    images: runtime,
    probes,
    statuses,
    clock,
    logger,
    rootDir: scratchRoot(),
    volumes,
  });
  const p = pod('u1', {
    containers: [
      { name: 'app', command: ['x'], volumeMounts: [{ name: 'share', mountPath: '/data' }] },
    ],
    volumes: [{ name: 'share', flexVolume: { driver: 'example.com/fake' } }],
  });
  await syncer.syncPod(p);
  assert.deepEqual(order, ['setUp', 'runPodSandbox']);
  assert.deepEqual(paths[0], {
    share: '/var/lib/nodeagent/pods/u1/volumes/example.com~fake/share',
  });
  await assert.rejects(
    syncer.killPod(p, 0),
    /UnmountVolume\.TearDown failed for volume "share" : busy/,
  );
  assert.deepEqual(
    order,
    ['setUp', 'runPodSandbox', 'tearDown'],
    'the sandbox stays while the volume is mounted',
  );
  unmountFails = false;
  await syncer.killPod(p, 0);
  assert.deepEqual(order.slice(3), ['tearDown', 'removePodSandbox']);
});
