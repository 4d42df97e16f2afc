import { test } from 'node:test';
import assert from 'node:assert/strict';
import { illegalTransition } from '../../../../src/agent/worker/status-transition.js';
import { PodStatusManager } from '../../../../src/agent/worker/status-manager.js';
import type { ContainerState, Pod, PodStatus } from '../../../../src/agent/pod/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const pod = (
  restartPolicy: Pod['spec']['restartPolicy'],
  init: Pod['spec']['initContainers'] = [],
): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
  spec: { restartPolicy, initContainers: init, containers: [{ name: 'app', image: 'busybox' }] },
});

const st = (name: string, state: ContainerState) => ({
  name,
  state,
  lastState: {},
  ready: false,
  restartCount: 0,
  image: 'busybox',
  imageID: '',
});
const exited = (exitCode: number): ContainerState => ({
  terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' },
});
const waiting: ContainerState = { waiting: { reason: 'ContainerCreating' } };
const status = (app: ContainerState, init?: ContainerState): PodStatus => ({
  phase: 'Running',
  conditions: [],
  containerStatuses: [st('app', app)],
  ...(init ? { initContainerStatuses: [st('setup', init)] } : {}),
});

// The reference's messages (pkg/kubelet/status checkContainerStateTransition).
test('restartPolicy Never: a terminated container may not go back to waiting (the reference message)', () => {
  assert.equal(
    illegalTransition(pod('Never'), status(exited(0)), status(waiting)),
    'terminated container app attempted illegal transition to non-terminated state',
  );
  assert.equal(illegalTransition(pod('Never'), status(exited(0)), status(exited(0))), undefined);
});

test('restartPolicy OnFailure: only a container that exited 0 is final', () => {
  assert.match(
    illegalTransition(pod('OnFailure'), status(exited(0)), status(waiting)) ?? '',
    /terminated container app attempted illegal transition/,
  );
  assert.equal(illegalTransition(pod('OnFailure'), status(exited(1)), status(waiting)), undefined);
});

test('restartPolicy Always (or unset): containers may leave the terminated state', () => {
  assert.equal(illegalTransition(pod('Always'), status(exited(0)), status(waiting)), undefined);
  assert.equal(illegalTransition(pod(''), status(exited(0)), status(waiting)), undefined);
});

test('init containers: the reference message; a sidecar (restartPolicy Always) may restart', () => {
  const plain = pod('Never', [{ name: 'setup', image: 'busybox' }]);
  assert.equal(
    illegalTransition(plain, status(waiting, exited(0)), status(waiting, waiting)),
    'terminated init container setup attempted illegal transition to non-terminated state',
  );
  const sidecar = pod('Never', [{ name: 'setup', image: 'busybox', restartPolicy: 'Always' }]);
  assert.equal(
    illegalTransition(sidecar, status(waiting, exited(0)), status(waiting, waiting)),
    undefined,
  );
});

test('the API server status (an untyped record) is the old status when the agent holds none', () => {
  const api = { containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0 } } }] };
  assert.match(illegalTransition(pod('Never'), api, status(waiting)) ?? '', /container app/);
  assert.equal(illegalTransition(pod('Never'), undefined, status(waiting)), undefined);
  assert.equal(
    illegalTransition(pod('Never'), { containerStatuses: 'junk' }, status(waiting)),
    undefined,
  );
});

test('the status manager drops the refused update, keeps the terminated status, and says so once', () => {
  const logger = recordingLogger();
  const m = new PodStatusManager(logger);
  const changes: PodStatus[] = [];
  m.onChange((_p, s) => changes.push(s));
  const p = pod('Never');
  m.set(p, status(exited(0)));
  m.set(p, status(waiting));
  m.set(p, status(waiting));
  assert.deepEqual(m.status('u1')?.containerStatuses[0]?.state, exited(0));
  assert.equal(changes.length, 1, 'listeners (the API status sync) never see the refused status');
  const said = logger.lines.filter((l) => l.msg === 'Status update on pod aborted');
  assert.equal(said.length, 1);
  assert.equal(said[0]?.level, 'error');
  assert.equal(said[0]?.fields['pod'], 'ns/p');
  // a pod that is not yet held: its API status is the old one
  const fresh = {
    ...pod('Never'),
    status: { containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0 } } }] },
  };
  fresh.metadata = { ...fresh.metadata, uid: 'u2' };
  m.set(fresh, status(waiting));
  assert.equal(m.status('u2'), undefined);
});
