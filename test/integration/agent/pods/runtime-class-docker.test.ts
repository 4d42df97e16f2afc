// runtimeClassName against a real plat-apiserver on Docker: the agent looks the RuntimeClass up
// as its node (the Node authorizer allows it); plat-apiserver serves no node.k8s.io RuntimeClass,
// so every name is not found, and the pod stays Pending with the reference's
// FailedCreatePodSandBox event (kuberuntime_sandbox.go createPodSandbox), never started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './agent-harness.js';
import { dockerSkipReason } from './runtimes.js';
import { volumeScene } from './volume-scene.js';
import { namesFor } from '../../../../src/common/names.js';

const skip = await dockerSkipReason();

test(
  'runtimeClassName on Docker: a RuntimeClass not found fails the sandbox with the reference FailedCreatePodSandBox event; the pod stays Pending, its container waiting ContainerCreating',
  { skip, timeout: 120_000 },
  async (t) => {
    const s = await volumeScene(t, 'docker');
    const name = `${s.node}-rc`;
    await s.createPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName: s.node,
        runtimeClassName: 'gvisor',
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: 'busybox:local', command: ['sleep', '3600'] }],
      },
    });
    s.start();
    const messages = await waitFor(
      'the FailedCreatePodSandBox event',
      async () => {
        const m = await s.events(name, 'FailedCreatePodSandBox');
        return m.length > 0 ? m : undefined;
      },
      60_000,
      200,
    );
    // the platform profile names the group node.platform.io (node.k8s.io under kubernetes)
    assert.equal(
      messages[0],
      `Failed to create pod sandbox: runtimeclass.${namesFor('platform').groups.node} "gvisor" not found`,
    );
    const r = await s.api.request('GET', `/api/v1/namespaces/default/pods/${name}`);
    const status = r.json?.['status'] as Record<string, unknown>;
    assert.equal(status['phase'], 'Pending');
    const cs = (status['containerStatuses'] as Record<string, unknown>[] | undefined) ?? [];
    assert.deepEqual(cs[0]?.['state'], { waiting: { reason: 'ContainerCreating' } });
  },
);
