import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { parseThresholds, type Signal } from '../../../../src/agent/eviction/thresholds.js';
import { EvictionManager, type EvictionCandidate } from '../../../../src/agent/eviction/manager.js';
import {
  HostSignalObserver,
  parseMeminfo,
  type SignalObservation,
} from '../../../../src/agent/eviction/observer.js';
import { ConfigError } from '../../../../src/common/util/errors.js';

const Mi = 1024 * 1024;

test('thresholds parse quantities and percentages and cross-check soft grace periods', () => {
  const t = parseThresholds({
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '10%',
      'pid.available': '<5%',
    },
    evictionSoft: { 'memory.available': '300Mi' },
    evictionSoftGracePeriod: { 'memory.available': '1m30s' },
    evictionMinimumReclaim: { 'memory.available': '50Mi' },
  });
  assert.deepEqual(
    t.find((x) => x.hard && x.signal === 'memory.available'),
    {
      signal: 'memory.available',
      value: { quantity: 100 * Mi },
      hard: true,
      gracePeriodMs: 0,
      minReclaim: { quantity: 50 * Mi },
    },
  );
  assert.deepEqual(t.find((x) => x.signal === 'nodefs.available')?.value, {
    percentage: Math.fround(0.1),
  });
  assert.deepEqual(t.find((x) => x.signal === 'pid.available')?.value, {
    percentage: Math.fround(0.05),
  });
  assert.equal(t.find((x) => !x.hard)?.gracePeriodMs, 90_000);
  assert.throws(
    () =>
      parseThresholds({
        evictionHard: { 'memory.free': '1', 'nodefs.available': '120%' },
        evictionSoft: { 'memory.available': '1Gi' },
        evictionSoftGracePeriod: { 'pid.available': 'soon' },
      }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.problems.length === 4 &&
      /unknown eviction signal "memory.free"/.test(e.message) &&
      /needs a grace period/.test(e.message),
  );
});

function scripted(values: Partial<Record<Signal, SignalObservation>>): {
  observe(): Promise<Map<Signal, SignalObservation>>;
  set(s: Signal, available: number): void;
} {
  const m = new Map(Object.entries(values) as [Signal, SignalObservation][]);
  return {
    observe: () => Promise.resolve(new Map(m)),
    set: (s, available) => m.set(s, { available, capacity: m.get(s)?.capacity ?? 0 }),
  };
}

function pods(): {
  list: EvictionCandidate[];
  evicted: { name: string; grace: number }[];
  candidates(): EvictionCandidate[];
  evict(p: EvictionCandidate, o: { gracePeriodSeconds: number }): Promise<void>;
} {
  const list: EvictionCandidate[] = [
    {
      uid: '1',
      namespace: 'd',
      name: 'high',
      priority: 1000,
      gracePeriodSeconds: 30,
      usage: { memory: 500 * Mi },
    },
    {
      uid: '2',
      namespace: 'd',
      name: 'low-small',
      priority: 0,
      gracePeriodSeconds: 30,
      usage: { memory: 10 * Mi },
    },
    {
      uid: '3',
      namespace: 'd',
      name: 'low-big',
      priority: 0,
      gracePeriodSeconds: 30,
      usage: { memory: 200 * Mi },
    },
    {
      uid: '4',
      namespace: 'kube',
      name: 'critical',
      priority: -5,
      gracePeriodSeconds: 30,
      critical: true,
    },
  ];
  const evicted: { name: string; grace: number }[] = [];
  return {
    list,
    evicted,
    candidates: () => list.filter((p) => !evicted.some((e) => e.name === p.name)),
    evict: (p, o) => {
      evicted.push({ name: p.name, grace: o.gracePeriodSeconds });
      return Promise.resolve();
    },
  };
}

test('a hard threshold evicts the lowest priority, largest user first; pressure holds for the transition period', async () => {
  const clock = new ManualClock();
  const obs = scripted({ 'memory.available': { available: 1000 * Mi, capacity: 4000 * Mi } });
  const p = pods();
  const events: string[] = [];
  const m = new EvictionManager({
    thresholds: parseThresholds({
      evictionHard: { 'memory.available': '100Mi' },
      evictionMinimumReclaim: { 'memory.available': '100Mi' },
    }),
    observer: obs,
    pods: p,
    clock,
    logger: silentLogger(),
    pressureTransitionPeriodMs: 300_000,
    maxPodGracePeriodSeconds: 10,
    events: { event: (_o, _t, reason) => events.push(reason) },
    nodeName: 'n1',
  });
  assert.equal(await m.synchronize(), undefined);
  assert.equal(m.conditions().size, 0);
  obs.set('memory.available', 50 * Mi);
  assert.equal((await m.synchronize())?.name, 'low-big');
  assert.deepEqual(p.evicted, [{ name: 'low-big', grace: 1 }]);
  assert.ok(m.conditions().has('MemoryPressure'));
  assert.deepEqual(events, ['EvictionThresholdMet', 'Evicted']);
  // Above the threshold but within the minimum reclaim: still met, next victim.
  obs.set('memory.available', 150 * Mi);
  clock.advance(10_000);
  assert.equal((await m.synchronize())?.name, 'low-small');
  obs.set('memory.available', 900 * Mi);
  clock.advance(10_000);
  assert.equal(await m.synchronize(), undefined);
  clock.advance(289_999);
  assert.ok(m.conditions().has('MemoryPressure'), 'pressure kept during the transition period');
  clock.advance(1);
  assert.equal(m.conditions().size, 0);
  // Only critical pods would be left: nobody is evicted.
  p.evicted.push({ name: 'high', grace: 0 });
  obs.set('memory.available', 10 * Mi);
  assert.equal(await m.synchronize(), undefined);
});

test('a soft threshold waits for its grace period and caps the pod grace period', async () => {
  const clock = new ManualClock();
  const obs = scripted({ 'nodefs.available': { available: 5, capacity: 100 } });
  const p = pods();
  const m = new EvictionManager({
    thresholds: parseThresholds({
      evictionSoft: { 'nodefs.available': '10%' },
      evictionSoftGracePeriod: { 'nodefs.available': '1m' },
    }),
    observer: obs,
    pods: p,
    clock,
    logger: silentLogger(),
    pressureTransitionPeriodMs: 0,
    maxPodGracePeriodSeconds: 10,
  });
  assert.equal(await m.synchronize(), undefined);
  clock.advance(59_999);
  assert.equal(await m.synchronize(), undefined);
  clock.advance(1);
  assert.equal((await m.synchronize())?.name, 'low-small');
  assert.equal(p.evicted[0]?.grace, 10);
});

test('the host observer reads meminfo, statfs of the root dir and pids', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-evict-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'proc/sys/kernel'), { recursive: true });
  await mkdir(join(dir, 'proc/1'));
  await mkdir(join(dir, 'proc/22'));
  await writeFile(
    join(dir, 'proc/meminfo'),
    'MemTotal:        2048 kB\nMemFree:  100 kB\nMemAvailable:     1024 kB\n',
  );
  await writeFile(join(dir, 'proc/sys/kernel/pid_max'), '100\n');
  const obs = await new HostSignalObserver({ rootDir: dir, procDir: join(dir, 'proc') }).observe();
  assert.deepEqual(obs.get('memory.available'), { available: 1024 * 1024, capacity: 2048 * 1024 });
  assert.deepEqual(obs.get('pid.available'), { available: 98, capacity: 100 });
  assert.ok((obs.get('nodefs.available')?.capacity ?? 0) > 0);
  assert.deepEqual(
    obs.get('imagefs.available'),
    obs.get('nodefs.available'),
    'no image file system of its own: imagefs = nodefs',
  );
  assert.equal(parseMeminfo('nothing'), undefined);
  // The runtime's image file system (Docker: its root dir), not the agent's root dir.
  const docker = await new HostSignalObserver({
    rootDir: dir,
    procDir: join(dir, 'proc'),
    imageFs: () =>
      Promise.resolve({ capacityBytes: 1000, usedBytes: 900, inodes: 50, inodesFree: 5 }),
  }).observe();
  assert.deepEqual(docker.get('imagefs.available'), { available: 100, capacity: 1000 });
  assert.deepEqual(docker.get('imagefs.inodesFree'), { available: 5, capacity: 50 });
  assert.deepEqual(docker.get('containerfs.available'), { available: 100, capacity: 1000 });
  assert.notDeepEqual(docker.get('nodefs.available'), docker.get('imagefs.available'));
});
