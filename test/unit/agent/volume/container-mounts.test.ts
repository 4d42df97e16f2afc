// A container's mounts as the reference's makeMounts makes them, and the volume validation in
// the reference's words: subPathExpr from the env (a missing value named), subPath made with the
// volume's mode and refused when it leaves the volume, read-only kinds, propagation; defaultMode
// and mode ranges, Bidirectional only for privileged containers, token lifetimes, and the
// process:// refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  containerMounts,
  expandSubPathExpr,
} from '../../../../src/agent/volume/container-mounts.js';
import { validatePod } from '../../../../src/agent/pod/validate.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

test('subPathExpr: $(VAR) from the env, $$ for $; a missing or empty value fails with the reference message', () => {
  assert.equal(expandSubPathExpr('logs/$(POD)/$$x', { POD: 'p1' }), 'logs/p1/$x');
  assert.throws(() => expandSubPathExpr('$(B)/$(A)/$(C)', { C: '' }), {
    message: 'missing value for A, B, C',
  });
});

test('container mounts: subPath made with the volume mode, escapes refused, read-only kinds, propagation', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'na-cmounts-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const vol = join(root, 'vol');
  await mkdir(vol, { mode: 0o750 });
  await symlink('/etc', join(vol, 'out'));
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    spec: {
      volumes: [
        { name: 'v', emptyDir: {} },
        { name: 'c', configMap: { name: 'x' } },
      ],
      containers: [
        {
          name: 'app',
          volumeMounts: [
            {
              name: 'v',
              mountPath: '/a',
              subPath: 'made/here',
              mountPropagation: 'HostToContainer',
            },
            { name: 'c', mountPath: '/c' },
          ],
        },
        { name: 'bad', volumeMounts: [{ name: 'v', mountPath: '/o', subPath: 'out' }] },
      ],
    },
  };
  const paths = (v: { name: string }): string => (v.name === 'v' ? vol : join(root, 'cfg'));
  const m = await containerMounts(pod, pod.spec.containers[0]!, {}, paths);
  assert.deepEqual(m, [
    {
      name: 'v',
      hostPath: join(vol, 'made/here'),
      containerPath: '/a',
      readOnly: false,
      propagation: 'rslave',
    },
    {
      name: 'c',
      hostPath: join(root, 'cfg'),
      containerPath: '/c',
      readOnly: true,
      propagation: 'rprivate',
    },
  ]);
  assert.equal((await stat(join(vol, 'made/here'))).mode & 0o777, 0o750);
  await assert.rejects(containerMounts(pod, pod.spec.containers[1]!, {}, paths), {
    message: 'failed to prepare subPath for volumeMount "v" of container "bad"',
  });
});

test('volume validation in the reference words; process:// refuses mounts a host process cannot have', () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'ns', uid: '3a6b1c2e-0000-4000-8000-000000000001' },
    spec: {
      volumes: [
        {
          name: 'c',
          configMap: { name: 'x', defaultMode: 0o1000, items: [{ key: 'k', path: '../k' }] },
        },
        {
          name: 't',
          projected: {
            sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 599 } }],
          },
        },
      ],
      containers: [
        {
          name: 'app',
          command: ['sh'],
          volumeMounts: [{ name: 'c', mountPath: '/c', mountPropagation: 'Bidirectional' }],
        },
      ],
    },
  };
  assert.deepEqual(
    validatePod(pod, { requireImage: false, requireCommand: true, processRuntime: true }),
    [
      'spec.volumes[0].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
      'spec.volumes[0].configMap.items[0].path: Invalid value: "../k": must not contain \'..\'',
      'spec.volumes[0].configMap.items[0].path: Invalid value: "../k": must not start with \'..\'',
      'spec.volumes[1].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      'spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
      'spec.containers[0].volumeMounts[0]: Forbidden: the process:// runtime runs host processes in the host\'s file system without a mount namespace, so volume "c" cannot be mounted at /c (only a hostPath volume mounted at its own path, without subPath, is what a host process sees)',
    ],
  );
});
