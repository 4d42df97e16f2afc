import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivePodEvents } from '../../../../src/agent/node/events/pod-events.js';
import { maskSecrets } from '../../../../src/agent/server/handlers/configz.js';

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
  assert.deepEqual(derivePodEvents(undefined, waiting), []);
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
    derivePodEvents(waiting, running).map((e) => e.reason),
    ['Created', 'Started'],
  );
  assert.deepEqual(derivePodEvents(running, running), []);
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
  const back = derivePodEvents(running, crash);
  assert.deepEqual(
    back.map((e) => [e.type, e.reason, e.message, e.fieldPath]),
    [['Warning', 'BackOff', 'Back-off restarting failed container c', 'spec.containers{c}']],
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
  assert.deepEqual(
    derivePodEvents(waiting, pullErr).map((e) => [e.type, e.reason, e.message]),
    [['Warning', 'Failed', 'Error: ErrImagePull']],
    "the reference's Error: <err>, where the puller's error is the reason (its own event says why)",
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
    derivePodEvents(waiting, configErr).map((e) => [e.type, e.reason, e.message]),
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
    derivePodEvents(running, evicted).map((e) => e.reason),
    [],
    'Killing comes from container exits, not from status',
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

test('image pulls are reported as Pulling then Pulled (or Failed) on the pods that wait for the image', async () => {
  const { reportImagePulls } = await import('../../../../src/agent/node/events/image-events.js');
  const { ManualClock } = await import('../../../helpers/manual-clock.js');
  const clock = new ManualClock();
  const seen: string[] = [];
  const images = {
    ensureImage: (image: string, _policy: 'Always' | 'IfNotPresent' | 'Never') => {
      clock.advance(1500);
      return image === 'bad'
        ? Promise.reject(new Error('manifest unknown'))
        : Promise.resolve('sha256:1');
    },
  };
  reportImagePulls({
    images,
    clock,
    waitingFor: (image) => [
      { ref: { kind: 'Pod', namespace: 'n', name: `p-${image}`, uid: 'u' }, container: 'c' },
    ],
    events: {
      event: (o, type, reason, message) =>
        seen.push(`${o.name} ${o.fieldPath ?? ''} ${type} ${reason}: ${message}`),
    },
  });
  assert.equal(await images.ensureImage('nginx', 'IfNotPresent'), 'sha256:1');
  await assert.rejects(images.ensureImage('bad', 'Always'), /manifest unknown/);
  await images.ensureImage('local', 'Never');
  assert.deepEqual(seen, [
    'p-nginx spec.containers{c} Normal Pulling: Pulling image "nginx"',
    'p-nginx spec.containers{c} Normal Pulled: Successfully pulled image "nginx" in 1.500s',
    'p-bad spec.containers{c} Normal Pulling: Pulling image "bad"',
    'p-bad spec.containers{c} Warning Failed: Failed to pull image "bad": manifest unknown',
  ]);
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
    derivePodEvents(before, done).map((e) => `${e.reason} ${e.message}`),
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
  assert.deepEqual(
    derivePodEvents(before, cannotRun).map((e) => e.reason),
    ['Created'],
  );
});
