// Ephemeral containers in the pod workers, as the reference's kubelet runs them
// (kuberuntime_manager.go computePodActions: started while the pod initializes, never restarted;
// kuberuntime_container.go getTargetID: `unable to find target container <name>`;
// kubelet_pods.go convertToAPIContainerStatuses: the default waiting reason, no `started`), and
// the fields the reference's validateEphemeralContainers forbids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';
import type { EphemeralContainer, Pod } from '../../../../src/agent/pod/types.js';
import { forbiddenEphemeralFields } from '../../../../src/common/pod/ephemeral-fields.js';

function withEphemeral(p: Pod, ecs: EphemeralContainer[]): Pod {
  return { ...p, spec: { ...p.spec, ephemeralContainers: ecs } };
}

test('an ephemeral container added to a running pod starts once in its sandbox, targeting the named container, and is never restarted', async () => {
  const w = makeWorld();
  const base = pod('e1', { containers: [{ name: 'app', command: ['sleep'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [base] });
  await w.settle();
  const app = w.runtime.running('app');
  assert.ok(app);
  const p = withEphemeral(base, [
    { name: 'debugger', command: ['sh'], targetContainerName: 'app' },
  ]);
  w.manager.handleUpdate({ op: 'UPDATE', source: 'api', pods: [p] });
  await w.settle();
  const dbg = w.runtime.running('debugger');
  assert.equal(dbg?.kind, 'ephemeral');
  assert.equal(dbg?.sandboxId, app.sandboxId);
  const cfg = w.runtime.created.find((c) => c.container.name === 'debugger');
  assert.equal(cfg?.targetContainerId, app.id);
  assert.equal(
    'targetContainerName' in (cfg?.container ?? {}),
    false,
    'only the container part is run',
  );
  let st = w.statuses.status('e1')?.ephemeralContainerStatuses?.[0];
  assert.equal(st?.name, 'debugger');
  assert.ok(st?.state.running);
  assert.equal(st?.ready, false);
  assert.equal('started' in (st ?? {}), false);

  w.runtime.exit(dbg!.id, 1);
  await w.settle();
  await w.advance(120_000);
  assert.equal(w.runtime.instances('debugger').length, 1, 'never restarted');
  st = w.statuses.status('e1')?.ephemeralContainerStatuses?.[0];
  assert.equal(st?.state.terminated?.exitCode, 1);
  assert.equal(st?.state.terminated?.reason, 'Error');
  assert.equal(st?.restartCount, 0);
  // the pod's phase and readiness are the app containers' alone
  assert.equal(w.statuses.status('e1')?.phase, 'Running');
});

test('ephemeral containers start while init containers still run; the default waiting reason is PodInitializing then', async () => {
  const w = makeWorld();
  const p = withEphemeral(
    pod('e2', {
      initContainers: [{ name: 'init', command: ['wait'] }],
      containers: [{ name: 'app', command: ['sleep'] }],
    }),
    [{ name: 'dbg', command: ['sh'] }],
  );
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  assert.ok(w.runtime.running('init'));
  assert.ok(w.runtime.running('dbg'), 'started before initialization finished');
  assert.equal(w.runtime.running('app'), undefined);
});

test('a target that never ran: CreateContainerConfigError "unable to find target container <name>"', async () => {
  const w = makeWorld();
  const p = withEphemeral(
    pod('e3', {
      initContainers: [{ name: 'init', command: ['wait'] }],
      containers: [{ name: 'app', command: ['sleep'] }],
    }),
    [{ name: 'dbg', command: ['sh'], targetContainerName: 'app' }],
  );
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  assert.equal(w.runtime.instances('dbg').length, 0);
  assert.deepEqual(w.statuses.status('e3')?.ephemeralContainerStatuses?.[0]?.state, {
    waiting: {
      reason: 'CreateContainerConfigError',
      message: 'unable to find target container app',
    },
  });
});

test('an ephemeral container with a field the reference forbids is not run: CreateContainerConfigError naming it', async () => {
  const w = makeWorld();
  const p = withEphemeral(pod('e4', { containers: [{ name: 'app', command: ['sleep'] }] }), [
    { name: 'dbg', command: ['sh'], ports: [{ containerPort: 80 }] },
  ]);
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  assert.ok(w.runtime.running('app'));
  assert.equal(w.runtime.instances('dbg').length, 0);
  assert.deepEqual(w.statuses.status('e4')?.ephemeralContainerStatuses?.[0]?.state.waiting, {
    reason: 'CreateContainerConfigError',
    message:
      'the container cannot run on this node: spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
  });
});

test('the forbidden fields of an ephemeral container, in the reference struct order (validateFieldAllowList)', () => {
  assert.deepEqual(
    forbiddenEphemeralFields({
      name: 'x',
      image: 'i',
      lifecycle: {},
      ports: [],
      resources: { limits: { cpu: '1' } },
      restartPolicy: 'Always',
      livenessProbe: {},
      readinessProbe: {},
      startupProbe: {},
      resizePolicy: [],
      volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'a', subPathExpr: 'b' }],
      env: [{ name: 'A', value: 'b' }],
      securityContext: { privileged: true },
      stdin: true,
      tty: true,
    }),
    [
      'ports',
      'resources',
      'resizePolicy',
      'restartPolicy',
      'livenessProbe',
      'readinessProbe',
      'startupProbe',
      'lifecycle',
      'volumeMounts[0].subPath',
      'volumeMounts[0].subPathExpr',
    ],
  );
  // an empty resources struct is Go's zero value: allowed (the API server defaults it to {})
  assert.deepEqual(forbiddenEphemeralFields({ name: 'x', resources: {} }), []);
});
