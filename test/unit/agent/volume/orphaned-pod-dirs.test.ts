// The housekeeping of pod directories whose pods are gone, over real directories and a fake mount
// table (no real mount is made; test/integration/agent/pods/orphaned-volumes-process.test.ts
// mounts real tmpfs): the agent's tmpfs volume mounts are unmounted and the directory removed,
// kept pods untouched; a mount the agent does not make, a failed unmount and hostile entries
// (links out of the root, a name that is not a path segment) leave the directory, logged once per
// pod with the path and the reason, and a later pass finishes the work once the cause is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  OrphanedPodDirs,
  type OrphanFlex,
  type OrphanMounts,
} from '../../../../src/agent/volume/orphaned-pod-dirs.js';
import { mountsAtOrUnder, type MountEntry } from '../../../../src/agent/volume/mounts.js';
import { recordingLogger, type LogLine } from '../../../helpers/recording-logger.js';

interface FakeMounts extends OrphanMounts {
  table: MountEntry[];
  unmounted: string[];
  /** Unmounts of these paths fail with the message. */
  failing: Map<string, string>;
}

function fakeMounts(table: MountEntry[]): FakeMounts {
  const m: FakeMounts = {
    table,
    unmounted: [],
    failing: new Map(),
    entriesUnder: (dir) => Promise.resolve(mountsAtOrUnder(m.table, dir)),
    unmount(dir) {
      const why = m.failing.get(dir);
      if (why !== undefined) return Promise.reject(new Error(why));
      const i = m.table.findLastIndex((e) => e.mountPoint === dir);
      if (i < 0) return Promise.reject(new Error(`umount: ${dir}: not mounted.`));
      m.table.splice(i, 1);
      m.unmounted.push(dir);
      return Promise.resolve();
    },
  };
  return m;
}

async function scene(t: { after(fn: () => Promise<void>): void }): Promise<{
  dir: string;
  root: string;
  pods: string;
  lines: LogLine[];
  cleaner(mounts: OrphanMounts, flex?: OrphanFlex): OrphanedPodDirs;
}> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'na-orphans-')));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const root = join(dir, 'root');
  const pods = join(root, 'pods');
  await mkdir(pods, { recursive: true });
  const lines: LogLine[] = [];
  return {
    dir,
    root,
    pods,
    lines,
    cleaner: (mounts, flex) =>
      new OrphanedPodDirs({
        rootDir: root,
        mounts,
        ...(flex !== undefined ? { flex } : {}),
        logger: recordingLogger(lines),
      }),
  };
}

async function makeDirs(base: string, ...paths: string[]): Promise<void> {
  for (const p of paths) await mkdir(join(base, p), { recursive: true });
}

const tmpfs = (mountPoint: string): MountEntry => ({ mountPoint, fsType: 'tmpfs' });

const warnings = (lines: LogLine[]): LogLine[] => lines.filter((l) => l.level === 'warn');

test('orphaned pod dirs: the tmpfs volumes of a gone pod are unmounted and its directory removed; a kept pod is untouched', async (t) => {
  const s = await scene(t);
  await makeDirs(
    s.pods,
    'gone/volumes/sec',
    'gone/volumes/kubernetes.io~secret/tok',
    'gone/volumes/scratch',
    'gone/containers/c',
    'kept/volumes/mem',
  );
  await writeFile(join(s.pods, 'gone/etc-hosts'), '127.0.0.1 localhost\n');
  await writeFile(join(s.pods, 'gone/containers/c/0a1b'), 'done');
  const mounts = fakeMounts([
    tmpfs(join(s.pods, 'kept/volumes/mem')),
    tmpfs(join(s.pods, 'gone/volumes/sec')),
    tmpfs(join(s.pods, 'gone/volumes/kubernetes.io~secret/tok')),
  ]);
  await s.cleaner(mounts).cleanup((uid) => uid === 'kept');
  assert.deepEqual(mounts.unmounted.sort(), [
    join(s.pods, 'gone/volumes/kubernetes.io~secret/tok'),
    join(s.pods, 'gone/volumes/sec'),
  ]);
  assert.equal(existsSync(join(s.pods, 'gone')), false, 'the gone pod directory is removed');
  assert.ok(existsSync(join(s.pods, 'kept/volumes/mem')), 'the kept pod directory stays');
  assert.deepEqual(mounts.table, [tmpfs(join(s.pods, 'kept/volumes/mem'))]);
  assert.deepEqual(
    s.lines.map((l) => [l.level, l.msg, l.fields['podUID']]),
    [
      [
        'info',
        'orphaned pod "gone" found; its volumes unmounted and its directory removed',
        'gone',
      ],
    ],
  );
});

test('orphaned pod dirs: a mount the agent does not make leaves the directory, all its mounts in place, said once; cleaned once it is gone', async (t) => {
  const s = await scene(t);
  await makeDirs(s.pods, 'odd/volumes/data', 'odd/volumes/sec', 'sub/volume-subpaths/v/c/0');
  const mounts = fakeMounts([
    { mountPoint: join(s.pods, 'odd/volumes/data'), fsType: 'ext4' },
    tmpfs(join(s.pods, 'odd/volumes/sec')),
    tmpfs(join(s.pods, 'sub/volume-subpaths/v/c/0')),
  ]);
  const cleaner = s.cleaner(mounts);
  await cleaner.cleanup(() => false);
  await cleaner.cleanup(() => false);
  assert.deepEqual(mounts.unmounted, [], 'nothing unmounted in a directory with a foreign mount');
  assert.ok(existsSync(join(s.pods, 'odd/volumes/sec')));
  assert.ok(existsSync(join(s.pods, 'sub')));
  const said = warnings(s.lines);
  assert.equal(said.length, 2, 'one warning per pod over two passes');
  assert.deepEqual(
    said.map((l) => l.msg),
    [
      `orphaned pod "odd" found, but it was left in place (tried again at every housekeeping pass): ${join(s.pods, 'odd/volumes/data')} is mounted (ext4) and is not a volume mount this agent makes`,
      `orphaned pod "sub" found, but it was left in place (tried again at every housekeeping pass): ${join(s.pods, 'sub/volume-subpaths/v/c/0')} is mounted (tmpfs) and is not a volume mount this agent makes`,
    ],
  );
  assert.equal(said[0]?.fields['path'], join(s.pods, 'odd'));
  // the operator unmounts the foreign mount: the next pass finishes
  mounts.table.splice(0, 1);
  await cleaner.cleanup((uid) => uid === 'sub');
  assert.deepEqual(mounts.unmounted, [join(s.pods, 'odd/volumes/sec')]);
  assert.equal(existsSync(join(s.pods, 'odd')), false);
});

test('orphaned pod dirs: a failed unmount leaves the directory, said once with the path and the reason, and is retried', async (t) => {
  const s = await scene(t);
  await makeDirs(s.pods, 'busy/volumes/sec');
  await writeFile(join(s.pods, 'busy/volumes/sec/token'), 'secret');
  const sec = join(s.pods, 'busy/volumes/sec');
  const mounts = fakeMounts([tmpfs(sec)]);
  mounts.failing.set(sec, `umount: ${sec}: target is busy.`);
  const cleaner = s.cleaner(mounts);
  for (let i = 0; i < 3; i++) await cleaner.cleanup(() => false);
  assert.deepEqual(
    warnings(s.lines).map((l) => l.msg),
    [
      `orphaned pod "busy" found, but it was left in place (tried again at every housekeeping pass): failed to unmount volume at path ${sec}: umount: ${sec}: target is busy.`,
    ],
  );
  assert.equal(await readFile(join(sec, 'token'), 'utf8'), 'secret', 'nothing deleted under it');
  mounts.failing.clear();
  await cleaner.cleanup(() => false);
  assert.equal(existsSync(join(s.pods, 'busy')), false);
});

test('orphaned pod dirs: hostile entries never unmount or delete outside the pods directory', async (t) => {
  const s = await scene(t);
  const outside = join(s.dir, 'outside');
  await makeDirs(outside, 'mnt', 'data');
  await writeFile(join(outside, 'data/keep'), 'precious');
  // a pod "directory" that is a link out of the root, a mount behind it
  await symlink(outside, join(s.pods, 'evil'));
  // a volume that is a link to a mount outside (the table lists it under the pod)
  await makeDirs(s.pods, 'linkvol/volumes');
  await symlink(join(outside, 'mnt'), join(s.pods, 'linkvol/volumes/v'));
  // a plain orphan holding a link out: the link is removed, not followed
  await makeDirs(s.pods, 'withlink');
  await symlink(join(outside, 'data'), join(s.pods, 'withlink/data'));
  // a name that is not one path segment
  await makeDirs(s.pods, 'bad\nname/volumes');
  const mounts = fakeMounts([
    tmpfs(join(outside, 'mnt')),
    tmpfs(join(s.pods, 'evil/mnt')),
    tmpfs(join(s.pods, 'linkvol/volumes/v')),
  ]);
  const cleaner = s.cleaner(mounts);
  await cleaner.cleanup(() => false);
  await cleaner.cleanup(() => false);
  assert.deepEqual(mounts.unmounted, []);
  assert.equal(await readFile(join(outside, 'data/keep'), 'utf8'), 'precious');
  assert.ok(existsSync(join(outside, 'mnt')));
  assert.equal(existsSync(join(s.pods, 'withlink')), false, 'the orphan with a link is removed');
  assert.ok(existsSync(join(s.pods, 'linkvol')) && existsSync(join(s.pods, 'bad\nname')));
  const said = new Map(warnings(s.lines).map((l) => [String(l.fields['podUID']), l.msg]));
  assert.equal(warnings(s.lines).length, 3, 'each hostile entry said once over two passes');
  assert.match(said.get('evil') ?? '', /not a directory \(a symbolic link or a file\)$/);
  assert.match(
    said.get('linkvol') ?? '',
    new RegExp(`resolves to ${join(outside, 'mnt')}: a symbolic link on the way$`),
  );
  assert.match(said.get('bad\nname') ?? '', /the name contains a control character$/);
});

test('orphaned pod dirs: a pods directory that links out of the root is left alone, said once', async (t) => {
  const s = await scene(t);
  const outside = join(s.dir, 'elsewhere');
  await makeDirs(outside, 'uid1/volumes/v');
  await rm(s.pods, { recursive: true });
  await symlink(outside, s.pods);
  const mounts = fakeMounts([tmpfs(join(outside, 'uid1/volumes/v'))]);
  const cleaner = s.cleaner(mounts);
  await cleaner.cleanup(() => false);
  await cleaner.cleanup(() => false);
  assert.deepEqual(mounts.unmounted, []);
  assert.ok(existsSync(join(outside, 'uid1/volumes/v')));
  assert.deepEqual(
    warnings(s.lines).map((l) => l.msg),
    [
      `orphaned pods directory found, but it was left in place (tried again at every housekeeping pass): ${s.pods} leads out of ${s.root}`,
    ],
  );
});

test('orphaned pod dirs: FlexVolume volumes found on disk are unmounted by their driver first', async (t) => {
  const s = await scene(t);
  const share = join(s.pods, 'fx/volumes/example.com~fake/share');
  await makeDirs(
    s.pods,
    'fx/volumes/example.com~fake/share',
    'fx/volumes/example.com~fake/.share.mounted',
  );
  const mounts = fakeMounts([{ mountPoint: share, fsType: 'nfs' }]);
  const called: string[] = [];
  const flex: OrphanFlex = {
    unmountOrphan(dir) {
      called.push(dir);
      mounts.table = mounts.table.filter((m) => m.mountPoint !== dir);
      return Promise.resolve();
    },
  };
  await s.cleaner(mounts, flex).cleanup(() => false);
  assert.deepEqual(called, [share]);
  assert.equal(existsSync(join(s.pods, 'fx')), false);
  // without the FlexVolume plugins the volume is left, said once
  await makeDirs(
    s.pods,
    'fx2/volumes/example.com~fake/share',
    'fx2/volumes/example.com~fake/.share.mounted',
  );
  await s.cleaner(fakeMounts([])).cleanup(() => false);
  assert.ok(existsSync(join(s.pods, 'fx2/volumes/example.com~fake/share')));
  assert.match(
    warnings(s.lines)[0]?.msg ?? '',
    /FlexVolume volume \S+fx2\/volumes\/example\.com~fake\/share: no FlexVolume plugins to unmount it$/,
  );
});
