// --kernel-memcg-notification on fake cgroup trees: on cgroup v2 a change of the pods' cgroup's
// memory.events (fs.watch) makes the eviction manager observe and evict at once, without waiting
// its 10 s interval (the manual clock never moves); on cgroup v1 the agent says once why it cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { parseThresholds, type Signal } from '../../../../src/agent/eviction/thresholds.js';
import { EvictionManager, type EvictionCandidate } from '../../../../src/agent/eviction/manager.js';
import type { SignalObservation } from '../../../../src/agent/eviction/observer.js';
import {
  parseMemoryEvents,
  startMemcgNotification,
} from '../../../../src/agent/eviction/memcg-notification.js';

const Mi = 1024 * 1024;
const EVENTS = 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n';

async function cgroupTree(t: { after(fn: () => unknown): void }, v2: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'na-memcg-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  if (v2) await writeFile(join(dir, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  await mkdir(join(dir, 'kubepods'));
  if (v2) await writeFile(join(dir, 'kubepods/memory.events'), EVENTS);
  return dir;
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
}

test('--kernel-memcg-notification on cgroup v2: a memory.events change evicts at once, not at the next 10 s observation', async (t) => {
  const fs = await cgroupTree(t, true);
  const clock = new ManualClock();
  const log = recordingLogger();
  const memory = { available: 1000 * Mi, capacity: 4000 * Mi };
  const list: EvictionCandidate[] = [
    {
      uid: '1',
      namespace: 'd',
      name: 'big',
      priority: 0,
      gracePeriodSeconds: 30,
      usage: { memory: 200 * Mi },
    },
  ];
  const evicted: string[] = [];
  const thresholds = parseThresholds({ evictionHard: { 'memory.available': '100Mi' } });
  const m = new EvictionManager({
    thresholds,
    observer: {
      observe: () =>
        Promise.resolve(new Map<Signal, SignalObservation>([['memory.available', { ...memory }]])),
    },
    pods: {
      candidates: () => list.filter((p) => !evicted.includes(p.name)),
      evict: (p) => {
        evicted.push(p.name);
        return Promise.resolve();
      },
    },
    clock,
    logger: log,
    pressureTransitionPeriodMs: 300_000,
    maxPodGracePeriodSeconds: 10,
  });
  const ac = new AbortController();
  const run = m.run(ac.signal);
  t.after(async () => {
    ac.abort();
    await run;
  });
  await startMemcgNotification({
    enabled: true,
    thresholds,
    cgroupFs: fs,
    podsCgroup: '/kubepods',
    onNotify: (r) => m.wake(r),
    logger: log,
    signal: ac.signal,
  });
  assert.ok(
    log.lines.some(
      (l) =>
        l.msg === 'Eviction manager: created memoryThresholdNotifier' &&
        l.fields.notifier === `memory.events of ${join(fs, 'kubepods/memory.events')}`,
    ),
  );
  await clock.waitForSleepers(1);
  memory.available = 50 * Mi;
  assert.deepEqual(evicted, [], 'nothing observed yet: the next pass is 10 s away');
  await writeFile(join(fs, 'kubepods/memory.events'), EVENTS.replace('max 0', 'max 3'));
  await until('the pod evicted on the notification', () => evicted.length === 1);
  assert.deepEqual(evicted, ['big']);
  assert.equal(clock.nowMs(), new ManualClock().nowMs(), 'the clock never moved');
  assert.ok(
    log.lines.some(
      (l) =>
        l.level === 'info' &&
        /^eviction manager: memory\.events of .* changed \(max 0->3\): observing at once$/.test(
          l.msg,
        ),
    ),
  );
});

test('--kernel-memcg-notification on cgroup v1 says once why it cannot (no eventfd in Node.js) and what happens instead; off or without a memory threshold it is quiet or says so', async (t) => {
  const v1 = await cgroupTree(t, false);
  const thresholds = parseThresholds({ evictionHard: { 'memory.available': '100Mi' } });
  const log = recordingLogger();
  const signal = new AbortController().signal;
  await startMemcgNotification({
    enabled: true,
    thresholds,
    cgroupFs: v1,
    podsCgroup: '/kubepods',
    onNotify: () => assert.fail('no notification on v1'),
    logger: log,
    signal,
  });
  assert.deepEqual(
    log.lines.map((l) => [l.level, l.msg]),
    [
      [
        'warn',
        '--kernel-memcg-notification cannot take effect on this host: on cgroup v1 memory threshold notifications need an eventfd registered in cgroup.event_control, and Node.js cannot create an eventfd (no native addon is used); memory eviction thresholds are observed every 10s, as without the option',
      ],
    ],
  );
  const off = recordingLogger();
  await startMemcgNotification({
    enabled: false,
    thresholds,
    cgroupFs: v1,
    podsCgroup: '/kubepods',
    onNotify: () => undefined,
    logger: off,
    signal,
  });
  assert.deepEqual(off.lines, []);
  const v2 = await cgroupTree(t, true);
  const noMemory = recordingLogger();
  await startMemcgNotification({
    enabled: true,
    thresholds: parseThresholds({ evictionHard: { 'nodefs.available': '10%' } }),
    cgroupFs: v2,
    podsCgroup: '/kubepods',
    onNotify: () => undefined,
    logger: noMemory,
    signal,
  });
  assert.deepEqual(
    noMemory.lines.map((l) => l.msg),
    [
      '--kernel-memcg-notification: no memory.available eviction threshold is set, so there is nothing to be notified of',
    ],
  );
  const noPods = recordingLogger();
  await startMemcgNotification({
    enabled: true,
    thresholds,
    cgroupFs: v2,
    podsCgroup: '/platpods',
    onNotify: () => undefined,
    logger: noPods,
    signal,
  });
  assert.match(
    noPods.lines[0]?.msg ?? '',
    /^--kernel-memcg-notification cannot take effect on this host: .*platpods\/memory\.events does not exist \(the pods' cgroup is made with --cgroups-per-qos\); memory eviction/,
  );
});

test('memory.events parsing takes only counter lines, bounded', () => {
  assert.deepEqual(
    [...parseMemoryEvents('low 1\nhigh 22\nbogus\nmax x\n oom 3 \n')],
    [
      ['low', 1],
      ['high', 22],
      ['oom', 3],
    ],
  );
  assert.equal(parseMemoryEvents(`${'a'.repeat(10_000)} 1\nlow 1`).size, 0);
});
