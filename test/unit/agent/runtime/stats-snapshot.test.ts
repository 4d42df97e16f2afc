import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StatsFailureNote,
  statsSnapshot,
  podWorkingSet,
} from '../../../../src/agent/runtime/stats-snapshot.js';
import type {
  ContainerRuntime,
  ContainerStats,
  RuntimeContainer,
} from '../../../../src/agent/runtime/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

const running = (id: string, podUid = 'p1'): RuntimeContainer => ({
  id,
  podUid,
  podName: 'p',
  podNamespace: 'ns',
  name: id,
  kind: 'app',
  attempt: 0,
  specHash: '',
  image: 'busybox',
  imageId: '',
  state: 'running',
  createdAtMs: 0,
});
const mem = (memoryWorkingSetBytes: number): ContainerStats =>
  ({ memoryWorkingSetBytes }) as ContainerStats;

/** A runtime whose per-container stats fail while `broken` says so (no listStats). */
function oneByOneRuntime(state: { broken: boolean }): ContainerRuntime {
  return {
    stats: async (id: string) => {
      if (state.broken) throw new Error(`stats of ${id}: connection refused`);
      return mem(id === 'a' ? 100 : 50);
    },
  } as unknown as ContainerRuntime;
}

test('a failed stats read is said once, with the error and the reader, and again after it worked', async () => {
  const logger = recordingLogger();
  const note = new StatsFailureNote(logger, 'the eviction manager');
  const state = { broken: true };
  const rt = oneByOneRuntime(state);
  const all = [running('a'), running('b')];
  const s1 = await statsSnapshot(rt, all, note);
  assert.equal(s1.container('a'), undefined, 'no figures from a failed read');
  await statsSnapshot(rt, all, note);
  const warned = () => logger.lines.filter((l) => l.level === 'warn');
  assert.equal(warned().length, 1, 'said once while it keeps failing');
  assert.equal(warned()[0]?.fields['err'], 'stats of a: connection refused');
  assert.equal(warned()[0]?.fields['reader'], 'the eviction manager');
  assert.match(warned()[0]?.msg ?? '', /the eviction manager goes on without them/);
  state.broken = false;
  const s2 = await statsSnapshot(rt, all, note);
  assert.equal(podWorkingSet(s2, 'p1', all), 150);
  assert.ok(logger.lines.some((l) => l.msg === 'container stats can be read again'));
  state.broken = true;
  await statsSnapshot(rt, all, note);
  assert.equal(warned().length, 2, 'a new failure after a good read is said again');
});

test('a runtime whose list call fails falls back to asking container by container, and says so', async () => {
  const logger = recordingLogger();
  const note = new StatsFailureNote(logger, '/stats/summary');
  const rt = {
    ...oneByOneRuntime({ broken: false }),
    listStats: () => Promise.reject(new Error('ListContainerStats: deadline exceeded')),
  } as unknown as ContainerRuntime;
  const s = await statsSnapshot(rt, [running('a')], note);
  assert.equal(s.container('a')?.memoryWorkingSetBytes, 100);
  assert.equal(
    logger.lines.find((l) => l.level === 'warn')?.fields['err'],
    'ListContainerStats: deadline exceeded',
  );
});
