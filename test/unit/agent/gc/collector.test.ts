import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GarbageCollector, type GcOptions } from '../../../../src/agent/gc/collector.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { FakeRuntime } from '../worker/fake-runtime.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

function gc(
  runtime: FakeRuntime,
  clock: ManualClock,
  over: Partial<GcOptions> = {},
): GarbageCollector {
  return new GarbageCollector({
    runtime,
    images: runtime,
    isPodActive: () => true,
    inUseImages: () => new Set(),
    maxDeadContainers: -1,
    maxDeadPerContainer: 1,
    minContainerAgeMs: 0,
    imageHighThresholdPercent: 85,
    imageLowThresholdPercent: 80,
    imageMinAgeMs: 120_000,
    containerLogMaxSize: '10Mi',
    containerLogMaxFiles: 5,
    clock,
    logger: recordingLogger(),
    ...over,
  });
}

async function deadInstances(
  rt: FakeRuntime,
  clock: ManualClock,
  uid: string,
  name: string,
  n: number,
): Promise<string[]> {
  const pod: Pod = {
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: [{ name }] },
  };
  const sb = await rt.runPodSandbox({ pod, attempt: 0 });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await rt.createContainer({
      pod,
      container: { name },
      kind: 'app',
      attempt: i,
      specHash: 'h',
      sandboxId: sb,
      volumePaths: {},
    });
    await rt.startContainer(id);
    clock.advance(1000);
    rt.exit(id, 1);
    ids.push(id);
  }
  return ids;
}

test('dead containers: per-container limit, minimum age, global limit, newest instance of an active pod kept', async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const a = await deadInstances(rt, clock, 'pa', 'x', 4);
  const b = await deadInstances(rt, clock, 'pb', 'y', 3);
  // too young: nothing removed
  assert.deepEqual(await gc(rt, clock, { minContainerAgeMs: 60_000 }).collectContainers(), []);
  clock.advance(60_000);
  const removed = await gc(rt, clock, { minContainerAgeMs: 60_000 }).collectContainers();
  assert.deepEqual(
    removed.sort(),
    [...a.slice(0, 3), ...b.slice(0, 2)].sort(),
    'one dead instance kept per container',
  );
  // global limit 1: the newest instance of an active pod's container is never removed
  assert.deepEqual(await gc(rt, clock, { maxDeadContainers: 1 }).collectContainers(), []);
  // pods that are gone lose everything, stopped sandboxes included
  for (const c of rt.containers.values())
    if (c.podUid === 'pb' && c.kind === 'sandbox') await rt.stopPodSandbox(c.id);
  const gone = await gc(rt, clock, { isPodActive: (uid) => uid !== 'pb' }).collectContainers();
  assert.ok(gone.includes(b[2] as string));
  assert.ok(![...rt.containers.values()].some((c) => c.podUid === 'pb'));
});

test('images: removed oldest first above the high threshold down to the low one, in-use and young images kept', async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const gib = 1024 ** 3;
  rt.images.set('old', { id: 'old', tags: ['old:1'], sizeBytes: 5 * gib, createdAtMs: 1 });
  rt.images.set('older', { id: 'older', tags: ['older:1'], sizeBytes: 5 * gib, createdAtMs: 0 });
  rt.images.set('used', { id: 'used', tags: ['used:1'], sizeBytes: 50 * gib, createdAtMs: 0 });
  rt.images.set('mid', { id: 'mid', tags: ['mid:1'], sizeBytes: 5 * gib, createdAtMs: 2 });
  rt.fsInfo = { capacityBytes: 100 * gib, usedBytes: 90 * gib };
  const c = gc(rt, clock, { inUseImages: () => new Set(['used:1']) });
  assert.deepEqual(await c.collectImages(), [], 'images younger than the minimum age stay');
  clock.advance(120_000);
  assert.deepEqual(
    await c.collectImages(),
    ['older', 'old'],
    'frees 10 GiB: from 90% to the 80% low threshold',
  );
  assert.ok(rt.images.has('used') && rt.images.has('mid'));
  rt.fsInfo = { capacityBytes: 100 * gib, usedBytes: 84 * gib };
  assert.deepEqual(await c.collectImages(), [], 'below the high threshold nothing happens');
});

test('log rotation: over the size limit the log is copied to .1 (older ones shift) and truncated', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-gc-logs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const log = join(dir, 'c.log');
  Object.assign(rt, { logPath: () => log });
  await deadInstances(rt, clock, 'p', 'c', 1);
  const c = gc(rt, clock, { containerLogMaxSize: '1Ki', containerLogMaxFiles: 3 });
  for (let i = 1; i <= 4; i++) {
    await writeFile(log, `round ${i}\n`.padEnd(2000, 'x'));
    assert.equal(await c.rotateLogs(), 1);
  }
  assert.equal((await stat(log)).size, 0);
  assert.match(await readFile(`${log}.1`, 'utf8'), /^round 4/);
  assert.match(await readFile(`${log}.2`, 'utf8'), /^round 3/);
  await assert.rejects(stat(`${log}.3`), 'at most 3 files: the current one and two rotated');
  await writeFile(log, 'small');
  assert.equal(await c.rotateLogs(), 0);
});

test('imageMaximumGCAge: an image unused for longer is removed whatever the disk usage; one in use is kept', async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  rt.images.set('stale', { id: 'stale', tags: ['stale:1'], sizeBytes: 1, createdAtMs: 0 });
  rt.images.set('used', { id: 'used', tags: ['used:1'], sizeBytes: 1, createdAtMs: 0 });
  // 1% used: the disk-usage pass alone would never remove anything
  rt.fsInfo = { capacityBytes: 100, usedBytes: 1 };
  const c = gc(rt, clock, { imageMaxAgeMs: 3_600_000, inUseImages: () => new Set(['used:1']) });
  assert.deepEqual(await c.collectImages(), [], 'first seen now: not old yet');
  clock.advance(3_600_000);
  assert.deepEqual(await c.collectImages(), [], 'exactly the maximum age is not older than it');
  clock.advance(1);
  assert.deepEqual(await c.collectImages(), ['stale']);
  assert.ok(rt.images.has('used'), 'an image in use has a fresh last-used time');
  const off = gc(rt, clock, { imageMaxAgeMs: 0 });
  clock.advance(10 * 3_600_000);
  assert.deepEqual(await off.collectImages(), [], 'imageMaximumGCAge 0s: no age-based removal');
});

test('containerLogMonitorInterval sets how often logs are checked; containerLogMaxWorkers how many rotate at once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'na-gc-logs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const ids = [
    ...(await deadInstances(rt, clock, 'p1', 'a', 1)),
    ...(await deadInstances(rt, clock, 'p2', 'b', 1)),
    ...(await deadInstances(rt, clock, 'p3', 'c', 1)),
  ];
  const files = new Map(ids.map((id, i) => [id, join(dir, `${i}.log`)]));
  Object.assign(rt, { logPath: (id: string) => files.get(id) });
  for (const f of files.values()) await writeFile(f, 'x'.repeat(2000));
  const c = gc(rt, clock, {
    containerLogMaxSize: '1Ki',
    logRotateIntervalMs: 3000,
    logRotateWorkers: 2,
    containerGcIntervalMs: 3_600_000,
    imageGcIntervalMs: 3_600_000,
  });
  const ac = new AbortController();
  c.start(ac.signal);
  t.after(async () => {
    ac.abort();
    await c.stopped();
  });
  await clock.waitForSleepers(3);
  clock.advance(2999);
  for (const f of files.values())
    assert.equal((await stat(f)).size, 2000, 'before the interval nothing is rotated');
  clock.advance(1);
  // the loop runs and sleeps again once its pass is done
  await clock.waitForSleepers(3);
  for (const f of files.values())
    assert.equal((await stat(f)).size, 0, `${f} rotated at the 3 s interval`);
  // two workers: with three files over the limit, at most two are handled at once
  let inFlight = 0;
  let most = 0;
  const rotation = c['rotation'];
  const real = rotation['rotateOne'].bind(rotation);
  Object.assign(rotation, {
    rotateOne: async (...a: Parameters<typeof real>) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setImmediate(r));
      try {
        return await real(...a);
      } finally {
        inFlight--;
      }
    },
  });
  for (const f of files.values()) await writeFile(f, 'x'.repeat(2000));
  assert.equal(await c.rotateLogs(), 3);
  assert.equal(most, 2);
});
