// --volume-plugin-dir: FlexVolume exec drivers called as the reference calls them (init, then
// mount <dir> <json options> before the pod's sandbox, unmount <dir> when the pod goes), with
// a small driver script; failures in the reference's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FlexVolumePlugins,
  driverPaths,
  driversOfDir,
} from '../../../../src/agent/volume/flexvolume.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { validatePod } from '../../../../src/agent/pod/validate.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

interface Fixture {
  pluginDir: string;
  rootDir: string;
  calls: string;
}

async function fixture(
  t: { after(fn: () => unknown): void },
  behaviour: { init?: string; mount?: string },
): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'na-flex-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pluginDir = join(dir, 'plugins');
  const calls = join(dir, 'calls.log');
  await mkdir(join(pluginDir, 'example.com~fake'), { recursive: true });
  const script = `#!/bin/sh
printf '%s\\n' "$*" >> '${calls}'
case "$1" in
  init) echo '${behaviour.init ?? '{"status": "Success", "capabilities": {"attach": false}}'}';;
  mount) ${behaviour.mount ?? `echo hello > "$2/data"; echo '{"status": "Success"}'`};;
  unmount) rm -f "$2/data"; echo '{"status": "Success"}';;
  *) echo '{"status": "Not supported"}';;
esac
`;
  await writeFile(join(pluginDir, 'example.com~fake/fake'), script);
  await chmod(join(pluginDir, 'example.com~fake/fake'), 0o755);
  return { pluginDir, rootDir: join(dir, 'root'), calls };
}

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-flex-1' },
  spec: {
    containers: [{ name: 'c', image: 'busybox:local' }],
    volumes: [
      {
        name: 'share',
        flexVolume: {
          driver: 'example.com/fake',
          fsType: 'ext4',
          options: { share: '//srv/data' },
        },
      },
    ],
  },
};

test('--volume-plugin-dir: a flexVolume pod volume calls <dir>/<vendor>~<driver>/<driver> init, mount <dir> <json options> once, and unmount when the pod goes', async (t) => {
  const f = await fixture(t, {});
  const log = recordingLogger();
  const flex = new FlexVolumePlugins({ pluginDir: f.pluginDir, rootDir: f.rootDir, logger: log });
  const dir = join(f.rootDir, 'pods/uid-flex-1/volumes/example.com~fake/share');
  assert.equal(flex.path(pod, pod.spec.volumes![0]!), dir);
  await flex.setUp(pod);
  await flex.setUp(pod);
  const lines = (await readFile(f.calls, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 2, 'init once, mount once');
  assert.equal(lines[0], 'init');
  assert.ok(lines[1]?.startsWith(`mount ${dir} {`), lines[1]);
  assert.deepEqual(JSON.parse(lines[1]!.slice(`mount ${dir} `.length)), {
    'kubernetes.io/fsType': 'ext4',
    'kubernetes.io/readwrite': 'rw',
    'kubernetes.io/pvOrVolumeName': 'share',
    'kubernetes.io/pod.name': 'web',
    'kubernetes.io/pod.namespace': 'shop',
    'kubernetes.io/pod.uid': 'uid-flex-1',
    'kubernetes.io/serviceAccount.name': '',
    share: '//srv/data',
  });
  assert.equal(
    await readFile(join(dir, 'data'), 'utf8'),
    'hello\n',
    'the driver mounted into the dir',
  );
  await flex.tearDown(pod);
  assert.equal((await readFile(f.calls, 'utf8')).trim().split('\n').at(-1), `unmount ${dir}`);
  assert.equal(existsSync(dir), false, 'the mount dir is removed after unmount');
});

test('FlexVolume: a volume whose pod is gone is unmounted by the driver its directory names (vendor~name is vendor/name), its marker and directory removed', async (t) => {
  const f = await fixture(t, {});
  const flex = new FlexVolumePlugins({
    pluginDir: f.pluginDir,
    rootDir: f.rootDir,
    logger: recordingLogger(),
  });
  await flex.setUp(pod);
  const dir = join(f.rootDir, 'pods/uid-flex-1/volumes/example.com~fake/share');
  await flex.unmountOrphan(dir);
  assert.equal((await readFile(f.calls, 'utf8')).trim().split('\n').at(-1), `unmount ${dir}`);
  assert.equal(existsSync(dir), false, 'the volume dir is removed');
  assert.equal(existsSync(join(dir, '..', '.share.mounted')), false, 'the marker is removed');
  assert.deepEqual(driversOfDir('example.com~fake'), ['example.com/fake', 'example.com~fake']);
  assert.deepEqual(driversOfDir('fake'), ['fake']);
  const missing = join(f.rootDir, 'pods/uid-flex-1/volumes/other.io~gone/v');
  await assert.rejects(
    flex.unmountOrphan(missing),
    /no FlexVolume driver other\.io\/gone: .*other\.io~gone\/gone does not exist \(--volume-plugin-dir\)/,
  );
});

test('FlexVolume failures in the reference words: a Failure status, a driver needing attach, a missing driver; the validation of flexVolume', async (t) => {
  const failing = await fixture(t, {
    mount: `echo '{"status": "Failure", "message": "no such share"}'`,
  });
  await assert.rejects(
    new FlexVolumePlugins({
      pluginDir: failing.pluginDir,
      rootDir: failing.rootDir,
      logger: recordingLogger(),
    }).setUp(pod),
    {
      message:
        'MountVolume.SetUp failed for volume "share" : mount command failed, status: Failure, reason: no such share',
    },
  );
  const attach = await fixture(t, { init: '{"status": "Success"}' });
  await assert.rejects(
    new FlexVolumePlugins({
      pluginDir: attach.pluginDir,
      rootDir: attach.rootDir,
      logger: recordingLogger(),
    }).setUp(pod),
    /^Error: MountVolume\.SetUp failed for volume "share" : FlexVolume driver example\.com\/fake reports the attach capability/,
  );
  await assert.rejects(
    new FlexVolumePlugins({
      pluginDir: join(attach.pluginDir, 'none'),
      rootDir: attach.rootDir,
      logger: recordingLogger(),
    }).setUp(pod),
    /no FlexVolume driver example\.com\/fake: .*none\/example\.com~fake\/fake does not exist \(--volume-plugin-dir\)/,
  );
  assert.deepEqual(driverPaths('example.com/fake'), { dir: 'example.com~fake', exe: 'fake' });
  assert.equal(typeof driverPaths('a/b/c'), 'string');
  const bad: Pod = {
    ...pod,
    spec: {
      ...pod.spec,
      volumes: [{ name: 'v', flexVolume: { driver: '', options: { 'kubernetes.io/x': '1' } } }],
    },
  };
  const problems = validatePod(bad, { requireImage: true, requireCommand: false });
  assert.ok(
    problems.some((p) => p.includes('spec.volumes[0].flexVolume.driver: Required value')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('kubernetes.io and k8s.io namespaces are reserved')),
    problems.join('\n'),
  );
  assert.deepEqual(validatePod(pod, { requireImage: true, requireCommand: false }), []);
});
