// The volume manager's own volumes, on a real directory with a recording mount binary (no real
// mount is made): --experimental-mounter-path mounts the tmpfs of memory-backed volumes; emptyDir
// is 0777; hostPath types fail with the reference's messages; a missing ConfigMap fails the
// pod's volume with the reference's FailedMount message, an optional one mounts empty; fsGroup
// gives every file the group with g+r and every directory setgid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostTmpfsNoswap, systemMounter } from '../../../../src/agent/volume/mounts.js';
import { PodVolumeManager, VolumeSetUpError } from '../../../../src/agent/volume/volume-manager.js';
import { checkHostPathType } from '../../../../src/agent/volume/host-path.js';
import {
  ObjectNotFoundError,
  type PodObject,
  type PodObjects,
} from '../../../../src/agent/objects/types.js';
import type { Pod, Volume } from '../../../../src/agent/pod/types.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

async function scene(t: { after: (fn: () => Promise<void>) => void }): Promise<{
  root: string;
  calls: () => Promise<string[]>;
  manager: (objects?: PodObjects) => PodVolumeManager;
  failed: string[];
}> {
  const root = await mkdtemp(join(tmpdir(), 'na-volmgr-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const log = join(root, 'mount.log');
  const bin = join(root, 'mount.wrapper');
  await writeFile(bin, `#!/bin/sh\necho "$@" >> ${log}\n`);
  await chmod(bin, 0o755);
  const failed: string[] = [];
  return {
    root,
    failed,
    calls: async () =>
      (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l !== ''),
    manager: (objects) => {
      const m = new PodVolumeManager({
        rootDir: join(root, 'root'),
        mounter: systemMounter(bin),
        clock: new ManualClock(),
        logger: silentLogger(),
        ...(objects !== undefined ? { objects } : {}),
        allocatable: { cpu: 2, memory: 2 ** 33 },
        trustAnchors: () => Promise.reject(new Error('unused')),
      });
      m.setEvents({ failedMount: (_p, msg) => failed.push(msg) });
      return m;
    },
  };
}

function pod(volumes: Volume[], fsGroup?: number): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'uid-1' },
    spec: {
      containers: [{ name: 'c', resources: { limits: { memory: '1Gi' } } }],
      volumes,
      ...(fsGroup !== undefined ? { securityContext: { fsGroup } } : {}),
    },
  };
}

function objects(data: Record<string, string> | undefined): PodObjects {
  return {
    registerPod: () => undefined,
    unregisterPod: () => undefined,
    stop: () => undefined,
    get: (kind, ns, name) => {
      if (data === undefined)
        return Promise.reject(new ObjectNotFoundError(kind, name, `configmap "${name}" not found`));
      const o: PodObject = {
        kind,
        namespace: ns,
        name,
        data: new Map(Object.entries(data).map(([k, v]) => [k, Buffer.from(v)])),
        textKeys: new Set(Object.keys(data)),
        immutable: false,
        resourceVersion: '1',
      };
      return Promise.resolve(o);
    },
  };
}

test('--experimental-mounter-path: the tmpfs of an emptyDir medium Memory, secret, downwardAPI or projected volume is mounted by that binary with size=<bytes>', async (t) => {
  const s = await scene(t);
  const m = s.manager(objects({ k: 'v' }));
  await m.setUp(
    pod([
      { name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      { name: 'podmem', emptyDir: { medium: 'Memory' } },
      { name: 'plain', emptyDir: {} },
      { name: 'sec', secret: { secretName: 's' } },
    ]),
  );
  const vol = (n: string): string => join(s.root, 'root/pods/uid-1/volumes', n);
  // noswap where this host's tmpfs takes it (tmpfs-noswap.ts)
  const ns = (await hostTmpfsNoswap()) ? ',noswap' : '';
  assert.deepEqual(await s.calls(), [
    `-t tmpfs -o size=67108864${ns} tmpfs ${vol('mem')}`,
    // no sizeLimit: the pod's memory limit (1Gi), below the node's allocatable
    `-t tmpfs -o size=1073741824${ns} tmpfs ${vol('podmem')}`,
    `-t tmpfs -o size=1073741824${ns} tmpfs ${vol('sec')}`,
  ]);
  assert.equal((await stat(vol('plain'))).mode & 0o7777, 0o777, 'emptyDir is 0777');
  assert.equal(await readFile(join(vol('sec'), 'k'), 'utf8'), 'v');
});

test('configMap volume: a missing ConfigMap is a FailedMount with the reference message and the pod waits; optional mounts empty', async (t) => {
  const s = await scene(t);
  const m = s.manager(objects(undefined));
  await assert.rejects(
    m.setUp(pod([{ name: 'cfg', configMap: { name: 'y' } }])),
    (e: unknown) =>
      e instanceof VolumeSetUpError &&
      e.message === 'MountVolume.SetUp failed for volume "cfg" : configmap "y" not found',
  );
  assert.deepEqual(s.failed, [
    'MountVolume.SetUp failed for volume "cfg" : configmap "y" not found',
  ]);
  await m.setUp(pod([{ name: 'cfg', configMap: { name: 'y', optional: true } }]));
});

test('fsGroup: files get the group and g+r (read-only volume kinds), directories setgid and g+x', async (t) => {
  const s = await scene(t);
  const m = s.manager(objects({ a: '1', b: '2' }));
  await m.setUp(
    pod(
      [
        {
          name: 'cfg',
          configMap: {
            name: 'x',
            items: [
              { key: 'a', path: 'a' },
              { key: 'b', path: 'd/b', mode: 0o400 },
            ],
          },
        },
        { name: 'scratch', emptyDir: {} },
      ],
      1234,
    ),
  );
  const vol = join(s.root, 'root/pods/uid-1/volumes');
  const a = await stat(join(vol, 'cfg/a'));
  assert.equal(a.gid, 1234);
  assert.equal(a.mode & 0o7777, 0o644);
  assert.equal((await stat(join(vol, 'cfg/d/b'))).mode & 0o7777, 0o440);
  assert.equal((await stat(join(vol, 'cfg/d'))).mode & 0o2000, 0o2000);
  const scratch = await stat(join(vol, 'scratch'));
  assert.equal(scratch.gid, 1234);
  assert.equal(scratch.mode & 0o7777, 0o2777);
});

test('hostPath types: the reference messages; DirectoryOrCreate and FileOrCreate make what is missing', async (t) => {
  const s = await scene(t);
  const file = join(s.root, 'f');
  await writeFile(file, '');
  await assert.rejects(checkHostPathType(file, 'Directory'), {
    message: `hostPath type check failed: ${file} is not a directory`,
  });
  await assert.rejects(checkHostPathType(s.root, 'File'), {
    message: `hostPath type check failed: ${s.root} is not a file`,
  });
  await assert.rejects(checkHostPathType(file, 'Socket'), {
    message: `hostPath type check failed: ${file} is not a socket file`,
  });
  await assert.rejects(checkHostPathType(file, 'CharDevice'), {
    message: `hostPath type check failed: ${file} is not a character device`,
  });
  await assert.rejects(checkHostPathType('/dev/null', 'BlockDevice'), {
    message: 'hostPath type check failed: /dev/null is not a block device',
  });
  await checkHostPathType('/dev/null', 'CharDevice');
  await checkHostPathType(join(s.root, 'new/dir'), 'DirectoryOrCreate');
  assert.equal((await stat(join(s.root, 'new/dir'))).mode & 0o777, 0o755);
  await checkHostPathType(join(s.root, 'new/file'), 'FileOrCreate');
  assert.ok((await stat(join(s.root, 'new/file'))).isFile());
  await assert.rejects(checkHostPathType(file, 'Bogus'), {
    message: 'Bogus is an invalid volume type',
  });
});
