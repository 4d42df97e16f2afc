// The mount-point check of memory-backed volumes on real mounts (root): the root of a tmpfs is
// known from three system calls, and the answer is the mount table's; a directory inside a tmpfs,
// a plain directory and a symbolic link to a tmpfs root are no tmpfs mount point. The tmpfs is
// mounted with noswap where the host takes it (the reference's memory-backed volumes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  hostTmpfsNoswap,
  mountEntries,
  systemMounter,
} from '../../../../src/agent/volume/mounts.js';

test('isMountPoint: a tmpfs root is tmpfs, as the mount table says; inside it, a plain directory or a link to it is none', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-tmpfs-mp-'));
  const mounter = systemMounter();
  const root = join(dir, 'vol');
  await mkdir(root);
  t.after(async () => {
    await mounter.unmount(root).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  assert.equal(await mounter.isMountPoint(root), undefined, 'before the mount');
  await mounter.mountTmpfs(root, 1 << 20);
  assert.deepEqual(await mounter.isMountPoint(root), { mountPoint: root, fsType: 'tmpfs' });
  assert.equal(
    (await mountEntries()).findLast((m) => m.mountPoint === root)?.fsType,
    'tmpfs',
    'the mount table agrees',
  );
  const line = (await readFile('/proc/self/mounts', 'utf8'))
    .split('\n')
    .findLast((l) => l.split(' ')[1] === root);
  const options = line?.split(' ')[3]?.split(',') ?? [];
  assert.ok(options.includes('size=1024k'), line);
  assert.equal(options.includes('noswap'), await hostTmpfsNoswap(), line);
  const inside = join(root, 'sub');
  await mkdir(inside);
  assert.equal(await mounter.isMountPoint(inside), undefined, 'a directory inside the tmpfs');
  const link = join(dir, 'link');
  await symlink(root, link);
  assert.equal(await mounter.isMountPoint(link), undefined, 'a symbolic link to the tmpfs root');
  assert.equal(await mounter.isMountPoint(dir), undefined, 'a plain directory');
  await mounter.unmount(root);
  assert.equal(await mounter.isMountPoint(root), undefined, 'after the unmount');
});
