// What the file-only fields give the parts that act on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { fileFieldSettings } from '../../../../src/agent/config/file-field-effects.js';
import { Backoff } from '../../../../src/agent/worker/backoff.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

test('crashLoopBackOff.maxContainerRestartPeriod caps the container restart back-off (10 s doubling, 300 s by default)', () => {
  const clock = new ManualClock();
  const delays = (b: Backoff): number[] =>
    Array.from({ length: 7 }, () => (b.next('c'), b.delayMs('c')));
  const byDefault = new Backoff({
    clock,
    ...fileFieldSettings(defaultConfiguration('file')).restartBackoff,
  });
  // the reference: 10s, 20s, 40s, 80s, 160s, 300s, 300s
  assert.deepEqual(delays(byDefault), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  const c = defaultConfiguration('file');
  c.featureGates = { PlatletCrashLoopBackOffMax: true };
  c.crashLoopBackOff.maxContainerRestartPeriod = '30s';
  assert.deepEqual(
    delays(new Backoff({ clock, ...fileFieldSettings(c).restartBackoff })),
    [10_000, 20_000, 30_000, 30_000, 30_000, 30_000, 30_000],
  );
  c.crashLoopBackOff.maxContainerRestartPeriod = '2s';
  assert.deepEqual(
    fileFieldSettings(c).restartBackoff,
    { initialMs: 2000, maxMs: 2000 },
    'a cap below 10 s lowers the first delay too',
  );
});

test('maxParallelImagePulls reaches the runtime only with serializeImagePulls false; the log loop gets the interval and workers', () => {
  const c = defaultConfiguration('file');
  c.maxParallelImagePulls = 3;
  assert.equal(
    fileFieldSettings(c).maxParallelImagePulls,
    undefined,
    'serialized pulls: one at a time whatever the limit',
  );
  c.serializeImagePulls = false;
  assert.equal(fileFieldSettings(c).maxParallelImagePulls, 3);
  c.containerLogMonitorInterval = '1m0s';
  c.containerLogMaxWorkers = 4;
  c.imageMaximumGCAge = '168h0m0s';
  const s = fileFieldSettings(c);
  assert.equal(s.logRotateIntervalMs, 60_000);
  assert.equal(s.logRotateWorkers, 4);
  assert.equal(s.imageMaxAgeMs, 168 * 3_600_000);
});
