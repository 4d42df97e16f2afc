import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { reportPods } from '../../../../src/agent/node/pod-reporting.js';
import type { Pod, PodStatus } from '../../../../src/agent/pod/types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const pod = (name: string): Pod =>
  ({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'c', image: 'img' }] },
  }) as unknown as Pod;
const running = (startMs: number, startedAtMs: number): PodStatus =>
  ({
    phase: 'Running',
    conditions: [],
    startTime: iso(startMs),
    containerStatuses: [
      {
        name: 'c',
        state: { running: { startedAt: iso(startedAtMs) } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: 'img',
        imageID: 'sha',
        containerID: 'process://1',
      },
    ],
  }) as unknown as PodStatus;

test('pods already running are reported once, adopted ones not; start latency from startTime to the last container start', async () => {
  const clock = new ManualClock(T0 + 60_000);
  const listeners: ((p: Pod, s: PodStatus) => void)[] = [];
  const existing = [
    { pod: pod('fresh'), status: running(T0 + 10_000, T0 + 12_500) }, // started by this process
    { pod: pod('adopted'), status: running(T0 - 3_600_000, T0 - 3_590_000) }, // before this process
  ];
  const events: string[] = [];
  const registry = new Registry();
  const hist = new Histogram({
    name: 'h',
    help: 'h',
    buckets: [1, 2, 3, 5],
    registers: [registry],
  });
  reportPods({
    statuses: {
      entriesList: () => existing,
      onChange: (l) => listeners.push(l),
    },
    events: { event: (o, _t, reason) => events.push(`${o.name}/${reason}`) },
    podStartDuration: hist,
    clock,
    processStartMs: T0,
  });
  assert.deepEqual(events, ['fresh/Created', 'fresh/Started']);
  const h = await registry.getSingleMetricAsString('h');
  assert.match(h, /h_count 1/);
  assert.match(h, /h_sum 2.5/);
  // The adopted pod's later changes are reported.
  listeners[0]!(pod('adopted'), {
    ...running(T0 - 3_600_000, T0 - 3_590_000),
    containerStatuses: [
      {
        ...running(0, 0).containerStatuses[0]!,
        containerID: 'process://1',
        state: { waiting: { reason: 'CrashLoopBackOff' } },
      },
    ],
  } as PodStatus);
  assert.deepEqual(events.slice(2), ['adopted/BackOff']);
});
