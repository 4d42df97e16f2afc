// --volume-stats-agg-period: the reference's fsResourceAnalyzer measures each pod's volumes at
// start and then once per period (du-like: bytes of the distinct inodes, inodes used), and
// /stats/summary serves the cached figures as pods[].volume[]; 0 disables the collection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile, link } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { VolumeStatsCache } from '../../../../src/agent/volume/stats-cache.js';
import { measureDirectory } from '../../../../src/agent/volume/usage.js';
import { RuntimeStats } from '../../../../src/agent/server/runtime-adapters.js';
import type { ContainerRuntime, RuntimeContainer } from '../../../../src/agent/runtime/types.js';

interface Summary {
  pods: {
    podRef: { uid: string };
    volume?: {
      name: string;
      usedBytes: number;
      inodesUsed: number;
      capacityBytes: number;
      availableBytes: number;
      inodes: number;
      inodesFree: number;
      time: string;
    }[];
  }[];
}

function oneRunningPod(): ContainerRuntime {
  const c = {
    id: 'c1',
    podUid: 'u1',
    podName: 'web',
    podNamespace: 'default',
    name: 'c',
    kind: 'app',
    attempt: 0,
    specHash: '',
    image: 'img',
    imageId: '',
    state: 'running',
    createdAtMs: 0,
  } as RuntimeContainer;
  return { listContainers: () => Promise.resolve([c]) } as unknown as ContainerRuntime;
}

test('--volume-stats-agg-period: emptyDir usage is measured at start and again every period, served in /stats/summary pods[].volume[]; 0 disables it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'volstats-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const vol = join(dir, 'cache');
  await mkdir(vol);
  await writeFile(join(vol, 'a'), Buffer.alloc(8192, 1));
  const clock = new ManualClock();
  const cache = new VolumeStatsCache({
    clock,
    logger: recordingLogger(),
    periodMs: 60_000,
    pods: () => [{ uid: 'u1', volumes: [{ name: 'cache', path: vol }] }],
    measure: measureDirectory,
  });
  const stats = new RuntimeStats({
    runtime: oneRunningPod(),
    nodeName: 'n1',
    clock,
    volumes: (uid) => cache.get(uid),
  });
  const ac = new AbortController();
  const running = cache.run(ac.signal);
  await clock.waitForSleepers(1);
  const first = ((await stats.summary()) as Summary).pods[0]?.volume?.[0];
  assert.ok(first !== undefined, 'the volume is in the summary after the first pass');
  assert.equal(first.name, 'cache');
  assert.equal(first.inodesUsed, 2, 'the directory and its file');
  assert.ok(first.usedBytes >= 8192, `usedBytes ${first.usedBytes}`);
  assert.ok(
    first.capacityBytes > 0 &&
      first.availableBytes > 0 &&
      first.inodes > 0 &&
      first.inodesFree >= 0,
  );
  assert.deepEqual(
    Object.keys(first),
    [
      'time',
      'availableBytes',
      'capacityBytes',
      'usedBytes',
      'inodesFree',
      'inodes',
      'inodesUsed',
      'name',
    ],
    'the reference field order',
  );
  // More data, plus a hard link (counted once): unchanged until the period has passed.
  await writeFile(join(vol, 'b'), Buffer.alloc(65536, 1));
  await link(join(vol, 'b'), join(vol, 'b-link'));
  clock.advance(59_999);
  assert.equal(
    ((await stats.summary()) as Summary).pods[0]?.volume?.[0]?.inodesUsed,
    2,
    'cached until the period ends',
  );
  clock.advance(1);
  await clock.waitForSleepers(1);
  const second = ((await stats.summary()) as Summary).pods[0]?.volume?.[0];
  assert.equal(second?.inodesUsed, 3, 'a hard link is one inode');
  assert.ok(
    (second?.usedBytes ?? 0) >= first.usedBytes + 65536 &&
      (second?.usedBytes ?? 0) < first.usedBytes + 2 * 65536,
    `usedBytes ${second?.usedBytes}`,
  );
  ac.abort();
  await running;

  const log = recordingLogger();
  const off = new VolumeStatsCache({
    clock,
    logger: log,
    periodMs: 0,
    pods: () => [{ uid: 'u1', volumes: [{ name: 'cache', path: vol }] }],
    measure: measureDirectory,
  });
  await off.run(new AbortController().signal);
  assert.equal(off.get('u1'), undefined);
  assert.ok(log.lines.some((l) => l.msg === 'Volume stats collection disabled'));
  const noVolume = (
    (await new RuntimeStats({
      runtime: oneRunningPod(),
      nodeName: 'n1',
      clock,
      volumes: (uid) => off.get(uid),
    }).summary()) as Summary
  ).pods[0];
  assert.equal(noVolume?.volume, undefined, 'no volume stats when disabled');
});
