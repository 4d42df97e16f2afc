// runtimeClassName in the pod workers, as the reference's kubelet (kuberuntime_sandbox.go
// createPodSandbox: LookupRuntimeHandler, then RunPodSandbox with the handler; a failure is the
// FailedCreatePodSandBox event "Failed to create pod sandbox: <err>" and the pod stays Pending),
// the lister's NotFound message, and cri-dockerd's answer for a handler Docker does not have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';
import { RuntimeClassNotFoundError } from '../../../../src/agent/objects/runtime-classes.js';
import {
  checkRuntimeHandler,
  DOCKER_HANDLERS,
  PROCESS_HANDLERS,
} from '../../../../src/agent/runtime/runtime-handler.js';
import type { PodEvent } from '../../../../src/agent/worker/status-manager.js';

test('the RuntimeClass handler is passed to the sandbox; no runtimeClassName: the default handler', async () => {
  const w = makeWorld({
    runtimeHandler: async (name) => (name === 'kata' ? 'kata-qemu' : ''),
  });
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'api',
    pods: [
      pod('r1', { runtimeClassName: 'kata', containers: [{ name: 'c', command: ['x'] }] }),
      pod('r2', { containers: [{ name: 'c', command: ['x'] }] }),
    ],
  });
  await w.settle();
  const byPod = new Map(w.runtime.sandboxes.map((s) => [s.pod.metadata.uid, s.runtimeHandler]));
  assert.equal(byPod.get('r1'), 'kata-qemu');
  assert.equal(byPod.get('r2'), undefined);
});

test('a RuntimeClass not found: FailedCreatePodSandBox with the reference message, the pod Pending with its containers waiting', async () => {
  const w = makeWorld({
    runtimeHandler: async (name) => {
      throw new RuntimeClassNotFoundError('node.k8s.io', name ?? '');
    },
  });
  const events: PodEvent[] = [];
  w.statuses.onPodEvent((e) => events.push(e));
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'api',
    pods: [pod('r3', { runtimeClassName: 'gvisor', containers: [{ name: 'c', command: ['x'] }] })],
  });
  await w.settle();
  assert.equal(w.runtime.sandboxes.length, 0);
  const e = events.find((x) => x.reason === 'FailedCreatePodSandBox');
  assert.equal(e?.type, 'Warning');
  assert.equal(
    e?.message,
    'Failed to create pod sandbox: runtimeclass.node.k8s.io "gvisor" not found',
  );
  const s = w.statuses.status('r3');
  assert.equal(s?.phase, 'Pending');
  assert.deepEqual(s?.containerStatuses[0]?.state, { waiting: { reason: 'ContainerCreating' } });
});

test("Docker has only its default handler ('' or docker): another is cri-dockerd's error", () => {
  checkRuntimeHandler(undefined, DOCKER_HANDLERS);
  checkRuntimeHandler('', DOCKER_HANDLERS);
  checkRuntimeHandler('docker', DOCKER_HANDLERS);
  assert.throws(() => checkRuntimeHandler('runsc', DOCKER_HANDLERS), {
    message: 'rpc error: code = Unknown desc = RuntimeHandler "runsc" not supported',
  });
  assert.throws(() => checkRuntimeHandler('docker', PROCESS_HANDLERS), {
    message: 'rpc error: code = Unknown desc = RuntimeHandler "docker" not supported',
  });
});
