// Pod volumes on process://, which runs host processes in the host's file system: a hostPath
// volume mounted at its own path works (its type checked: DirectoryOrCreate makes it), and a
// mount a host process cannot have (here a configMap at /etc/cfg) is refused: the pod Failed
// with UnsupportedPod and a message naming the mount and the runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { volumeScene } from './volume-scene.js';

test(
  'volumes on process://: a hostPath at its own path runs (DirectoryOrCreate made); a configMap mount is refused naming the runtime',
  { timeout: 120_000 },
  async (t) => {
    const s = await volumeScene(t, 'process');
    const made = join(s.root, '..', 'made-by-hostpath');
    const pod = (name: string, volume: unknown, mountPath: string): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: {
        nodeName: s.node,
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: 'c',
            image: 'none',
            command: ['sleep', '60'],
            volumeMounts: [{ name: 'v', mountPath }],
          },
        ],
        volumes: [volume],
      },
    });
    await s.api.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: 'cm1' }, data: { k: 'v' } },
    });
    await s.createPod(
      pod(`${s.node}-hp`, { name: 'v', hostPath: { path: made, type: 'DirectoryOrCreate' } }, made),
    );
    await s.createPod(pod(`${s.node}-cm`, { name: 'v', configMap: { name: 'cm1' } }, '/etc/cfg'));
    s.start();
    await s.phase(`${s.node}-hp`, 'Running');
    assert.ok((await stat(made)).isDirectory(), 'DirectoryOrCreate made the directory');
    const refused = await s.phase(`${s.node}-cm`, 'Failed');
    assert.equal(refused['reason'], 'UnsupportedPod');
    assert.match(
      String(refused['message']),
      /spec\.containers\[0\]\.volumeMounts\[0\]: Forbidden: the process:\/\/ runtime runs host processes in the host's file system without a mount namespace, so volume "v" cannot be mounted at \/etc\/cfg/,
    );
  },
);
