import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivePodEvents } from '../../../../src/agent/node/events/pod-events.js';
import { maskSecrets } from '../../../../src/agent/server/handlers/configz.js';

/** The pod the statuses are of (the BackOff message names it as the reference's format.Pod). */
const POD = { metadata: { name: 'db', namespace: 'shop', uid: 'u-1' } };

test('pod lifecycle events are derived from status transitions', () => {
  const waiting = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'c',
        image: 'nginx',
        imageID: '',
        state: { waiting: { reason: 'ContainerCreating' } },
      },
    ],
  };
  assert.deepEqual(derivePodEvents(POD, undefined, waiting), []);
  const running = {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'c',
        image: 'nginx',
        imageID: 'sha256:1',
        containerID: 'docker://a',
        state: { running: {} },
      },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, waiting, running).map((e) => e.reason),
    ['Created', 'Started'],
  );
  assert.deepEqual(derivePodEvents(POD, running, running), []);
  const crash = {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'c',
        image: 'nginx',
        imageID: 'sha256:1',
        containerID: 'docker://a',
        state: { waiting: { reason: 'CrashLoopBackOff' } },
      },
    ],
  };
  const back = derivePodEvents(POD, running, crash);
  assert.deepEqual(
    back.map((e) => [e.type, e.reason, e.message, e.fieldPath]),
    [
      [
        'Warning',
        'BackOff',
        'Back-off restarting failed container c in pod db_shop(u-1)',
        'spec.containers{c}',
      ],
    ],
  );
  const pullErr = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'c',
        image: 'nope',
        state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
      },
    ],
  };
  const pullBackOff = {
    phase: 'Pending',
    containerStatuses: [
      { name: 'c', image: 'nope', state: { waiting: { reason: 'ImagePullBackOff' } } },
    ],
  };
  assert.deepEqual(
    [...derivePodEvents(POD, waiting, pullErr), ...derivePodEvents(POD, pullErr, pullBackOff)],
    [],
    'image events come from the container start that ensured the image, once per attempt',
  );
  const configErr = {
    phase: 'Pending',
    containerStatuses: [
      {
        name: 'c',
        image: 'busybox',
        state: {
          waiting: {
            reason: 'CreateContainerConfigError',
            message:
              'container has runAsNonRoot and image will run as root (pod: "p_d(u)", container: c)',
          },
        },
      },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, waiting, configErr).map((e) => [e.type, e.reason, e.message]),
    [
      [
        'Warning',
        'Failed',
        'Error: container has runAsNonRoot and image will run as root (pod: "p_d(u)", container: c)',
      ],
    ],
    "a config error's event is Error: <message>, as the reference's startContainer records it",
  );
  const evicted = {
    phase: 'Failed',
    reason: 'Evicted',
    containerStatuses: [
      {
        name: 'c',
        image: 'nginx',
        imageID: 'sha256:1',
        containerID: 'docker://a',
        state: { terminated: { reason: 'Error' } },
      },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, running, evicted).map((e) => e.reason),
    [],
    'Killing comes from the kill itself, not from status',
  );
});

test('configz masks header values and token-like fields', () => {
  const masked = maskSecrets({
    staticPodURLHeader: { Authorization: ['Bearer x'], 'X-A': ['1', '2'] },
    nested: { bootstrapToken: 'abc', tokenFile: '/x' },
    port: 10250,
  });
  assert.deepEqual(masked, {
    staticPodURLHeader: { Authorization: ['<masked>'], 'X-A': ['<masked>'] },
    nested: { bootstrapToken: '<masked>', tokenFile: '/x' },
    port: 10250,
  });
});

test('a container that ended before any status saw it running is still reported Started; Created says "Created container: <name>" as the reference 1.32', () => {
  const before = { phase: 'Pending', containerStatuses: [{ name: 'c', state: { waiting: {} } }] };
  const done = {
    phase: 'Succeeded',
    containerStatuses: [
      {
        name: 'c',
        containerID: 'docker://b',
        state: { terminated: { reason: 'Completed', startedAt: '2026-01-01T00:00:00Z' } },
      },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, before, done).map((e) => `${e.reason} ${e.message}`),
    ['Created Created container: c', 'Started Started container c'],
  );
  const cannotRun = {
    phase: 'Failed',
    containerStatuses: [
      {
        name: 'c',
        containerID: 'docker://c',
        state: { terminated: { reason: 'ContainerCannotRun' } },
      },
    ],
  };
  // never started: no Started, and the start's failure (the reference's FailedToStartContainer)
  assert.deepEqual(
    derivePodEvents(POD, before, cannotRun).map((e) => `${e.reason} ${e.message}`),
    ['Created Created container: c', 'Failed Error: RunContainerError'],
  );
});

test("an init container's events name spec.initContainers{name}, as the reference's fieldPath", () => {
  const before = {
    phase: 'Pending',
    initContainerStatuses: [{ name: 'setup', state: { waiting: {} } }],
    containerStatuses: [{ name: 'c', state: { waiting: {} } }],
  };
  const after = {
    ...before,
    initContainerStatuses: [{ name: 'setup', containerID: 'docker://i', state: { running: {} } }],
  };
  assert.deepEqual(
    derivePodEvents(POD, before, after).map((e) => `${e.fieldPath} ${e.reason}`),
    ['spec.initContainers{setup} Created', 'spec.initContainers{setup} Started'],
  );
});

test("a container that could not start: Created, then Warning Failed with the runtime's message, never Started (the kubelet 1.32.13's events on containerd)", () => {
  const message =
    'failed to create containerd task: failed to create shim task: OCI runtime create failed: ' +
    'runc create failed: unable to start container process: exec: "/no/such/binary": stat ' +
    '/no/such/binary: no such file or directory: unknown';
  const terminated = {
    exitCode: 128,
    reason: 'StartError',
    message,
    startedAt: '1970-01-01T00:00:00Z',
    containerID: 'containerd://a',
  };
  const never = {
    phase: 'Failed',
    containerStatuses: [
      { name: 'c', image: 'busybox', containerID: 'containerd://a', state: { terminated } },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, undefined, never).map((e) => [e.type, e.reason, e.message]),
    [
      ['Normal', 'Created', 'Created container: c'],
      ['Warning', 'Failed', `Error: ${message}`],
    ],
  );
  const always = {
    phase: 'Running',
    containerStatuses: [
      {
        name: 'c',
        image: 'busybox',
        containerID: 'containerd://a',
        state: { waiting: { reason: 'RunContainerError', message } },
        lastState: { terminated },
      },
    ],
  };
  assert.deepEqual(
    derivePodEvents(POD, undefined, always).map((e) => [e.type, e.reason, e.message]),
    [
      ['Normal', 'Created', 'Created container: c'],
      ['Warning', 'Failed', `Error: ${message}`],
    ],
  );
});
