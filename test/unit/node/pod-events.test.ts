import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derivePodEvents } from '../../../src/node/events/pod-events.js';
import { maskSecrets } from '../../../src/server/handlers/configz.js';

test('pod lifecycle events are derived from status transitions', () => {
  const waiting = { phase: 'Pending', containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', state: { waiting: { reason: 'ContainerCreating' } } }] };
  assert.deepEqual(derivePodEvents(undefined, waiting), []);
  const running = { phase: 'Running', containerStatuses: [{ name: 'c', image: 'nginx', imageID: 'sha256:1', containerID: 'docker://a', state: { running: {} } }] };
  assert.deepEqual(derivePodEvents(waiting, running).map((e) => e.reason), ['Pulled', 'Created', 'Started']);
  assert.deepEqual(derivePodEvents(running, running), []);
  const crash = { phase: 'Running', containerStatuses: [{ name: 'c', image: 'nginx', imageID: 'sha256:1', containerID: 'docker://a', state: { waiting: { reason: 'CrashLoopBackOff' } } }] };
  const back = derivePodEvents(running, crash);
  assert.deepEqual(back.map((e) => [e.type, e.reason, e.message, e.fieldPath]), [['Warning', 'BackOff', 'Back-off restarting failed container c', 'spec.containers{c}']]);
  const pullErr = { phase: 'Pending', containerStatuses: [{ name: 'c', image: 'nope', state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } }] };
  assert.deepEqual(derivePodEvents(waiting, pullErr).map((e) => [e.type, e.reason, e.message]), [['Warning', 'Failed', 'Error: ErrImagePull: not found']]);
  const evicted = { phase: 'Failed', reason: 'Evicted', containerStatuses: [{ name: 'c', image: 'nginx', imageID: 'sha256:1', containerID: 'docker://a', state: { terminated: { reason: 'Error' } } }] };
  assert.deepEqual(derivePodEvents(running, evicted).map((e) => e.reason), ['Killing']);
});

test('configz masks header values and token-like fields', () => {
  const masked = maskSecrets({ staticPodURLHeader: { Authorization: ['Bearer x'], 'X-A': ['1', '2'] }, nested: { bootstrapToken: 'abc', tokenFile: '/x' }, port: 10250 });
  assert.deepEqual(masked, { staticPodURLHeader: { Authorization: ['<masked>'], 'X-A': ['<masked>'] }, nested: { bootstrapToken: '<masked>', tokenFile: '/x' }, port: 10250 });
});
