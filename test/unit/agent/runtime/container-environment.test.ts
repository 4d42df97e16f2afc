// Each runtime takes the environment the worker resolved (env sources, service variables, command
// and args expanded) as it is: Docker's Env, the CRI container config's envs, command and args;
// without one (a direct caller), env[].value only, expanded as the reference expands it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerCreateOptions } from '../../../../src/agent/runtime/docker/convert.js';
import { containerConfig } from '../../../../src/agent/runtime/cri/container-config.js';
import type { ContainerConfig } from '../../../../src/agent/runtime/types.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: '0123456789abcdef0123' },
  spec: {
    containers: [
      {
        name: 'c',
        image: 'busybox:local',
        command: ['echo', '$(A)'],
        args: ['$$(A)', '$(B)'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
      },
    ],
  },
};

const base: ContainerConfig = {
  pod,
  container: pod.spec.containers[0]!,
  kind: 'app',
  attempt: 0,
  specHash: 'h',
  sandboxId: 'sb',
  volumePaths: {},
};

const resolved = {
  env: [
    { name: 'A', value: '1' },
    { name: 'B', value: 'web' },
    { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.1' },
  ],
  command: ['echo', '1'],
  args: ['$(A)', 'web'],
};

test('Docker and CRI take the resolved environment, command and args', () => {
  const d = containerCreateOptions({ ...base, environment: resolved, logOpts: {}, nodeName: 'n' });
  assert.deepEqual(d.Env, ['A=1', 'B=web', 'KUBERNETES_SERVICE_HOST=10.0.0.1']);
  assert.deepEqual(d.Entrypoint, ['echo', '1']);
  assert.deepEqual(d.Cmd, ['$(A)', 'web']);
  const c = containerConfig({ ...base, environment: resolved });
  assert.deepEqual(c.envs, [
    { key: 'A', value: '1' },
    { key: 'B', value: 'web' },
    { key: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.1' },
  ]);
  assert.deepEqual(c.command, ['echo', '1']);
  assert.deepEqual(c.args, ['$(A)', 'web']);
});

test('without a resolved environment: env[].value only, $(VAR) expanded over it', () => {
  const d = containerCreateOptions({ ...base, logOpts: {}, nodeName: 'n' });
  assert.deepEqual(d.Env, ['A=1', 'B=']);
  assert.deepEqual(d.Entrypoint, ['echo', '1']);
  assert.deepEqual(d.Cmd, ['$(A)', '']);
  const c = containerConfig(base);
  assert.deepEqual(c.command, ['echo', '1']);
  assert.deepEqual(c.args, ['$(A)', '']);
});
